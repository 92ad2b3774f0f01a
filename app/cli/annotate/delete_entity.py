"""`reasonscope annotate delete-entity`: take an entity out of one frame."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.annotate.common import Target, common_args, run_edit, where_args
from app.cli.support import CommandTree
from store.project import Project


def add_parser(commands: CommandTree) -> None:
    """Register `annotate delete-entity`."""
    group = commands.group("annotate")
    delete = group.add_parser(
        "delete-entity",
        help="take an entity out of one frame (its boxes there)",
        description="Remove ENTITY's 2D and 3D boxes from FRAME. The export leaves it out "
        "of that frame and lists it under `removed`. Refused while it has HOI labels there.",
    )
    where_args(delete, entity=True)
    common_args(delete, cmd_delete_entity)


def cmd_delete_entity(args: argparse.Namespace) -> int:
    def edit(project: Project, at: Target, person: Any) -> dict:
        boxes = project.sequences.remove_entity(at.entity(args.entity), at.frame.id, person)
        text = f"Took {args.entity} out of frame {args.frame} ({', '.join(sorted(boxes))} box)"
        return {"entity": args.entity, "removed": sorted(boxes), "text": text}

    return run_edit(args, edit)
