"""An unexpected error: one line for the person, the traceback behind Details."""

from __future__ import annotations

from PySide6.QtWidgets import QMessageBox, QWidget


def error_summary(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


class ErrorDialog(QMessageBox):
    """Non-blocking: the app keeps running underneath and the log file has it all."""

    def __init__(
        self, summary: str, details: str, log_path: str, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("error_dialog")
        self.setIcon(QMessageBox.Icon.Critical)
        self.setWindowTitle("Something went wrong")
        self.setText(summary)
        self.setInformativeText(
            f"ReasonScope kept running; your saved work is safe. The details are in {log_path}."
        )
        self.setDetailedText(details)
        self.setStandardButtons(QMessageBox.StandardButton.Close)
