"""A mode: its own dock layout around a central view, saved and restored by name."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDockWidget, QMainWindow, QToolBar, QWidget

# (key, text, shortcuts, slot, tooltip); a None key is a separator
ActionSpec = tuple[
    str | None, str | None, list[str] | None, Callable[[], object] | None, str | None
]


class ModeWindow(QMainWindow):
    """Embedded as a page of the main window; each mode keeps its own dock state."""

    # 2: layouts saved by earlier builds could hold the sizes of a mode never shown (its
    # docks squeezed to nothing), and Replay's had the Grasp points under the Model view
    # with a three-row Episodes list; they are not restored.
    STATE_VERSION = 2

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
        self.was_shown = False  # a layout is worth saving only once it had real sizes

    def show_dock(self, name: str) -> None:
        """Show the dock `name` and bring it to the front of its tab stack."""
        if name not in self.docks:
            raise KeyError(f"{self.title} has no panel {name!r}; it has {sorted(self.docks)}")
        self.docks[name].show()
        self.docks[name].raise_()

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

    def showEvent(self, event) -> None:  # noqa: N802
        super().showEvent(event)
        self.was_shown = True

    def layout_state(self) -> QByteArray | None:
        """The dock layout to save, or None when the mode was never on screen this session
        (its docks have no real sizes yet: keep the layout saved before)."""
        return self.saveState(self.STATE_VERSION) if self.was_shown else None

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


@dataclass(frozen=True)
class DockLayout:
    """Where the window's shared docks (Project, Activity) go in a mode."""

    project_behind: str | None = None  # tab Project behind this dock of the mode's, kept in front
    project_hidden: bool = False  # Project starts hidden (View ▸ Project shows it)
    activity_hidden: bool = True  # Activity starts hidden
    arrange: Callable[[ModeWindow], None] | None = None  # the mode's own arrangement, last
