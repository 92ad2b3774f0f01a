"""The generator panel on its own (choices, keys, what it shows), and the highlighting it
drives in the panorama and the cloud."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QGraphicsPathItem

from annotation.models import Box2D, Box3D
from annotation.query.model import GeneratedQuestion, Preferences, Step
from widgets.jrdb.cloud_points import box_wires, colour_points, prepare_cloud
from widgets.jrdb.cloud_view import CloudView
from widgets.jrdb.panorama import DIMMED, PanoramaView
from widgets.query.generator_panel import (
    JRDB_KEYS,
    SIMULATOR_KEYS,
    GeneratorPanel,
    StepListModel,
    difficulty_text,
)

PEOPLE = ("pedestrian:1", "pedestrian:2", "pedestrian:3")


def question(**changes) -> GeneratedQuestion:
    steps = (
        Step("all people", PEOPLE, 0, "Find all people."),
        Step("female", PEOPLE[1:], 0, "Find the women."),
        Step("walking", PEOPLE[2:], 0, "Find the women who are walking."),
    )
    values = dict(
        preferences=Preferences("vg", "image", "human", "single"),
        text="Find the woman who is walking.",
        answer=PEOPLE[2:],
        target_ids=PEOPLE[2:],
        evidence_ids=PEOPLE[2:],
        steps=steps,
        S=1,
        R=0,
        T=1,
        combination=("n0:human",),
        slots=(0,),
        answer_slot=0,
        seed=4,
    )
    return GeneratedQuestion(**{**values, **changes})


@pytest.fixture
def panel(qtbot):
    p = GeneratorPanel()
    qtbot.addWidget(p)
    p.resize(440, 600)
    p.show()
    qtbot.waitExposed(p)
    return p


def test_difficulty_in_a_line():
    assert difficulty_text(question()) == "S 1 · R 0 · T 1 · D 2 (level D1)"
    video = question(S=2, R=1, T=2)
    assert difficulty_text(video) == "S 2 · R 1 · T 2 · D 5 (level other: reported apart)"


def test_the_step_model_has_a_row_a_step_of_the_question(qapp):
    model = StepListModel()
    assert model.question is None and model.rowCount() == 0
    resets: list[int] = []
    model.modelReset.connect(lambda: resets.append(1))
    q = question()
    model.set_question(q)
    assert resets == [1] and model.question is q and model.rowCount() == 3
    assert model.rowCount(model.index(0, 0)) == 0  # a flat list
    assert [model.index(r, 0).data() for r in range(3)] == [
        "1. all people — 3 entities",
        "2. female — 2 entities",
        "3. walking — 1 entity",
    ]
    assert model.index(2, 0).data(Qt.ItemDataRole.ToolTipRole) == "Find the women who are walking."
    assert model.index(0, 0).data(Qt.ItemDataRole.UserRole) is None
    model.set_question(None)
    assert model.rowCount() == 0 and model.index(0, 0).data() is None


def test_a_question_is_shown_and_its_steps_are_walked_with_keys(qtbot, panel):
    chosen, generate = [], []
    panel.step_selected.connect(lambda ids, slot: chosen.append((ids, slot)))
    panel.generate_requested.connect(lambda prefs, seed: generate.append((prefs, seed)))
    panel.show_question(question(), names={"pedestrian:3": "person 3"}, context="frame #000004")
    assert panel.text.text() == "Find the woman who is walking."
    assert panel.answer.text() == "Answer: person 3" and not panel.message.isVisible()
    steps = panel.steps.model()
    assert [steps.index(i, 0).data() for i in range(3)] == [
        "1. all people — 3 entities",
        "2. female — 2 entities",
        "3. walking — 1 entity",
    ]
    assert steps.index(1, 0).data(Qt.ItemDataRole.ToolTipRole) == "Find the women."
    assert chosen == [(list(PEOPLE), 0)]  # the first step, selected on showing
    assert panel.steps.model() is panel.step_model and panel.step_model.question is panel.question
    assert panel.steps.selectionModel().isSelected(steps.index(0, 0))
    panel.steps.setFocus()
    qtbot.keyClick(panel.steps, Qt.Key.Key_BracketRight)
    qtbot.keyClick(panel.steps, Qt.Key.Key_Down)
    qtbot.keyClick(panel.steps, Qt.Key.Key_BracketRight)  # stays on the last
    assert panel.step_index == 2 and chosen[-1] == ([PEOPLE[2]], 0) and len(chosen) == 3
    qtbot.keyClick(panel.steps, Qt.Key.Key_BracketLeft)
    assert chosen[-1] == (list(PEOPLE[1:]), 0)
    qtbot.mouseClick(panel.next_button, Qt.MouseButton.LeftButton)
    assert panel.seed.value() == 1 and generate == [(panel.preferences(), 1)]


def test_save_is_offered_once_for_a_shown_question(qtbot, panel):
    saves = []
    panel.save_requested.connect(lambda: saves.append(1))
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    assert not saves  # nothing to save yet
    panel.show_question(question())
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    panel.mark_saved("Saved: question 7")
    qtbot.mouseClick(panel.save_button, Qt.MouseButton.LeftButton)
    assert saves == [1] and panel.context.text() == "Saved: question 7"


def test_a_message_replaces_the_question(panel):
    panel.show_question(question())
    panel.show_message("No question: the graph offers no pair pattern.")
    assert panel.question is None and panel.steps.model().rowCount() == 0
    assert panel.message.isVisible() and not panel.text.isVisible()
    assert not panel.save_button.isEnabled()


def test_the_panorama_emphasises_highlighted_boxes_and_dims_the_rest(qtbot):
    view = PanoramaView()
    qtbot.addWidget(view)
    image = QImage(3760, 480, QImage.Format.Format_RGB888)
    image.fill(QColor(90, 90, 90))
    view.set_image(image)
    view.set_boxes(
        [Box2D(1, 1, 3700.0, 100.0, 120.0, 300.0), Box2D(2, 1, 1800.0, 80.0, 160.0, 360.0)],
        {1: (200, 60, 60), 2: (60, 110, 200)},
        {1: "1", 2: "2"},
    )
    view.highlight_entities([1])
    assert view.highlighted == {1}
    assert all(i.pen().widthF() == 3.5 and i.opacity() == 1.0 for i in view.items[1])
    assert len(view.items[1]) == 2  # both copies of a box across the seam
    assert all(i.opacity() == pytest.approx(DIMMED) for i in view.items[2])
    shade = [i for i in view.clip.childItems() if isinstance(i, QGraphicsPathItem)]
    assert len(shade) == 1 and not shade[0].contains(view.items[1][0].rect().center())
    assert shade[0].contains(view.items[2][0].rect().center())
    view.set_boxes(view.boxes, view.colours, view.labels)  # a redraw keeps it
    assert view.items[2][0].opacity() == pytest.approx(DIMMED)
    view.highlight_entities(None)
    assert view.highlighted is None and all(i.opacity() == 1.0 for i in view.items[2])
    assert not [i for i in view.clip.childItems() if isinstance(i, QGraphicsPathItem)]


def test_the_cloud_draws_highlighted_boxes_bold_and_fades_the_rest(qtbot):
    person = Box3D(7, 1, 3.0, 1.0, -0.1, 0.5, 0.6, 1.7, 0.5)
    table = Box3D(8, 1, -2.0, 2.0, -0.6, 1.2, 0.8, 0.8, 0.0)
    colours = {7: (200, 60, 60), 8: (150, 110, 70)}
    (thin, thin_rgba), (bold, bold_rgba) = box_wires([person, table], colours, None)
    assert len(bold) == 0 and np.allclose(thin_rgba[:, 3], 0.95)
    (thin, thin_rgba), (bold, bold_rgba) = box_wires([person, table], colours, None, {7})
    assert len(bold) == 2 * len(thin)  # the person's wireframe twice, the table's faded
    assert np.allclose(bold_rgba[0, :3], np.array(colours[7]) / 255)
    assert np.allclose(thin_rgba[:, 3], 0.22)
    points = np.array([[3.0, 1.0, -0.1], [-2.0, 2.0, -0.6], [9.0, 9.0, 0.0]], np.float32)
    cloud = prepare_cloud(points, None, [person, table])
    entities = cloud.entities
    plain = colour_points("height", cloud, entities, colours, None)
    lit = colour_points("height", cloud, entities, colours, None, frozenset({7}))
    person_row, table_row = list(entities).index(7), list(entities).index(8)
    assert tuple(lit[person_row, :3]) == colours[7]
    assert tuple(lit[table_row, :3]) == tuple(plain[table_row, :3] // 3)

    view = CloudView(still_frame_ms=None)
    qtbot.addWidget(view)
    view.set_boxes([person, table], colours, {7: "7", 8: "table 1"})
    view.set_cloud(cloud)
    view.highlight_entities([7])
    assert view.highlighted == {7} and [t.text() for t in view.texts] == ["7"]
    view.highlight_entities(None)
    assert view.highlighted is None and len(view.texts) == 2


def test_required_keys_are_chosen_from_a_menu_and_go_with_the_preferences(qtbot, panel):
    generate = []
    panel.generate_requested.connect(lambda prefs, seed: generate.append(prefs))
    assert list(panel.require_actions) == list(JRDB_KEYS) and panel.require.text() == "any"
    assert panel.preferences().require == ()
    menu = panel.require.menu()
    assert [a.text() for a in menu.actions()][:4] == ["gender", "age", "race", "action"]
    panel.require_actions["hhi"].trigger()  # the person checks hhi, then race
    panel.require_actions["race"].trigger()
    assert panel.require.text() == "race, hhi"
    qtbot.mouseClick(panel.generate_button, Qt.MouseButton.LeftButton)
    assert generate[-1].require == ("race", "hhi")
    panel.require_actions["race"].trigger()  # unchecked again
    assert panel.preferences().require == ("hhi",)
    panel.set_preferences(Preferences("vg", "image", "human", "pair", require=("hoi",)), 3)
    assert panel.required_keys() == ("hoi",) and panel.require.text() == "hoi"
    panel.offer_keys(SIMULATOR_KEYS)  # a simulator scene: its own keys, none checked
    assert list(panel.require_actions) == list(SIMULATOR_KEYS)
    assert panel.preferences().require == () and panel.require.text() == "any"
