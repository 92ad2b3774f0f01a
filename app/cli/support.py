"""What every subcommand shares: the command tree, one-line errors, terminal progress, the
default project."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from annotation.progress import Progress

EXIT_BAD_INPUT = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is a single line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(EXIT_BAD_INPUT)


def fail(message: str) -> int:
    sys.stderr.write(f"reasonscope: error: {message}\n")
    return EXIT_BAD_INPUT


class TerminalProgress(Progress):
    """Progress on stderr: updated in place on a terminal, one line per message otherwise."""

    def __init__(self) -> None:
        super().__init__(self._show)
        self._last = ""
        self._tty = sys.stderr.isatty()

    def _show(self, done: int, total: int, message: str) -> None:
        pct = int(100 * done / total) if total else 100
        line = f"{pct:3d}% {message}"
        if self._tty:
            sys.stderr.write("\r" + line.ljust(78)[:78])
            sys.stderr.flush()
        elif message != self._last:
            sys.stderr.write(line + "\n")
        self._last = message

    def close(self) -> None:
        if self._tty and self._last:
            sys.stderr.write("\n")

    def __enter__(self) -> TerminalProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()  # end the line in place, also when the work fails or is cancelled


def batch_args(
    parser: argparse.ArgumentParser, *, resume: str = "", workers_help: str = ""
) -> None:
    """`--workers N`, `--ray-address ADDRESS` and (with `resume`, saying what is skipped)
    `--resume`: batch work on Ray (docs/scale-out.md)."""
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        metavar="N",
        help=workers_help
        or "run on a local Ray with N CPUs (default 1: in this process, without Ray)",
    )
    parser.add_argument(
        "--ray-address",
        default=None,
        metavar="ADDRESS",
        help="run on an existing Ray cluster ('auto': the one `ray start` made on this machine)",
    )
    if resume:
        parser.add_argument("--resume", action="store_true", help=resume)


def batch_problem(args: argparse.Namespace, *, local_processes: bool = False) -> str | None:
    """What is wrong with --workers / --ray-address before any work starts, if anything.
    `local_processes`: the command runs --workers on this machine without Ray."""
    if args.workers < 1:
        return f"--workers {args.workers}: need at least one"
    if (args.workers > 1 and not local_processes) or args.ray_address:
        from app.jobs.batch import BatchSetupError, ray_module

        try:
            ray_module()
        except BatchSetupError as exc:
            return str(exc)
    return None


def report_failures(report) -> int:
    """Print a batch's failed items on stderr; 1 if there were any, else 0."""
    for item, why in report.failed:
        sys.stderr.write(f"reasonscope: failed: {item}: {why}\n")
    if report.failed:
        sys.stderr.write(
            f"reasonscope: {len(report.failed)} failed; the rest is stored "
            "(run again with --resume to retry them)\n"
        )
    return 1 if report.failed else 0


def db_arg(parser: argparse.ArgumentParser, *, help_text: str) -> None:
    parser.add_argument("--db", metavar="PATH", type=Path, default=None, help=help_text)


def gripper_arg(parser: argparse.ArgumentParser, *, recorded: bool = False) -> None:
    """`--gripper 2f140|2f85`: the tabletop robot's gripper. For commands that build new
    scenes it defaults to the paper's 2F-140; for commands that rebuild stored scenes
    (`recorded`) to the one each scene was made with."""
    from sim.robotiq import DEFAULT_GRIPPER, GRIPPERS

    if recorded:
        help_text = "tabletop gripper to run with (default: the one each scene recorded)"
        default = None
    else:
        help_text = f"tabletop gripper, recorded with each scene (default {DEFAULT_GRIPPER})"
        default = DEFAULT_GRIPPER
    parser.add_argument("--gripper", choices=sorted(GRIPPERS), default=default, help=help_text)


def default_db(args: argparse.Namespace) -> Path:
    from app.paths import demo_project_path

    return args.db if args.db is not None else demo_project_path()


# -- the command tree ------------------------------------------------------------
class Subcommands(Protocol):
    """What a command module adds its subcommands to: argparse's subparsers, or a CommandTree."""

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser: ...


@dataclass(frozen=True)
class Group:
    """A subcommand that has subcommands of its own (`scenes generate`, `export benchmark`)."""

    help: str
    description: str
    metavar: str


# Declared here, not in a command module, because each of a group's subcommands is a module
# of its own (app/cli/<group>/<subcommand>.py); one place for each group's own text.
GROUPS: dict[str, Group] = {
    "scenes": Group(
        "generate and export tabletop scenes",
        "Cluttered tabletop scenes in the PyBullet world: generate, export.",
        "SUBCOMMAND",
    ),
    "questions": Group(
        "generate benchmark questions",
        "Generate benchmark questions about the project's worlds.",
        "SUBCOMMAND",
    ),
    "export": Group(
        "write project data in interchange formats",
        "Write project data in documented interchange formats.",
        "WHAT",
    ),
    "import": Group(
        "read interchange files into a project",
        "Read interchange files into a project, in one transaction.",
        "WHAT",
    ),
    "pack": Group(
        "work packages: one person's assignment out to their machine and merged back",
        "Work packages for teams on many machines (docs/work-packages.md): create one "
        "person's assignment as a package file, merge the returned file back, list, recall, "
        "and decide on conflicts.",
        "SUBCOMMAND",
    ),
    "annotate": Group(
        "the Annotate HOI mode's edits headless: boxes, entities, HOI labels",
        "Edit a JRDB sequence as a named person (--as NAME), under the rules and with the "
        "audit of the Annotate HOI mode: boxes, entities the labels missed or should not "
        "have, HOI labels (docs/cli.md#reasonscope-annotate). A refused edit exits 2 naming "
        "the rule; nothing is written.",
        "EDIT",
    ),
    "relations": Group(
        "geometric relations of JRDB frames, computed headless",
        "Compute the geometric relations of JRDB frames (docs/relations.md) without the "
        "app: the same code as Ctrl+Alt+R in Annotate HOI, on Ray with --workers.",
        "SUBCOMMAND",
    ),
    "spatial": Group(
        "ST-BiBench spatial grounding items: which arm grasps which block",
        "Foundational spatial grounding (ST-BiBench): items that ask "
        "which arm of the dual-arm robot should grasp each block, with head-camera images "
        "(docs/spatial-grounding.md). Import a model's replies with `reasonscope import "
        "spatial-predictions`.",
        "SUBCOMMAND",
    ),
}


class CommandTree:
    """`reasonscope`'s subcommands, handed to each command module's `add_parser`.

    `add_parser` adds a top-level subcommand (`demo`, `metrics`); `group(name)` gives the
    subparsers of a nested group from GROUPS (`import`, `export`, ...), created the first time
    any module asks for it, so several modules can add to the same group. Commands and groups
    are listed in `--help` in the order they are first added.
    """

    def __init__(self, parser: argparse.ArgumentParser) -> None:
        self._top = parser.add_subparsers(
            dest="command", metavar="COMMAND", parser_class=OneLineParser
        )
        self._groups: dict[str, Subcommands] = {}

    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        """A top-level subcommand; the arguments are argparse's `add_parser`'s."""
        return self._top.add_parser(name, **kwargs)

    def group(self, name: str) -> Subcommands:
        """The subparsers of the group `name` (a key of GROUPS), the same on every call."""
        if name not in self._groups:
            spec = GROUPS[name]
            parser = self._top.add_parser(name, help=spec.help, description=spec.description)
            self._groups[name] = parser.add_subparsers(
                dest=f"{name}_command",
                metavar=spec.metavar,
                parser_class=OneLineParser,
                required=True,
            )
        return self._groups[name]
