"""The Scene graph dock of every mode, as a person uses it: it follows the open scene, the
frame, the question and every replay seek, and a click on a node selects in the mode."""

from __future__ import annotations

import pytest
from gestures import open_as_ada, press_shortcut
from hoi_fixtures import build_hoi_project
from PySide6.QtCore import Qt

from app.demo.jrdb_synth import SynthConfig
from sim.tabletop.scenes import generate_scene, scene_record
from store import open_project

JRDB = SynthConfig(frames=3, people=4, objects=3, points_per_sweep=3_000)
FRONT = {"explore": "image", "annotate": "hoi_labels", "verify": "question", "replay": "labels"}


@pytest.fixture(scope="module")
def scene_project(tmp_path_factory):
    """One generated scene, and a question about it with two evidence objects."""
    path = tmp_path_factory.mktemp("graphs") / "scenes.reasonscope"
    with open_project(path, create=True) as project:
        scene = generate_scene(31, objects=(3, 4))
        sid = project.scenes.add(scene_record(scene))
        objects = [b.key for b in scene.world.objects()]
        scene.world.close()
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many objects are there?",
                "answer": len(objects),
                "evidence_ids": objects[:2],
                "scene_id": sid,
            }
        )
    return path


@pytest.fixture(scope="module")
def jrdb_project(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("graph_jrdb"), JRDB).db


def show_graph(qtbot, window, key):
    """Click the Scene graph tab of the mode's dock group."""
    mode = window.mode_window(key)
    mode.docks["graph"].raise_()
    view = mode.docks["graph"].widget()
    qtbot.waitUntil(lambda: not view.visibleRegion().isEmpty(), timeout=5000)
    return view


def click_node(qtbot, view, key):
    qtbot.mouseClick(
        view.canvas.viewport(),
        Qt.MouseButton.LeftButton,
        pos=view.canvas.mapFromScene(view.nodes[key].pos()),
    )


def triples(view):
    return {(r.subject, r.predicate, r.object) for r in view.graph.relations}


def test_the_graph_dock_waits_behind_each_modes_right_hand_dock(qtbot, scene_project):
    window = open_as_ada(qtbot, scene_project, "explore")
    try:
        for key, front in FRONT.items():
            window.set_mode(key)
            mode = window.mode_window(key)
            graph = mode.docks["graph"]
            assert mode.dockWidgetArea(graph) == Qt.DockWidgetArea.RightDockWidgetArea
            beside = {"hoi_labels": "relations"}.get(front, front)
            assert mode.docks[beside] in mode.tabifiedDockWidgets(graph)
            if front in mode.docks:
                assert not mode.docks[front].widget().visibleRegion().isEmpty()  # in front
            assert graph.widget().visibleRegion().isEmpty()  # tabbed away
        assert (window.width(), window.height()) == (1280, 860)
    finally:
        window.close()


def test_explore_graph_follows_the_scene_live_and_selects_bodies(qtbot, scene_project, tmp_path):
    from sim.tabletop.grasp.execute import BASKET_CENTRE
    from sim.tabletop.world import TABLE_TOP_Z

    window = open_as_ada(qtbot, scene_project, "explore", copy_to=tmp_path)
    try:
        explore = window.mode("explore")
        view = show_graph(qtbot, window, "explore")
        assert "No scene open" in view.status.text()
        explore.scene_list.select_row(0)
        qtbot.waitUntil(lambda: "table" in view.graph.entities, timeout=30000)
        world = explore.state.loaded.world
        objects = [b.key for b in world.objects()]
        assert set(objects) <= set(view.graph.entities)
        assert any((k, "on", "table") in triples(view) for k in objects)
        click_node(qtbot, view, objects[0])
        assert explore.state.selected == objects[0] == explore.viewport.selected_key
        explore.state.select(objects[1])  # a selection elsewhere rings the node
        assert view.selected == objects[1] and view.nodes[objects[1]].selected
        # drop the smallest object over the basket and let live physics take it in
        key = min(objects, key=lambda k: float((world.aabb(k)[1] - world.aabb(k)[0]).prod()))
        with world.lock:
            world.client.resetBasePositionAndOrientation(
                world.bodies[key].uid, (*BASKET_CENTRE, TABLE_TOP_Z + 0.12), (0, 0, 0, 1)
            )
        assert (key, "in basket", "basket") not in triples(view)
        press_shortcut(qtbot, window, Qt.Key.Key_P)
        assert explore.viewport.is_live
        qtbot.waitUntil(lambda: (key, "in basket", "basket") in triples(view), timeout=30000)
        assert view.positions[objects[1]] == view.nodes[objects[1]].pos().toTuple()
        press_shortcut(qtbot, window, Qt.Key.Key_P)
        assert not explore.viewport.is_live and not explore.graph.live.isActive()
    finally:
        window.close()


def test_annotate_graph_follows_the_frame_labels_and_selection(qtbot, jrdb_project, tmp_path):
    window = open_as_ada(qtbot, jrdb_project, "annotate", copy_to=tmp_path)
    try:
        a = window.mode("annotate")
        view = show_graph(qtbot, window, "annotate")

        def shows_frame():
            frame_id = a.state.frame.id
            geometry = [r for r in view.graph.relations if r.kind == "geometry"]
            return bool(geometry) and all(r.attributes["frame_id"] == frame_id for r in geometry)

        qtbot.waitUntil(shows_frame, timeout=30000)  # its relations are computed, then shown
        people = a.state.people_in_frame()
        humans = {
            e.attributes["entity_id"]: k
            for k, e in view.graph.entities.items()
            if e.kind == "human"
        }
        assert set(humans) == set(people)
        first_frame = a.state.frame.id
        press_shortcut(qtbot, window, Qt.Key.Key_PageDown)
        assert a.state.frame.id != first_frame
        qtbot.waitUntil(shows_frame, timeout=30000)
        # a click on a person's node selects them in every view
        person = people[1]
        click_node(qtbot, view, humans[person])
        assert a.state.selected == person and a.panorama.selected == person
        assert view.selected == humans[person]
        a.state.select(people[0])
        assert view.selected == humans[people[0]]
        # a label with a target: press its key, then pick the object in the graph
        target = next(k for k, e in view.graph.entities.items() if e.kind == "object")
        a.hoi.state.press("carrying")
        assert a.state.picking
        click_node(qtbot, view, target)
        assert not a.state.picking
        qtbot.waitUntil(
            lambda: (humans[people[0]], "carrying", target) in triples(view), timeout=10000
        )
        assert ("hoi", humans[people[0]], target) in view.edge_items
    finally:
        window.close()


def test_verify_graph_shows_the_questions_scene_with_its_evidence(qtbot, scene_project, tmp_path):
    def small_renders(w):
        w.mode("verify").image_size = 256

    window = open_as_ada(qtbot, scene_project, "verify", copy_to=tmp_path, prepare=small_renders)
    try:
        verify = window.mode("verify")
        view = show_graph(qtbot, window, "verify")
        question = verify.state.current
        qtbot.waitUntil(lambda: "table" in view.graph.entities, timeout=30000)
        assert set(question.evidence_ids) <= set(view.graph.entities)
        assert view.highlighted == set(question.evidence_ids)
        qtbot.waitUntil(lambda: verify.loaded is not None, timeout=30000)
        key = question.evidence_ids[1]
        click_node(qtbot, view, key)
        assert verify.viewport.selected_key == key
    finally:
        window.close()


def test_replay_graph_updates_on_every_seek(qtbot, episode_project, tmp_path):
    window = open_as_ada(qtbot, episode_project, "replay", copy_to=tmp_path)
    try:
        replay = window.mode("replay")
        view = show_graph(qtbot, window, "replay")
        replay.episodes.select_row(0)
        state = replay.state

        def shows(index):
            return lambda: state.index == index and replay.graph.cache.get(index) is view.graph

        qtbot.waitUntil(shows(0), timeout=30000)
        assert {"red_box", "blue_box", "wide_box", "table", "basket"} <= set(view.graph.entities)
        assert not any(p == "in basket" for _s, p, _o in triples(view))
        press_shortcut(qtbot, window, Qt.Key.Key_Right)
        qtbot.waitUntil(shows(1), timeout=30000)
        before = view.graph.entities["red_box"].attributes["position"]
        press_shortcut(qtbot, window, Qt.Key.Key_Right)  # step 2: the push moved the red box left
        qtbot.waitUntil(shows(2), timeout=30000)
        after = view.graph.entities["red_box"].attributes["position"]
        assert after[0] < before[0] - 0.01
        assert view.selected == "red_box"  # the body the step acted on
        for _ in range(2):  # step 4: the grasp put the blue box into the basket
            press_shortcut(qtbot, window, Qt.Key.Key_Right)
        qtbot.waitUntil(shows(4), timeout=30000)
        assert ("blue_box", "in basket", "basket") in triples(view)
        assert ("spatial", "blue_box", "basket") in view.edge_items  # drawn
        assert not any(s == "blue_box" and o == "table" for s, _p, o in triples(view))
        press_shortcut(qtbot, window, Qt.Key.Key_Home)  # back: from the graphs already made
        assert state.index == 0
        qtbot.waitUntil(shows(0), timeout=5000)
        assert ("blue_box", "in basket", "basket") not in triples(view)
        assert ("blue_box", "on", "table") in triples(view)
    finally:
        window.close()
