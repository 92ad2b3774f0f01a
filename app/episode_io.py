"""Export and import episodes (reasonscope-episode/1, JSON Lines, one episode a line)."""

from __future__ import annotations

import json
import os

from annotation.episode_format import EpisodeFormatError, episode_record, validate_episode
from app.jsonl import read_records, write_lines
from store import ProjectError, open_for_reading, open_project

FORMATS = ("reasonscope",)


def export_episodes(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    with open_for_reading(db) as project:
        lines = [
            json.dumps(episode_record(project.episodes.get(i), project.episodes.steps(i)))
            for i in project.episodes.ids()
        ]
    write_lines(out, lines)
    return len(lines)


def import_episodes(
    db: str | os.PathLike[str], source: str | os.PathLike[str], fmt: str = "reasonscope"
) -> tuple[int, int]:
    """Read episodes in one transaction; return (episodes, format-error steps recorded)."""
    if fmt not in FORMATS:
        raise ProjectError(f"--format {fmt}: known formats are {', '.join(FORMATS)}")
    records = read_records(source, validate_episode, (EpisodeFormatError,), "an episode file")
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
