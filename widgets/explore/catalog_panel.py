"""The object catalog as a searchable list with pictures, from which the scene editor adds objects.

The list works at once from names and categories; pictures (`set_thumbnail`) arrive
later, one by one, from whoever renders them (`sim.tabletop.authoring.thumbnails`).
Typing filters by name and category; Down moves from the search box into the list;
Enter, a double-click or the button asks for the selected object to be added.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np
from PySide6.QtCore import (
    QEvent,
    QItemSelectionModel,
    QModelIndex,
    QObject,
    QRect,
    QRegularExpression,
    QSize,
    QSortFilterProxyModel,
    Qt,
    Signal,
)
from PySide6.QtGui import QColor, QIcon, QKeyEvent, QPainter, QPalette, QPixmap
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListView,
    QPushButton,
    QStyle,
    QStyledItemDelegate,
    QStyleOptionViewItem,
    QVBoxLayout,
    QWidget,
)

from sim.tabletop.authoring.thumbnails import BACKGROUND
from sim.tabletop.catalog import CatalogEntry
from widgets.image_view import to_qimage
from widgets.table_model import Index, RowListModel

CATEGORY_ROLE = Qt.ItemDataRole.UserRole + 1
SEARCH_ROLE = Qt.ItemDataRole.UserRole + 2  # "name category", what the search box matches
ICON_PX = 48
PAD = 4
_ENTER_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def search_pattern(text: str) -> QRegularExpression:
    """Every word typed must occur (in any order, any case) in the name or the category."""
    words = text.split()
    pattern = "".join(f"(?=.*{QRegularExpression.escape(w)})" for w in words)
    return QRegularExpression(pattern, QRegularExpression.PatternOption.CaseInsensitiveOption)


class CatalogListModel(RowListModel):
    """Catalog entries (name, category, description) and the pictures received so far."""

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.entries: list[CatalogEntry] = []
        self.icons: dict[str, QIcon] = {}

    def set_entries(self, entries: Iterable[CatalogEntry]) -> None:
        self.beginResetModel()
        self.entries = list(entries)
        names = {e.name for e in self.entries}
        self.icons = {n: icon for n, icon in self.icons.items() if n in names}
        self.endResetModel()

    def set_icon(self, name: str, icon: QIcon) -> bool:
        row = self.row_of(name)
        if row < 0:
            return False  # a picture for an entry no longer listed
        self.icons[name] = icon
        index = self.index(row)
        self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])
        return True

    def row_of(self, name: str) -> int:
        return next((i for i, e in enumerate(self.entries) if e.name == name), -1)

    def row_list(self) -> list[CatalogEntry]:
        return self.entries

    def row_data(self, r: int, e: CatalogEntry, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return e.name
        if role == CATEGORY_ROLE:
            return e.category
        if role == SEARCH_ROLE:
            return f"{e.name} {e.category}"
        if role == Qt.ItemDataRole.DecorationRole:
            return self.icons.get(e.name)
        if role == Qt.ItemDataRole.ToolTipRole:
            return f"{e.name} ({e.category})\n{e.description}"
        return None


class _EntryDelegate(QStyledItemDelegate):
    """A row: the picture (or an empty frame until it arrives), the name, the category below."""

    def sizeHint(self, option: QStyleOptionViewItem, index: Index) -> QSize:  # noqa: N802
        lines = 2 * option.fontMetrics.height()
        return QSize(160, max(ICON_PX, lines) + 2 * PAD)

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        opt = QStyleOptionViewItem(option)
        self.initStyleOption(opt, index)
        widget = opt.widget
        style = widget.style() if widget is not None else None
        painter.save()
        if style is not None:
            style.drawPrimitive(QStyle.PrimitiveElement.PE_PanelItemViewItem, opt, painter, widget)
        r = opt.rect
        icon_rect = QRect(r.left() + PAD, r.top() + (r.height() - ICON_PX) // 2, ICON_PX, ICON_PX)
        icon = index.data(Qt.ItemDataRole.DecorationRole)
        if isinstance(icon, QIcon):
            icon.paint(painter, icon_rect)
        else:
            painter.setPen(QColor(0, 0, 0, 0))
            painter.setBrush(QColor(*BACKGROUND))  # the pictures' own background
            painter.drawRect(icon_rect)
        selected = bool(opt.state & QStyle.StateFlag.State_Selected)
        group = QPalette.ColorGroup.Normal
        main = opt.palette.color(
            group, QPalette.ColorRole.HighlightedText if selected else QPalette.ColorRole.Text
        )
        muted = QColor(main)
        muted.setAlphaF(0.62)
        text_left = icon_rect.right() + 1 + 2 * PAD
        width = max(0, r.right() - PAD - text_left)
        line = opt.fontMetrics.height()
        top = r.top() + (r.height() - 2 * line) // 2
        name = opt.fontMetrics.elidedText(opt.text, Qt.TextElideMode.ElideRight, width)
        category = opt.fontMetrics.elidedText(
            str(index.data(CATEGORY_ROLE) or ""), Qt.TextElideMode.ElideRight, width
        )
        align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
        painter.setPen(main)
        painter.drawText(QRect(text_left, top, width, line), align, name)
        painter.setPen(muted)
        painter.drawText(QRect(text_left, top + line, width, line), align, category)
        painter.restore()


class CatalogPanel(QWidget):
    """Search the catalog and ask for an object to be added: `add_requested(catalog name)`.

    Adding is possible only while `set_editing(True)`; browsing and searching always are.
    """

    add_requested = Signal(str)

    def __init__(self, entries: Iterable[CatalogEntry] = (), parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.editing = False
        self.model = CatalogListModel(self)
        self.proxy = QSortFilterProxyModel(self)
        self.proxy.setSourceModel(self.model)
        self.proxy.setFilterRole(SEARCH_ROLE)
        self.search = QLineEdit(placeholderText="Search objects or categories")
        self.search.setClearButtonEnabled(True)
        self.search.textChanged.connect(self._apply_search)
        self.search.installEventFilter(self)
        self.view = QListView()
        self.view.setModel(self.proxy)
        self.view.setItemDelegate(_EntryDelegate(self.view))
        self.view.setUniformItemSizes(True)
        self.view.setIconSize(QSize(ICON_PX, ICON_PX))
        self.view.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.view.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.view.doubleClicked.connect(self._double_clicked)
        self.view.installEventFilter(self)
        self.view.selectionModel().selectionChanged.connect(self._update_actions)
        self.add_button = QPushButton("Add to scene")
        self.add_button.clicked.connect(self.request_add)
        self.count_label = QLabel()
        self.count_label.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        buttons = QHBoxLayout()
        buttons.addWidget(self.count_label, 1)
        buttons.addWidget(self.add_button)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addWidget(self.search)
        layout.addWidget(self.view, 1)
        layout.addLayout(buttons)
        self.set_entries(entries)

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(280, 420)

    # -- what the host calls -------------------------------------------------------
    def set_entries(self, entries: Iterable[CatalogEntry]) -> None:
        """Show these catalog entries (pictures already received for them are kept)."""
        keep = self.selected_name()
        self.model.set_entries(entries)
        self._after_filter(keep)

    def set_thumbnail(self, name: str, rgb: np.ndarray) -> None:
        """Give the entry `name` its picture, an (H, W, 3) uint8 RGB array; unknown names are ignored."""
        self.model.set_icon(name, QIcon(QPixmap.fromImage(to_qimage(rgb))))

    def set_editing(self, editing: bool) -> None:
        """Allow adding (a scene is open in the editor) or not."""
        self.editing = bool(editing)
        self._update_actions()

    def selected_name(self) -> str | None:
        """The catalog name of the selected entry, or None."""
        rows = self.view.selectionModel().selectedRows()
        return str(rows[0].data(Qt.ItemDataRole.DisplayRole)) if rows else None

    def select_name(self, name: str) -> bool:
        """Select the entry `name` if the search shows it."""
        row = self.model.row_of(name)
        index = self.proxy.mapFromSource(self.model.index(row)) if row >= 0 else QModelIndex()
        if not index.isValid():
            return False
        self._select(index)
        return True

    def visible_names(self) -> list[str]:
        """The names the search currently lets through, in list order."""
        return [
            str(self.proxy.index(r, 0).data(Qt.ItemDataRole.DisplayRole))
            for r in range(self.proxy.rowCount())
        ]

    def request_add(self) -> None:
        """Ask for the selected entry to be added (nothing happens while not editing)."""
        name = self.selected_name()
        if self.editing and name is not None:
            self.add_requested.emit(name)

    # -- behaviour ---------------------------------------------------------------------
    def _apply_search(self, text: str) -> None:
        keep = self.selected_name()
        self.proxy.setFilterRegularExpression(search_pattern(text))
        self._after_filter(keep)

    def _after_filter(self, keep: str | None) -> None:
        # Qt moves a filtered-out selection to some neighbour: keep the selected entry if
        # it is still shown, else (while searching) select the best match, so that Enter
        # in the search box adds what is highlighted.
        if keep is None or not self.select_name(keep):
            self.view.selectionModel().clear()
            if self.search.text().strip() and self.proxy.rowCount():
                self._select(self.proxy.index(0, 0))
        shown, total = self.proxy.rowCount(), self.model.rowCount()
        if shown == total:
            text = f"{total} object{'' if total == 1 else 's'}"
        else:
            text = f"{shown} of {total}" if shown else "No match"
        self.count_label.setText(text)
        self._update_actions()

    def _select(self, index: QModelIndex) -> None:
        self.view.selectionModel().setCurrentIndex(
            index, QItemSelectionModel.SelectionFlag.ClearAndSelect
        )
        self.view.scrollTo(index)

    def _update_actions(self, *_args: object) -> None:
        self.add_button.setEnabled(self.editing and self.selected_name() is not None)
        if not self.editing:
            tip = "Open a scene for editing to add objects"
        elif self.selected_name() is None:
            tip = "Select an object to add"
        else:
            tip = f"Add {self.selected_name()} to the scene (Enter, or double-click it)"
        self.add_button.setToolTip(tip)

    def _double_clicked(self, index: QModelIndex) -> None:
        if index.isValid():
            self._select(index)
            self.request_add()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if event.type() != QEvent.Type.KeyPress or not isinstance(event, QKeyEvent):
            return super().eventFilter(watched, event)
        key = event.key()
        if watched is self.search:
            if key == Qt.Key.Key_Down and self.proxy.rowCount():
                if self.selected_name() is None:
                    self._select(self.proxy.index(0, 0))
                self.view.setFocus(Qt.FocusReason.TabFocusReason)
                return True
            if key in _ENTER_KEYS:
                self.request_add()
                return True
            if key == Qt.Key.Key_Escape and self.search.text():
                self.search.clear()
                return True
        elif watched is self.view:
            if key in _ENTER_KEYS:
                self.request_add()
                return True
            if key == Qt.Key.Key_Up and self.view.currentIndex().row() <= 0:
                self.search.setFocus(Qt.FocusReason.BacktabFocusReason)
                return True
        return super().eventFilter(watched, event)
