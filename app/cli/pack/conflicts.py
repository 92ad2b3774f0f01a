"""`reasonscope pack conflicts`: merged work kept aside, and deciding on it."""

from __future__ import annotations

import argparse
import json

from app.cli.support import CommandTree, db_arg, default_db
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `pack conflicts`."""
    p = commands.group("pack").add_parser(
        "conflicts", help="merged work kept aside, and deciding on it"
    )
    db_arg(p, help_text="project file (default: the demo project)")
    decide = p.add_mutually_exclusive_group()
    decide.add_argument(
        "--discard", type=int, metavar="ID", help="decide: drop this conflict's work"
    )
    decide.add_argument(
        "--apply",
        type=int,
        metavar="ID",
        help="decide: apply its work to the item as it is now (a verdict to the "
        "question's current version, a review to the label's current round)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_conflicts)


def cmd_conflicts(args: argparse.Namespace) -> int:
    if args.apply is not None:
        from app.work_packages.merge import apply_conflict

        target = apply_conflict(default_db(args), args.apply)
        print(f"Conflict #{args.apply}: its work is applied (row {target})")
        return 0
    with open_project(default_db(args)) as project:
        if args.discard is not None:
            project.packages.resolve(args.discard, "discarded")
            print(f"Conflict #{args.discard}: its work is discarded")
            return 0
        conflicts = project.packages.conflicts()
    if args.json:
        print(json.dumps(conflicts, indent=2))
        return 0
    if not conflicts:
        print("No open conflicts")
    for c in conflicts:
        print(f"#{c['id']}  {c['person']}: {c['kind']} {c['item_id']}: {c['reason']}")
    return 0
