"""Starting the app: a splash while the heavy imports run, then the window, then the project."""

from __future__ import annotations


# -- feedback while waiting ----------------------------------------------------------------------
def test_launch_shows_a_splash_then_the_window_before_the_project_opens(qtbot, tmp_path):
    from app.gui import start_window
    from store import open_project
    from widgets.splash import StartSplash

    path = tmp_path / "launch.reasonscope"
    open_project(path, create=True).close()
    splashes: list[StartSplash] = []
    original = StartSplash.say

    def record(self, text):
        splashes.append(self)
        assert self.isVisible()  # on screen while the heavy imports run
        original(self, text)

    StartSplash.say = record
    try:
        window = start_window(path)
    finally:
        StartSplash.say = original
    qtbot.addWidget(window)
    assert splashes and "Loading" in splashes[0].text
    assert window.isVisible() and not splashes[0].isVisible()  # the window replaced it
    assert window.session.project is None  # not yet: the window paints first ...
    assert "Opening launch.reasonscope" in window.statusBar().currentMessage()
    qtbot.waitUntil(lambda: window.session.project is not None, timeout=10_000)  # ... then opens
    assert window.statusBar().currentMessage() == "Opened launch.reasonscope"  # and says so
    # the opening mode is built behind its busy page, once the window is up, and only it
    qtbot.waitUntil(lambda: window.is_built(window.current_mode), timeout=60_000)
    assert list(window.mode_windows) == [window.current_mode]
    assert "Opening" not in window.statusBar().currentMessage()
    window.close()
