"""`reasonscope annotate add-entity`: a person or object the dataset's labels missed."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.annotate.common import Target, common_args, numbers, run_edit, where_args
from app.cli.support import CommandTree, fail
from store.project import Project


def add_parser(commands: CommandTree) -> None:
    """Register `annotate add-entity`."""
    group = commands.group("annotate")
    add = group.add_parser(
        "add-entity",
        help="add a person or object the labels missed, with its 2D box in a frame",
        description="A new person (pedestrian:N after the sequence's highest) or object "
        "(CATEGORY:N) with its box in FRAME; prints the new label_id.",
    )
    where_args(add, entity=False)
    add.add_argument("--kind", required=True, choices=("person", "object"))
    add.add_argument("--category", default="", metavar="NAME", help="an object's category")
    add.add_argument("--box", required=True, type=numbers(4), metavar="X,Y,W,H")
    add.add_argument("--box3d", type=numbers(7), metavar="CX,CY,CZ,L,W,H,YAW")
    common_args(add, cmd_add_entity)


def cmd_add_entity(args: argparse.Namespace) -> int:
    if args.kind == "object" and not args.category.strip():
        return fail("annotate add-entity: an object needs --category NAME (chair, bag, ...)")

    def edit(project: Project, at: Target, person: Any) -> dict:
        repo = project.sequences
        kind = "human" if args.kind == "person" else "object"
        entity = repo.add_drawn_entity(at.sequence.id, kind, args.category or "person", person)
        repo.set_box_2d(entity, at.frame.id, args.box, person)
        if args.box3d is not None:
            repo.set_box_3d(entity, at.frame.id, args.box3d, person)
        key = next(k for k, i in repo.entity_ids(at.sequence.id).items() if i == entity)
        return {"entity": key, "kind": args.kind, "text": key}

    return run_edit(args, edit)
