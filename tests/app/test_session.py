"""The open project's session: another process's writes reach the open window."""

from __future__ import annotations


# -- work done outside the app appears ---------------------------------------------------------
def test_questions_added_by_another_process_appear_in_the_open_queue(qtbot, make_window, tmp_path):
    import subprocess
    import sys

    from PySide6.QtCore import Qt

    from app import settings as app_settings

    project = tmp_path / "outside.reasonscope"
    app_settings.remember_annotator("Ada")
    window = make_window()
    assert window.open_path(project, create=True)
    window.set_mode("verify")
    verify = window.mode("verify")
    assert verify.state.current is None
    # another process (as `reasonscope ... --db` would) adds a question to the open project
    code = (
        "from store import open_project\n"
        f"with open_project({str(project)!r}) as p:\n"
        "    p.questions.add({'benchmark': 'mgvqa', 'task': 'count', 'text': 'How many?',"
        " 'answer': 2})\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
    qtbot.waitUntil(lambda: verify.state.current is not None, timeout=10_000)  # by itself
    assert verify.state.current.text == "How many?"
    assert "changed elsewhere (another program" in window.statusBar().currentMessage()
    # and View > Reload (F5) reads the project again on request
    assert window.reload_action.shortcut().toString() == "F5"
    assert window.reload_action in window.actions()
    seen = []
    window.session.data_changed.connect(lambda: seen.append(1))
    from gestures import press_shortcut

    press_shortcut(qtbot, window, Qt.Key.Key_F5)
    assert seen
