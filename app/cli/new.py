"""`reasonscope new`: create an empty project file."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import CommandTree, fail


def add_parser(commands: CommandTree) -> None:
    """Register `new`."""
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
