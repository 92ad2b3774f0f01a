"""Modules imported off the GUI thread, in the order asked; the window's callbacks run in
the GUI thread once each is in."""

from __future__ import annotations

import sys
import threading

from widgets.imports import BackgroundImports


def test_a_module_is_imported_in_the_worker_and_the_callback_runs_in_the_gui_thread(
    qtbot, tmp_path, monkeypatch
):
    (tmp_path / "slow_thing.py").write_text(
        "import threading\nIMPORTED_IN = threading.current_thread().name\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    imports = BackgroundImports()
    calls = []
    imports.then("slow_thing", lambda: calls.append(threading.current_thread().name))
    assert imports.pending == {"slow_thing"}
    qtbot.waitUntil(lambda: bool(calls), timeout=10000)
    assert sys.modules["slow_thing"].IMPORTED_IN == "background-imports"
    assert calls == [threading.main_thread().name]
    assert imports.is_imported("slow_thing") and not imports.pending
    again = []
    imports.then("slow_thing", lambda: again.append(True))  # in already: soon, not now
    assert again == []
    qtbot.waitUntil(lambda: again == [True], timeout=5000)
    monkeypatch.delitem(sys.modules, "slow_thing")


def test_modules_come_in_the_order_asked_and_a_failure_is_reported_too(
    qtbot, tmp_path, monkeypatch
):
    (tmp_path / "first_part.py").write_text("X = 1\n")
    (tmp_path / "broken_part.py").write_text("raise ValueError('broken on purpose')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    imports = BackgroundImports()
    order = []
    imports.then("first_part", lambda: order.append("first_part"))
    imports.then("broken_part", lambda: order.append("broken_part"))
    qtbot.waitUntil(lambda: len(order) == 2, timeout=10000)
    assert order == ["first_part", "broken_part"]
    assert "broken_part" not in sys.modules  # the GUI thread's import raises the error
    monkeypatch.delitem(sys.modules, "first_part")


def test_a_paused_importer_waits_for_start(qtbot, tmp_path, monkeypatch):
    (tmp_path / "later_part.py").write_text("Y = 2\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    imports = BackgroundImports(paused=True)
    done = []
    imports.then("later_part", lambda: done.append(True))
    qtbot.wait(200)
    assert done == [] and "later_part" not in sys.modules
    imports.start()
    qtbot.waitUntil(lambda: done == [True], timeout=10000)
    monkeypatch.delitem(sys.modules, "later_part")
