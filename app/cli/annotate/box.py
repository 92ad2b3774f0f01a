"""`reasonscope annotate box`: move or resize an entity's 2D (and 3D) box in a frame."""

from __future__ import annotations

import argparse
from typing import Any

from app.cli.annotate.common import Target, common_args, numbers, run_edit, where_args
from app.cli.support import CommandTree, fail
from store.project import Project


def add_parser(commands: CommandTree) -> None:
    """Register `annotate box`."""
    group = commands.group("annotate")
    box = group.add_parser(
        "box",
        help="move or resize an entity's 2D box (and 3D box) in a frame",
        description="Set ENTITY's 2D box in FRAME, and with --box3d its 3D box. A box the "
        "dataset gave keeps its original values for the export (reasonscope.original_box).",
    )
    where_args(box, entity=True)
    box.add_argument("--box", type=numbers(4), metavar="X,Y,W,H", help="panorama pixels")
    box.add_argument(
        "--box3d", type=numbers(7), metavar="CX,CY,CZ,L,W,H,YAW", help="label frame, metres"
    )
    common_args(box, cmd_box)


def cmd_box(args: argparse.Namespace) -> int:
    if args.box is None and args.box3d is None:
        return fail("annotate box: give --box X,Y,W,H, --box3d CX,CY,CZ,L,W,H,YAW or both")

    def edit(project: Project, at: Target, person: Any) -> dict:
        entity = at.entity(args.entity)
        if args.box is not None:
            project.sequences.set_box_2d(entity, at.frame.id, args.box, person)
        if args.box3d is not None:
            project.sequences.set_box_3d(entity, at.frame.id, args.box3d, person)
        text = f"Saved the box of {args.entity} in frame {args.frame} as {person.name}"
        return {"entity": args.entity, "box": args.box, "box3d": args.box3d, "text": text}

    return run_edit(args, edit)
