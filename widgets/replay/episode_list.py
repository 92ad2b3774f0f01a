"""The episode list with its filters: model, task, mode, outcome, has a failed grasp.

The list reads a page of episodes at a time (`PagedEpisodes`, keyset paging in SQL through
`project.episode_queries`) and the next one as the person scrolls to the bottom (Qt's
canFetchMore / fetchMore), so it opens as fast on 50,000 episodes as on 50.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QModelIndex, QSize, Qt, Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from annotation.models import Episode
from store.episode_queries import EpisodePage, EpisodeQueryRepository
from widgets.replay.state import CORRECT, INCORRECT, EpisodeFilter, ReplayState
from widgets.table_model import Index, RowTableModel

ANY = "Any"
# The table asks for room for HINT_ROWS episodes (the default layout gives it at least 8
# in a 1280 x 860 window) and never gets fewer than MIN_ROWS, however small the window.
HINT_ROWS, MIN_ROWS = 13, 4
PAGE_SIZE = 200  # episodes read at a time


class PagedEpisodes(Sequence):
    """The episodes matching `filters` (`EpisodeFilter.query()`), oldest first, read
    `page_size` at a time: a sequence of those read so far; `total` counts them all."""

    def __init__(
        self, queries: EpisodeQueryRepository, filters: dict[str, Any], page_size: int = PAGE_SIZE
    ) -> None:
        self.queries, self.filters, self.page_size = queries, dict(filters), page_size
        self.rows: list[Episode] = []
        self.failed_grasps: dict[int, int] = {}  # of the rows read (0 left out)
        self.total = queries.count(**self.filters)
        self.append_page(self.read_page(), page_size)

    def __len__(self) -> int:
        return len(self.rows)

    def __getitem__(self, index):  # noqa: ANN001 (an int or a slice, as list's)
        return self.rows[index]

    def can_fetch_more(self) -> bool:
        return len(self.rows) < self.total

    def read_page(self, limit: int | None = None) -> EpisodePage:
        """The next page after the rows read (not added yet: see `append_page`)."""
        after = self.rows[-1].id if self.rows else 0
        return self.queries.page(after=after, limit=limit or self.page_size, **self.filters)

    def append_page(self, page: EpisodePage, asked: int) -> None:
        """Add a page read with `read_page(asked)`; a short one is the end of the list."""
        self.rows.extend(page.episodes)
        self.failed_grasps.update(page.failed_grasps)
        if len(page.episodes) < asked:  # the end, whatever the count said
            self.total = len(self.rows)

    def rows_through(self, episode_id: int) -> int | None:
        """How many more rows to read to reach `episode_id`: 0 when read already, None
        when it does not match the filters."""
        if self.rows and self.rows[-1].id >= episode_id:
            return 0
        rank = self.queries.rank(episode_id, **self.filters)
        return None if rank is None else rank + 1 - len(self.rows)


class PagedEpisodeSource:
    """`project.episodes` for `ReplayState`, with its list read in pages: `list` gives
    `PagedEpisodes`, `failed_grasps` those of the rows read, `facets` one pass in SQL."""

    def __init__(
        self, episodes: Any, queries: EpisodeQueryRepository, page_size: int = PAGE_SIZE
    ) -> None:
        self.episodes, self.queries, self.page_size = episodes, queries, page_size
        self.last: PagedEpisodes | None = None

    def list(self, **filters: Any) -> PagedEpisodes:
        self.last = PagedEpisodes(self.queries, filters, self.page_size)
        return self.last

    def failed_grasps(self) -> dict[int, int]:
        return self.last.failed_grasps if self.last is not None else {}

    def facets(self) -> dict[str, list[str]]:
        return self.queries.facets()

    def __getattr__(self, name: str) -> Any:  # get, steps, labels, add_label, ...
        return getattr(self.episodes, name)


class EpisodeTableModel(RowTableModel):
    HEADERS = ("#", "Model", "Task", "Result", "Steps", "Grasp ✗")

    def __init__(self, state: ReplayState) -> None:
        super().__init__()
        self.state = state
        state.episodes_changed.connect(self.reset)

    def row_list(self):
        return self.state.episodes

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        e = self.state.episodes[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            result = {True: "✓", False: "✗"}.get(e.success, e.outcome or "—")
            failed = self.state.failed_grasps.get(e.id, 0)
            who = e.model or e.agent  # scripted runs (reference plans) have no model
            return (f"#{e.id}", who, e.task, result, str(e.step_count), str(failed or ""))[
                index.column()
            ]
        if role == Qt.ItemDataRole.ToolTipRole:
            grasps = self.state.failed_grasps.get(e.id, 0)
            return (
                f"{e.benchmark} {e.task} question {e.question_id}, scene {e.scene_id}; "
                f"{e.mode} mode, agent {e.agent or '?'}; outcome {e.outcome or '?'}; "
                f"{grasps} failed grasp{'s' * (grasps != 1)}" + _run_text(e)
            )
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() in (0, 3, 4, 5):
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(self, section: int, orientation: Qt.Orientation, role: int = 0) -> Any:  # noqa: N802
        if role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal:
            return ("Episode", "Model", "Task", "Answer correct?", "Steps", "Failed grasps")[
                section
            ]
        return super().headerData(section, orientation, role)

    def episode_id(self, row: int) -> int:
        return self.state.episodes[row].id

    # -- paging: Qt asks for more rows as the view scrolls to the bottom ------------------------
    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: N802, B008
        rows = self.state.episodes
        return not parent.isValid() and isinstance(rows, PagedEpisodes) and rows.can_fetch_more()

    def fetchMore(self, parent: Index = QModelIndex(), limit: int | None = None) -> None:  # noqa: N802, B008
        rows = self.state.episodes
        if parent.isValid() or not isinstance(rows, PagedEpisodes):
            return
        asked = limit or rows.page_size
        page = rows.read_page(asked)
        if not page.episodes:
            rows.append_page(page, asked)
            return
        first = len(rows)
        self.beginInsertRows(QModelIndex(), first, first + len(page.episodes) - 1)
        rows.append_page(page, asked)
        self.endInsertRows()

    def fetch_through(self, episode_id: int) -> None:
        """Read rows until `episode_id` is among them (if it matches the filters)."""
        rows = self.state.episodes
        if isinstance(rows, PagedEpisodes):
            more = rows.rows_through(episode_id)
            if more:
                self.fetchMore(limit=max(more, rows.page_size))


class EpisodeListPanel(QWidget):
    """Pick an episode; narrow the list with the filters. Emits `open_requested(id)`."""

    open_requested = Signal(int)

    def __init__(self, state: ReplayState, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.state = state
        self.model = EpisodeTableModel(state)
        self.combos: dict[str, QComboBox] = {}
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        for i, (name, title) in enumerate(
            (("model", "Model"), ("task", "Task"), ("mode", "Mode"), ("outcome", "Outcome"))
        ):
            combo = QComboBox()
            combo.setObjectName(f"replay_filter_{name}")
            combo.setSizeAdjustPolicy(
                QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
            )
            combo.setMinimumContentsLength(8)
            combo.currentIndexChanged.connect(self._apply_filter)
            self.combos[name] = combo
            grid.addWidget(QLabel(title), i // 2, (i % 2) * 2)
            grid.addWidget(combo, i // 2, (i % 2) * 2 + 1)
        grid.setColumnStretch(1, 1)
        grid.setColumnStretch(3, 1)
        self.failed_grasp = QCheckBox("Has a failed grasp")
        self.failed_grasp.toggled.connect(self._apply_filter)
        self.view = QTableView()
        self.view.setModel(self.model)
        self.view.setSelectionBehavior(QTableView.SelectionBehavior.SelectRows)
        self.view.setSelectionMode(QTableView.SelectionMode.SingleSelection)
        self.view.verticalHeader().hide()
        self.view.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.view.setMinimumHeight(self.rows_height(MIN_ROWS))
        header = self.view.horizontalHeader()
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)  # long dual-arm task names
        self.view.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.view.setAlternatingRowColors(True)
        self.view.selectionModel().currentRowChanged.connect(self._row_changed)
        self.count_label = QLabel()
        below = QHBoxLayout()
        below.addWidget(self.count_label)
        below.addStretch(1)
        below.addWidget(self.failed_grasp)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.addLayout(grid)
        layout.addWidget(self.view, 1)
        layout.addLayout(below)
        self._filling = False
        state.episodes_changed.connect(self._update)
        self._update()

    def rows_height(self, rows: int) -> int:
        """The table's height showing the header and `rows` rows."""
        header = self.view.horizontalHeader().sizeHint().height()
        rows_px = rows * self.view.verticalHeader().defaultSectionSize()
        return header + rows_px + 2 * self.view.frameWidth()

    def sizeHint(self) -> QSize:  # noqa: N802
        return QSize(370, self.rows_height(HINT_ROWS) + 90)

    def _update(self) -> None:
        """Refill the filters' choices (keeping what is chosen) and the count."""
        self._filling = True
        try:
            for name, combo in self.combos.items():
                chosen = combo.currentData()
                combo.clear()
                combo.addItem(ANY, None)
                if name == "outcome":
                    combo.addItem("Correct", CORRECT)
                    combo.addItem("Incorrect", INCORRECT)
                for value in self.state.facets.get(name, []):
                    combo.addItem(value, value)
                found = combo.findData(chosen)
                combo.setCurrentIndex(max(0, found))
        finally:
            self._filling = False
        episodes = self.state.episodes
        n = episodes.total if isinstance(episodes, PagedEpisodes) else len(episodes)
        self.count_label.setText(f"{n:,} episode{'s' if n != 1 else ''}")
        self._select_open()

    def _select_open(self) -> None:
        episode = self.state.episode
        if episode is not None:
            self.model.fetch_through(episode.id)  # the open episode may be pages down
        for row, e in enumerate(self.state.episodes):
            if episode is not None and e.id == episode.id:
                self.view.selectionModel().blockSignals(True)
                self.view.selectRow(row)
                self.view.selectionModel().blockSignals(False)
                return

    def _apply_filter(self) -> None:
        if self._filling:
            return
        c = self.combos
        self.state.set_filter(
            EpisodeFilter(
                model=c["model"].currentData(),
                task=c["task"].currentData(),
                mode=c["mode"].currentData(),
                outcome=c["outcome"].currentData(),
                failed_grasp=self.failed_grasp.isChecked(),
            )
        )

    def clear_filters(self) -> None:
        """Every filter back to Any: the whole list."""
        self._filling = True
        try:
            for combo in self.combos.values():
                combo.setCurrentIndex(0)
            self.failed_grasp.setChecked(False)
        finally:
            self._filling = False
        self._apply_filter()

    def show_open(self) -> None:
        """Select the open episode's row (after it was opened some other way)."""
        self._select_open()

    def set_filter_value(self, name: str, value: str | None) -> None:
        """Choose a filter value as a person would in its list (None: any)."""
        combo = self.combos[name]
        combo.setCurrentIndex(max(0, combo.findData(value)))

    def _row_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if current.isValid():
            self.open_requested.emit(self.model.episode_id(current.row()))

    def select_row(self, row: int) -> None:
        self.view.selectRow(row)


def _run_text(e) -> str:
    """The run's settings (prompt, image size, gripper, perceiver, perception model,
    segmenter, ...), as Results prints them in the row."""
    from annotation.bimanual.metrics import bimanual_run, is_bimanual
    from annotation.runs import run_label
    from annotation.tabletop.episode_metrics import run_settings

    run = bimanual_run(e.header) if is_bimanual(e) else run_settings(e.header)
    label = run_label(run)
    return f"; run: {label}" if label else ""
