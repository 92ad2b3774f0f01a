"""A mode: its own dock layout around a central view, saved and restored by name."""

from __future__ import annotations

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtWidgets import QDockWidget, QMainWindow, QWidget


class ModeWindow(QMainWindow):
    """Embedded as a page of the main window; each mode keeps its own dock state."""

    STATE_VERSION = 1

    def __init__(
        self, key: str, title: str, central: QWidget, parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.key = key
        self.title = title
        self.setObjectName(f"mode_{key}")
        self.setWindowFlags(Qt.WindowType.Widget)
        self.setDockOptions(
            QMainWindow.DockOption.AnimatedDocks | QMainWindow.DockOption.AllowTabbedDocks
        )
        self.setCentralWidget(central)
        self.docks: dict[str, QDockWidget] = {}

    def add_dock(
        self,
        name: str,
        title: str,
        widget: QWidget,
        area: Qt.DockWidgetArea = Qt.DockWidgetArea.RightDockWidgetArea,
    ) -> QDockWidget:
        dock = QDockWidget(title, self)
        dock.setObjectName(f"{self.key}_{name}_dock")  # saveState needs stable names
        dock.setWidget(widget)
        self.addDockWidget(area, dock)
        self.docks[name] = dock
        return dock

    def layout_state(self) -> QByteArray:
        return self.saveState(self.STATE_VERSION)

    def restore_layout(self, state: QByteArray | None) -> bool:
        return bool(state) and self.restoreState(state, self.STATE_VERSION)
