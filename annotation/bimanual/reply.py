"""A bimanual planner's reply, read tolerantly: the four fields, the plan, and a report.

ST-BiBench's planner answers in JSON with ``visual_state_description``,
``reasoning_and_reflection``, ``language_plan`` and ``executable_plan``
(papers/003, appendices C and F). The plan is a list of action objects
(``{"action_id", "action_name", "parameters"}``, the primitive tier, checked
against `annotation.bimanual.actions`) or a list of 16-number rows, often
written as strings ``"[0.0, -0.13, ...]"`` (the 16-dim tier).

`parse_reply` never raises. Broken JSON is repaired where the intent is clear
(`annotation.model_output.repair_json`, each repair named in the report); what
cannot be read gives ``ok=False`` and the reason, which importers store as a
Format Error step. Problems with a readable plan (an unknown action, a
parameter of the wrong kind, a row of 15 numbers) are listed, never fatal.
"""

from __future__ import annotations

import ast
import json
import math
import operator
import re
from dataclasses import dataclass, field
from typing import Any

from annotation.bimanual.actions import check_action
from annotation.formats import json_text
from annotation.model_output import REPAIRS, repair_json

TEXT_FIELDS = ("visual_state_description", "reasoning_and_reflection", "language_plan")
PLAN_FIELD = "executable_plan"
ROW_LENGTH = 16
TIERS = ("primitive", "row16", "mixed", "")

PLAN_REPAIRS = {
    "field_case": "matched field names written in another case or with spaces",
    "plan_as_text": "read an executable_plan given as text as the JSON list inside it",
    "single_action": "read an executable_plan that is one action as a list of one",
    "bare_plan": "read a reply that is only a list as the executable plan",
    "rows_space_separated": "read rows whose numbers are separated by spaces only",
    "row_number_text": 'read row numbers written as text ("0.5")',
    "row_arithmetic": "computed row numbers written as arithmetic (0.738+0.144), as"
    " BiManiBench's fine-control harness does",
}
ALL_REPAIRS = {**REPAIRS, **PLAN_REPAIRS}
_ROW_SPLIT = re.compile(r"[\s,]+")


@dataclass
class ParsedReply:
    """What a reply says. `executable_plan` holds action dicts or lists of numbers."""

    ok: bool
    visual_state_description: str = ""
    reasoning_and_reflection: str = ""
    language_plan: str = ""
    executable_plan: list[Any] = field(default_factory=list)
    tier: str = ""  # primitive | row16 | mixed | "" (no plan items)
    repairs: list[str] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    error: str = ""

    @property
    def report(self) -> dict[str, Any]:
        """The parse report stored with the step."""
        return {
            "ok": self.ok,
            "tier": self.tier,
            "repairs": list(self.repairs),
            "problems": list(self.problems),
            "error": self.error,
        }

    @property
    def model_text(self) -> dict[str, str]:
        """The three text fields that were given."""
        return {k: getattr(self, k) for k in TEXT_FIELDS if getattr(self, k)}


def _note(repairs: list[str], code: str) -> None:
    if code not in repairs:
        repairs.append(code)


_OPERATORS = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
    ast.USub: operator.neg,
    ast.UAdd: operator.pos,
}


def arithmetic(text: str) -> float:
    """The number that arithmetic on numbers ("0.738+0.144", "-(0.5)", "1/2") comes to;
    ValueError for anything else (a name, a call, a list, a string)."""

    def value(node: ast.AST) -> float:
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            return float(node.value)
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            left, right = value(node.left), value(node.right)
            if isinstance(node.op, ast.Pow) and abs(right) > 64:
                raise ValueError("exponent too large")
            return float(_OPERATORS[type(node.op)](left, right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return float(_OPERATORS[type(node.op)](value(node.operand)))
        raise ValueError(f"not arithmetic on numbers: {text!r}")

    try:
        return value(ast.parse(text.strip(" \t"), mode="eval").body)
    except (SyntaxError, ArithmeticError, TypeError, RecursionError, MemoryError) as exc:
        raise ValueError(f"not arithmetic on numbers: {text!r} ({exc})") from None


def _number(v: Any, repairs: list[str]) -> float | None:
    """A row value: a number, or text of a number or of arithmetic on numbers."""
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if not isinstance(v, str):
        return None
    try:
        number = float(v)
        if not math.isfinite(number):
            return None
    except ValueError:
        try:
            number = arithmetic(v)
        except ValueError:
            return None
        _note(repairs, "row_arithmetic")
    _note(repairs, "row_number_text")
    return number


def _row(item: Any, repairs: list[str]) -> list[float] | None:
    """A row from a list of numbers or from text such as "[0.0, -0.13, ...]"; numbers
    may be written as text or as arithmetic (as BiManiBench's fine-control harness reads
    them: envs/*.py take_action_by_dict_vla)."""
    if isinstance(item, str):
        text = item.strip()
        try:
            value = json_text.loads(text)
        except ValueError:
            inner = text.strip("[]() \n\t")
            parts = [p for p in _ROW_SPLIT.split(inner) if p]
            try:
                value = [float(p) for p in parts]
            except ValueError:
                try:
                    value = [arithmetic(p) for p in inner.split(",")]
                except ValueError:
                    return None
                _note(repairs, "row_arithmetic")
                return value
            if parts and "," not in inner:
                _note(repairs, "rows_space_separated")
        item = value
    if not isinstance(item, list) or not item:
        return None
    seen = list(repairs)
    numbers = [_number(v, seen) for v in item]
    if any(v is None for v in numbers):
        return None
    for code in seen:
        _note(repairs, code)
    return numbers  # type: ignore[return-value]


def _fields(value: dict[str, Any], repairs: list[str]) -> dict[str, Any]:
    """The reply's keys by canonical name (case and spaces forgiven)."""
    out: dict[str, Any] = {}
    for key, v in value.items():
        canonical = re.sub(r"[\s-]+", "_", str(key).strip()).lower()
        if canonical != key:
            _note(repairs, "field_case")
        out.setdefault(canonical, v)
    return out


def _plan(raw: Any, repairs: list[str], problems: list[str]) -> tuple[list[Any] | None, str]:
    """(the plan list, "") or (None, why it cannot be read)."""
    if isinstance(raw, str):
        inner, inner_repairs, why = repair_json(raw)
        if not isinstance(inner, list):
            return None, f"executable_plan is text that is not a list ({why or 'not a list'})"
        _note(repairs, "plan_as_text")
        for code in inner_repairs:
            _note(repairs, code)
        raw = inner
    if isinstance(raw, dict):
        _note(repairs, "single_action")
        raw = [raw]
    if not isinstance(raw, list):
        return None, f"executable_plan is {type(raw).__name__}, not a list"
    return raw, ""


def _read(text: Any) -> ParsedReply:
    value, repairs, why = repair_json(text)
    if why is not None:
        return ParsedReply(ok=False, repairs=repairs, error=why)
    problems: list[str] = []
    if isinstance(value, list):
        _note(repairs, "bare_plan")
        value = {PLAN_FIELD: value}
    if not isinstance(value, dict):
        kind = type(value).__name__
        return ParsedReply(ok=False, repairs=repairs, error=f"the reply is a JSON {kind}")
    fields = _fields(value, repairs)
    reply = ParsedReply(ok=True, repairs=repairs, problems=problems)
    for name in TEXT_FIELDS:
        v = fields.get(name)
        if v is None:
            problems.append(f"missing field {name!r}")
        elif isinstance(v, str):
            setattr(reply, name, v)
        else:
            problems.append(f"{name} is {type(v).__name__}, not text")
            setattr(reply, name, json.dumps(v, ensure_ascii=False))
    if PLAN_FIELD not in fields:
        reply.ok, reply.error = False, "no executable_plan in the reply"
        return reply
    plan, why = _plan(fields[PLAN_FIELD], repairs, problems)
    if plan is None:
        reply.ok, reply.error = False, why
        return reply
    kinds = set()
    for i, item in enumerate(plan):
        where = f"executable_plan[{i}]"
        if isinstance(item, dict):
            action, action_problems = check_action(item)
            problems.extend(f"{where}: {p}" for p in action_problems)
            reply.executable_plan.append(action)
            kinds.add("primitive")
            continue
        row = _row(item, repairs)
        if row is None:
            problems.append(f"{where} is neither an action nor a row of numbers; skipped")
            continue
        if len(row) != ROW_LENGTH:
            problems.append(f"{where} has {len(row)} numbers, not {ROW_LENGTH}")
        reply.executable_plan.append(row)
        kinds.add("row16")
    reply.tier = kinds.pop() if len(kinds) == 1 else ("mixed" if kinds else "")
    if reply.tier == "mixed":
        problems.append("executable_plan mixes actions and rows")
    if plan and not reply.executable_plan:
        reply.ok, reply.error = False, "no item of executable_plan could be read"
    return reply


def parse_reply(text: Any) -> ParsedReply:
    """Read one planner reply; never raises (anything unexpected is a failed parse)."""
    try:
        return _read(text)
    except Exception as exc:  # a bug must not stop an import: the reply becomes a format error
        return ParsedReply(ok=False, error=f"unreadable reply ({type(exc).__name__}: {exc})")
