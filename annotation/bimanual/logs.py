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
from dataclasses import dataclass
from typing import Any

from annotation.bimanual.pose import DEFAULT_ORDER, plan_to_internal
from annotation.bimanual.reply import parse_reply

BENCHMARK = "bimanual"
PLAN_STEP = "executable_plan"
ACTION_SUCCEEDED = "Action succeeded."
ACTION_EMPTY = "Action is empty, no action taken."

_STEP_LINE = re.compile(r"^step (\d+):[ \t]*\**[ \t]*$", re.M)
_SUCCESS = re.compile(r"Task (\S+) success at round (\d+), episode (\d+), action count (\d+)")
_FAILED = re.compile(
    r"Task (\S+) failed at round (\d+), episode (\d+), action count (\d+)"
    r"(?:, action it:\s*(\d+))?:?\s*(.*)"
)


class LogError(ValueError):
    """A log whose structure is wrong; the message says what is missing."""


def split_vlmout(text: str) -> list[tuple[int, str]]:
    """(step number, raw reply) for each ``step N:`` block of a vlmout.txt.

    The reply is kept as written, less the one newline `print` added. Text before
    the first separator is not a reply; a file without any separator is refused.
    """
    marks = list(_STEP_LINE.finditer(text))
    if not marks:
        raise LogError("no 'step N:' lines")
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


def read_records(text: str, kind: str) -> list[Record]:
    """The lines of a success_record.txt (kind "success") or failed_record.txt ("failed").

    Lines of another shape (the run's final "Total successes" line) are skipped.
    """
    pattern = _SUCCESS if kind == "success" else _FAILED
    out = []
    for line in text.splitlines():
        m = pattern.search(line)
        if m is None:
            continue
        task, r, e, n = m.group(1), int(m.group(2)), int(m.group(3)), int(m.group(4))
        if kind == "success":
            out.append(Record(task, r, e, n))
        else:
            it = int(m.group(5)) if m.group(5) is not None else None
            out.append(Record(task, r, e, n, it, m.group(6).strip()))
    return out


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
