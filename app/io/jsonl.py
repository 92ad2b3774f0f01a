"""Reading and writing JSON Lines files the way every importer and exporter here does.

Both directions stream: a file is read, parsed and validated one line at a time, and
written one line at a time, so memory stays flat however long the file is.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from annotation.formats import json_text
from store import ProjectError


def json_lines(source: str | os.PathLike[str], what: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line, read one line at a time; a
    missing file, text that is not UTF-8 or a line that is not JSON raises `ProjectError`
    naming FILE[:LINE]."""
    source = Path(source)
    if not source.is_file():
        raise ProjectError(f"{source}: no such file")
    with source.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            try:
                line = raw.decode("utf-8")
            except UnicodeDecodeError:
                raise ProjectError(f"{source}:{number}: not UTF-8 text (is it {what}?)") from None
            if not line.strip():
                continue
            try:
                value = json_text.loads(line, finite=True)
            except json.JSONDecodeError as exc:
                raise ProjectError(f"{source}:{number}: not JSON ({exc.msg})") from None
            del raw, line
            yield number, value


def iter_records(
    source: str | os.PathLike[str],
    validate: Callable[[Any], dict],
    errors: tuple[type[Exception], ...],
    what: str,
) -> Iterator[tuple[int, dict]]:
    """(line number, validated record), one line at a time; a bad line raises
    `FILE:LINE: problem` when it is reached (run it inside the transaction that stores
    the records, so that a bad line rolls back what came before it)."""
    for number, value in json_lines(source, what):
        try:
            record = validate(value)
        except errors as exc:
            raise ProjectError(f"{Path(source)}:{number}: {exc}") from None
        yield number, record


def read_records(
    source: str | os.PathLike[str],
    validate: Callable[[Any], dict],
    errors: tuple[type[Exception], ...],
    what: str,
) -> list[dict]:
    """Every line validated before anything is used; a bad one raises `FILE:LINE: problem`."""
    return [record for _, record in iter_records(source, validate, errors, what)]


def write_lines(out: str | os.PathLike[str], lines: Iterable[str]) -> None:
    """Write the whole file or nothing: each line goes to a partial file as it is produced,
    renamed into place at the end (and removed if producing the lines fails)."""
    out = Path(out)
    if out.is_dir() or not out.parent.exists():
        raise ProjectError(f"{out}: not a writable file path")
    partial = out.with_name(out.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as f:
            for line in lines:
                f.write(line)
                f.write("\n")
        os.replace(partial, out)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def line_error(source: str | os.PathLike[str], exc: ValueError) -> ProjectError:
    """A store's "line N: problem" refusal of a file's rows as `FILE:N: problem` (any other
    message as `FILE: problem`), for the caller to raise."""
    problem = str(exc)
    if problem.startswith("line "):
        number, _, problem = problem[len("line ") :].partition(": ")
        return ProjectError(f"{source}:{number}: {problem}")
    return ProjectError(f"{source}: {problem}")
