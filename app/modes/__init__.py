"""The six modes: what each is for, how data gets into it, what runs it, where its docks go.

The main window builds every mode from its `ModeSpec` alone: it makes the mode's
`ModeWindow`, hands it to `controller` (the mode's class, from its package under
`app/`), adds the shared Project and Activity docks and arranges them as `docks`
says. Adding a mode is adding a spec here; the window knows no mode by name.

`TAB_LABELS` are the short names docks take while they share a tab stack, so that every
tab can be told apart at 1280 x 860; the full title stays the tab's tooltip and the View
menu's entry, and comes back when the dock stands alone or floats (`DockTabLabels`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import QDockWidget, QStackedWidget, QTabBar, QToolTip

from annotation.models import ProjectSummary
from app.modes.annotate.docks import arrange_docks as arrange_annotate_docks
from app.modes.annotate.mode import AnnotateMode
from app.modes.explore.mode import ExploreMode
from app.modes.replay.mode import ReplayMode
from app.modes.results.mode import ResultsMode
from app.modes.study.mode import StudyMode
from app.modes.verify.mode import VerifyMode
from app.session import ProjectSession
from widgets.mode import ModeWindow


class ModeController(Protocol):
    """What the window needs of a mode's controller once it is built."""

    def show_page(self, name: str) -> None:
        """Bring the mode's page or panel `name` to the front (Results: a tab such as
        "team"; the other modes: a dock such as "hoi_review"); KeyError for an unknown one."""

    def shutdown(self) -> None:
        """Stop the mode's workers and timers (the window is closing)."""


@dataclass(frozen=True)
class DockLayout:
    """Where the window's shared docks (Project, Activity) go in a mode."""

    project_behind: str | None = None  # tab Project behind this dock of the mode's, kept in front
    project_hidden: bool = False  # Project starts hidden (View ▸ Project shows it)
    activity_hidden: bool = True  # Activity starts hidden
    arrange: Callable[[ModeWindow], None] | None = None  # the mode's own arrangement, last


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


@dataclass(frozen=True)
class ModeSpec:
    key: str
    title: str
    icon: str
    purpose: str
    how_to: str
    status: Callable[[ProjectSummary], str]
    controller: Callable[[ModeWindow, QStackedWidget, ProjectSession], ModeController]
    docks: DockLayout = DockLayout()


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


MODES: tuple[ModeSpec, ...] = (
    ModeSpec(
        "explore",
        "Explore scenes",
        "explore",
        "Browse simulated tabletop scenes in the 3D viewport: bodies, cameras, "
        "visibility, and the live scene graph of the current state.",
        "Generate scenes with <code>reasonscope scenes generate --n 10 --seed 0 --db "
        "PROJECT</code>; the demo project comes with a few.",
        lambda s: f"This project holds {_plural(s.scenes, 'scene')}.",
        ExploreMode,
        DockLayout(project_behind="image", arrange=short_tabs()),
    ),
    ModeSpec(
        "annotate",
        "Annotate HOI",
        "annotate",
        "Label human-object interactions on panoramic images and lidar point clouds of "
        "crowded scenes, each with a difficulty (1 easy, 2 medium, 3 hard); two other "
        "annotators review every label.",
        "Import a JRDB sequence with <code>reasonscope import jrdb ROOT --db PROJECT</code> "
        "(the dataset's folder layout, see docs/jrdb-import.md); "
        "<code>python scripts/make_jrdb_sequence.py OUT</code> writes a small synthetic one, "
        "and the demo project comes with one.",
        lambda s: (
            f"This project holds {_plural(s.sequences, 'sequence')}, "
            f"{_plural(s.frames, 'frame')} and {_plural(s.hoi_labels, 'HOI label')}."
        ),
        AnnotateMode,
        DockLayout(activity_hidden=False, arrange=short_tabs(arrange_annotate_docks)),
    ),
    ModeSpec(
        "verify",
        "Verify questions",
        "verify",
        "Check generated benchmark questions (Count, Find, Beneath, Compare) against the "
        "restored scene, two verifiers per question, blind to each other; then approve, "
        "correct or reject.",
        "Generate questions with <code>reasonscope questions generate --task all --n 5 "
        "--seed 0 --db PROJECT</code>, or bring a benchmark file in with "
        "<code>reasonscope import benchmark</code>.",
        lambda s: (
            f"This project holds {_plural(sum(s.questions.values()), 'question')} "
            f"({s.questions.get('pending', 0)} pending) and "
            f"{_plural(s.verifications, 'verification')}."
        ),
        VerifyMode,
        DockLayout(project_behind="image", arrange=short_tabs()),
    ),
    ModeSpec(
        "replay",
        "Replay episodes",
        "replay",
        "Step through recorded agent episodes: the restored scene at every step, the model's "
        "text and tool calls, what moved, what a grasp saw and planned; re-simulate from a "
        "step to check it against the record, and label errors.",
        "Episodes come from recorded runs: <code>reasonscope import episodes FILE --format "
        "reasonscope --db PROJECT</code> stores them; the demo project comes with a few. "
        "Running agents (<code>reasonscope run-agent</code>) is not part of this build yet.",
        lambda s: (
            f"This project holds {_plural(s.episodes, 'episode')} with "
            f"{_plural(s.steps, 'step')}, {s.format_error_steps} of them format errors, and "
            f"{_plural(s.error_labels, 'error label')}."
        ),
        ReplayMode,
        DockLayout(project_behind="labels", project_hidden=True, arrange=short_tabs()),
    ),
    ModeSpec(
        "results",
        "Results",
        "results",
        "Read success rates per task and difficulty, failure analyses, annotation agreement, "
        "and JRDB-Reasoning accuracy by difficulty level D1 / D2 / D3 next to the human "
        "baseline.",
        "Results are computed from episodes, verified questions, imported predictions "
        "(<code>reasonscope import predictions FILE --model NAME</code>) and the Human study; "
        "the project's contents are listed in the Project panel.",
        lambda s: (
            f"{_plural(s.episodes, 'episode')} and "
            f"{_plural(s.questions.get('approved', 0), 'approved question')} to report on."
        ),
        ResultsMode,
        DockLayout(project_hidden=True, arrange=short_tabs()),  # the tables need the width
    ),
    ModeSpec(
        "study",
        "Human study",
        "user",
        "Rate how hard each question is (1 very easy to 5 very hard) without seeing its "
        "computed difficulty, and answer JRDB questions yourself as the human baseline: a "
        "number, a word, or a box drawn on the panorama.",
        "Questions come from <code>reasonscope questions generate</code> or "
        "<code>reasonscope import benchmark</code>; ratings and answers are saved as you give "
        "them, and Results compares them with D and with the models (docs/human-study.md).",
        lambda s: (
            f"This project holds {_plural(sum(s.questions.values()), 'question')} to rate "
            "and answer."
        ),
        StudyMode,
        DockLayout(project_hidden=True, arrange=short_tabs()),
    ),
)
