"""A mode: its own dock layout around a central view, saved and restored by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolBar, QWidget

# (key, text, shortcuts, slot, tooltip); a None key is a separator
ActionSpec = tuple[
    str | None, str | None, list[str] | None, Callable[[], object] | None, str | None
]


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


def mode_toolbar(
    mode: QMainWindow,
    title: str,
    specs: Iterable[ActionSpec],
    *,
    checkable: Callable[[str], bool] = lambda _key: False,
) -> tuple[QToolBar, dict[str, QAction]]:
    """A text-only toolbar of keyed actions (so F1 lists every key) at the top of `mode`.

    Actions fire their slot on `triggered`, not `toggled`: for a checkable action the
    slot's owner decides the checked state.
    """
    bar = QToolBar(title)
    bar.setObjectName(f"{title.lower()}_toolbar")
    bar.setToolButtonStyle(Qt.ToolButtonStyle.ToolButtonTextOnly)
    mode.addToolBar(Qt.ToolBarArea.TopToolBarArea, bar)
    actions: dict[str, QAction] = {}
    for key, text, keys, slot, tip in specs:
        if key is None:
            bar.addSeparator()
            continue
        action = QAction(text, bar, checkable=checkable(key))
        action.setShortcuts([QKeySequence(k) for k in keys])
        action.setToolTip(f"{tip} ({', '.join(keys)})")
        action.triggered.connect(lambda _=False, f=slot: f())
        bar.addAction(action)
        actions[key] = action
    return bar, actions
