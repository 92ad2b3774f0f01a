"""Long work runs off the GUI thread, reports progress, and can be cancelled."""

from __future__ import annotations

import threading
import time

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QPushButton, QWidget

from widgets.tasks import TaskRunner


def test_task_reports_progress_and_result_from_another_thread(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    gui_thread = threading.get_ident()
    seen = {}

    def work(progress):
        seen["thread"] = threading.get_ident()
        for i in range(5):
            progress.report(i, 5, f"step {i}")
        return 42

    runner = TaskRunner("Working", work, parent)
    progress_events = []
    runner.worker.progressed.connect(lambda d, t, m: progress_events.append((d, t, m)))
    with qtbot.waitSignal(runner.succeeded, timeout=10000) as blocker:
        runner.start()
    assert blocker.args == [42]
    assert seen["thread"] != gui_thread
    qtbot.waitUntil(lambda: len(progress_events) == 5)
    assert progress_events[-1] == (4, 5, "step 4")


def test_cancel_stops_the_work_at_its_next_checkpoint(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)
    steps = []

    def work(progress):
        for i in range(10_000):
            progress.report(i, 10_000, "busy")
            steps.append(i)
            time.sleep(0.002)
        return "finished"

    runner = TaskRunner("Working", work, parent)
    with qtbot.waitSignal(runner.cancelled, timeout=10000):
        runner.start()
        qtbot.waitUntil(lambda: len(steps) > 3)
        cancel_button = runner.dialog.findChild(QPushButton)
        assert cancel_button.text() == "Cancel"
        qtbot.mouseClick(cancel_button, Qt.MouseButton.LeftButton)  # the person presses Cancel
    assert len(steps) < 10_000


def test_failure_is_reported_with_a_one_line_summary(qtbot):
    parent = QWidget()
    qtbot.addWidget(parent)

    def work(progress):
        raise OSError("disk full\nmore")

    runner = TaskRunner("Working", work, parent, show_dialog=False)
    with qtbot.waitSignal(runner.failed, timeout=10000) as blocker:
        runner.start()
    summary, details = blocker.args
    assert summary == "disk full"
    assert "OSError" in details


def test_one_overall_bar_across_parts_with_time_left(qtbot):
    from annotation.progress import PART_SCALE, Progress
    from widgets.tasks import TaskRunner, time_left_text

    seen: list[tuple[int, int, str]] = []
    overall = Progress(lambda d, t, m: seen.append((d, t, m)))
    for i, name in enumerate(("Scenes", "Questions", "Episodes")):
        part = overall.part(i, 3, name)
        for k in range(5):
            part.report(k, 4, f"step {k}")
    values = [d for d, _t, _m in seen]
    assert values == sorted(values) and values[-1] == PART_SCALE  # never back to 0
    assert seen[0][2] == "Scenes (part 1 of 3): step 0"
    assert time_left_text(30, 0.25) == "about 1 min 30 s left"
    assert time_left_text(1, 0.5) == "" and time_left_text(20, 0.01) == ""
    # the runner's dialog label wraps instead of cutting, and says the time left
    lines: list[str] = []

    def work(progress):
        import time

        for k in range(4):
            progress.report(k, 4, f"A long part name that used to be cut off, step {k}")
            time.sleep(0.05)
        return "done"

    runner = TaskRunner("Preparing", work)
    runner.progressed.connect(lines.append)
    with qtbot.waitSignal(runner.finished, timeout=20_000):
        runner.start()
        runner.started_at -= 30  # as if it had run for half a minute (reports are queued)
    assert runner.dialog.labelText() and runner.dialog.minimumWidth() >= 520
    assert any("left" in line for line in lines), lines
    assert all("\n" not in line for line in lines)
