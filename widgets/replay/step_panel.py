"""The step panel: what the model said, the call it made, what came back, what moved.

`step_html` composes the text from plain values (a step dict, the motion, the
grasp inspection, a re-simulation result), so it is testable without a
screen; `StepPanel` shows it with a title line.
"""

from __future__ import annotations

import html
import json
import math
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QLabel, QTextBrowser, QVBoxLayout, QWidget

from sim.tabletop.replay import BodyMotion, GraspInspection
from sim.tabletop.resim import ResimReport, ResimStep

MAX_TEXT = 1500  # characters of raw output or result shown before cutting
OK_STYLE, FAIL_STYLE = "color: #1e7b3a", "color: #c0392b"


def _clip(text: str) -> str:
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + f"… ({len(text)} characters)"


def _json(value: Any) -> str:
    return json.dumps(value, indent=1, ensure_ascii=False, default=str)


def section_html(title: str, body: str) -> str:
    """A titled section of a step panel's HTML."""
    return f"<h4 style='margin: 8px 0 2px 0'>{title}</h4>{body}"


def pre_html(text: str) -> str:
    """Model or tool text as it came, wrapped and clipped."""
    return f"<pre style='white-space: pre-wrap; margin: 0'>{html.escape(_clip(text))}</pre>"


def step_title(index: int, last: int, step: dict[str, Any]) -> str:
    """One line: which step, what it was, whether it worked."""
    kind, name = step.get("kind", ""), step.get("name", "")
    what = {"observation": "initial observation", "format_error": "format error"}.get(
        kind, name or kind
    )
    if kind == "observation":
        verdict = ""
    elif kind == "format_error" or step.get("ok") is False:
        verdict = " · ✗ failed"
    else:
        verdict = " · ✓ ok"
    return f"Step {index} of {last} · {what}{verdict}"


def motion_html(motion: list[BodyMotion], names: dict[str, str]) -> str:
    if not motion:
        return "<p>Nothing moved more than 5 mm or 5°.</p>"
    rows = []
    for m in motion:
        role = "<b>acted on</b>" if m.acted_on else "collateral"
        colour = "#d35400" if m.acted_on else "#1f8fb3"
        extra = ", into the basket" if m.into_basket else ""
        rows.append(
            f"<li><span style='color: {colour}'>■</span> {html.escape(names.get(m.key, m.key))} "
            f"({role}): moved {1000 * m.moved_m:.0f} mm, turned {m.turned_deg:.0f}°{extra}</li>"
        )
    return f"<ul style='margin: 0'>{''.join(rows)}</ul>"


def grasp_html(g: GraspInspection, names: dict[str, str]) -> str:
    p = g.plan
    centre = ", ".join(f"{100 * v:.1f}" for v in p["centre"])
    lines = [
        f"Target: {html.escape(names.get(g.target or '', g.target or 'unknown'))}; "
        f"{len(g.points)} masked pixels lifted to 3D from the depth before the step.",
        f"Plan <span style='color: #1e9b4a'>(green)</span>: centre ({centre}) cm, top "
        f"{100 * p['top_z']:.1f} cm, yaw {math.degrees(p['yaw']):.0f}°, width "
        f"{100 * p['width']:.1f} cm, {'feasible' if p.get('feasible') else 'not feasible'}.",
    ]
    if g.actual_tool is None:
        lines.append(
            "<b>Planned only</b>: no actual gripper pose to compare. The fingers never closed: "
            + html.escape(g.reason or "no motion")
            + "."
        )
    else:
        lines.append(
            f"Fingers at close <span style='color: #b0208f'>(magenta)</span>: "
            f"{1000 * g.offset_m:.0f} mm from the planned pose."
        )
        held = names.get(g.held or "", g.held) if g.held else "nothing"
        outcome = g.reason or "succeeded"
        lines.append(f"Held: {html.escape(held)}; outcome: {html.escape(outcome)}.")
    return "<br>".join(lines) + candidates_html(g)


def candidates_html(g: GraspInspection) -> str:
    """What the planner considered and what was tried in simulation, in order."""
    p = g.plan
    parts = []
    rejected = p.get("rejected") or {}
    if p.get("considered"):
        why = "; ".join(f"{n} {html.escape(k)}" for k, n in rejected.items()) or "none"
        parts.append(
            f"<p style='margin: 4px 0 0 0'>The planner considered {p['considered']} grasps "
            f"(rejected: {why}); {len(g.candidates)} best feasible ones drawn in grey.</p>"
        )
    if g.attempts:
        rows = "".join(
            f"<li>{100 * a['width']:.1f} cm across at {math.degrees(a['yaw']):.0f}°, pads "
            f"{100 * (a['top_z'] - a['pads_z']):.1f} cm below its top: "
            f"<b>{html.escape(a['outcome'])}</b>"
            + (f" ({html.escape(a['detail'])})" if a.get("detail") else "")
            + "</li>"
            for a in g.attempts
        )
        parts.append(f"Tried in simulation, best first:<ol style='margin: 0'>{rows}</ol>")
    return "".join(parts)


def resim_html(r: ResimStep, names: dict[str, str]) -> str:
    if r.matches:
        basket = ", ".join(names.get(k, k) for k in r.in_basket)
        basket = f" ({basket} in the basket)" if basket else ""
        return (
            f"<p style='{OK_STYLE}'>✓ Matches the recording: same outcome and feedback, "
            f"objects within {1000 * r.worst_m:.1f} mm{basket}.</p>"
        )
    diff = "\n".join(r.diff(names))
    return f"<p style='{FAIL_STYLE}'>✗ Differs from the recording:</p>" + pre_html(diff)


def resim_report_html(report: ResimReport, names: dict[str, str] | None = None) -> str:
    """A re-simulation report: the summary, then one row per re-run step."""
    style = OK_STYLE if report.matches else FAIL_STYLE
    rows = []
    for r in report.steps:
        mark = "✓" if r.matches else "✗"
        colour = "#1e7b3a" if r.matches else "#c0392b"
        rows.append(
            f"<tr><td align='right'>{r.index}</td><td>{html.escape(r.name or 'format error')}</td>"
            f"<td style='color: {colour}'>{mark}</td><td align='right'>{1000 * r.worst_m:.1f}</td>"
            "</tr>"
        )
        if not r.matches:  # what differs, on its own row under the step
            diff = "<br>".join(html.escape(line) for line in r.diff(names))
            rows.append(f"<tr><td></td><td colspan='3' style='{FAIL_STYLE}'>{diff}</td></tr>")
    head = "<tr><th>Step</th><th align='left'>Call</th><th></th><th>Worst mm</th></tr>"
    return (
        f"<p style='{style}'>{html.escape(report.summary())}</p>"
        f"<table cellspacing='0' cellpadding='2'>{head}{''.join(rows)}</table>"
        "<p style='color: #666'>A step matches when ok and the feedback are as recorded and "
        "every object is within 5 mm of its recorded position (objects in the basket in both "
        "runs count as in place). Worst: the farthest object from its recorded position.</p>"
    )


def step_html(
    step: dict[str, Any],
    motion: list[BodyMotion],
    names: dict[str, str],
    inspection: GraspInspection | None = None,
    resim: ResimStep | None = None,
    note: str = "",
) -> str:
    """The step panel's body as rich text."""
    parts = []
    if note:
        parts.append(f"<p style='color: #8a6d00'>{html.escape(note)}</p>")
    model_text = step.get("model_text") or {}
    said = "".join(
        f"<p><b>{html.escape(str(k))}:</b> {html.escape(_clip(str(v)))}</p>"
        for k, v in model_text.items()
    )
    raw = step.get("raw_output") or ""
    if said or raw:
        parts.append(section_html("Model", said + (pre_html(raw) if raw else "")))
    kind = step.get("kind")
    if kind not in ("observation", "format_error"):
        call = f"{step.get('name', '')}({_json(step.get('arguments') or {})})"
        parts.append(section_html("Tool call", pre_html(call)))
        result = step.get("result")
        if isinstance(result, dict):
            result = {k: v for k, v in result.items() if k != "replay"}
        if result not in (None, {}):
            parts.append(section_html("Result", pre_html(_json(result))))
    feedback = step.get("feedback") or ""
    if feedback:
        style = FAIL_STYLE if kind == "format_error" or step.get("ok") is False else OK_STYLE
        parts.append(section_html("Feedback", f"<p style='{style}'>{html.escape(feedback)}</p>"))
    if kind != "observation":
        parts.append(section_html("What moved", motion_html(motion, names)))
    if inspection is not None:
        parts.append(section_html("Grasp: what it saw and planned", grasp_html(inspection, names)))
    if resim is not None:
        parts.append(section_html("Re-simulated", resim_html(resim, names)))
    return "".join(parts)


class StepPanel(QWidget):
    """The current step: a title line and the step's text."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.title = QLabel("No episode open")
        self.title.setObjectName("replay_step_title")
        self.title.setWordWrap(True)
        font = self.title.font()
        font.setBold(True)
        self.title.setFont(font)
        self.body = QTextBrowser()
        self.body.setObjectName("replay_step_body")
        self.body.setOpenLinks(False)
        # never takes the keys: Left/Right/Space stay the timeline's
        self.body.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.body.setMinimumHeight(240)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.title)
        layout.addWidget(self.body, 1)

    def sizeHint(self) -> QSize:  # noqa: N802 - the step's text deserves room
        return QSize(340, 520)

    def show_step(self, title: str, body_html: str, failed: bool = False) -> None:
        self.title.setText(title)
        self.title.setStyleSheet(FAIL_STYLE if failed else "")
        self.body.setHtml(body_html)

    def clear(self, message: str = "No episode open") -> None:
        self.title.setText(message)
        self.title.setStyleSheet("")
        self.body.clear()

    @property
    def text(self) -> str:
        """The title and the body as plain text (tests, screen readers)."""
        return f"{self.title.text()}\n{self.body.toPlainText()}"
