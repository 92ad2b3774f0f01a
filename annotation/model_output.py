"""Reading what models write: JSON that is often wrapped in prose, fenced, or slightly broken.

Nothing here raises on bad model output: a reply that cannot be read becomes a
(None, reason) pair, which importers record as a format-error step.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from annotation.formats import json_text

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
            return json_text.loads(text), None
        except json.JSONDecodeError as exc:
            last_error = f"not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
    return None, last_error


# -- repairing reader -----------------------------------------------------------------
# `parse_model_output` above only tries candidates as they are (MG-VQA transcripts count
# anything else as a format error). `repair_json` goes further for planners whose replies
# are long JSON objects written by hand: it repairs the usual breakages and says which.

REPAIRS = {
    "code_fence": "stripped a Markdown code fence",
    "extracted_object": "took the JSON out of the text around it",
    "single_quotes": "turned single-quoted strings into double-quoted ones",
    "inner_quotes": "escaped quotation marks inside a string",
    "python_literals": "read Python's True / False / None as true / false / null",
    "bare_words": "quoted bare words used as keys or values",
    "numbers": "rewrote numbers written the Python way (+1, .5, 1.)",
    "trailing_commas": "removed trailing or doubled commas",
    "missing_commas": "inserted missing commas between values",
    "bad_escapes": "kept backslashes that start no JSON escape as backslashes",
    "closed_string": "closed a string cut off at the end",
    "closed_brackets": "closed brackets or braces left open",
    "dropped_dangling": "dropped a key left without a value at a cut",
    "dropped_closers": "dropped a closing bracket that closed nothing",
}

_FENCE_OPEN = re.compile(r"```[A-Za-z0-9_-]*[ \t]*\n?(.*?)(?:```|\Z)", re.S)
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_LITERALS = {
    "true": "true",
    "false": "false",
    "null": "null",
    "True": "true",
    "False": "false",
    "None": "null",
    "NaN": "NaN",
    "Infinity": "Infinity",
}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "/": "/"}


class _Broken(ValueError):
    pass


def _closes(text: str, i: int) -> bool:
    """Whether the quote at i ends its string: what follows is , : } ] the end, or a newline."""
    j = i + 1
    while j < len(text) and text[j] in " \t\r\n":
        if text[j] == "\n":
            return True
        j += 1
    return j >= len(text) or text[j] in ",:}]"


def _string(text: str, i: int, repairs: list[str]) -> tuple[str, int]:
    """The string starting at text[i] (either quote) as JSON text, and the index after it."""
    quote, chars, j = text[i], [], i + 1
    touched = quote == "'"
    while j < len(text):
        ch = text[j]
        if ch == "\\" and j + 1 < len(text):
            chars.append(_ESCAPES.get(text[j + 1], "\\" + text[j + 1]))
            j += 2
            continue
        if ch == quote:
            if _closes(text, j):
                break
            _note(repairs, "inner_quotes")
            touched = True
        chars.append(ch)
        j += 1
    else:
        _note(repairs, "closed_string")
        touched = True
    if quote == "'":
        _note(repairs, "single_quotes")
    if not touched:
        try:  # untouched: keep its escapes exactly as written, if JSON accepts them
            json.loads(text[i : j + 1], strict=False)
            return text[i : j + 1], j + 1
        except ValueError:
            _note(repairs, "bad_escapes")
    return json.dumps("".join(chars), ensure_ascii=False), j + 1


def _note(repairs: list[str], code: str) -> None:
    if code not in repairs:
        repairs.append(code)


def _tokens(text: str, repairs: list[str], end: list[int]) -> Iterator[tuple[str, str]]:
    """Tokens one at a time, so the rebuild stops at the JSON's end before any prose after
    it; `end[0]` is where the last token handed out ends."""
    i = 0
    while i < len(text):
        ch = text[i]
        if ch in " \t\r\n":
            i += 1
            continue
        if ch in "{}[]:,":
            token, i = (ch, ch), i + 1
        elif ch in "\"'":
            value, i = _string(text, i, repairs)
            token = ("value", value)
        elif (m := _NUMBER.match(text, i)) is not None:
            number = m.group()
            fixed = number.lstrip("+")
            fixed = re.sub(r"^(-?)\.", r"\g<1>0.", fixed)
            fixed = re.sub(r"\.(?=$|[eE])", ".0", fixed)
            if fixed != number:
                _note(repairs, "numbers")
            token, i = ("value", fixed), m.end()
        elif (m := _WORD.match(text, i)) is not None:
            word = m.group()
            if word in ("True", "False", "None"):
                _note(repairs, "python_literals")
            token = ("value", _LITERALS[word]) if word in _LITERALS else ("word", word)
            i = m.end()
        else:
            line = text.count("\n", 0, i) + 1
            column = i - (text.rfind("\n", 0, i) + 1) + 1
            raise _Broken(f"unexpected {ch!r} at line {line} column {column}")
        end[0] = i
        yield token


_CLOSER = {"{": "}", "[": "]"}


def _rebuild(tokens: Iterable[tuple[str, str]], repairs: list[str]) -> str:
    """Valid JSON text from tokens, repairing commas, brackets, bare words and cuts."""
    out: list[str] = []
    stack: list[list[str]] = []  # [opener, state]; states: key colon value comma

    def done_value() -> None:
        if stack:
            stack[-1][1] = "comma"

    def close_top(code: str | None) -> None:
        opener, state = stack[-1]
        if state == "colon":  # a key without a colon or value
            out.pop()
            _note(repairs, "dropped_dangling")
        elif state == "value" and opener == "{":
            out.pop(), out.pop()  # the colon and the key
            _note(repairs, "dropped_dangling")
        if out and out[-1] == ",":
            out.pop()
            _note(repairs, "trailing_commas")
        if code:
            _note(repairs, code)
        out.append(_CLOSER[opener])
        stack.pop()
        done_value()

    for kind, text in tokens:
        if not stack:
            if kind not in "{[":
                raise _Broken("the JSON does not start with { or [")
            stack.append([kind, "key" if kind == "{" else "value"])
            out.append(kind)
            continue
        opener, state = stack[-1]
        if kind == ",":
            if state == "comma":
                out.append(",")
                stack[-1][1] = "key" if opener == "{" else "value"
            else:
                _note(repairs, "trailing_commas")
        elif kind == ":":
            if state != "colon":
                raise _Broken("a ':' where no key was given")
            out.append(":")
            stack[-1][1] = "value"
        elif kind in "}]":
            wanted = "{" if kind == "}" else "["
            if not any(o == wanted for o, _ in stack):
                _note(repairs, "dropped_closers")
                continue
            while stack[-1][0] != wanted:
                close_top("closed_brackets")
            close_top(None)
        else:  # a value, a bare word, or an opener
            if (
                kind == "{"
                and opener == "{"
                and state == "comma"
                and any(o == "[" for o, _ in stack)
            ):  # objects in a list that were never closed: the next one starts
                while stack[-1][0] != "[":
                    close_top("closed_brackets")
                opener, state = stack[-1]
            if state == "comma":
                out.append(",")
                _note(repairs, "missing_commas")
                state = stack[-1][1] = "key" if opener == "{" else "value"
            if opener == "{" and state == "key":
                if kind == "word":
                    _note(repairs, "bare_words")
                    text = json.dumps(text)
                elif kind != "value" or not text.startswith('"'):
                    raise _Broken(f"expected a key, found {text}")
                out.append(text)
                stack[-1][1] = "colon"
            elif state == "colon":
                raise _Broken(f"expected ':' after a key, found {text}")
            elif kind in "{[":
                out.append(kind)
                stack.append([kind, "key" if kind == "{" else "value"])
            else:
                if kind == "word":
                    _note(repairs, "bare_words")
                    text = json.dumps(text)
                out.append(text)
                done_value()
        if not stack:
            return "".join(out)
    while stack:
        close_top("closed_brackets")
    return "".join(out)


def _outermost(text: str, repairs: list[str]) -> str:
    """From the first { (or [ if there is no {) on; the rebuild stops where it closes."""
    start = text.find("{")
    if start < 0:
        start = text.find("[")
    if start < 0:
        raise _Broken("no JSON object in the reply")
    if text[:start].strip():
        _note(repairs, "extracted_object")
    return text[start:]


def repair_json(raw: str) -> tuple[Any | None, list[str], str | None]:
    """(value, repairs applied, None) or (None, repairs tried, why it cannot be read).

    Tries the text as it is; then the first fenced code block; then from the first
    ``{`` on, tokenised tolerantly and rebuilt (see REPAIRS). Never raises.
    """
    repairs: list[str] = []
    if not isinstance(raw, str) or not raw.strip():
        return None, repairs, "empty reply"
    text = raw.strip()
    try:
        return json.loads(text, strict=False), repairs, None
    except (ValueError, RecursionError):
        pass
    fence = _FENCE_OPEN.search(text)
    if fence is not None:
        _note(repairs, "code_fence")
        if text[: fence.start()].strip() or text[fence.end() :].strip():
            _note(repairs, "extracted_object")
        text = fence.group(1).strip()
        try:
            return json.loads(text, strict=False), repairs, None
        except (ValueError, RecursionError):
            pass
    try:
        candidate, end = _outermost(text, repairs), [0]
        tokens = _tokens(candidate, repairs, end)
        rebuilt = _rebuild(tokens, repairs)
        if candidate[min(end[0], len(candidate)) :].strip():
            _note(repairs, "extracted_object")  # text after the JSON's end
        return json.loads(rebuilt, strict=False), repairs, None
    except _Broken as exc:
        return None, repairs, str(exc)
    except (ValueError, RecursionError, IndexError) as exc:
        return None, repairs, f"not valid JSON even after repairs ({type(exc).__name__})"
