"""Perf cases of waiting a person feels: the app's launch, and opening the next question.

`launch_splash`: a fresh process starts the app as `reasonscope` does (the splash,
then the main window, then the project opens from the event loop) and prints when
each was on screen; the baseline is a fresh process that only starts Qt and shows an
empty window. The value is splash / baseline: the splash must come up about as soon
as Qt can show anything at all, whatever the window behind it costs (reported too).

`verify_next_question`: in Verify, opening the next tabletop question when its scene
was restored ahead (the verifier read the current one meanwhile) against restoring it
then, as before. Both are real `VerifyMode`s on the same project, in this process.

`launch_window`: a fresh process runs `reasonscope --db PATH` (`python -m app.cli`); the
baseline is a fresh process showing a bare `QMainWindow` titled "ReasonScope (bare)" that
answers Ctrl+Shift+U with a message box, as the app's window does (Switch annotator). Each
is timed from the process start until `xdotool` finds its window visible (`search
--onlyvisible --name`, polled every few ms: `--sync` looks only every 0.5 s), then until
Ctrl+Shift+U typed into it (`windowfocus`, `key`) brings its answer on screen, which the
window can only do once it takes keys. The value is app / bare for the second: the window
must be up and responsive within 2x of what Qt alone needs. The opening mode is built
behind its busy page after that (reported too), then each other mode's first switch is
timed, each in a fresh process once the opening mode is up (driven with the mode
shortcuts), then a later switch to it.

All need a display (an X server, Xvfb included); `app.perf.display` decides.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

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


WINDOW_GOAL = "<= 2x a bare Qt main window"
WINDOW_ROUNDS = {False: 5, True: 3}
SWITCH_GOAL_S = 1.0  # the first switch to a mode, each

_BARE_WINDOW = """
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox
app = QApplication([])
w = QMainWindow(); w.setWindowTitle("ReasonScope (bare)"); w.resize(1280, 860)
QShortcut(QKeySequence("Ctrl+Shift+U"), w, lambda: QMessageBox.information(
    w, "Who is working?", "A bare window's answer"))
w.show()
app.exec()
"""

_FIRST_SWITCH = """
import json, sys, time
from pathlib import Path
from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from app.gui import create_application, start_window
from app.modes import MODES
app = create_application()
window = start_window(Path(sys.argv[1]))
target = sys.argv[2]
def wait(done, limit=120):
    end = time.perf_counter() + limit
    while not done():
        if time.perf_counter() > end:
            raise SystemExit("first_switch: timed out")
        app.processEvents()
        time.sleep(0.001)
opening = window.current_mode
wait(lambda: window.session.project is not None and window.is_built(opening))
end = time.perf_counter() + 1.0  # what the opening mode loads in the background settles
wait(lambda: time.perf_counter() > end)
window.activateWindow()
wait(window.isActiveWindow)
index = {spec.key: i for i, spec in enumerate(MODES, start=1)}
def switch(key):
    t0 = time.perf_counter()
    QTest.keyClick(window, getattr(Qt.Key, f"Key_{index[key]}"), Qt.KeyboardModifier.ControlModifier)
    busy = window.stack.currentWidget() is not window.mode_windows.get(key)
    wait(lambda: window.stack.currentWidget() is window.mode_windows.get(key))
    return time.perf_counter() - t0, busy
first = switch(target)
switch(opening)
again = switch(target)  # a later switch: the mode is kept
print(json.dumps({"opening": opening, "first": first, "again": again}))
window.close()
"""


def _xdotool(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, timeout=30)


def _poll_window(pattern: str, t0: float, proc: subprocess.Popen, limit: float = 60.0):
    """(seconds since t0, window id) once a visible window's name matches `pattern`."""
    while time.perf_counter() - t0 < limit:
        found = _xdotool("search", "--onlyvisible", "--name", pattern)
        if found.returncode == 0 and found.stdout.split():
            return time.perf_counter() - t0, found.stdout.split()[0]
        if proc.poll() is not None:
            raise RuntimeError(f"the process ended before {pattern!r} showed: {proc.returncode}")
        time.sleep(0.01)
    raise TimeoutError(f"no visible window named {pattern!r} after {limit:.0f} s")


def _window_round(command: list[str], env: dict[str, str]) -> tuple[float, float]:
    """(visible, answered): seconds from the process start until its main window is on
    screen, and until Ctrl+Shift+U typed into it as soon as it is has its answer up."""
    errors = tempfile.TemporaryFile(mode="w+")
    t0 = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=errors)
    try:
        visible, wid = _poll_window("^ReasonScope", t0, proc)
        _xdotool("windowfocus", wid)
        _xdotool("key", "--clearmodifiers", "ctrl+shift+u")
        answered, _ = _poll_window("^(Who is working|No project open)", t0, proc)
        return visible, answered
    except RuntimeError as exc:  # it ended: say why in its own last words
        errors.seek(0)
        said = [line for line in errors.read().splitlines() if line.strip()]
        raise RuntimeError(f"{exc} ({said[0] if said else 'nothing on stderr'})") from None
    finally:
        errors.close()
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _window_round_again(command: list[str], env: dict[str, str], tries: int = 3):
    """`_window_round`, again when the X server turned the process away at its start (a
    busy Xvfb now and then refuses a connection: not the app's doing)."""
    for attempt in range(tries):
        try:
            return _window_round(command, env)
        except RuntimeError as exc:
            if "could not connect to display" not in str(exc) or attempt == tries - 1:
                raise
            report(f"launch_window: the X server refused a connection; again ({exc})")
            time.sleep(1.0)
    raise AssertionError("unreachable")


@perf_case("launch_window", goal=WINDOW_GOAL)
def launch_window(quick: bool) -> PerfResult:
    """Fresh processes, alternating: `reasonscope --db PATH` and a bare QMainWindow, each
    until its window is visible and has answered a key; medians. Then the first switch
    to every other mode in one more fresh process."""
    from app.modes import MODES
    from app.perf.display import display_problem
    from store import open_project

    def fail(text: str) -> PerfResult:
        return PerfResult("launch_window", float("inf"), "x", WINDOW_GOAL, False, text)

    problem = display_problem(environ=dict(os.environ))
    if problem:
        return fail(problem)
    if shutil.which("xdotool") is None:
        return fail("xdotool is not installed (make system-deps installs it)")
    rounds = WINDOW_ROUNDS[quick]
    bare_visible, bare_answer, app_visible, app_answer = [], [], [], []
    with scratch_folder() as folder:
        path = folder / "launch.reasonscope"
        with open_project(path, create=True) as project:
            project.annotators.sign_in("Perf")
        env = dict(os.environ, REASONSCOPE_CONFIG_DIR=str(folder / "config"))
        (folder / "config").mkdir()
        _fresh_settings(folder / "config")
        app_command = [sys.executable, "-m", "app.cli", "--db", str(path)]
        try:
            for k in range(rounds):
                report(f"launch_window: round {k + 1} of {rounds}")
                v, a = _window_round_again([sys.executable, "-c", _BARE_WINDOW], env)
                bare_visible.append(v)
                bare_answer.append(a)
                v, a = _window_round_again(app_command, env)
                app_visible.append(v)
                app_answer.append(a)
            switches = {"first": {}, "again": {}}
            for spec in MODES[1:]:  # each in a fresh process, from the opening mode
                report(f"launch_window: the first switch to {spec.title}")
                seen = _run_switch(path, env, spec.key)
                switches["opening"] = seen["opening"]
                switches["first"][spec.key] = seen["first"]
                switches["again"][spec.key] = seen["again"]
        except (RuntimeError, TimeoutError, subprocess.SubprocessError) as exc:
            return fail(f"launch_window: {exc}")
    bv, ba = statistics.median(bare_visible), statistics.median(bare_answer)
    av, aa = statistics.median(app_visible), statistics.median(app_answer)
    ratio = aa / ba
    first = switches["first"]
    slowest = max(t for t, _busy in first.values())
    later = max(t for t, _shown in switches["again"].values())
    each = ", ".join(f"{key} {t:.2f} s" for key, (t, _busy) in first.items())
    ok = ratio <= 2.0 and slowest <= SWITCH_GOAL_S
    return PerfResult(
        "launch_window",
        ratio,
        "x",
        WINDOW_GOAL,
        ok,
        f"the main window visible {av:.2f} s after start and answering a key {aa:.2f} s; "
        f"a bare Qt main window {bv:.2f} s and {ba:.2f} s (medians of {rounds} fresh "
        f"processes); visible alone {av / bv:.1f}x. First switch to each mode (goal <= "
        f"{SWITCH_GOAL_S:.0f} s each, {switches['opening']} opens built): {each}; every "
        f"later switch at most {1000 * later:.0f} ms",
    )


def _fresh_settings(folder: Path) -> None:
    """Settings of a person signed in before, with no last mode: the app opens in the
    first mode (a window that closes saves the mode it was in)."""
    (folder / "reasonscope.ini").write_text("[General]\nannotator=Perf\n")


def _run_switch(path: Path, env: dict[str, str], key: str) -> dict:
    _fresh_settings(Path(env["REASONSCOPE_CONFIG_DIR"]))
    out = subprocess.run(
        [sys.executable, "-c", _FIRST_SWITCH, str(path), key],
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
        env=env,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


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
