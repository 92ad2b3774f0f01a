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
        "dataset gave keeps its original values for the export (reasonscope.original_box). "
        "A box set by hand is a keyframe of the entity's track: for an object or person "
        "drawn in ReasonScope the frames between keyframes are interpolated and those after the "
        "last carried forward until the track ends (annotate end-track). A size of zero or "
        "less, a yaw that is not finite, or a frame after the track's end is refused.",
    )
    where_args(box, entity=True)
    box.add_argument("--box", type=numbers(4), metavar="X,Y,W,H", help="panorama pixels")
    box.add_argument(
        "--box3d", type=numbers(7), metavar="CX,CY,CZ,L,W,H,YAW", help="label frame, metres"
    )
    box.add_argument(
        "--keyframe",
        action="store_true",
        help="the box is a keyframe (every box set by hand is); without --box/--box3d, the "
        "frame's interpolated boxes become keyframes as they are",
    )
    common_args(box, cmd_box)


def cmd_box(args: argparse.Namespace) -> int:
    if args.box is None and args.box3d is None and not args.keyframe:
        return fail(
            "annotate box: give --box X,Y,W,H, --box3d CX,CY,CZ,L,W,H,YAW, both, or --keyframe"
        )

    def edit(project: Project, at: Target, person: Any) -> dict:
        entity = at.entity(args.entity)
        repo = project.sequences
        flat, solid = args.box, args.box3d
        if flat is None and solid is None:  # --keyframe alone: freeze the derived boxes
            flat, solid = (_derived(repo, entity, at.frame.id, dims) for dims in ("2d", "3d"))
            if flat is None and solid is None:
                raise ValueError(f"{args.entity} has no box in frame {args.frame} to keep")
        if flat is not None:
            repo.set_box_2d(entity, at.frame.id, flat, person)
        if solid is not None:
            repo.set_box_3d(entity, at.frame.id, solid, person)
        text = f"Saved the box of {args.entity} in frame {args.frame} as {person.name}"
        text += " (a keyframe)" if repo.is_tracked(entity) else ""
        out = {"entity": args.entity, "box": flat, "box3d": solid, "text": text}
        return {**out, "keyframe": repo.is_tracked(entity)}

    return run_edit(args, edit)


def _derived(repo: Any, entity: int, frame_id: int, dims: str) -> tuple[float, ...] | None:
    """The entity's interpolated box in the frame, or None (none, or a keyframe already)."""
    record = repo.box_record(entity, frame_id, dims)
    if record is None or record.source != "interpolated":
        return None
    box = record.box
    names = ("x", "y", "w", "h") if dims == "2d" else ("cx", "cy", "cz", "l", "w", "h", "rot_z")
    return tuple(getattr(box, k) for k in names)
