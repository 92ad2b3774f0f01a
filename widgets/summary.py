"""A project's contents at a glance, from a `ProjectSummary`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from PySide6.QtCore import QSize, Qt
from PySide6.QtWidgets import QFormLayout, QLabel, QScrollArea, QWidget

if TYPE_CHECKING:  # a type only: the window shows this panel before any project is read
    from annotation.models import ProjectSummary

ROWS = (
    ("annotators", "Annotators"),
    ("scenes", "Scenes"),
    ("sequences", "JRDB sequences"),
    ("frames", "Frames"),
    ("entities", "Entities"),
    ("boxes_2d", "2D boxes"),
    ("boxes_3d", "3D boxes"),
    ("hoi_labels", "HOI labels"),
    ("hoi_reviews", "HOI reviews"),
    ("questions", "Questions"),
    ("verifications", "Verifications"),
    ("episodes", "Episodes"),
    ("steps", "Steps"),
    ("format_error_steps", "Format-error steps"),
    ("error_labels", "Error labels"),
    ("reasoning_predictions", "Model predictions"),
    ("difficulty_ratings", "Difficulty ratings"),
    ("human_answers", "Human answers"),
    ("spatial_items", "Spatial grounding items"),
    ("spatial_predictions", "Spatial predictions"),
)


class SummaryView(QScrollArea):
    """The counts in a scroll area: a short dock scrolls rather than making the window taller."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setFrameShape(QScrollArea.Shape.NoFrame)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        inner = QWidget()
        self.setWidget(inner)
        self.form = QFormLayout(inner)
        self.form.setContentsMargins(12, 12, 12, 12)
        self.form.setHorizontalSpacing(24)
        self.path_label = QLabel(wordWrap=True)
        self.form.addRow("Project", self.path_label)
        self.value_labels: dict[str, QLabel] = {}
        for key, title in ROWS:
            label = QLabel()
            self.value_labels[key] = label
            self.form.addRow(title, label)

    def sizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        """As wide as the counts need; a dock's default width comes from here."""
        inner = self.widget().sizeHint()
        return QSize(inner.width(), min(inner.height(), 480))

    def minimumSizeHint(self) -> QSize:  # noqa: N802 (Qt's name)
        return QSize(self.widget().minimumSizeHint().width(), 120)

    def set_summary(self, summary: ProjectSummary | None) -> None:
        self.path_label.setText(summary.path if summary else "no project open")
        for key, label in self.value_labels.items():
            if summary is None:
                label.setText("")
                continue
            value = getattr(summary, key)
            if isinstance(value, dict):
                total = sum(value.values())
                parts = ", ".join(f"{v} {k}" for k, v in value.items() if v)
                value = f"{total}" + (f" ({parts})" if parts else "")
            label.setText(str(value))
        self.widget().adjustSize()
        self.updateGeometry()  # the dock follows the new width of the counts
