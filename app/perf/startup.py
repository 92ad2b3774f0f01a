"""Perf cases of waiting a person feels: the app's launch, and opening the next question.

`launch_splash`: a fresh process starts the app as `reasonscope` does (the splash,
then the main window, then the project opens from the event loop) and prints when
each was on screen; the baseline is a fresh process that only starts Qt and shows an
empty window. The value is splash / baseline: the splash must come up about as soon
as Qt can show anything at all, whatever the window behind it costs (reported too).

`verify_next_question`: in Verify, opening the next tabletop question when its scene
was restored ahead (the verifier read the current one meanwhile) against restoring it
then, as before. Both are real `VerifyMode`s on the same project, in this process.

Both need a display (an X server, Xvfb included); `app.perf.display` decides.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time

from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from sim.tabletop.world import MODEL_IMAGE_SIZE

ORDER = 35  # after the viewport's cases, before the generators'

LAUNCH_GOAL = "splash <= 1.5x a bare Qt window"
LAUNCH_ROUNDS = {False: 5, True: 3}

_BARE = """
import time, json
t0 = time.perf_counter()
from PySide6.QtWidgets import QApplication, QWidget
app = QApplication([])
w = QWidget(); w.resize(460, 200); w.show(); app.processEvents()
print(json.dumps({"shown": time.perf_counter() - t0}))
"""

_APP = """
import time, json, sys
t0 = time.perf_counter()
from app.gui import create_application
app = create_application()
import widgets.splash as splash_module
seen = {}
original = splash_module.StartSplash.say
def say(self, text):
    original(self, text)
    seen.setdefault("splash", time.perf_counter() - t0)
splash_module.StartSplash.say = say
from app.gui import start_window
window = start_window(__import__("pathlib").Path(sys.argv[1]))
app.processEvents()
seen["window"] = time.perf_counter() - t0
while window.session.project is None and time.perf_counter() - t0 < 60:
    app.processEvents()
seen["project"] = time.perf_counter() - t0
print(json.dumps(seen))
window.close()
"""


def _run(code: str, *args: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


@perf_case("launch_splash", goal=LAUNCH_GOAL)
def launch_splash(quick: bool) -> PerfResult:
    """Fresh processes, alternating: the app's launch and a bare Qt window; medians."""
    import os

    from app.perf.display import display_problem
    from store import open_project

    problem = display_problem(environ=dict(os.environ))
    if problem:
        return PerfResult("launch_splash", float("inf"), "x", LAUNCH_GOAL, False, problem)
    rounds = LAUNCH_ROUNDS[quick]
    bare, splash, window, opened = [], [], [], []
    with scratch_folder() as folder:
        path = folder / "launch.reasonscope"
        open_project(path, create=True).close()
        for k in range(rounds):
            report(f"launch_splash: round {k + 1} of {rounds}")
            bare.append(_run(_BARE)["shown"])
            seen = _run(_APP, str(path))
            splash.append(seen["splash"])
            window.append(seen["window"])
            opened.append(seen["project"])
    b, s = statistics.median(bare), statistics.median(splash)
    ratio = s / b
    return PerfResult(
        "launch_splash",
        ratio,
        "x",
        LAUNCH_GOAL,
        ratio <= 1.5,
        f"splash on screen {s:.2f} s after start, a bare Qt window {b:.2f} s; the main "
        f"window {statistics.median(window):.2f} s, the project open "
        f"{statistics.median(opened):.2f} s (medians of {rounds} fresh processes)",
    )


NEXT_GOAL = "<= 0.25x restoring the scene then"
NEXT_ROUNDS = {False: 4, True: 2}


@perf_case("verify_next_question", goal=NEXT_GOAL)
def verify_next_question(quick: bool) -> PerfResult:
    """J on a queue of tabletop questions: shown from the restore made ahead, against the
    same step with nothing restored ahead; medians over the questions."""
    from app.perf.display import gl_application

    try:
        app = gl_application()
    except RuntimeError as exc:
        return PerfResult("verify_next_question", float("inf"), "x", NEXT_GOAL, False, str(exc))
    from PySide6.QtWidgets import QStackedWidget, QWidget

    from app.jobs.questions import generate_questions
    from app.modes.verify.mode import VerifyMode
    from app.session import ProjectSession
    from store import open_project
    from widgets.mode import ModeWindow

    n = NEXT_ROUNDS[quick] + 1
    with scratch_folder() as folder:
        path = folder / "verify.reasonscope"
        report(f"verify_next_question: generating {n} questions")
        open_project(path, create=True).close()
        made = len(
            generate_questions(path, tasks=["count"], n=n, seed=1, image_size=512).question_ids
        )
        ahead, then = [], []
        for prefetch in (True, False):
            session = ProjectSession()
            pages = QStackedWidget()
            pages.addWidget(QWidget())
            mode = ModeWindow("verify", "Verify", pages)
            # as Verify restores (the model view at full size); without prefetch nothing is
            # restored ahead
            verify = VerifyMode(
                mode, pages, session, image_size=MODEL_IMAGE_SIZE, prefetch_ahead=prefetch
            )
            mode.resize(1280, 860)
            mode.show()
            session.open(path)
            session.sign_in("Perf")
            _wait(app, lambda v=verify: v.loaded is not None)
            for _ in range(made - 1):
                nxt = verify.state.questions[verify.state.index + 1]
                if prefetch:
                    _wait(app, lambda v=verify, q=nxt: q.scene_id in v.prefetch.kept)
                t0 = time.perf_counter()
                verify.state.next()
                _wait(
                    app,
                    lambda v=verify, q=nxt: (
                        v.loaded is not None and v.loaded.scene.id == q.scene_id
                    ),
                )
                (ahead if prefetch else then).append(time.perf_counter() - t0)
            verify.shutdown()
            session.close()
            mode.close()
    a, t = statistics.median(ahead), statistics.median(then)
    ratio = a / t
    return PerfResult(
        "verify_next_question",
        ratio,
        "x",
        NEXT_GOAL,
        ratio <= 0.25,
        f"next tabletop question on screen in {1000 * a:.0f} ms when restored ahead, "
        f"{1000 * t:.0f} ms restoring it then ({MODEL_IMAGE_SIZE} px model view, as in the app; medians of {len(ahead)})",
    )


def _wait(app, done, timeout: float = 60.0) -> None:
    end = time.perf_counter() + timeout
    while not done():
        if time.perf_counter() > end:
            raise TimeoutError("verify_next_question: the question did not open in time")
        app.processEvents()
        time.sleep(0.002)
