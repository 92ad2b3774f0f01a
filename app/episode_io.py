"""Export and import episodes (reasonscope-episode/1, JSON Lines, one episode a line)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from annotation.episode_format import EpisodeFormatError, episode_record, validate_episode
from store import ProjectError, open_project

FORMATS = ("reasonscope",)


def export_episodes(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    out = Path(out)
    if out.is_dir() or not out.parent.exists():
        raise ProjectError(f"{out}: not a writable file path")
    with open_project(db, readonly=not os.access(db, os.W_OK)) as project:
        lines = [
            json.dumps(episode_record(project.episodes.get(i), project.episodes.steps(i)))
            for i in project.episodes.ids()
        ]
    partial = out.with_name(out.name + ".partial")
    partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(partial, out)
    return len(lines)


def import_episodes(
    db: str | os.PathLike[str], source: str | os.PathLike[str], fmt: str = "reasonscope"
) -> tuple[int, int]:
    """Read episodes in one transaction; return (episodes, format-error steps recorded)."""
    if fmt not in FORMATS:
        raise ProjectError(f"--format {fmt}: known formats are {', '.join(FORMATS)}")
    source = Path(source)
    if not source.is_file():
        raise ProjectError(f"{source}: no such file")
    try:
        text = source.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ProjectError(f"{source}: not UTF-8 text (is it an episode file?)") from None
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            records.append(validate_episode(json.loads(line)))
        except json.JSONDecodeError as exc:
            raise ProjectError(f"{source}:{number}: not JSON ({exc.msg})") from None
        except EpisodeFormatError as exc:
            raise ProjectError(f"{source}:{number}: {exc}") from None
    format_errors = 0
    with open_project(db) as project, project.write():
        for number, r in enumerate(records, start=1):
            if project.episodes.find(r["id"]) is not None:
                raise ProjectError(f"{source}:{number}: episode {r['id']} is already in {db}")
            header = {
                k: r.get(k)
                for k in (
                    "benchmark",
                    "model",
                    "agent",
                    "mode",
                    "task",
                    "outcome",
                    "success",
                    "score",
                    "prompt_variant",
                    "question",
                    "scene",
                )
            }
            header = {k: v for k, v in header.items() if v is not None}
            header["uid"] = r["id"]
            project.episodes.add(header, r["steps"], source=str(source))
            format_errors += sum(1 for s in r["steps"] if s["kind"] == "format_error")
    return len(records), format_errors
