"""Beneath's faster measurements give what the plain ones give: the table top put in from its
depth, objects measured alone only when needed, the robot and texture added after the
checks; and a scene that buries nothing gets a cover laid on it, checked the same way."""

from __future__ import annotations

import numpy as np

from sim.render import counterfactual_change, counterfactual_visibility, visibility, windowed_view
from sim.tabletop import questions
from sim.tabletop.questions import MAX_VISIBILITY, Candidate, generate
from sim.tabletop.scenes import dress_scene, generate_scene
from sim.tabletop.world import TOP_DOWN

CAM = TOP_DOWN.with_size(256, 256)


def _scene(dress: bool):
    return generate_scene(11, objects=(10, 10), piles=True, pile_on=3, dress=dress)


def test_an_undressed_scene_dressed_later_is_the_same_world():
    undressed, dressed = _scene(False), _scene(True)
    try:
        assert not undressed.dressed and "robot_arm" not in undressed.world.bodies
        dress_scene(undressed)
        assert undressed.world.capture_state() == dressed.world.capture_state()
        assert undressed.world.body_records() == dressed.world.body_records()
    finally:
        undressed.world.close()
        dressed.world.close()


def test_the_table_as_a_backdrop_gives_the_same_segmentation_and_gains():
    scene = _scene(False)
    try:
        world = scene.world
        keys = [b.key for b in world.objects()]
        drawn = windowed_view(world, CAM, keys)
        backdrop = windowed_view(world, CAM, keys, backdrop="table")
        differ = np.count_nonzero(drawn.segmentation != backdrop.segmentation)
        assert differ <= 2  # a tie in depth where an object's edge meets the table top
        alone = {k: v.alone_px for k, v in visibility(world, CAM, keys, view=drawn).items()}
        for cover in keys:
            gains = counterfactual_visibility(world, CAM, cover, [k for k in keys if k != cover])
            change = counterfactual_change(world, CAM, cover, view=backdrop, backdrop="table")
            for key, gain in gains.items():
                mine = change.get(key, 0) / alone[key] if alone[key] else 0.0
                assert abs(mine - gain) <= 2 / max(alone[key], 1), (cover, key)
    finally:
        scene.world.close()


def test_beneath_measures_only_what_it_needs_and_gets_the_same_fractions():
    scene = _scene(False)
    try:
        world = scene.world
        keys = [b.key for b in world.objects()]
        vis, pairs, _ = questions._beneath_pairs(world, CAM, keys, MAX_VISIBILITY)
        full = visibility(world, CAM, keys)
        for key in vis.alone:  # every fraction it measured is the plain one
            assert abs(vis[key] - full[key].fraction) <= 0.01
        for gain, cover, hidden, _ in pairs:
            assert full[hidden].fraction <= MAX_VISIBILITY + 0.01 < full[cover].fraction
            assert gain >= questions.MIN_REVEAL
    finally:
        scene.world.close()


def test_a_scene_that_buries_nothing_gets_a_cover_laid_and_the_same_checks(monkeypatch):
    laid = []
    original = questions._lay_cover

    def lay(scene, target, cover, timing):
        laid.append((target, cover))
        return original(scene, target, cover, timing)

    monkeypatch.setattr(questions, "_lay_cover", lay)
    c = generate("beneath", 5, image_size=256)  # its settled scene buries nothing
    assert isinstance(c, Candidate) and laid
    try:
        cover, hidden = c.evidence_ids
        assert (hidden, cover) in laid
        seen = visibility(c.scene.world, CAM, [cover, hidden])
        assert seen[hidden].fraction <= MAX_VISIBILITY + 0.01 < seen[cover].fraction
        assert "robot_arm" in c.scene.world.bodies and c.scene.world.table_texture
    finally:
        c.scene.world.close()
