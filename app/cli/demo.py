"""`reasonscope demo`, `new` and `info`: make a project, and see what one holds."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import CommandTree, TerminalProgress, db_arg, default_db, fail
from store import open_for_reading


def add_parser(commands: CommandTree) -> None:
    """Register `demo`, `new` and `info`."""
    p = commands.add_parser(
        "demo",
        help="build the demo project headless",
        description="Build (or complete) the demo project without a screen.",
    )
    db_arg(p, help_text="where to build it (default: the demo project in the user data folder)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_demo)

    p = commands.add_parser(
        "new",
        help="create an empty project file",
        description="Create an empty project file, ready for `scenes generate`, `questions "
        "generate`, `import jrdb`, `import benchmark` or `import episodes`. Refuses a path "
        "that already exists.",
    )
    p.add_argument("path", metavar="PATH", help="the new project file, e.g. study.reasonscope")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_new)

    p = commands.add_parser(
        "info",
        help="show what a project holds",
        description="Count what a project holds: annotators, scenes, "
        "sequences, labels, questions by status, episodes, steps.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_info)


def cmd_demo(args: argparse.Namespace) -> int:
    from app.demo import build_demo

    path = default_db(args)
    with TerminalProgress() as progress:
        added = build_demo(path, progress)
    if args.json:
        print(json.dumps({"path": str(path), "added_parts": added}))
    elif added:
        print(f"Demo project {path}: added {', '.join(added)}")
    else:
        print(f"Demo project {path} is already complete")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from store import open_project

    path = Path(args.path)
    if path.exists():
        return fail(f"{path}: already exists; a new project needs a new file")
    if not path.parent.is_dir():
        return fail(f"{path}: the folder {path.parent} does not exist")
    open_project(path, create=True).close()
    print(json.dumps({"path": str(path)}) if args.json else f"Created an empty project {path}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    with open_for_reading(default_db(args)) as project:
        summary = project.summary.summary().as_dict()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    width = max(len(k) for k in summary)
    for key, value in summary.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        print(f"{key.replace('_', ' '):<{width}}  {value}")
    return 0
