"""Reading what models write: JSON that is often wrapped in prose, fenced, or slightly broken.

Nothing here raises on bad model output: a reply that cannot be read becomes a
(None, reason) pair, which importers record as a format-error step.
"""

from __future__ import annotations

import json
import re
from typing import Any

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")


def _balanced_objects(text: str) -> list[str]:
    """Every top-level {...} or [...] span, respecting strings and escapes."""
    spans, depth, start, in_string, escape = [], 0, None, False, False
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"' and depth > 0:
            in_string = True
        elif ch in "{[":
            if depth == 0:
                start = i
            depth += 1
        elif ch in "}]" and depth > 0:
            depth -= 1
            if depth == 0 and start is not None:
                spans.append(text[start : i + 1])
                start = None
    return spans


def parse_model_output(raw: str) -> tuple[Any | None, str | None]:
    """The JSON value a model meant, or (None, why not).

    Tries, in order: the whole text; each fenced code block; each balanced
    object or array in the text; each of those with trailing commas removed.
    """
    if not isinstance(raw, str) or not raw.strip():
        return None, "empty reply"
    embedded = [m.strip() for m in _FENCE.findall(raw)] + _balanced_objects(raw)
    if not embedded and raw.strip()[:1] not in "{[":
        return None, "no JSON object in the reply"
    candidates = [raw.strip(), *embedded]
    last_error = "no JSON object in the reply"
    for text in candidates + [_TRAILING_COMMA.sub(r"\1", c) for c in candidates]:
        try:
            return json.loads(text), None
        except json.JSONDecodeError as exc:
            last_error = f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    return None, last_error
