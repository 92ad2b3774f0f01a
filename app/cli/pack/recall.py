"""`reasonscope pack recall`: take back what a package still has out."""

from __future__ import annotations

import argparse

from app.cli.support import CommandTree, db_arg, default_db, fail
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `pack recall`."""
    p = commands.group("pack").add_parser("recall", help="take back what a package still has out")
    p.add_argument("package_id", metavar="PACKAGE_ID", help="the package id (or a unique prefix)")
    db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_recall)


def cmd_recall(args: argparse.Namespace) -> int:
    with open_project(default_db(args)) as project:
        matches = [
            p["package_id"]
            for p in project.packages.list()
            if p["package_id"].startswith(args.package_id)
        ]
        if len(matches) != 1:
            what = "no package" if not matches else f"{len(matches)} packages"
            return fail(f"{project.path}: {what} with id {args.package_id}")
        count = project.packages.recall(matches[0])
    print(f"Recalled {count} items of package {matches[0]}")
    return 0
