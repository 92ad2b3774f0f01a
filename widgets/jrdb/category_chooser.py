"""The chooser that asks what a drawn box is: one button per category of the object
category file (`annotation.jrdb.object_categories`), each picked by its key."""

from __future__ import annotations

from collections.abc import Sequence

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QDialog, QGridLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from annotation.jrdb.object_categories import ObjectCategory

COLUMNS = 3


class CategoryChooser(QDialog):
    """A modal chooser: a category's key (or a click on its button) picks it, Esc cancels.
    `chosen` is the picked category's id, or None."""

    category_chosen = Signal(str)

    def __init__(self, categories: Sequence[ObjectCategory], parent: QWidget | None = None):
        super().__init__(parent)
        self.setWindowTitle("New box: what is it?")
        self.categories = {c.key.upper(): c for c in categories}
        self.chosen: str | None = None
        layout = QVBoxLayout(self)
        layout.addWidget(QLabel("Press a category's key, or click it (Esc: cancel)."))
        grid = QGridLayout()
        self.buttons: dict[str, QPushButton] = {}
        for n, category in enumerate(categories):
            button = QPushButton(f"{category.label}  [{category.key}]")
            button.setAutoDefault(False)
            button.clicked.connect(lambda _=False, c=category.id: self.choose(c))
            grid.addWidget(button, n // COLUMNS, n % COLUMNS)
            self.buttons[category.id] = button
        layout.addLayout(grid)

    def choose(self, category_id: str) -> None:
        self.chosen = category_id
        self.category_chosen.emit(category_id)
        self.accept()

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        category = self.categories.get(event.text().upper()) if event.text() else None
        if category is not None and not event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.choose(category.id)
            return
        super().keyPressEvent(event)


def ask_category(categories: Sequence[ObjectCategory], parent: QWidget | None) -> str | None:
    """Show the chooser and wait: the picked category's id, or None (cancelled)."""
    chooser = CategoryChooser(categories, parent)
    chooser.exec()
    return chooser.chosen
