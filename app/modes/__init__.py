"""The six modes: what each is for, how data gets into it, what runs it, where its docks go.

The main window builds every mode from its `ModeSpec` alone: it makes the mode's
`ModeWindow`, hands it to the class `controller` names (the mode's controller, in its
package under `app/modes/<mode>/`), adds the shared Project and Activity docks and arranges
them as `docks` says (each mode's `docks.py`). Adding a mode is adding its folder and a spec
here; the window knows no mode by name.

A mode is built the first time it is needed (`MainWindow.mode`), so its package, and what
it pulls in (the simulator, Open3D, pyqtgraph's GL views), is imported only then:
`controller` is the class's dotted name, loaded by `load_controller`, not the class.

Every mode folder has the same shape: `mode.py` (the controller, which builds and wires
the panels), `docks.py` (where its docks go), `graph.py` where it has a Scene graph dock,
`loading.py` where it loads in the background, and modules for its own parts.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol

from PySide6.QtWidgets import QStackedWidget

from app.modes.annotate.docks import LAYOUT as ANNOTATE_DOCKS
from app.modes.explore.docks import LAYOUT as EXPLORE_DOCKS
from app.modes.replay.docks import LAYOUT as REPLAY_DOCKS
from app.modes.results.docks import LAYOUT as RESULTS_DOCKS
from app.modes.study.docks import LAYOUT as STUDY_DOCKS
from app.modes.verify.docks import LAYOUT as VERIFY_DOCKS
from app.session import ProjectSession
from widgets.mode import DockLayout, ModeWindow

if TYPE_CHECKING:  # the value types come with the first project (the window starts first)
    from annotation.models import ProjectSummary


class ModeController(Protocol):
    """What the window needs of a mode's controller once it is built.

    A mode is built on first use, maybe long after a project was opened: the controller's
    `__init__` subscribes to the session's signals and shows `session.project` at once
    when one is open."""

    def show_page(self, name: str) -> None:
        """Bring the mode's page or panel `name` to the front (Results: a tab such as
        "team"; the other modes: a dock such as "hoi_review"); KeyError for an unknown one."""

    def shutdown(self) -> None:
        """Stop the mode's workers and timers (the window is closing)."""


@dataclass(frozen=True)
class ModeSpec:
    key: str
    title: str
    icon: str
    purpose: str
    how_to: str
    status: Callable[[ProjectSummary], str]
    controller: str  # "package.module:Class", imported when the mode is first built
    docks: DockLayout = DockLayout()


ControllerClass = Callable[[ModeWindow, QStackedWidget, ProjectSession], ModeController]


def controller_module(spec: ModeSpec) -> str:
    """The module that holds the mode's controller (imported ahead, off the GUI thread,
    while the mode's busy page is up)."""
    return spec.controller.partition(":")[0]


def load_controller(spec: ModeSpec) -> ControllerClass:
    """Import the mode's package and return its controller class (the first build of a
    mode pays for its imports, the window's start does not)."""
    module, _, name = spec.controller.partition(":")
    return getattr(importlib.import_module(module), name)


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
        "app.modes.explore.mode:ExploreMode",
        EXPLORE_DOCKS,
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
        "app.modes.annotate.mode:AnnotateMode",
        ANNOTATE_DOCKS,
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
        "app.modes.verify.mode:VerifyMode",
        VERIFY_DOCKS,
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
        "app.modes.replay.mode:ReplayMode",
        REPLAY_DOCKS,
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
        "app.modes.results.mode:ResultsMode",
        RESULTS_DOCKS,
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
        "app.modes.study.mode:StudyMode",
        STUDY_DOCKS,
    ),
)
