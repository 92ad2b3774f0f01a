"""HOI labelling and review in the Annotate HOI mode: two docks and three keyed toolbars.

`install_hoi_panels(mode, view_state, session)` is the one call that wires them:

- dock `hoi_labels` ("HOI labels", right): the selected person's labels with
  difficulty, target, author and review status, difficulty, copying, progress;
- dock `hoi_review` ("HOI review", right): to review / returned to me / quality
  check, and the review form;
- toolbar "HOI labels" (left, vertical): one action a label, its key on the
  button (the taxonomy's keys; checked when the person has the label);
- toolbar "HOI": 1/2/3 difficulty, Tab / Shift+Tab person (while a label waits
  for its target: the objects nearest the person, Enter takes one), [ ] label,
  Delete, Ctrl+T target, Esc cancel the pick, Ctrl+←/→ copy (with Shift: all the
  person's labels), Ctrl+Z undo, Ctrl+Shift+Z / Ctrl+Y redo;
- toolbar "Review": A accept, R reject, Alt+1/2/3 your difficulty, J / K next
  and previous in the list, Ctrl+Shift+R resubmit a returned label.

Frame keys belong to the views (PageUp/PageDown, Alt+arrows) and are not used here.
Writes are saved when made; the session hears of them (data_changed) once typing pauses.
"""

from __future__ import annotations

from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel, QToolBar

from app.session import ProjectSession
from widgets.hoi.panel import HoiPanel
from widgets.hoi.review_panel import HoiReviewPanel
from widgets.hoi.review_state import HoiReviewState
from widgets.hoi.state import HoiState
from widgets.jrdb.state import JrdbViewState
from widgets.mode import ModeWindow, mode_toolbar

#: How long after the last saved change the other modes are told (ms).
NOTIFY_DELAY_MS = 1500
#: How long after the last saved change the queues and the progress are read again (ms).
REFRESH_DELAY_MS = 300


class HoiPanels(QObject):
    """The HOI states, panels and actions of one mode window (see the module docstring)."""

    def __init__(
        self, mode: ModeWindow, view_state: JrdbViewState, session: ProjectSession
    ) -> None:
        super().__init__(mode)
        self.mode, self.view, self.session = mode, view_state, session
        self.state = HoiState(view_state, parent=self)
        self.review = HoiReviewState(self.state, parent=self)
        self.panel = HoiPanel(self.state)
        self.review_panel = HoiReviewPanel(self.review)
        mode.add_dock("hoi_labels", "HOI labels", self.panel, Qt.DockWidgetArea.RightDockWidgetArea)
        mode.add_dock(
            "hoi_review", "HOI review", self.review_panel, Qt.DockWidgetArea.RightDockWidgetArea
        )
        self.actions: dict[str, QAction] = {}
        self.label_bar = self._label_toolbar()
        self.bar = self._main_toolbar()
        self.review_bar = self._review_toolbar()
        self.notify = QTimer(self, singleShot=True, interval=NOTIFY_DELAY_MS)
        self.notify.timeout.connect(self._tell_session)
        self._telling = False
        # Queues and progress scan the whole sequence: read them when typing pauses.
        self.later = QTimer(self, singleShot=True, interval=REFRESH_DELAY_MS)
        self.later.timeout.connect(self._refresh_lists)

        self.state.saved.connect(lambda text: self._message(text, 5000))
        self.state.refused.connect(lambda text: self._message(text, 8000))
        self.state.history_changed.connect(self.notify.start)
        self.state.history_changed.connect(self.later.start)
        self.state.labels_changed.connect(self._sync_actions)
        self.state.defaults_changed.connect(self._sync_actions)
        self.state.label_selected.connect(lambda _id: self._sync_actions())
        self.review.draft_changed.connect(self._sync_actions)
        session.project_changed.connect(self.reload)
        session.annotator_changed.connect(self.reload)
        session.data_changed.connect(self._data_changed)
        self.reload()

    # -- toolbars --------------------------------------------------------------------------
    def _label_toolbar(self) -> QToolBar:
        s, taxonomy = self.state, self.state.taxonomy
        specs = [
            (
                f"label:{t.id}",
                f"{t.key}  {t.label}",
                [t.key],
                lambda i=t.id: s.press(i),
                f"{taxonomy.category(t.category).label}: {t.label}"
                + (" (then click the target)" if t.needs_target else ""),
            )
            for t in taxonomy.labels()
        ]
        bar, actions = mode_toolbar(self.mode, "HOI labels", specs, checkable=lambda _k: True)
        self.mode.addToolBar(Qt.ToolBarArea.LeftToolBarArea, bar)
        bar.setOrientation(Qt.Orientation.Vertical)
        for category in taxonomy.categories:
            header = QLabel(f" {category.label}")
            header.setStyleSheet("font-weight: bold; padding-top: 6px;")
            bar.insertWidget(actions[f"label:{category.labels[0].id}"], header)
        self.actions.update(actions)
        return bar

    def _main_toolbar(self) -> QToolBar:
        s = self.state
        bar, actions = mode_toolbar(
            self.mode,
            "HOI",
            (
                (
                    "d1",
                    "1 Easy",
                    ["1"],
                    lambda: s.set_difficulty(1),
                    "Difficulty easy: the selected label and new ones",
                ),
                ("d2", "2 Medium", ["2"], lambda: s.set_difficulty(2), "Difficulty medium"),
                ("d3", "3 Hard", ["3"], lambda: s.set_difficulty(3), "Difficulty hard"),
                (None, None, None, None, None),
                (
                    "next_person",
                    "Next person",
                    ["Tab"],
                    lambda: self._tab(1),
                    "Next person in this frame (while choosing a target: the next object near the person)",
                ),
                (
                    "previous_person",
                    "Previous person",
                    ["Shift+Tab"],
                    lambda: self._tab(-1),
                    "Previous person in this frame (while choosing a target: the previous object)",
                ),
                (
                    "next_label",
                    "Next label",
                    ["]"],
                    lambda: s.cycle_label(1),
                    "Select the person's next label",
                ),
                (
                    "previous_label",
                    "Previous label",
                    ["["],
                    lambda: s.cycle_label(-1),
                    "Select the previous label",
                ),
                ("remove", "Remove", ["Delete"], s.delete_selected, "Remove the selected label"),
                (
                    "retarget",
                    "Target…",
                    ["Ctrl+T"],
                    s.retarget,
                    "Pick another target for the selected label",
                ),
                ("cancel_pick", "Cancel pick", ["Esc"], s.cancel_pick, "Stop waiting for a target"),
                (
                    "take_target",
                    "Take target",
                    ["Return", "Enter"],
                    self._take_target,
                    "While choosing a target: take the highlighted object",
                ),
                (None, None, None, None, None),
                (
                    "copy_back",
                    "◀ Copy",
                    ["Ctrl+Left"],
                    lambda: s.propagate(-1),
                    "Copy the selected label to the previous N frames of the track",
                ),
                (
                    "copy_forward",
                    "Copy ▶",
                    ["Ctrl+Right"],
                    lambda: s.propagate(1),
                    "Copy the selected label to the next N frames of the track",
                ),
                (
                    "copy_all_back",
                    "◀◀ All",
                    ["Ctrl+Shift+Left"],
                    lambda: s.propagate(-1, True),
                    "Copy all your labels of this person back",
                ),
                (
                    "copy_all_forward",
                    "All ▶▶",
                    ["Ctrl+Shift+Right"],
                    lambda: s.propagate(1, True),
                    "Copy all your labels of this person forward",
                ),
                (None, None, None, None, None),
                (
                    "undo",
                    "Undo",
                    ["Ctrl+Z"],
                    s.undo,
                    "Undo your last label change or review (saved)",
                ),
                (
                    "redo",
                    "Redo",
                    ["Ctrl+Shift+Z", "Ctrl+Y"],
                    s.redo,
                    "Redo what was undone (saved)",
                ),
            ),
            checkable=lambda key: key in ("d1", "d2", "d3"),
        )
        self.actions.update(actions)
        return bar

    def _review_toolbar(self) -> QToolBar:
        r = self.review
        bar, actions = mode_toolbar(
            self.mode,
            "Review",
            (
                (
                    "accept",
                    "Accept",
                    ["A"],
                    r.accept,
                    "Accept the open label (give your difficulty first)",
                ),
                ("reject", "Reject…", ["R"], r.reject, "Reject the open label, with a comment"),
                ("r1", "Alt+1", ["Alt+1"], lambda: r.set_difficulty(1), "Your difficulty: easy"),
                ("r2", "Alt+2", ["Alt+2"], lambda: r.set_difficulty(2), "Your difficulty: medium"),
                ("r3", "Alt+3", ["Alt+3"], lambda: r.set_difficulty(3), "Your difficulty: hard"),
                ("next_item", "Next", ["J"], lambda: r.step(1), "Next label in the list"),
                (
                    "previous_item",
                    "Previous",
                    ["K"],
                    lambda: r.step(-1),
                    "Previous label in the list",
                ),
                (
                    "resubmit",
                    "Resubmit",
                    ["Ctrl+Shift+R"],
                    r.resubmit,
                    "Send your returned label for review unchanged",
                ),
            ),
            checkable=lambda key: key in ("r1", "r2", "r3"),
        )
        self.actions.update(actions)
        return bar

    def _sync_actions(self) -> None:
        s = self.state
        selected = s.selected
        level = selected.label.difficulty if selected is not None else s.difficulty
        for i in (1, 2, 3):
            self.actions[f"d{i}"].setChecked(level == i)
            self.actions[f"r{i}"].setChecked(self.review.draft.difficulty == i)
        for t in s.taxonomy.labels():
            self.actions[f"label:{t.id}"].setChecked(s.has_label(t.id))

    # -- choosing a target by keys -----------------------------------------------------------
    def _tab(self, delta: int) -> None:
        """Tab: the next person, or while a label waits for its target, the next object."""
        if self.view.picking:
            self.panel.chooser.cycle(delta)
        else:
            self.state.next_person(delta)

    def _take_target(self) -> None:
        if self.view.picking:
            self.panel.chooser.take()

    # -- the session ------------------------------------------------------------------------
    def reload(self) -> None:
        """Another project or annotator: their labels and queues, a fresh undo history."""
        project = self.session.project
        self.state.set_source(project.hoi if project else None, self.session.annotator)
        self._refresh_lists()

    def _data_changed(self) -> None:
        if not self._telling:  # someone else's change: read again
            self.state.reload()
            self._refresh_lists()

    def _refresh_lists(self) -> None:
        self.later.stop()
        self.review.refresh()
        self.panel.show_progress()

    def _tell_session(self) -> None:
        self._telling = True
        try:
            self.session.data_changed.emit()  # the summary, the activity log, Results
        finally:
            self._telling = False

    def _message(self, text: str, ms: int) -> None:
        self.mode.statusBar().showMessage(text, ms)

    def shutdown(self) -> None:
        """Tell the session of the last changes now (closing or switching projects)."""
        self.later.stop()
        if self.notify.isActive():
            self.notify.stop()
            self._tell_session()


def install_hoi_panels(
    mode: ModeWindow, view_state: JrdbViewState, session: ProjectSession
) -> HoiPanels:
    """Add the HOI docks and keyed toolbars to the Annotate HOI mode window."""
    return HoiPanels(mode, view_state, session)
