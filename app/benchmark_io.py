"""Export and import benchmark files (reasonscope-benchmark/1, JSON Lines)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from annotation.benchmark_format import FormatError, question_record, validate
from store import ProjectError, open_project


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


def export_benchmark(
    db: str | os.PathLike[str], out: str | os.PathLike[str], *, status: str = "approved"
) -> int:
    """Write current question versions (all, or only approved/corrected ones) with their scenes."""
    out = Path(out)
    if out.is_dir() or not out.parent.exists():
        raise ProjectError(f"{out}: not a writable file path")
    with open_project(db, readonly=not os.access(db, os.W_OK)) as project:
        wanted = None if status == "any" else {"approved", "corrected"}
        lines, after = [], None
        while True:
            page = project.questions.page(after=after, limit=500)
            for q in page.rows:
                if wanted is not None and q.status not in wanted:
                    continue
                scene = _scene_object(project.scenes.get(q.scene_id)) if q.scene_id else None
                lines.append(json.dumps(question_record(q, scene, {"status": q.status})))
            if page.next_cursor is None:
                break
            after = page.next_cursor
    partial = out.with_name(out.name + ".partial")
    partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(partial, out)
    return len(lines)


def import_benchmark(db: str | os.PathLike[str], source: str | os.PathLike[str]) -> int:
    """Read a benchmark file into the project in one transaction: every line or none."""
    source = Path(source)
    if not source.is_file():
        raise ProjectError(f"{source}: no such file")
    records = []
    try:
        raw = source.read_bytes().decode("utf-8")
    except UnicodeDecodeError as exc:
        line = source.read_bytes()[: exc.start].count(b"\n") + 1
        raise ProjectError(f"{source}:{line}: not UTF-8 text (is it a benchmark file?)") from None
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(validate(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ProjectError(f"{source}:{number}: not JSON ({exc.msg})") from None
        except FormatError as exc:
            raise ProjectError(f"{source}:{number}: {exc}") from None
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
                    }
                )
    return len(records)
