"""`reasonscope annotate end-track`: an object's track ends (it left the view) in a frame."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.annotate.common import Target, common_args, run_edit, where_args
from app.cli.support import CommandTree
from store.project import Project


def add_parser(commands: CommandTree) -> None:
    """Register `annotate end-track`."""
    group = commands.group("annotate")
    end = group.add_parser(
        "end-track",
        help="end an object's track: from FRAME on it has no box (it left the view)",
        description="End the track of ENTITY (an object or person drawn in ReasonScope) at FRAME: "
        "its box is carried forward from its last keyframe up to the frame before, and from "
        "FRAME on it has none. Refused before the track's first keyframe or with keyframes in "
        "or after FRAME; a keyframe after the end is refused until the track is reopened "
        "(--reopen).",
    )
    where_args(end, entity=True)
    end.add_argument(
        "--reopen", action="store_true", help="undo the end: the track runs on to the last frame"
    )
    common_args(end, cmd_end_track)


def cmd_end_track(args: argparse.Namespace) -> int:
    def edit(project: Project, at: Target, person: Any) -> dict:
        entity = at.entity(args.entity)
        repo = project.sequences
        if args.reopen:
            before = repo.reopen_track(entity, person)
            text = f"Reopened the track of {args.entity} as {person.name}"
        else:
            before = repo.end_track(entity, at.frame.id, person)
            text = f"Ended the track of {args.entity} at frame {args.frame} as {person.name}"
        end = repo.track_end(entity)
        return {"entity": args.entity, "end_frame": end, "before": before, "text": text}

    return run_edit(args, edit)
