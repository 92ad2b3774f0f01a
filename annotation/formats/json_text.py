"""JSON text as the importers read it: what `json.loads` reads, with its failures all
reported the one way the importers already handle (`json.JSONDecodeError`).

`json.loads` fails past JSONDecodeError on some text: nesting deeper than the interpreter's
recursion limit raises RecursionError, an integer of more than 4,300 digits ValueError.
Python's json also reads NaN, Infinity and numbers past the float range (1e999), which
JSON (RFC 8259) does not have; our own formats refuse them (`finite=True`), since a NaN
stored in a project is written back out as text no JSON reader takes.
"""

from __future__ import annotations

import json
import math
from typing import Any


class _NotFinite(ValueError):
    pass


def _constant(name: str) -> float:
    raise _NotFinite(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text} is past the range of a number")
    return value


def loads(text: str, *, finite: bool = False) -> Any:
    """`json.loads(text)`, raising only `json.JSONDecodeError` (its `msg` says why); with
    `finite`, NaN, Infinity and numbers past the float range are refused too."""
    hooks = {"parse_constant": _constant, "parse_float": _float} if finite else {}
    try:
        return json.loads(text, **hooks)
    except json.JSONDecodeError:
        raise
    except _NotFinite as exc:
        raise json.JSONDecodeError(str(exc), text, 0) from None
    except RecursionError:
        raise json.JSONDecodeError("nested too deeply to read", text, 0) from None
    except ValueError as exc:  # an integer too long to convert
        raise json.JSONDecodeError(str(exc).split(";")[0], text, 0) from None


def brief(value: Any, limit: int = 60) -> str:
    """A value as an error message quotes it (its repr), cut after `limit` characters: a
    refusal names the problem in one line, it does not echo a megabyte back."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def clip(text: str, limit: int = 60) -> str:
    """Text as a message names it, cut after `limit` characters."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"
