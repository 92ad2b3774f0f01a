"""`reasonscope pack merge`: a returned package's work brought into the project, all or nothing."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db


def add_parser(commands: CommandTree) -> None:
    """Register `pack merge`."""
    p = commands.group("pack").add_parser(
        "merge",
        help="bring a returned package's work into the project (all or nothing)",
        description="Refuses, changing nothing, a package of another project, a tampered "
        "one, or one with work signed by anyone but its person. Work on items changed here "
        "since the package went out is kept aside as a conflict. Merging again changes "
        "nothing.",
    )
    p.add_argument("file", type=Path, metavar="FILE.rspack")
    db_arg(p, help_text="the project the package came from (default: the demo project)")
    p.add_argument("--dry-run", action="store_true", help="report what would merge; change nothing")
    p.add_argument("--json", action="store_true", help="print the merge report as JSON")
    p.set_defaults(func=cmd_merge)


def cmd_merge(args: argparse.Namespace) -> int:
    from app.work_packages.merge import merge_package

    report = merge_package(default_db(args), args.file, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print("\n".join(report.lines()))
    return 0
