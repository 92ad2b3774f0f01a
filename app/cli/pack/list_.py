"""`reasonscope pack list`: the packages sent from the project and their state.

(Not `list.py`: `list` is a Python builtin.)
"""

from __future__ import annotations

import argparse
import json

from app.cli.support import CommandTree, db_arg, default_db
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `pack list`."""
    p = commands.group("pack").add_parser(
        "list", help="packages sent from the project and their state"
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--items",
        action="store_true",
        help="each package's items: out (since when), done or recalled",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)


def cmd_list(args: argparse.Namespace) -> int:
    with open_project(default_db(args)) as project:
        packages = project.packages.list()
        project_items = {
            p["package_id"]: project.packages.assignments(p["package_id"]) for p in packages
        }
    rows = [
        {
            "package_id": p["package_id"],
            "person": p["person"],
            "role": p["role"],
            "items": len(p["manifest"]["items"]),
            "created": p["created"],
            "merged_at": p["merged_at"],
            "recalled_at": p["recalled_at"],
            "file": p["file"],
            **({"assignments": project_items[p["package_id"]]} if args.items else {}),
        }
        for p in packages
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No packages sent yet (reasonscope pack create --help)")
    for r in rows:
        state = "recalled" if r["recalled_at"] else "merged" if r["merged_at"] else "out"
        print(
            f"{r['package_id'][:8]}  {r['person']:<16} {r['role']:<11} {r['items']:>5} items  "
            f"{r['created'][:10]}  {state:<8} {r['file']}"
        )
        for a in r.get("assignments", []):
            now = (
                f"done {a['done_at'][:16]}"
                if a["done_at"]
                else f"recalled {a['recalled_at'][:16]}"
                if a["recalled_at"]
                else f"out since {a['assigned_at'][:16]}"
            )
            print(f"    {a['kind']} {a['item_id']} {a['version']}: {now}")
    return 0
