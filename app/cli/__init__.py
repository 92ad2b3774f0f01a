"""The `reasonscope` command: the GUI with no arguments, headless work as subcommands.

Every subcommand has --help, reports with --json where it reports, and exits
2 with one line naming the file and the problem on bad input.

One module per command, named after it: a top-level command `x-y` is `app/cli/x_y.py`, a
group's subcommand `g s` is `app/cli/g/s.py` (a trailing underscore where the name is a
keyword or a builtin: `import_/`, `pack/list_.py`). What several commands share is in
`app/cli/support.py` (the command tree, one-line errors, progress, common options) and
`app/cli/person.py` (who `verify`, `review` and `queue` work as).

Each command module has an `add_parser(commands)` that registers its command on the
CommandTree (`app/cli/support.py`); COMMAND_MODULES lists them in the order of
`reasonscope --help` and of each group's help (a group is listed where its first
subcommand is).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from annotation.progress import Cancelled
from app.cli.support import CommandTree, OneLineParser, db_arg, fail

# Files the desktop opens with `reasonscope FILE` (resources/desktop/reasonscope.desktop).
OPENS = (".rspack", ".reasonscope")


def command_modules() -> tuple:
    """The command modules, in the order of `reasonscope --help`. Imported here, not at the
    top: `reasonscope` with no subcommand opens the GUI without loading every command."""
    from app.cli import (
        bench,
        demo,
        info,
        metrics,
        new,
        queue,
        replay_in_sim,
        review,
        run_agent,
        verify,
    )
    from app.cli.annotate import add_entity as annotate_add_entity
    from app.cli.annotate import box as annotate_box
    from app.cli.annotate import delete_entity as annotate_delete_entity
    from app.cli.annotate import end_track as annotate_end_track
    from app.cli.annotate import label as annotate_label
    from app.cli.export import benchmark as export_benchmark
    from app.cli.export import episodes as export_episodes
    from app.cli.export import labels as export_labels
    from app.cli.import_ import benchmark as import_benchmark
    from app.cli.import_ import episodes as import_episodes
    from app.cli.import_ import jrdb as import_jrdb
    from app.cli.import_ import predictions as import_predictions
    from app.cli.import_ import spatial_predictions as import_spatial_predictions
    from app.cli.pack import conflicts as pack_conflicts
    from app.cli.pack import create as pack_create
    from app.cli.pack import list_ as pack_list
    from app.cli.pack import merge as pack_merge
    from app.cli.pack import recall as pack_recall
    from app.cli.questions import add as questions_add
    from app.cli.questions import generate as questions_generate
    from app.cli.relations import compute as relations_compute
    from app.cli.scenes import create as scenes_create
    from app.cli.scenes import export as scenes_export
    from app.cli.scenes import generate as scenes_generate
    from app.cli.spatial import generate as spatial_generate

    return (
        demo,
        new,
        info,
        scenes_generate,
        scenes_create,
        scenes_export,
        questions_generate,
        questions_add,
        verify,
        review,
        annotate_box,
        annotate_add_entity,
        annotate_delete_entity,
        annotate_end_track,
        annotate_label,
        queue,
        pack_create,
        pack_merge,
        pack_list,
        pack_recall,
        pack_conflicts,
        export_benchmark,
        export_episodes,
        export_labels,
        import_benchmark,
        import_episodes,
        import_jrdb,
        import_predictions,
        import_spatial_predictions,  # before `spatial`: the `import` group comes first in --help
        relations_compute,
        spatial_generate,
        run_agent,
        replay_in_sim,
        metrics,
        bench,
    )


def __getattr__(name: str):
    if name == "COMMAND_MODULES":  # as before: the tuple, imported on first use
        return command_modules()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def gui_only(argv: Sequence[str]) -> bool:
    """`reasonscope` or `reasonscope --db PATH`: nothing but the GUI to start."""
    return not argv or (len(argv) == 2 and argv[0] == "--db" and not argv[1].startswith("-"))


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
    for module in command_modules():
        module.add_parser(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) == 1 and argv[0].endswith(OPENS) and not argv[0].startswith("-"):
        argv = ["--db", argv[0]]  # `reasonscope FILE`: what a double-click on a file runs
    if gui_only(argv):  # the GUI starts without building every command's parser
        from app.gui import run_gui

        return run_gui(Path(argv[1]) if argv else None)
    from store import ProjectError

    parser = build_parser()
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
