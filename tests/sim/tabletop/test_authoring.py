"""Scenes from a spec (reasonscope-scene-spec/1): objects land where the spec puts them,
stack onto what is below, and bad specs are refused with a line naming the entry."""

from __future__ import annotations

import json

import numpy as np
import pytest

from app.cli import main
from sim.tabletop.authoring.scenes import SceneSpecError, build_scene, read_scene_spec
from sim.tabletop.scenes import world_from_records
from sim.tabletop.world import TABLE_TOP_Z, WORKSPACE_CENTRE
from store import open_project

SPEC = {
    "format": "reasonscope-scene-spec/1",
    "name": "book with a sponge on it",
    "table_texture": "resources:textures/table/walnut.png",
    "objects": [
        {"catalog": "red book", "position": [0.0, 0.0], "yaw_deg": 30},
        {"catalog": "blue cube", "position": [0.12, -0.08], "yaw_deg": 0},
        {"catalog": "red mug", "position": [-0.12, 0.1], "yaw_deg": 90},
        {"catalog": "yellow sponge", "position": [0.01, 0.0], "yaw_deg": 0},
    ],
}


@pytest.fixture(scope="module")
def built():
    scene = build_scene(read_scene_spec(SPEC))
    yield scene
    scene.world.close()


def test_spec_textures_exist():
    from sim.tabletop.scenes import table_textures

    assert SPEC["table_texture"] in table_textures()


def test_resting_objects_stay_within_a_centimetre_of_the_spec(built):
    world = built.world
    assert built.settle.at_rest
    for placement in built.spec.placements:
        uid = world.bodies[placement.key].uid
        position, orientation = world.client.getBasePositionAndOrientation(uid)
        offset = np.array(position[:2]) - np.array(WORKSPACE_CENTRE) - placement.position
        assert np.linalg.norm(offset) <= 0.01, (placement.entry.name, offset)
        yaw = world.client.getEulerFromQuaternion(orientation)[2]
        turn = (np.degrees(yaw) - placement.yaw_deg + 180) % 360 - 180
        assert abs(turn) < 3 or abs(abs(turn) - 180) < 3, (placement.entry.name, turn)
    book_top = world.aabb("obj_00")[1][2]
    sponge_bottom = world.aabb("obj_03")[0][2]
    assert abs(sponge_bottom - book_top) < 0.006  # dropped onto the book, not the table
    assert abs(world.aabb("obj_01")[0][2] - TABLE_TOP_Z) < 0.006


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"format": "other/1"}, "format: expected 'reasonscope-scene-spec/1'"),
        ({"objects": []}, "objects: expected a non-empty list"),
        (
            {"objects": [{"catalog": "purple book", "position": [0, 0]}]},
            "objects[0].catalog: 'purple book' is not in the catalog",
        ),
        (
            {"objects": [{"catalog": "red book", "position": [0, 2.0]}]},
            "objects[0].position: (0, 2) is off the table",
        ),
        (
            {"objects": [{"catalog": "red book", "position": [0, 0], "scale": 9}]},
            "objects[0].scale: 9 is outside red book's range",
        ),
        (
            {"objects": [{"catalog": "red book", "position": [0, "a"]}]},
            "objects[0].position: expected a number",
        ),
        (
            {"objects": [{"catalog": "red book", "position": [0, 0], "colour": "x"}]},
            "objects[0]: unknown key 'colour'",
        ),
        ({"table_texture": "resources:textures/table/nope.png"}, "table_texture: "),
    ],
)
def test_bad_specs_name_the_entry(change, message):
    with pytest.raises(SceneSpecError) as caught:
        read_scene_spec({**SPEC, **change})
    assert str(caught.value).startswith(message)


def test_scenes_create_stores_a_restorable_scene(tmp_path, capsys):
    db = tmp_path / "hard.reasonscope"
    open_project(db, create=True).close()
    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SPEC))
    assert main(["scenes", "create", "--from", str(spec), "--db", str(db), "--json"]) == 0
    scene_id = json.loads(capsys.readouterr().out)["scene_id"]
    with open_project(db) as project:
        scene = project.scenes.get(scene_id)
    assert scene.generator == "authored/1" and scene.seed is None
    assert scene.name == "book with a sponge on it" and scene.object_count == 4
    assert scene.state["generation"]["spec"] == SPEC
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    try:
        assert sorted(b.name for b in world.objects()) == sorted(
            o["catalog"] for o in SPEC["objects"]
        )
    finally:
        world.close()
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "reasonscope-scene-spec/1", "objects": [')
    assert main(["scenes", "create", "--from", str(bad), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"reasonscope: error: {bad}:1: not JSON") and err.count("\n") == 1
    with open_project(db) as project:
        assert project.scenes.ids() == [scene_id]
