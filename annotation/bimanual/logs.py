"""The text parts of bimanual evaluation logs, and how one model reply becomes a stored step.

Pure functions over strings: the file-system walking and storing live in
`app.io.bimanual.bimanibench`. Formats (docs/bimanual-logs.md):

- BiManiBench / ST-BiBench ``vlmout.txt``: ``step N: ***************`` lines, each
  followed by the raw model reply; ``success_record.txt`` lines ``Task T success
  at round R, episode E, action count N``; ``failed_record.txt`` lines ``Task T
  failed at round R, episode E, action count N, action it:K: Action failed: ...``.
- EmbodiedBench step dicts carry the raw reply in ``reasoning``.

The fine-control tier (``low_level`` runs of ``script/myvlmEb_eval_vla.py``) writes the
same files; its plans are 16-number rows read by each env's ``take_action_by_dict_vla``
(`vla_plan`, `vla_row`, `harness_vla_step`).
"""

from __future__ import annotations

import ast
import json
import math
import re
from dataclasses import dataclass, replace
from typing import Any

from annotation.bimanual.pose import DEFAULT_ORDER, plan_to_internal
from annotation.bimanual.reply import arithmetic, parse_reply
from annotation.formats import json_text

BENCHMARK = "bimanual"
PLAN_STEP = "executable_plan"
ACTION_SUCCEEDED = "Action succeeded."
ACTION_EMPTY = "Action is empty, no action taken."
# BiManiBench's own lines (script/myvlmEb_eval.py, eval_policy), written whole
HARNESS_EMPTY = (
    "Action is empty, no action taken. If task is not finished, check the task is finished"
    " or not according to the image."
)
INVALID_FORMAT = "Invalid action format: "
SUGGESTION_NOTE = (
    "not executed: the harness could not json.loads this reply and ran nothing;"
    " this is ReasonScope's repaired reading, a suggestion replay-in-sim can try"
)

_STEP_LINE = re.compile(r"^step (\d+):[ \t]*\**[ \t]*$", re.M)
_SUCCESS = re.compile(r"Task (\S+) success at round (\d+), episode (\d+), action count (\d+)")
_TOTAL = re.compile(r"Task (\S+) evaluation completed\. Total successes: (\d+)/(\d+)")
_FAILED = re.compile(
    r"Task (\S+) failed at round (\d+), episode (\d+), action count (\d+),"
    r" action it:(\d+): (Action failed: .*)"
)


class LogError(ValueError):
    """A log whose structure is wrong; the message says what is missing, `line` where."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def split_vlmout(text: str) -> list[tuple[int, str]]:
    """(step number, raw reply) for each ``step N:`` block of a vlmout.txt.

    The reply is kept as written, less the one newline `print` added. Text before
    the first separator is not a reply; a file without any separator is refused.
    """
    marks = list(_STEP_LINE.finditer(text))
    if not marks:
        raise LogError("no 'step N:' lines")
    if not text.endswith("\n"):  # print() ends every block with a newline
        line = text.count("\n") + 1
        raise LogError("the last step block is cut short (no final newline)", line)
    for k, m in enumerate(marks):
        if int(m.group(1)) != k:  # write_print numbers the blocks 0, 1, 2, ...
            line = text.count("\n", 0, m.start()) + 1
            raise LogError(f"step {m.group(1)} where step {k} was expected", line)
    out = []
    for m, nxt in zip(marks, marks[1:] + [None], strict=True):
        body = text[m.end() : nxt.start() if nxt else len(text)]
        body = body[1:] if body.startswith("\n") else body
        out.append((int(m.group(1)), body[:-1] if body.endswith("\n") else body))
    return out


@dataclass(frozen=True)
class Record:
    task: str
    round: int
    episode: int
    action_count: int
    action_it: int | None = None
    message: str = ""
    line: int = 0


def read_records(text: str, kind: str) -> tuple[list[Record], tuple[int, int] | None]:
    """The lines of a success_record.txt (kind "success") or failed_record.txt ("failed"),
    and a success record's "Total successes: S/N" line, if any.

    Every line must be one the harness writes (script/myvlmEb_eval.py, eval_policy),
    ending with its newline: a truncated or garbled line raises LogError with its line.
    """
    out: list[Record] = []
    total = None
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    elif lines:  # the last line has no newline: the write was cut short
        raise LogError("the last line is cut short (no final newline)", len(lines))
    for n, line in enumerate(lines, start=1):
        if kind == "success" and (m := _SUCCESS.fullmatch(line)):
            out.append(Record(m.group(1), *map(int, m.groups()[1:4]), line=n))
        elif kind == "success" and (m := _TOTAL.fullmatch(line)):
            total = (int(m.group(2)), int(m.group(3)))
        elif kind == "failed" and (m := _FAILED.fullmatch(line)):
            task, r, e, c, it = m.group(1), *map(int, m.groups()[1:5])
            out.append(Record(task, r, e, c, it, m.group(6), n))
        elif kind == "failed" and out and not line.startswith("Task "):
            # the failure message itself held a newline: the harness wrote it whole
            prev = out.pop()
            out.append(replace(prev, message=f"{prev.message}\n{line}"))
        else:
            shown = line if len(line) <= 60 else line[:57] + "..."
            raise LogError(f"not a line the harness writes: {shown!r}", n)
    return out, total


def harness_plan(raw: str) -> tuple[Any, str]:
    """What BiManiBench's `VLMPlanner.json_to_action` (script/vlmplanner.py) returned for
    a reply, and, when it returned {} because the reply could not be read, why.

    It is `json.loads` and nothing else: any decode failure gives {} (nothing runs); an
    object without executable_plan, or with an empty list, gives {} too (an empty plan,
    not an error); a JSON value that is not an object fails on `.get` and gives {}.
    """
    try:
        value = json_text.loads(raw)
    except ValueError as exc:
        return {}, f"json.loads failed ({exc})"
    if not isinstance(value, dict):
        return {}, f"the reply is a JSON {type(value).__name__}, not an object"
    plan = value.get(PLAN_STEP, {})
    if isinstance(plan, list) and not plan:
        return {}, ""
    return plan, ""


def harness_feedback(
    plan: Any, failed: dict[int, str], ran: set[int] | None, task_done: bool
) -> tuple[list[str], bool | None, list[int]]:
    """The harness's feedback lines for one step (eval_policy's action_feedback), the
    step's ok, and the indices of the plan items it executed.

    `failed` maps an action index to its failed_record message; `ran` is the set of
    indices that left per-action views (obsimg_N-M/obsimg_II.jpg), None when those
    folders are absent; `task_done` says the task succeeded on this step, so the loop
    stopped after the action that finished it.
    """
    if isinstance(plan, dict) and not plan:
        return [HARNESS_EMPTY], None, []
    if isinstance(plan, dict):  # one action run by itself: its result is in no record
        return [], None, [0]
    lines: list[str] = []
    executed: list[int] = []
    last = max(ran) if ran else None
    for it, action in enumerate(plan if isinstance(plan, (list, str)) else []):
        if task_done and last is not None and it > last:
            break
        if not isinstance(action, dict):
            lines.append(f"{INVALID_FORMAT}{action}")
            continue
        executed.append(it)
        if it in failed:
            lines.append(failed[it])
            break
        lines.append(ACTION_SUCCEEDED)
    failed_any = any(it in failed for it in executed)
    ok = False if failed_any else (True if executed else None)
    return lines, ok, executed


def reply_step(
    raw: Any,
    *,
    feedback: str = "",
    ok: bool | None = None,
    name: str = "",
    pose_order: str = DEFAULT_ORDER,
    result: dict[str, Any] | None = None,
    image_sha256: str | None = None,
) -> dict[str, Any]:
    """A step dict ready to store from one raw reply and what the harness recorded.

    A readable reply is an ``action`` step: its arguments hold the tier, the pose
    order and the plan with poses converted (`plan_to_internal`); a reply that cannot
    be read is a ``format_error`` step whose feedback says why (the harness's own
    feedback is kept in ``result.env_feedback``). The parse report is ``result.parse``.
    """
    if not isinstance(raw, str):
        raw = "" if raw is None else json.dumps(raw, ensure_ascii=False)
    reply = parse_reply(raw)
    result = {"parse": reply.report, **(result or {})}
    step: dict[str, Any] = {
        "kind": "action",
        "name": name or PLAN_STEP,
        "arguments": {},
        "result": result,
        "ok": ok,
        "feedback": feedback,
        "model_text": reply.model_text,
        "raw_output": raw,
        "state": None,
        "image_sha256": image_sha256,
    }
    if not reply.ok:
        if feedback:
            result["env_feedback"] = feedback
        step.update(kind="format_error", ok=False, feedback=f"Format error: {reply.error}")
        return step
    notes: list[str] = []
    plan = plan_to_internal(reply.executable_plan, pose_order, notes=notes)
    if notes:
        result["pose_notes"] = notes
    step["arguments"] = {"tier": reply.tier, "pose_order": pose_order, "plan": plan}
    return step


def outcome_fields(success: bool | None) -> dict[str, Any]:
    """The episode header's outcome, success and score for a known or unknown result."""
    if success is None:
        return {"outcome": "", "success": None, "score": None}
    return {
        "outcome": "success" if success else "failure",
        "success": success,
        "score": float(success),
    }


def harness_step(
    raw: str,
    *,
    failed: dict[int, str],
    ran: set[int] | None,
    task_done: bool,
    have_records: bool,
    pose_order: str = DEFAULT_ORDER,
    result: dict[str, Any] | None = None,
    image_sha256: str | None = None,
) -> dict[str, Any]:
    """A BiManiBench step that says what the harness (script/myvlmEb_eval.py, eval_policy)
    did with one reply: a reply `json.loads` cannot read ran nothing (a ``format_error``
    step, our repaired reading kept in ``result.suggestion``); otherwise the plan the
    harness ran, with its feedback lines rebuilt whole (`harness_feedback`)."""
    step = reply_step(raw, pose_order=pose_order, result=result, image_sha256=image_sha256)
    plan, why = harness_plan(raw)
    out = step["result"]
    if why:  # json_to_action returned {}: nothing ran; our reading is only a suggestion
        return _ran_nothing(step, why, have_records)
    if step["kind"] == "format_error":  # the harness read it; our checks found no action
        out.pop("env_feedback", None)
        step.update(kind="action", arguments={"tier": "", "pose_order": pose_order, "plan": []})
    lines, ok, executed = harness_feedback(plan, failed, ran, task_done)
    out["executed"] = executed
    step["feedback"], step["ok"] = ("\n".join(lines), ok) if have_records else ("", None)
    return step


def _ran_nothing(step: dict[str, Any], why: str, have_records: bool) -> dict[str, Any]:
    """A step whose reply the harness's json_to_action could not read (it returned {}):
    a format error; our repaired reading, if any, kept as a suggestion."""
    out = step["result"]
    if step["kind"] == "action":
        out["suggestion"] = {
            "note": SUGGESTION_NOTE,
            "arguments": step["arguments"],
            "parse": out["parse"],
        }
    out["parse"] = {"ok": False, "tier": "", "repairs": [], "problems": [], "error": why}
    out["format_error"] = why
    feedback = HARNESS_EMPTY if have_records else ""
    out["env_feedback"] = feedback
    step.update(
        kind="format_error", arguments={}, ok=False, feedback=feedback or f"Format error: {why}"
    )
    return step


# -- the fine-control tier: script/myvlmEb_eval_vla.py ---------------------------------------
# VLMPlanner.act (script/vlmplanner_vla.py) hands the loop only the first actionChunkNum
# items of a plan: action_chunk_num_vla of description/task_instruction/<task>.json, 6
# where the file names none. The harness's own values, by the task name it logs.
VLA_CHUNK = 6
VLA_CHUNKS = {"stack_blocks_two": 9, "place_bread_skillet_vla": 10}
VLA_LENGTH = "Invalid action length: {n}. Must be a list or tuple of 16 numbers."


class _NotANumber(Exception):
    """The harness's safe_eval gave a value float() refuses (a list, None, a word)."""


def vla_chunk(task: str) -> int:
    """How many plan items the fine-control harness takes per reply for a task."""
    return VLA_CHUNKS.get(task, VLA_CHUNK)


def _vla_number(text: str) -> float:
    """One value as take_action_by_dict_vla's float(safe_eval(text)) reads it: arithmetic
    on numbers is computed, what safe_eval cannot compute is NaN, and a value float()
    refuses (a list, None, a quoted word) is _NotANumber."""
    try:
        body = ast.parse(text.strip(" \t"), mode="eval").body
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return math.nan
    if isinstance(body, ast.Constant) and not isinstance(body.value, (int, float)):
        try:
            return float(body.value)  # float("0.5") reads a quoted number
        except (TypeError, ValueError) as exc:
            raise _NotANumber(str(exc)) from None
    if isinstance(body, (ast.List, ast.Tuple, ast.Dict, ast.Set)):
        raise _NotANumber(f"a {type(body).__name__.lower()} is not a number")
    if isinstance(body, ast.Constant):  # True / False read as 1 / 0
        return float(body.value)
    try:
        return arithmetic(text)
    except ValueError:
        return math.nan


def vla_row(item: Any) -> tuple[list[float | str] | None, str]:
    """A plan item as take_action_by_dict_vla reads it (every fine-control env has the same
    one): text is `ast.literal_eval`-ed, else split at commas; each value is a number or
    arithmetic on numbers ("0.738+0.144"). Returns (the numbers, "") for 16 of them,
    (the numbers, the harness's length message) for another count, (None, why) for an item
    it cannot read at all. A value the harness could only read as NaN (it still ran the
    row) is kept as the text the model wrote."""
    obj = item
    if isinstance(obj, str):
        try:
            obj = ast.literal_eval(obj)
        except Exception:  # the harness falls back on any failure, as here
            obj = [x.strip() for x in obj.strip("[]").split(",")]
    if not isinstance(obj, (list, tuple)):
        obj = [obj]
    values: list[float | str] = []
    for x in obj:
        try:
            if isinstance(x, (int, float)):
                number = float(x)
                values.append(number if math.isfinite(number) else repr(x))
                continue
            text = x if isinstance(x, str) else str(x)
            number = _vla_number(text)
        except (_NotANumber, OverflowError) as exc:
            return None, f"the harness could not read {x!r} as a number ({exc})"
        values.append(number if math.isfinite(number) else text)
    if len(values) != 16:
        return values, VLA_LENGTH.format(n=len(values))
    return values, ""


def vla_plan(raw: str) -> tuple[list[Any] | None, str]:
    """What the fine-control planner (script/vlmplanner_vla.py, VLMPlanner.json_to_action
    and act) hands the loop for a reply, before act cuts it to the chunk.

    (None, why) when json_to_action returned {} because it could not read the reply;
    (None, "") when it returned {} for an empty plan (the harness says so in its feedback);
    (items, "") for a list, or for a text plan its characters, which the loop takes one by
    one (an empty text runs nothing and says nothing). A non-empty object or any other
    value makes act fail before the reply is logged: LogError, this log was not written by
    that harness.
    """
    try:
        value = json_text.loads(raw)
    except ValueError as exc:
        return None, f"json.loads failed ({exc})"
    if not isinstance(value, dict):
        return None, f"the reply is a JSON {type(value).__name__}, not an object"
    plan = value.get(PLAN_STEP, {})
    if isinstance(plan, list):
        return (plan or None), ""
    if isinstance(plan, str):
        return list(plan), ""
    if isinstance(plan, dict) and not plan:
        return None, ""
    raise LogError(
        f"executable_plan is a JSON {type(plan).__name__}: the fine-control planner"
        " (vlmplanner_vla.py act) fails on it before logging the reply"
    )


def vla_taken(count: int, chunk: int, failure: int | None, ran: set[int] | None) -> int:
    """How many of a plan's `count` items the harness took: the chunk, unless the per-action
    views (each row that ran leaves one) or a failure record show it took more."""
    if ran and failure is None:
        return min(count, max(ran) + 1)
    taken = min(count, chunk)
    return max(taken, failure + 1) if failure is not None else taken


def vla_items(
    items: list[Any], pose_order: str = DEFAULT_ORDER
) -> tuple[list[dict[str, Any]], list[str]]:
    """Plan items as the harness read them, stored as rows (`plan_to_internal`), index for
    index: a row it refused keeps the numbers it read (``{"row": values}``, or
    ``{"row": [], "unread": item}`` when it read none); notes say why."""
    out: list[dict[str, Any]] = []
    notes: list[str] = []
    for i, item in enumerate(items):
        values, why = vla_row(item)
        if values is None or why:  # the harness refused it: kept as it read it, if at all
            out.append({"row": [], "unread": item} if values is None else {"row": values})
            notes.append(f"executable_plan[{i}]: {why}")
            continue
        item_notes: list[str] = []
        out.extend(plan_to_internal([values], pose_order, notes=item_notes))
        notes.extend(
            n.replace("executable_plan[0]", f"executable_plan[{i}]", 1) for n in item_notes
        )
    return out, notes


def harness_vla_step(
    raw: str,
    *,
    chunk: int,
    failed: dict[int, str],
    ran: set[int] | None,
    have_records: bool,
    pose_order: str = DEFAULT_ORDER,
    result: dict[str, Any] | None = None,
    image_sha256: str | None = None,
) -> dict[str, Any]:
    """A step of the fine-control harness (script/myvlmEb_eval_vla.py, eval_policy): every
    item it took goes to take_action_by_dict_vla, whatever it is; each that returned True
    is "Action succeeded.", the first that did not is its failed_record message and ends
    the step (not the episode); the success check runs after the whole step. The stored
    plan is the taken items as the harness read them; items beyond the chunk are counted
    in ``result.dropped``."""
    step = reply_step(raw, pose_order=pose_order, result=result, image_sha256=image_sha256)
    items, why = vla_plan(raw)
    out = step["result"]
    if why:
        return _ran_nothing(step, why, have_records)
    out.pop("env_feedback", None)
    out.pop("pose_notes", None)
    failure = min(failed) if failed else None
    taken = vla_taken(len(items), chunk, failure, ran) if items is not None else 0
    plan, notes = vla_items((items or [])[:taken], pose_order)
    if notes:
        out["pose_notes"] = notes
    if items is not None and len(items) > taken:
        out["dropped"] = len(items) - taken
    step.update(
        kind="action",
        arguments={"tier": "row16" if plan else "", "pose_order": pose_order, "plan": plan},
    )
    if items is None:
        lines, ok, executed = [HARNESS_EMPTY], None, []
    else:
        lines, executed = [], []
        for it in range(taken):
            executed.append(it)
            if it in failed:
                lines.append(failed[it])
                break
            lines.append(ACTION_SUCCEEDED)
        ok = False if failure is not None else (True if executed else None)
    out["executed"] = executed
    step["feedback"], step["ok"] = ("\n".join(lines), ok) if have_records else ("", None)
    return step
