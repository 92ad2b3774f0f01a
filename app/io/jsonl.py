"""Reading and writing JSON Lines files the way every importer and exporter here does."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

from store import ProjectError


def json_lines(source: str | os.PathLike[str], what: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) for every non-blank line; a missing file, text that is
    not UTF-8 or a line that is not JSON raises `ProjectError` naming FILE[:LINE]."""
    source = Path(source)
    if not source.is_file():
        raise ProjectError(f"{source}: no such file")
    data = source.read_bytes()
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise ProjectError(f"{source}:{line}: not UTF-8 text (is it {what}?)") from None
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ProjectError(f"{source}:{number}: not JSON ({exc.msg})") from None
        yield number, value


def read_records(
    source: str | os.PathLike[str],
    validate: Callable[[Any], dict],
    errors: tuple[type[Exception], ...],
    what: str,
) -> list[dict]:
    """Every line validated before anything is used; a bad one raises `FILE:LINE: problem`."""
    records = []
    for number, value in json_lines(source, what):
        try:
            records.append(validate(value))
        except errors as exc:
            raise ProjectError(f"{Path(source)}:{number}: {exc}") from None
    return records


def write_lines(out: str | os.PathLike[str], lines: Iterable[str]) -> None:
    """Write the whole file or nothing (a partial file is renamed into place at the end)."""
    out = Path(out)
    if out.is_dir() or not out.parent.exists():
        raise ProjectError(f"{out}: not a writable file path")
    partial = out.with_name(out.name + ".partial")
    partial.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    os.replace(partial, out)


def line_error(source: str | os.PathLike[str], exc: ValueError) -> ProjectError:
    """A store's "line N: problem" refusal of a file's rows as `FILE:N: problem` (any other
    message as `FILE: problem`), for the caller to raise."""
    problem = str(exc)
    if problem.startswith("line "):
        number, _, problem = problem[len("line ") :].partition(": ")
        return ProjectError(f"{source}:{number}: {problem}")
    return ProjectError(f"{source}: {problem}")
