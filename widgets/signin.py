"""Who is working: asked on first start, switchable any time."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QLabel,
    QVBoxLayout,
    QWidget,
)


class SignInDialog(QDialog):
    """Pick a known annotator or type a new name. `name()` is the cleaned choice."""

    def __init__(
        self, known_names: list[str], current: str | None = None, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setWindowTitle("Who is working?")
        self.setObjectName("sign_in_dialog")
        layout = QVBoxLayout(self)
        layout.setContentsMargins(18, 18, 18, 18)
        layout.setSpacing(12)
        intro = QLabel(
            "Every label, review and verification carries the name of the person who made it. "
            "Pick your name or type a new one.",
            wordWrap=True,
        )
        self.combo = QComboBox(editable=True)
        self.combo.addItems(known_names)
        self.combo.setCurrentText(current or "")
        self.combo.lineEdit().setPlaceholderText("Your name")
        self.combo.setMinimumWidth(380)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.button(QDialogButtonBox.StandardButton.Ok).setText("Sign in")
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)
        self.combo.editTextChanged.connect(self._update_ok)
        layout.addWidget(intro)
        layout.addWidget(self.combo)
        layout.addWidget(self.buttons)
        self._update_ok()

    def name(self) -> str:
        return " ".join(self.combo.currentText().split())

    def _update_ok(self) -> None:
        ok = self.buttons.button(QDialogButtonBox.StandardButton.Ok)
        ok.setEnabled(bool(self.name()) and len(self.name()) <= 80)
