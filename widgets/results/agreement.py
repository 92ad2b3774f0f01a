"""Verifier agreement at a glance: kappa, percent agreement and disagreements, and the backlog."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout, QWidget

from annotation.agreement import kappa_text
from annotation.metric_text import settings_text
from widgets.results.table import cell_table, fill_table, settings_label, text_row

ROWS = (
    ("decision", "Decision (approve / correct / reject)"),
    ("unambiguous", "Wording, options and answer unambiguous"),
    ("evidence_withheld", "First view withholds the evidence"),
    ("evidence_recoverable", "Clearing clutter reveals it"),
    ("volumes_distinct", "Compare: the three volumes are visibly distinct"),
)
#: Rows computed over some questions only, with what their own n counts.
OWN_PAIRS = {"volumes_distinct": "Compare pair"}
BLANK = [text_row([""] * 4) for _ in ROWS]  # the rows before (or without) any metrics


def kappa_words(kappa: float | None) -> str:
    """Landis and Koch's reading of a kappa value."""
    if kappa is None:
        return "no pairs yet"
    for limit, words in (
        (0.0, "poor"),
        (0.2, "slight"),
        (0.4, "fair"),
        (0.6, "moderate"),
        (0.8, "substantial"),
    ):
        if kappa <= limit:
            return words
    return "almost perfect"


def kappa_cell(kappa: float | None, reason: str | None) -> str:
    """A kappa with its reading, or why it is undefined."""
    text = kappa_text(kappa, reason)
    return text if kappa is None else f"{text} ({kappa_words(kappa)})"


class AgreementView(QWidget):
    """Shows the `verification` metrics dict of `reasonscope metrics`."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.summary = QLabel(wordWrap=True)
        self.table = cell_table(
            ["", "Cohen's kappa", "Agreement", "Disagreements"], alternating=True
        )
        self.table.model().set_rows(BLANK)  # a row per criterion, empty until filled
        self.status = QLabel(wordWrap=True)
        box = QGroupBox("Question verification: agreement between the two verifiers")
        inner = QVBoxLayout(box)
        inner.addWidget(self.summary)
        inner.addWidget(self.table)
        inner.addWidget(self.status)
        self.settings = settings_label()
        inner.addWidget(self.settings)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(24, 24, 24, 24)
        layout.addWidget(box)
        layout.addStretch(1)

    def set_metrics(self, v: dict[str, Any] | None) -> None:
        if not v:
            self.summary.setText("No project open.")
            self.table.model().set_rows(BLANK)
            self.status.setText("")
            self.settings.setText("")
            return
        n = v.get("n", 0)
        self.summary.setText(
            f"{n} question{'s' if n != 1 else ''} verified by two annotators."
            + ("" if n else " Agreement appears once both verifiers of a question have submitted.")
        )
        rows = []
        for key, title in ROWS:
            m = v["decision"] if key == "decision" else v["criteria"].get(key, {})
            if key in OWN_PAIRS:  # criterion 4: over Compare questions only, say how many
                pairs = m.get("n", 0)
                title = f"{title} ({pairs} {OWN_PAIRS[key]}{'s' if pairs != 1 else ''})"
            kappa = m.get("kappa")
            pct = m.get("percent_agreement")
            texts = (
                title,
                kappa_cell(kappa, m.get("kappa_reason")),
                "n/a" if pct is None else f"{pct:.0f} %",
                str(m.get("disagreements", 0)),
            )
            rows.append(text_row(texts))
        fill_table(self.table, rows, margin=4)
        self.settings.setText(settings_text(v.get("settings")))
        counts = v.get("status_counts", {})
        time_on_task = v.get("time_on_task", {})
        median = time_on_task.get("median_s")
        self.status.setText(
            "Questions: "
            + ", ".join(
                f"{counts.get(k, 0)} {k}" for k in ("approved", "corrected", "excluded", "pending")
            )
            + f". Waiting for a third annotator: {v.get('adjudication_pending', 0)}."
            + (f" Median time per verdict: {median:.0f} s." if median else "")
        )
