"""Results of HOI labelling: agreement on difficulty and on verdicts, status, QC, progress.

Shows the `hoi` dict of `reasonscope metrics --json` (app.jobs.metrics.project_hoi_metrics);
the definitions are in docs/hoi-labels.md.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGroupBox, QLabel, QScrollArea, QTableView, QVBoxLayout, QWidget

from annotation.agreement import kappa_text
from annotation.metric_text import settings_text
from widgets.results.agreement import kappa_cell
from widgets.results.table import cell_table, fill_table, settings_label, text_row

AGREEMENT_ROWS = (
    ("author_vs_reviewer", "Difficulty: author vs each reviewer"),
    ("reviewer_vs_reviewer", "Difficulty: reviewer vs reviewer"),
    ("verdicts", "Verdict (accept / reject): reviewer vs reviewer"),
)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.0f} %"


def _fill(table: QTableView, rows: list[tuple[str, ...]]) -> None:
    fill_table(table, [text_row(texts) for texts in rows], margin=4)


class HoiResultsView(QScrollArea):
    """Agreement, status by category and progress per sequence of the project's HOI labels."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        body = QWidget()
        self.setWidget(body)
        self.summary = QLabel(wordWrap=True)
        self.summary.setObjectName("hoi_results_summary")
        self.agreement = cell_table(["", "Pairs", "Kappa", "Agreement", "Notes"], alternating=True)
        self.agreement.setObjectName("hoi_agreement_table")
        self.note = QLabel(wordWrap=True)
        self.note.setStyleSheet("color: #555")
        self.note.setText(
            "Difficulty kappas are Cohen's weighted kappa with quadratic weights (linear in "
            "Notes); each reviewer gives their own difficulty without seeing the author's. "
            "Verdict kappa is Cohen's kappa of the two reviewers of a round; a 'fix' counts "
            "as a reject."
        )
        self.settings = settings_label()
        self.categories = cell_table(
            ["Category", "Labels", "Accepted", "Accepted %"], alternating=True
        )
        self.sequences = cell_table(
            ["Sequence", "Person-frames labelled", "Labels", "Reviewed twice", "Accepted"],
            alternating=True,
        )
        layout = QVBoxLayout(body)
        layout.setContentsMargins(24, 24, 24, 24)
        for title, widgets in (
            ("HOI labels: agreement", (self.summary, self.agreement, self.note, self.settings)),
            ("By category", (self.categories,)),
            ("Progress per sequence", (self.sequences,)),
        ):
            box = QGroupBox(title)
            inner = QVBoxLayout(box)
            for widget in widgets:
                inner.addWidget(widget)
            layout.addWidget(box)
        layout.addStretch(1)

    def set_metrics(self, h: dict[str, Any] | None) -> None:
        if not h:
            self.summary.setText("No project open.")
            for table in (self.agreement, self.categories, self.sequences):
                table.model().set_rows([])
            return
        counts, v, qc = h["status_counts"], h["verdicts"], h["qc"]
        self.summary.setText(
            f"{h['labels']} HOI labels: "
            + ", ".join(f"{n} {status}" for status, n in counts.items())
            + f". {v['reviews']} reviews, {_pct(v['accept_rate_pct'])} accepted. "
            + f"Quality checks: {qc['checked']} given, {qc['sampled']} labels in the "
            + f"{qc['rate'] * 100:.0f} % sample (seed {qc['seed']})."
        )
        rows = []
        for key, title in AGREEMENT_ROWS:
            if key == "verdicts":
                rows.append(
                    (
                        title,
                        str(v["n"]),
                        kappa_cell(v["kappa"], v.get("kappa_reason")),
                        _pct(v["percent_agreement"]),
                    )
                    + (f"{v['disagreements']} disagreements",)
                )
                continue
            m = h["difficulty"][key]
            diff = m["mean_abs_difference"]
            notes = f"linear {kappa_text(m['kappa_linear'], m.get('kappa_reason'))}" + (
                f", mean |Δ| {diff:.2f}" if diff is not None else ""
            )
            rows.append(
                (
                    title,
                    str(m["n"]),
                    kappa_cell(m["kappa_quadratic"], m.get("kappa_reason")),
                    _pct(m["percent_agreement"]),
                )
                + (notes,)
            )
        _fill(self.agreement, rows)
        self.settings.setText(settings_text(h.get("settings")))
        _fill(
            self.categories,
            [
                (name, str(c["labels"]), str(c["accepted"]), _pct(c["accepted_pct"]))
                for name, c in h["by_category"].items()
            ],
        )
        _fill(
            self.sequences,
            [
                (
                    s["name"],
                    f"{s['labelled_person_frames']} / {s['person_frames']} "
                    f"({s['labelled_pct']:.0f} %)",
                    str(s["labels"]),
                    str(s["reviewed_twice"]),
                    str(s["accepted"]),
                )
                for s in h["sequences"]
            ],
        )
