"""Export and import episodes: reasonscope-episode/1 JSON Lines, or MG-VQA-style transcripts."""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from annotation.formats import json_text
from annotation.formats.episode import (
    HEADER_FIELDS,
    LINE_FIELDS,
    EpisodeFormatError,
    episode_record,
    step_images,
    validate_episode,
)
from annotation.formats.mgvqa_transcript import TranscriptError, transcript_records
from app.io.bimanual.common import image_size
from app.io.jsonl import iter_records, write_lines
from store import Project, ProjectError, open_for_reading, open_project

FORMATS = ("reasonscope", "mgvqa", "bimanibench", "embodiedbench")


def export_episodes(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Every episode as one reasonscope-episode/1 line, with the images its steps show;
    each line is written as it is made, so memory does not grow with the project."""
    with open_for_reading(db) as project:
        ids = project.episodes.ids()

        def lines() -> Iterator[str]:
            for i in ids:
                episode, steps = project.episodes.get(i), project.episodes.steps(i)
                shas = step_images(episode.header, steps)
                images = {sha: project.images.get(sha) for sha in shas}
                yield json.dumps(episode_record(episode, steps, images))

        write_lines(out, lines())
    return len(ids)


def read_transcripts(source: str | os.PathLike[str]) -> list[tuple[str, dict]]:
    """(where, record) for an MG-VQA transcript file, or every *.json file of a folder.

    Everything is read and checked first; a bad file raises `FILE: problem naming the key`.
    """
    source = Path(source)
    if source.is_dir():
        files = sorted(p for p in source.glob("*.json") if p.is_file())
        if not files:
            raise ProjectError(f"{source}: no *.json transcript files in this folder")
    elif source.is_file():
        files = [source]
    else:
        raise ProjectError(f"{source}: no such file or folder")
    out: list[tuple[str, dict]] = []
    for path in files:
        try:
            data = json_text.loads(path.read_bytes().decode("utf-8"), finite=True)
        except UnicodeDecodeError:
            raise ProjectError(f"{path}: not UTF-8 text (is it a transcript?)") from None
        except json.JSONDecodeError as exc:
            raise ProjectError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
        try:
            records = transcript_records(data)
        except TranscriptError as exc:
            raise ProjectError(f"{path}: {exc}") from None
        many = isinstance(data, list)
        out += [(f"{path}[{i}]" if many else str(path), r) for i, r in enumerate(records)]
    return out


def import_episodes(
    db: str | os.PathLike[str],
    source: str | os.PathLike[str],
    fmt: str = "reasonscope",
    *,
    model: str | None = None,
    pose_order: str = "xyz_wxyz",
) -> tuple[int, int]:
    """Read episodes in one transaction; return (episodes, format-error steps recorded).

    A reasonscope-episode/1 file is streamed: each line is read, checked and stored in
    turn inside the one transaction, so memory stays flat as the file grows, and a bad
    line (`FILE:LINE: problem`) rolls back every line before it.

    `fmt` is "reasonscope" (a reasonscope-episode/1 file), "mgvqa" (a transcript
    file or a folder of them, docs/mgvqa-transcripts.md), or "bimanibench" /
    "embodiedbench" (bimanual evaluation folders, docs/bimanual-logs.md; `model`
    and `pose_order` apply to these).
    """
    if fmt not in FORMATS:
        raise ProjectError(f"--format {fmt}: known formats are {', '.join(FORMATS)}")
    if fmt in ("bimanibench", "embodiedbench"):
        from app.io.bimanual import import_bimanual

        return import_bimanual(db, source, fmt, model=model, pose_order=pose_order)
    if fmt == "mgvqa":
        located: Iterable[tuple[str, dict]] = read_transcripts(source)
    else:  # streamed: each line is read, checked and stored before the next is read
        if not Path(source).is_file():
            raise ProjectError(f"{source}: no such file")
        located = (
            (f"{source}:{number}", record)
            for number, record in iter_records(
                source, validate_episode, (EpisodeFormatError,), "an episode file"
            )
        )
    episodes = format_errors = 0
    with open_project(db) as project, project.write():
        for where, r in located:
            format_errors += store_episode_record(project, r, where=where, db=db, source=source)
            episodes += 1
    return episodes, format_errors


def store_episode_record(
    project: Project, r: dict, *, where: str, db: object = "the project", source: object = ""
) -> int:
    """Store one record `validate_episode` returned, in the caller's transaction (or its
    own); return how many of its steps are format errors. A problem raises
    `WHERE: problem`: an id already in the project, a step's image found nowhere."""
    if project.episodes.find(r["id"]) is not None:
        raise ProjectError(f"{where}: episode {r['id']} is already in {db}")
    header = {k: v for k, v in (r.get("extra") or {}).items() if k not in HEADER_FIELDS}
    header.update({k: r[k] for k in LINE_FIELDS if r.get(k) not in (None, "")})
    header["uid"] = r["id"]
    images = r.get("images") or {}
    for sha, (mime, data) in images.items():
        if not project.images.has(sha):  # shared views: measured and stored once
            project.images.put(data, mime, *image_size(data))
    for n, step in enumerate(r["steps"]):
        sha = step.get("image_sha256")
        if sha and sha not in images and not project.images.has(sha):
            raise ProjectError(
                f"{where}: step {n} shows image {sha[:12]}, which "
                "is neither in the file's images nor in the project"
            )
    project.episodes.add(header, r["steps"], source=str(source))
    return sum(1 for s in r["steps"] if s["kind"] == "format_error")
