"""The text parts of bimanual evaluation logs, and how one model reply becomes a stored step.

Pure functions over strings: the file-system walking and storing live in
`app.io.bimanual.bimanibench`. Formats (docs/bimanual-logs.md):

- BiManiBench / ST-BiBench ``vlmout.txt``: ``step N: ***************`` lines, each
  followed by the raw model reply; ``success_record.txt`` lines ``Task T success
  at round R, episode E, action count N``; ``failed_record.txt`` lines ``Task T
  failed at round R, episode E, action count N, action it:K: Action failed: ...``.
- EmbodiedBench step dicts carry the raw reply in ``reasoning``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, replace
from typing import Any

from annotation.bimanual.pose import DEFAULT_ORDER, plan_to_internal
from annotation.bimanual.reply import parse_reply

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
        value = json.loads(raw)
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
    return {"outcome": "success" if success else "failure", "success": success,
            "score": float(success)}  # fmt: skip


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
        if step["kind"] == "action":
            out["suggestion"] = {"note": SUGGESTION_NOTE, "arguments": step["arguments"],
                                 "parse": out["parse"]}  # fmt: skip
        out["parse"] = {"ok": False, "tier": "", "repairs": [], "problems": [], "error": why}
        out["format_error"] = why
        feedback = HARNESS_EMPTY if have_records else ""
        out["env_feedback"] = feedback
        step.update(kind="format_error", arguments={}, ok=False,
                    feedback=feedback or f"Format error: {why}")  # fmt: skip
        return step
    if step["kind"] == "format_error":  # the harness read it; our checks found no action
        out.pop("env_feedback", None)
        step.update(kind="action", arguments={"tier": "", "pose_order": pose_order, "plan": []})
    lines, ok, executed = harness_feedback(plan, failed, ran, task_done)
    out["executed"] = executed
    step["feedback"], step["ok"] = ("\n".join(lines), ok) if have_records else ("", None)
    return step
