"""The step panel for dual-arm episodes: the plan with each action's outcome, both arms'
end effectors, the model's four text fields, the parse report, and how our simulator's
run of the same plan compares.

A dual-arm step is one model reply: an `executable_plan` of primitive actions
(`grasp_actor`, `place_actor`, ...) or of 16-number rows (both arms' poses and
grips), see docs/bimanual-logs.md. Episodes recorded in our world carry each
action's feedback (`result.actions`) and the end effectors after the step
(`result.ee`); imported logs carry only the step's feedback, and for 16-number
plans the last row says where the plan left the arms. Everything here reads
plain step dicts, so it is testable without a screen.
"""

from __future__ import annotations

import html
import json
from dataclasses import dataclass
from typing import Any

from annotation.bimanual.reply import ALL_REPAIRS
from widgets.replay.step_panel import FAIL_STYLE, OK_STYLE, StepPanel, pre_html, section_html

ARMS = ("left", "right")
TEXT_FIELDS = (
    ("visual_state_description", "Visual state description"),
    ("reasoning_and_reflection", "Reasoning and reflection"),
    ("language_plan", "Language plan"),
)
SKIP_STYLE = "color: #777"
NOTE_STYLE = "color: #8a6d00"


@dataclass(frozen=True)
class PlanItem:
    """One action (or 16-number row) of a plan, with its outcome where recorded."""

    index: int
    text: str  # "grasp_actor(actor=block, arm_tag=right)" or a row's summary
    arm: str  # "left", "right", "both" or ""
    ok: bool | None  # None: not recorded (imported logs) or not run
    feedback: str
    ran: bool = True  # False: after the first failure (or a truncation) it never ran


@dataclass(frozen=True)
class ArmPose:
    x: float
    y: float
    z: float
    grip: float | None  # 1 open, 0 closed (RoboTwin's convention)

    @property
    def gripper(self) -> str:
        if self.grip is None:
            return "?"
        return "open" if self.grip >= 0.5 else "closed"


def _number(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    if isinstance(value, list) and all(isinstance(v, int | float) for v in value):
        return "[" + ", ".join(_number(float(v)) for v in value) + "]"
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else value


def plan_of(step: dict[str, Any]) -> list[Any]:
    plan = (step.get("arguments") or {}).get("plan")
    return plan if isinstance(plan, list) else []


def _row_pose(side: Any) -> ArmPose | None:
    if not isinstance(side, dict) or not isinstance(side.get("position"), list):
        return None
    x, y, z = (float(v) for v in side["position"][:3])
    grip = side.get("grip")
    return ArmPose(x, y, z, float(grip) if isinstance(grip, int | float) else None)


def _describe(item: Any) -> tuple[str, str]:
    """(text, arm) of one plan item as the model wrote it."""
    if isinstance(item, dict) and "action_name" in item:
        params = item.get("parameters") or {}
        args = ", ".join(f"{k}={_number(v)}" for k, v in params.items())
        arm = params.get("arm_tag", "")
        return f"{item['action_name']}({args})", arm if isinstance(arm, str) else ""
    if isinstance(item, dict) and "row" in item:
        parts = []
        for arm in ARMS:
            pose = _row_pose(item.get(arm))
            if pose is not None:
                parts.append(
                    f"{arm[0].upper()} ({pose.x:.3f}, {pose.y:.3f}, {pose.z:.3f}) {pose.gripper}"
                )
        return ("row: " + "; ".join(parts)) if parts else f"row {item['row']}", "both"
    return json.dumps(item, ensure_ascii=False)[:200], ""


def plan_items(step: dict[str, Any]) -> list[PlanItem]:
    """The plan's items with what each did: per action when the step records it (our
    simulator), else the step's own outcome on every item (imported logs say no more)."""
    result = step.get("result") if isinstance(step.get("result"), dict) else {}
    recorded = {a.get("index"): a for a in result.get("actions") or [] if isinstance(a, dict)}
    items = []
    for i, item in enumerate(plan_of(step)):
        text, arm = _describe(item)
        if recorded:
            action = recorded.get(i)
            if action is None or (action.get("ok") is None and not action.get("feedback")):
                # after the first failure (or a truncation) the rest of a plan never runs
                items.append(PlanItem(i, text, arm, None, "not run", ran=False))
            else:
                arm = action.get("arm") or arm
                items.append(PlanItem(i, text, arm, action.get("ok"), action.get("feedback", "")))
        else:
            items.append(PlanItem(i, text, arm, None, ""))
    return items


def arm_poses(step: dict[str, Any]) -> tuple[dict[str, ArmPose], str]:
    """Both end effectors and where the numbers come from: after the step in our
    simulator (`result.ee`), else the last row of a 16-number plan; ({}, "") when neither."""
    result = step.get("result") if isinstance(step.get("result"), dict) else {}
    ee = result.get("ee")
    if isinstance(ee, dict):
        poses = {}
        for arm in ARMS:
            side = ee.get(arm) or {}
            pose = side.get("pose")
            if isinstance(pose, list) and len(pose) >= 3:
                grip = side.get("grip")
                poses[arm] = ArmPose(*(float(v) for v in pose[:3]), grip)
        if poses:
            return poses, "after the step, in our simulator"
    rows = [item for item in plan_of(step) if isinstance(item, dict) and "row" in item]
    if rows:
        poses = {arm: p for arm in ARMS if (p := _row_pose(rows[-1].get(arm))) is not None}
        if poses:
            return poses, "where the plan's last row sends them (not measured)"
    return {}, ""


def model_plan(step: dict[str, Any]) -> list[Any]:
    """The executable plan as the model wrote it (without our converted poses)."""
    out = []
    for item in plan_of(step):
        if isinstance(item, dict) and "row" in item:
            out.append(item["row"])
        elif isinstance(item, dict):
            out.append({k: v for k, v in item.items() if k != "poses"})
        else:
            out.append(item)
    return out


def _plan_json(plan: list[Any]) -> str:
    """One line per action or row: readable, and short enough for a narrow panel."""
    if not plan:
        return "[]"
    lines = [json.dumps(item, ensure_ascii=False) for item in plan]
    return "[\n  " + ",\n  ".join(lines) + "\n]"


def step_failed(step: dict[str, Any]) -> bool:
    return step.get("kind") == "format_error" or (
        step.get("kind") != "observation" and step.get("ok") is False
    )


def bimanual_step_title(index: int, last: int, step: dict[str, Any]) -> str:
    kind = step.get("kind", "")
    if kind == "observation":
        return f"Step {index} of {last} · initial observation"
    if kind == "format_error":
        return f"Step {index} of {last} · format error · ✗ failed"
    n = len(plan_of(step))
    unit = "row" if (step.get("arguments") or {}).get("tier") == "row16" else "action"
    what = f"plan of {n} {unit}{'s' * (n != 1)}"
    verdict = {True: " · ✓ ok", False: " · ✗ failed"}.get(step.get("ok"), "")
    failed = [i.index for i in plan_items(step) if i.ok is False]
    if failed:
        verdict += f" at {unit} {failed[0]}"
    result = step.get("result") if isinstance(step.get("result"), dict) else {}
    done = " · task done" if result.get("task_success") else ""
    return f"Step {index} of {last} · {what}{verdict}{done}"


def plan_html(step: dict[str, Any]) -> str:
    items = plan_items(step)
    if not items:
        return "<p>Empty plan: nothing to do.</p>"
    per_action = any(not i.ran or i.ok is not None for i in items)
    rows = []
    for item in items:
        if not item.ran:
            mark, style = "–", SKIP_STYLE
        elif item.ok is None:
            mark, style = "·", ""
        else:
            mark, style = ("✓", OK_STYLE) if item.ok else ("✗", FAIL_STYLE)
        feedback = f"<br><span style='{style}'>{html.escape(item.feedback)}</span>"
        rows.append(
            f"<tr><td align='right' valign='top'>{item.index}</td>"
            f"<td valign='top' style='{style}'><b>{mark}</b></td>"
            f"<td valign='top'>{html.escape(item.arm)}</td>"
            f"<td>{html.escape(item.text)}{feedback if item.feedback else ''}</td></tr>"
        )
    head = "<tr><th>#</th><th></th><th align='left'>Arm</th><th align='left'>Action</th></tr>"
    table = f"<table cellspacing='0' cellpadding='2'>{head}{''.join(rows)}</table>"
    if not per_action:
        table += (
            f"<p style='{SKIP_STYLE}'>The log records one outcome for the whole plan "
            "(the feedback below), not one per action.</p>"
        )
    return table


def arms_html(step: dict[str, Any]) -> str:
    poses, source = arm_poses(step)
    if not poses:
        return f"<p style='{SKIP_STYLE}'>Not recorded for this step.</p>"
    rows = "".join(
        f"<tr><td>{arm}</td><td align='right'>{p.x:.3f}</td><td align='right'>{p.y:.3f}</td>"
        f"<td align='right'>{p.z:.3f}</td><td>{p.gripper}"
        f"{'' if p.grip is None else f' ({p.grip:.2f})'}</td></tr>"
        for arm, p in poses.items()
    )
    head = "<tr><th align='left'>Arm</th><th>x</th><th>y</th><th>z (m)</th><th>Gripper</th></tr>"
    return (
        f"<table cellspacing='0' cellpadding='2'>{head}{rows}</table>"
        f"<p style='{SKIP_STYLE}'>End effectors {html.escape(source)}.</p>"
    )


def parse_html(step: dict[str, Any]) -> str:
    result = step.get("result") if isinstance(step.get("result"), dict) else {}
    report = result.get("parse")
    if not isinstance(report, dict):
        return ""
    lines = []
    if report.get("error"):
        lines.append(f"<p style='{FAIL_STYLE}'>Unreadable: {html.escape(report['error'])}</p>")
    repairs = report.get("repairs") or []
    if repairs:
        items = "".join(
            f"<li><code>{html.escape(r)}</code>: {html.escape(ALL_REPAIRS.get(r, ''))}</li>"
            for r in repairs
        )
        lines.append(f"<p>Read after {len(repairs)} repair{'s' * (len(repairs) != 1)}:</p>")
        lines.append(f"<ul style='margin: 0'>{items}</ul>")
    elif not report.get("error"):
        lines.append("<p>Valid JSON as written: no repairs.</p>")
    notes = list(report.get("problems") or []) + list(result.get("pose_notes") or [])
    if notes:
        lines.append(
            f"<p style='{NOTE_STYLE}'>" + "<br>".join(html.escape(str(n)) for n in notes) + "</p>"
        )
    return "".join(lines)


def comparison_html(c: dict[str, Any]) -> str:
    """Our simulator's run of this step next to the record."""

    def verdict(ok: Any) -> str:
        return {True: "✓ ok", False: "✗ failed"}.get(ok, "no outcome")

    same = c.get("our_ok") == c.get("recorded_ok") and (
        c.get("our_feedback") == c.get("recorded_feedback")
    )
    style = OK_STYLE if same else FAIL_STYLE
    head = "Same outcome as recorded." if same else "Differs from the record."
    done = c.get("task_success")
    rows = (
        f"<tr><td>Recorded</td><td>{verdict(c.get('recorded_ok'))}</td>"
        f"<td>{html.escape(str(c.get('recorded_feedback') or ''))}</td></tr>"
        f"<tr><td>Our world</td><td>{verdict(c.get('our_ok'))}</td>"
        f"<td>{html.escape(str(c.get('our_feedback') or ''))}</td></tr>"
    )
    tail = "" if done is None else f"<p>Task {'done' if done else 'not done'} after this step.</p>"
    return (
        f"<p style='{style}'>{head}</p><table cellspacing='0' cellpadding='2'>{rows}</table>{tail}"
    )


def bimanual_step_html(
    step: dict[str, Any],
    *,
    comparison: dict[str, Any] | None = None,
    note: str = "",
) -> str:
    """The dual-arm step panel's body as rich text."""
    parts = []
    if note:
        parts.append(f"<p style='{NOTE_STYLE}'>{html.escape(note)}</p>")
    kind = step.get("kind")
    feedback = step.get("feedback") or ""
    if feedback:
        style = FAIL_STYLE if step_failed(step) else OK_STYLE
        shown = html.escape(feedback).replace("\n", "<br>")  # one line per action
        parts.append(section_html("Feedback", f"<p style='{style}'>{shown}</p>"))
    if kind != "observation":
        parts.append(
            section_html(
                "Plan",
                plan_html(step)
                if kind != "format_error"
                else "<p>Nothing ran: the harness could not read the reply.</p>",
            )
        )
    suggestion = (step.get("result") or {}).get("suggestion")
    if kind == "format_error" and isinstance(suggestion, dict):
        note_html = f"<p style='{NOTE_STYLE}'>{html.escape(str(suggestion.get('note', '')))}</p>"
        shown_plan = plan_html({"arguments": suggestion.get("arguments") or {}, "result": {}})
        parts.append(section_html("Suggested reading (not executed)", note_html + shown_plan))
    parts.append(section_html("End effectors", arms_html(step)))
    if comparison is not None:
        parts.append(section_html("Replayed in our world", comparison_html(comparison)))
    model_text = step.get("model_text") or {}
    said = "".join(
        f"<p><b>{title}:</b> {html.escape(str(model_text[key]))}</p>"
        for key, title in TEXT_FIELDS
        if model_text.get(key)
    )
    if kind == "action":
        said += "<p><b>Executable plan:</b></p>" + pre_html(_plan_json(model_plan(step)))
    if said:
        parts.append(section_html("Model", said))
    parse = parse_html(step)
    if parse:
        parts.append(section_html("Parse report", parse))
    raw = step.get("raw_output") or ""
    if raw:
        parts.append(section_html("Raw reply", pre_html(raw)))
    return "".join(parts)


class BimanualStepPanel(StepPanel):
    """The current dual-arm step: a title line and the text above."""

    def show_bimanual_step(
        self,
        index: int,
        last: int,
        step: dict[str, Any],
        *,
        comparison: dict[str, Any] | None = None,
        note: str = "",
    ) -> None:
        self.show_step(
            bimanual_step_title(index, last, step),
            bimanual_step_html(step, comparison=comparison, note=note),
            step_failed(step),
        )
