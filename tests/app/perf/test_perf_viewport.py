"""The viewport perf case: its structure and its no-display answer, never wall-clock limits."""

from __future__ import annotations

import json
import math

import pytest

from app.perf import harness
from app.perf import viewport as perf_viewport
from app.perf.harness import PerfResult, run_cases
from app.perf.viewport import measure_viewport_frames


def test_case_is_registered_with_its_goal():
    assert "viewport_frame_time" in harness.known_cases()
    case = harness.CASES["viewport_frame_time"]
    assert case.goal == "<= 2" and case.description


def test_measurement_has_the_full_scene_and_an_empty_view(qapp):
    m = measure_viewport_frames(3, objects=15, size=(320, 240))
    assert m.frames == 3 and m.size == (320, 240)
    assert m.objects == 15
    assert m.items > 30  # robot links, fixtures and objects: one item per visual shape
    assert m.triangles > 10_000
    assert m.full_ms > 0 and m.empty_ms > 0
    assert math.isfinite(m.ratio) and m.ratio == pytest.approx(m.full_ms / m.empty_ms)


def test_quick_run_reports_a_ratio(qapp, monkeypatch):
    monkeypatch.setattr(perf_viewport, "FRAMES", {False: 3, True: 3})
    messages: list[str] = []
    (result,) = run_cases(["viewport_frame_time"], quick=True, progress=messages.append)
    assert isinstance(result, PerfResult)
    assert result.name == "viewport_frame_time" and result.unit == "x empty"
    assert result.goal == "<= 2" and result.passed == (result.value <= 2)
    assert math.isfinite(result.value) and result.value > 0
    assert "triangles" in result.detail and "empty" in result.detail
    assert json.loads(json.dumps(result.as_dict())) == result.as_dict()
    assert any(m.startswith("viewport_frame_time: building") for m in messages)


def test_without_a_display_the_case_fails_with_a_reason(monkeypatch):
    def no_display():
        raise RuntimeError("no display: neither DISPLAY nor WAYLAND_DISPLAY is set")

    monkeypatch.setattr(perf_viewport, "gl_application", no_display)
    result = perf_viewport.viewport_frame_time(True)
    assert result.passed is False and result.value == 0.0
    assert result.detail.startswith("no display")
