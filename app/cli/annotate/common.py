"""What the `reasonscope annotate` commands share: naming the sequence, frame and entity,
the person, and one transaction per edit (the Annotate HOI mode's edits without the GUI), as a named person, under the same store rules and audit.

Entities are named by the dataset's own `label_id` (`pedestrian:3`, `chair:2`) and frames
by their index. The rules live in the store (`project.sequences.set_box_2d`,
`add_drawn_entity`, `remove_entity`; `project.hoi.add_label`, `delete_label`): a refused
edit raises `ProjectError` or `ValueError`, printed as one line naming the file and the
rule (exit 2), and nothing is written, not even a first sign-in.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from app.cli.person import person_in
from app.cli.support import db_arg, default_db, fail
from store import ProjectError, open_project
from store.project import Project


def where_args(p: argparse.ArgumentParser, *, entity: bool) -> None:
    p.add_argument("sequence", metavar="SEQUENCE", help="the sequence's name")
    p.add_argument("frame", type=int, metavar="FRAME", help="the frame's index")
    if entity:
        p.add_argument("entity", metavar="ENTITY", help="its label_id, e.g. pedestrian:3")


def common_args(p: argparse.ArgumentParser, func: Any) -> None:
    p.add_argument("--as", dest="person", required=True, metavar="NAME", help="who edits")
    db_arg(p, help_text="project or work package file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print what was saved as JSON")
    p.set_defaults(func=func)


def numbers(n: int) -> Any:
    def parse(text: str) -> tuple[float, ...]:
        try:
            values = tuple(float(v) for v in text.split(","))
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r}: give {n} comma-separated numbers"
            ) from None
        if len(values) != n:
            raise argparse.ArgumentTypeError(f"{text!r}: give {n} numbers, not {len(values)}")
        return values

    return parse


class Target:
    """The sequence, frame and entity an edit names, found in an open project."""

    def __init__(self, project: Project, args: argparse.Namespace) -> None:
        repo = project.sequences
        sequence = repo.find(args.sequence)
        if sequence is None:
            known = ", ".join(s.name for s in repo.list()) or "none"
            raise ProjectError(f"{project.path}: no sequence {args.sequence!r} ({known})")
        frames = {f.index: f for f in repo.frames(sequence.id)}
        if args.frame not in frames:
            raise ProjectError(
                f"{project.path}: {sequence.name} has no frame {args.frame} "
                f"(frames {min(frames, default=0)}-{max(frames, default=0)})"
            )
        self.project, self.sequence, self.frame = project, sequence, frames[args.frame]
        self.ids = repo.entity_ids(sequence.id)

    def entity(self, key: str) -> int:
        if key not in self.ids:
            raise ProjectError(f"{self.project.path}: {self.sequence.name} has no entity {key!r}")
        return self.ids[key]


def run_edit(args: argparse.Namespace, edit: Any) -> int:
    """Open the project, sign the person in and make the edit in one transaction; a
    refused edit is one line (exit 2) and leaves nothing behind."""
    path = default_db(args)
    with open_project(path) as project:
        try:
            with project.write():
                person = person_in(project, args.person, create=True)
                assert person is not None
                result = edit(project, Target(project, args), person)
        except ValueError as exc:
            return fail(f"{project.path}: {args.sequence} frame {args.frame}: {exc}")
    result = {"sequence": args.sequence, "frame": args.frame, "person": person.name, **result}
    print(json.dumps(result) if args.json else result.pop("text"))
    return 0
