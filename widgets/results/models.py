"""The Models table of the Results pages: per model, its episodes, how many succeeded, and
what its requests to the model endpoint took (mean latency, tokens in and out).

Shows the `per_model` list of `reasonscope metrics --json` (under `episodes` and
`bimanual`; under `reasoning`, where a row counts a model's predictions: one a question,
`noun="question"`); it never reads the project itself.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import QGroupBox, QLabel, QVBoxLayout

from widgets.results.table import Cell, cell_table, fill_table

MODEL_COLUMNS = ("Model", "Episodes", "Success", "Mean latency", "Tokens in", "Tokens out")
NOTE = (
    "Success: episodes that succeeded (%). Mean latency: per model request, over the steps "
    "that recorded one. Tokens: totals the endpoint reported, with the mean per episode; "
    "– where nothing was reported."
)


QUESTION_COLUMNS = ("Model", "Questions", "Correct", "Mean latency", "Tokens in", "Tokens out")
QUESTION_NOTE = (
    "Correct: predictions scored right (%). Mean latency: per model request, over the "
    "predictions run-agent made here (an imported file records none). Tokens: totals the "
    "endpoint reported, with the mean per question; – where nothing was reported."
)


def tokens_text(total: int | None, mean: float | None, noun: str = "episode") -> tuple[str, str]:
    """A tokens cell ("12,345 (1,234 / ep.)") and its tooltip."""
    if total is None:
        return "–", "no token usage reported"
    short = "ep." if noun == "episode" else "q."
    return f"{total:,} ({mean:,.0f} / {short})", f"{total:,} tokens in all, {mean:,.1f} per {noun}"


class ModelsTable(QGroupBox):
    """A group box with the per-model table; `set_rows(None or [])` empties it."""

    def __init__(
        self, title: str = "Models: episodes, success, latency and tokens", noun: str = "episode"
    ) -> None:
        super().__init__(title)
        self.noun = noun  # what a row counts: "episode", or "question" (predictions)
        episodes = noun == "episode"
        self.table = cell_table(MODEL_COLUMNS if episodes else QUESTION_COLUMNS)
        self.table.setObjectName("results_models")
        self.note = QLabel(NOTE if episodes else QUESTION_NOTE, wordWrap=True)
        inner = QVBoxLayout(self)
        inner.addWidget(self.table)
        inner.addWidget(self.note)

    def set_rows(self, rows: list[dict[str, Any]] | None) -> None:
        rows = rows or []
        cells = []
        for row in rows:
            rate = row["success_pct"]
            latency = row["mean_latency_s"]
            tin = tokens_text(row["tokens_in"], row["mean_tokens_in"], self.noun)
            tout = tokens_text(row["tokens_out"], row["mean_tokens_out"], self.noun)
            done = "episodes succeeded" if self.noun == "episode" else "questions answered right"
            cells.append(
                [
                    Cell(row["model"], right=False),
                    Cell(f"{row['episodes']:,}"),
                    Cell(
                        "–" if rate is None else f"{rate:.1f} % ({row['succeeded']:,})",
                        tip=f"{row['succeeded']:,} of {row['episodes']:,} {done}",
                    ),
                    Cell(
                        "–" if latency is None else f"{latency:.2f} s",
                        tip=f"over {row['requests']:,} model requests",
                    ),
                    Cell(tin[0], tip=tin[1]),
                    Cell(tout[0], tip=tout[1]),
                ]
            )
        fill_table(self.table, cells)
        self.setVisible(bool(rows))

    def cell_texts(self) -> list[list[str]]:
        """What the table shows, row by row (for tests)."""
        model = self.table.model()
        return [
            [model.index(r, c).data() for c in range(model.columnCount())]
            for r in range(model.rowCount())
        ]
