"""`reasonscope annotate label`: add or delete an HOI label (the taxonomy's labels)."""

from __future__ import annotations

import argparse
from typing import Any

from annotation.jrdb.hoi_taxonomy import load_hoi_taxonomy
from app.cli.annotate.common import Target, common_args, run_edit, where_args
from app.cli.support import CommandTree
from store.project import Project


def add_parser(commands: CommandTree) -> None:
    """Register `annotate label`."""
    group = commands.group("annotate")
    label = group.add_parser(
        "label",
        help="add (or with --delete remove) an HOI label",
        description="Add an HOI label of ENTITY in FRAME: --kind is the taxonomy's label "
        "(holding, looking_at, sitting, ...; docs/hoi-labels.md), --target the object for "
        "the kinds that take one. With --delete, remove your label of that kind and target.",
    )
    where_args(label, entity=True)
    label.add_argument("--kind", required=True, metavar="LABEL", help="e.g. holding, sitting")
    label.add_argument("--target", metavar="ENTITY2", help="the object's label_id")
    label.add_argument("--difficulty", type=int, choices=(1, 2, 3), default=None)
    label.add_argument("--delete", action="store_true", help="remove the label instead")
    common_args(label, cmd_label)


def cmd_label(args: argparse.Namespace) -> int:
    taxonomy = load_hoi_taxonomy()
    kind = args.kind.strip().lower().replace(" ", "_")

    def edit(project: Project, at: Target, person: Any) -> dict:
        label_type = taxonomy.check(kind, args.target is not None)
        subject = at.entity(args.entity)
        target = at.entity(args.target) if args.target else None
        if args.delete:
            label = project.hoi.find_label(at.frame.id, subject, label_type.id, target, person)
            project.hoi.delete_label(label.id, person)
            text = f"Deleted label #{label.id} ({label_type.label})"
            return {"label_id": label.id, "deleted": True, "text": text}
        if args.difficulty is None:
            raise ValueError("give --difficulty 1, 2 or 3 (easy, medium, hard)")
        project.hoi.check_label_entities(at.frame.id, subject, target)
        label = project.hoi.add_label(
            frame_id=at.frame.id,
            subject_entity_id=subject,
            object_entity_id=target,
            category=label_type.category,
            predicate=label_type.id,
            difficulty=args.difficulty,
            annotator=person,
            unique=True,
        )
        text = f"Saved label #{label.id}: {args.entity} {label_type.label}"
        text += f" {args.target}" if args.target else ""
        return {"label_id": label.id, "predicate": label_type.id, "text": text}

    return run_edit(args, edit)
