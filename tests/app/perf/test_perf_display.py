"""Whether a perf case can have an OpenGL window here, decided without asking Qt."""

from __future__ import annotations

from app.perf.display import display_problem


def test_display_problem_is_decided_before_qt_is_asked():
    linux = "linux"
    assert display_problem(environ={}, platform=linux).startswith("no display")
    assert display_problem(environ={"DISPLAY": ":99"}, platform=linux) is None
    assert display_problem(environ={"WAYLAND_DISPLAY": "wayland-0"}, platform=linux) is None
    offscreen = {"DISPLAY": ":99", "QT_QPA_PLATFORM": "offscreen"}
    assert "offscreen" in display_problem(environ=offscreen, platform=linux)
    assert display_problem(environ={}, platform="darwin") is None
    assert display_problem(environ={}, app_platform="xcb") is None
    assert "minimal" in display_problem(environ={"DISPLAY": ":1"}, app_platform="minimal")
