"""The `reasonscope` command: the GUI with no arguments, headless work as subcommands.

Every subcommand has --help, reports with --json where it reports, and exits
2 with one line naming the file and the problem on bad input.

Each command module has an `add_parser(commands)` that registers its subcommands on the
CommandTree (`app/cli/support.py`); COMMAND_MODULES lists them in the order of
`reasonscope --help` and of each group's help.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from annotation.progress import Cancelled
from app.cli import (
    agents,
    authoring,
    bench,
    demo,
    export,
    imports,
    jrdb,
    labels,
    metrics,
    questions,
    reasoning,
    resim,
    scenes,
    spatial,
    teams,
    work,
)
from app.cli.support import CommandTree, OneLineParser, db_arg, fail
from store import ProjectError

# Files the desktop opens with `reasonscope FILE` (resources/desktop/reasonscope.desktop).
OPENS = (".rspack", ".reasonscope")

COMMAND_MODULES = (
    demo,  # demo, new, info
    scenes,  # scenes generate, scenes export
    questions,  # questions generate
    authoring,  # questions add
    work,  # verify, review, queue
    teams,  # pack create, merge, list, recall, conflicts
    export,  # export benchmark, export episodes
    labels,  # export labels
    imports,  # import benchmark, import episodes
    jrdb,  # import jrdb
    reasoning,  # import predictions
    spatial,  # spatial generate, import spatial-predictions
    agents,  # run-agent
    resim,  # replay-in-sim
    metrics,  # metrics
    bench,  # bench
)


def build_parser() -> argparse.ArgumentParser:
    """The whole `reasonscope` parser; each subcommand's `func` default runs it."""
    parser = OneLineParser(
        prog="reasonscope",
        description=(
            "Build, check and study visual-reasoning benchmarks for robots. "
            "With no subcommand, open the desktop app."
        ),
    )
    db_arg(parser, help_text="project file to open in the GUI (default: the demo project)")
    commands = CommandTree(parser)
    for module in COMMAND_MODULES:
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) == 1 and argv[0].endswith(OPENS) and not argv[0].startswith("-"):
        argv = ["--db", argv[0]]  # `reasonscope FILE`: what a double-click on a file runs
    args = parser.parse_args(argv)
    if args.command is None:
        from app.gui import run_gui

        return run_gui(args.db)
    try:
        return args.func(args)
    except ProjectError as exc:
        return fail(str(exc))
    except OSError as exc:  # a file we were pointed at cannot be read or written
        return fail(f"{exc.filename or 'file'}: {exc.strerror or exc}")
    except Cancelled:
        sys.stderr.write("reasonscope: cancelled\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write("\nreasonscope: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `reasonscope info | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
