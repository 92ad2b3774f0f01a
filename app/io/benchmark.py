"""Export and import benchmark files (reasonscope-benchmark/1, JSON Lines)."""

from __future__ import annotations

import json
import os

from annotation.formats.benchmark import FormatError, question_record, validate
from app.io.jsonl import read_records, write_lines
from app.io.scene_check import check_scenes
from store import ProjectError, open_for_reading, open_project


def _scene_object(scene) -> dict:
    record = scene.export_record()
    return {
        "camera": record["camera"],
        "bodies": record["bodies"],
        "seed": scene.seed,
        "name": scene.name,
        "table_texture": record["table_texture"],
        "state": scene.state,
    }


def selected_questions(project, *, status: str = "approved", tag: str | None = None):
    """(question, scene object, sequence name) of each current question to export, page by
    page (all, or only approved/corrected ones; with `tag`, only those carrying it)."""
    wanted = None if status == "any" else {"approved", "corrected"}
    sequences = {s.id: s.name for s in project.sequences.list()}
    after = None
    while True:
        page = project.questions.page(after=after, limit=500)
        for q in page.rows:
            if wanted is not None and q.status not in wanted:
                continue
            if tag is not None and tag not in question_tags(q):
                continue
            scene = _scene_object(project.scenes.get(q.scene_id)) if q.scene_id else None
            yield q, scene, sequences.get(q.sequence_id)
        if page.next_cursor is None:
            return
        after = page.next_cursor


def export_benchmark(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    status: str = "approved",
    tag: str | None = None,
) -> int:
    """Write current question versions (all, or only approved/corrected ones) with their
    scenes; with `tag`, only questions carrying it (`criteria.tags`, e.g. "hard")."""
    with open_for_reading(db) as project:
        lines = [
            json.dumps(question_record(q, scene, {"status": q.status}, sequence))
            for q, scene, sequence in selected_questions(project, status=status, tag=tag)
        ]
    write_lines(out, lines)
    return len(lines)


def question_tags(question) -> list[str]:
    """A question's tags: "authored" and the author's (`questions add --tag`)."""
    tags = (question.criteria or {}).get("tags") if isinstance(question.criteria, dict) else None
    return [t for t in tags if isinstance(t, str)] if isinstance(tags, list) else []


def _sequence_id(project, name) -> int | None:
    """The row id of the named JRDB sequence, when the project has it."""
    found = project.sequences.find(name) if isinstance(name, str) else None
    return found.id if found else None


def import_benchmark(db: str | os.PathLike[str], source: str | os.PathLike[str]) -> int:
    """Read a benchmark file into the project in one transaction: every line or none."""
    records = read_records(source, validate, (FormatError,), "a benchmark file")
    return store_records(db, records, source)


def store_records(db: str | os.PathLike[str], records: list[dict], source) -> int:
    """Store validated benchmark records, scenes first, in one transaction; each scene is
    restored once before (`app.io.scene_check`)."""
    check_scenes(records, source)
    with open_project(db) as project:
        with project.write():
            for number, r in enumerate(records, start=1):
                if project.questions.versions(r["id"]):
                    raise ProjectError(f"{source}:{number}: question {r['id']} is already in {db}")
                scene_id = None
                if r["scene"] is not None:
                    s = r["scene"]
                    scene_id = project.scenes.add(
                        {
                            "name": s.get("name") or f"imported scene of {r['id']}",
                            "benchmark": r["benchmark"],
                            "seed": s.get("seed"),
                            "generator": "import",
                            "camera": s["camera"],
                            "state": s.get("state") or {"table_texture": s.get("table_texture")},
                            "bodies": s["bodies"],
                        }
                    )
                project.questions.add(
                    {
                        "uid": r["id"],
                        "version": r["version"],
                        "benchmark": r["benchmark"],
                        "task": r["task"],
                        "text": r["question"],
                        "options": r.get("options"),
                        "answer": r["answer"],
                        "evidence_ids": r["evidence_ids"],
                        "steps": r["steps"],
                        "difficulty": r["difficulty"] or None,
                        "criteria": r["criteria"],
                        "status": r["verification"].get("status", "pending"),
                        "seed": r.get("seed"),
                        "scene_id": scene_id,
                        "sequence_id": _sequence_id(project, r.get("sequence")),
                    }
                )
    return len(records)
