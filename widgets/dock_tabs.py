"""Short names for docks that share a tab stack, so every tab can be told apart at
1280 x 860; the full title stays the tab's tooltip and the View menu's entry, and comes
back when the dock stands alone or floats."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QTabBar, QToolTip

from widgets.mode import ModeWindow

# dock name: its label on a tab (the Annotate HOI stack holds seven at 1280 x 860)
TAB_LABELS = {
    "image": "Model view",
    "graph": "Graph",
    "generator": "Questions",
    "activity": "Log",
    "hoi_labels": "HOI",
    "hoi_review": "Review",
}


class DockTabLabels(QObject):
    """Gives a mode's docks their short `labels` while they share a tab stack with a shown
    dock, and their full titles otherwise; each tab's tooltip is the full title."""

    def __init__(self, mode: ModeWindow, labels: dict[str, str]) -> None:
        super().__init__(mode)
        self.mode = mode
        self.labels = {name: label for name, label in labels.items() if name in mode.docks}
        self.full = {name: dock.windowTitle() for name, dock in mode.docks.items()}
        self.timer = QTimer(self, singleShot=True, interval=0)
        self.timer.timeout.connect(self.update)
        for name, dock in mode.docks.items():
            for signal in (dock.visibilityChanged, dock.topLevelChanged, dock.dockLocationChanged):
                signal.connect(lambda *_: self.timer.start())
            dock.windowTitleChanged.connect(lambda title, n=name: self._titled(n, title))
        self.update()

    def _titled(self, name: str, title: str) -> None:
        if title != self.labels.get(name):  # the mode gave the dock a new title
            self.full[name] = title
            self.timer.start()

    def tabbed(self, dock: QDockWidget) -> bool:
        shown = [d for d in self.mode.tabifiedDockWidgets(dock) if not d.isHidden()]
        return bool(shown) and not dock.isHidden() and not dock.isFloating()

    def update(self) -> None:
        for name, label in self.labels.items():
            dock = self.mode.docks[name]
            title = label if self.tabbed(dock) else self.full[name]
            if dock.windowTitle() != title:
                dock.setWindowTitle(title)
                dock.toggleViewAction().setText(self.full[name])  # View menu: the full name
        for bar in self.mode.findChildren(
            QTabBar, options=Qt.FindChildOption.FindDirectChildrenOnly
        ):
            if not bar.property("full_tab_tooltips"):  # the window's own dock tabs
                bar.setProperty("full_tab_tooltips", True)
                bar.installEventFilter(self)
            self.set_tooltips(bar)

    def set_tooltips(self, bar: QTabBar) -> None:
        """Each tab's tooltip: its dock's full title (Qt sets the tab's text there)."""
        full = {self.mode.docks[n].windowTitle(): title for n, title in self.full.items()}
        for i in range(bar.count()):
            bar.setTabToolTip(i, full.get(bar.tabText(i), bar.tabText(i)))

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() != QEvent.Type.ToolTip or not isinstance(watched, QTabBar):
            return False
        # Qt shows a dock tab's tooltip only while the tabs are cut short: show it always
        self.set_tooltips(watched)  # a tab Qt made since has its short label there
        index = watched.tabAt(event.pos())
        if index < 0:
            return False
        tip = watched.tabToolTip(index)
        QToolTip.showText(event.globalPos(), tip, watched, watched.tabRect(index))
        return True


def short_tabs(arrange: Callable[[ModeWindow], None] | None = None) -> Callable[[ModeWindow], None]:
    """A dock arrangement: `arrange`, then the short tab labels (`TAB_LABELS`)."""

    def run(mode: ModeWindow) -> None:
        if arrange is not None:
            arrange(mode)
        DockTabLabels(mode, TAB_LABELS)

    return run
