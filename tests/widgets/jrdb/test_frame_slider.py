"""The frame slider: what it says of the frame shown, the frame it asks for when dragged,
keyed or clicked, and the same wired to a real imported sequence's `JrdbViewState` as the
Annotate mode wires it."""

from __future__ import annotations

import pytest
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt

from app.demo.jrdb_synth import SynthConfig
from store import open_project
from widgets.jrdb.frame_slider import FrameSlider
from widgets.jrdb.state import JrdbViewState

LEFT = Qt.MouseButton.LeftButton
TINY = SynthConfig(frames=4, people=1, objects=1, points_per_sweep=200)


def _slider(qtbot):
    slider = FrameSlider()
    qtbot.addWidget(slider)
    slider.resize(900, 34)
    slider.show()
    qtbot.waitExposed(slider)
    return slider


def _click(qtbot, button):
    qtbot.mouseClick(button, LEFT, pos=button.rect().center())


def test_without_frames_nothing_can_be_asked(qtbot):
    slider = _slider(qtbot)
    assert slider.label.text() == "No frames"
    assert not any(w.isEnabled() for w in (slider.slider, slider.back, slider.forward))
    with qtbot.assertNotEmitted(slider.frame_requested):
        _click(qtbot, slider.forward)


def test_the_label_says_which_frame_and_when(qtbot):
    slider = _slider(qtbot)
    slider.set_frames([0, 15, 30, 45], [0.0, 1.0, 2.0, None])
    assert (slider.slider.minimum(), slider.slider.maximum()) == (0, 3)
    assert slider.label.text() == "Frame 1 of 4 · #000000 · 0.00 s"
    with qtbot.assertNotEmitted(slider.frame_requested):
        slider.set_current(2)  # shown from elsewhere: not asked for again
    assert slider.position == 2 and slider.label.text() == "Frame 3 of 4 · #000030 · 2.00 s"
    slider.set_current(3)
    assert slider.label.text() == "Frame 4 of 4 · #000045"  # no time known
    slider.set_frames([7, 8])  # another sequence, without times: back to its first frame
    assert slider.position == 0 and slider.label.text() == "Frame 1 of 2 · #000007"


def test_buttons_and_keys_ask_for_a_frame(qtbot):
    slider = _slider(qtbot)
    slider.set_frames(list(range(0, 300, 15)))
    with qtbot.waitSignal(slider.frame_requested) as asked:
        _click(qtbot, slider.forward)
    assert asked.args == [1] and slider.position == 0  # the state decides, then shows it
    with qtbot.waitSignal(slider.frame_requested) as asked:
        _click(qtbot, slider.back)
    assert asked.args == [-1]  # the state clamps it
    slider.slider.setFocus()
    with qtbot.waitSignal(slider.frame_requested) as asked:
        qtbot.keyClick(slider.slider, Qt.Key.Key_End)  # on the focused bar: its own keys
    assert asked.args == [19] and slider.label.text() == "Frame 20 of 20 · #000285"
    with qtbot.waitSignal(slider.frame_requested) as asked:
        qtbot.keyClick(slider.slider, Qt.Key.Key_Left)
    assert asked.args == [18] and slider.position == 18


def test_a_dragged_handle_scrubs_and_asks_for_the_frame_when_it_rests(qtbot):
    slider = _slider(qtbot)
    slider.set_frames(list(range(0, 300, 15)))
    scrubbed: list[int] = []
    asked: list[int] = []
    slider.frame_scrubbed.connect(scrubbed.append)
    slider.frame_requested.connect(asked.append)
    slider.slider.setSliderDown(True)  # the person holds the handle
    for position in (1, 2, 3, 4):
        slider.slider.setValue(position)
    assert scrubbed == [1, 2, 3, 4] and asked == []  # the whole frame waits
    assert slider.label.text() == "Frame 5 of 20 · #000060"  # the number follows at once
    qtbot.waitUntil(lambda: asked == [4], timeout=2000)  # the handle rested
    slider.slider.setValue(7)
    assert asked == [4] and scrubbed[-1] == 7
    slider.slider.setSliderDown(False)  # released before resting: asked at once
    assert asked == [4, 7]
    qtbot.wait(250)
    assert asked == [4, 7]  # nothing more once released


@pytest.fixture(scope="module")
def sequence(tmp_path_factory):
    hp = build_hoi_project(tmp_path_factory.mktemp("frame_slider"), TINY)
    return hp.db, hp.sequence_id


def test_wired_to_a_sequence_it_moves_the_frame_shown(qtbot, sequence):
    db, sequence_id = sequence
    with open_project(db) as project:
        state = JrdbViewState()
        slider = _slider(qtbot)
        slider.frame_requested.connect(state.set_frame)  # as app/modes/annotate wires it
        state.frame_changed.connect(slider.set_current)
        state.load(project, sequence_id)
        slider.set_frames([f.index for f in state.frames], [None] * len(state.frames))
        assert slider.slider.maximum() == TINY.frames - 1
        _click(qtbot, slider.forward)
        _click(qtbot, slider.forward)
        assert state.frame_index == 2 and slider.position == 2
        assert slider.label.text().startswith(f"Frame 3 of {TINY.frames} · #")
        for _ in range(3):
            _click(qtbot, slider.back)  # the third asks for -1: the state stays at 0
        assert state.frame_index == 0 and slider.position == 0
