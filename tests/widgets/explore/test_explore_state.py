"""`ExploreState` on a real project's scenes, without a screen: the list and its filter,
opening a restored scene, selecting its bodies, and closing worlds it no longer shows."""

from __future__ import annotations

import pytest
from explore_scenes import add_listed_scene, add_three_boxes, restored

from widgets.explore.state import ExploreState, SceneFilter


class Heard:
    """What the state said, in order."""

    def __init__(self, state: ExploreState) -> None:
        self.said: list[str] = []
        state.scenes_changed.connect(lambda: self.said.append("scenes"))
        state.scene_opened.connect(lambda: self.said.append("opened"))
        state.selection_changed.connect(lambda key: self.said.append(f"selected {key!r}"))


def test_the_list_follows_the_source_and_the_filter(project):
    small = add_listed_scene(project, seed=1, objects=2)
    big = add_listed_scene(project, seed=2, objects=6)
    unseeded = add_listed_scene(project, seed=None, objects=4)
    state = ExploreState()
    heard = Heard(state)
    assert state.scenes == []
    state.set_source(project.scenes)
    assert {s.id for s in state.scenes} == {small, big, unseeded} and heard.said == ["scenes"]
    state.set_filter(SceneFilter(min_objects=3))
    assert {s.id for s in state.scenes} == {big, unseeded}
    state.set_filter(SceneFilter(min_objects=3, max_objects=5))
    assert [s.id for s in state.scenes] == [unseeded]
    state.set_filter(SceneFilter(seed=1))
    assert [(s.id, s.object_count) for s in state.scenes] == [(small, 2)]
    state.set_source(None)
    assert state.scenes == [] and state.filter == SceneFilter(seed=1)


def test_opening_a_scene_and_selecting_its_bodies(project):
    scene = add_three_boxes(project)
    state = ExploreState(project.scenes)
    heard = Heard(state)
    loaded = restored(project, scene)
    state.open(loaded)
    assert state.loaded is loaded and heard.said == ["opened", "selected ''"]
    state.select("red_box")
    state.select("red_box")  # the same again: nothing to say
    assert state.selected == "red_box" and heard.said[2:] == ["selected 'red_box'"]
    with pytest.raises(KeyError, match="no body 'mug_9'"):
        state.select("mug_9")
    assert state.selected == "red_box"
    state.select(None)
    assert state.selected == "" and heard.said[-1] == "selected ''"
    # a click on the model's image gives a body's uid; the background gives none
    uid = loaded.world.bodies["blue_box"].uid
    assert state.key_of_uid(uid) == "blue_box" and state.key_of_uid(-1) == ""
    state.close_scene()


def test_a_world_no_longer_shown_is_closed(project):
    scene = add_three_boxes(project)
    state = ExploreState(project.scenes)
    first, second = restored(project, scene), restored(project, scene)
    state.open(first)
    state.select("wide_box")
    state.open(second)  # another scene: the first world goes, the selection too
    assert not first.world.client.isConnected() and second.world.client.isConnected()
    assert state.selected == ""
    heard = Heard(state)
    state.set_source(project.scenes)  # another project: nothing open
    assert state.loaded is None and not second.world.client.isConnected()
    assert heard.said == ["opened", "scenes"] and state.key_of_uid(1) == ""
    state.close_scene()  # nothing open: nothing said
    assert heard.said == ["opened", "scenes"]
