"""What every subcommand shares: one-line errors, terminal progress, the default project."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

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


def db_arg(parser: argparse.ArgumentParser, *, help_text: str) -> None:
    parser.add_argument("--db", metavar="PATH", type=Path, default=None, help=help_text)


def default_db(args: argparse.Namespace) -> Path:
    from app.paths import demo_project_path

    return args.db if args.db is not None else demo_project_path()
