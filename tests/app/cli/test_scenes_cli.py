"""`reasonscope scenes generate|export` as a user runs them, and an independent rebuild."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sim.camera import CameraSpec
from sim.render import render
from sim.tabletop.scenes import world_from_records
from store import open_project

ROOT = Path(__file__).resolve().parents[3]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "app.cli", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=600,
    )


@pytest.fixture(scope="module")
def project_with_scene(tmp_path_factory):
    db = tmp_path_factory.mktemp("scenes") / "p.reasonscope"
    open_project(db, create=True).close()
    result = run(
        "scenes",
        "generate",
        "--n",
        "1",
        "--seed",
        "5",
        "--objects",
        "4-5",
        "--db",
        str(db),
        "--json",
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["scene_ids"] == [1]  # stdout is clean JSON
    return db


def test_generate_stores_full_state_and_asset_references(project_with_scene):
    with open_project(project_with_scene) as project:
        scene = project.scenes.get(1)
        assert scene.seed == 5 and 4 <= scene.object_count <= 5
        assert {b.role for b in scene.bodies} == {"fixture", "robot", "object"}
        assert set(scene.state["bodies"]) == {b.key for b in scene.bodies}
        assert project.summary.summary().scenes == 1


def test_export_is_self_contained_and_rebuilds_with_plain_pybullet(project_with_scene, tmp_path):
    out = tmp_path / "scenes.jsonl"
    result = run("scenes", "export", "--db", str(project_with_scene), "--out", str(out))
    assert result.returncode == 0, result.stderr
    lines = out.read_text().splitlines()
    assert len(lines) == 1
    record = json.loads(lines[0])
    assert record["format"] == "reasonscope-scene/1" and record["id"] == "scene-1"
    png = tmp_path / "rebuilt.png"
    rebuilt = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "rebuild_scene.py"), str(out), "--out", str(png)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert rebuilt.returncode == 0, rebuilt.stderr
    with open_project(project_with_scene) as project:
        scene = project.scenes.get(1)
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    ours = render(world, CameraSpec.from_dict(scene.camera)).rgb.astype(int)
    world.close()
    theirs = np.asarray(Image.open(png)).astype(int)
    differing = (np.abs(ours - theirs).max(axis=2) > 8).mean()
    assert differing < 0.001


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--objects", "0-3"], "--objects"),
        (["--objects", "5-20"], "--objects"),
        (["--objects", "lots"], "--objects"),
        (["--n", "0"], "--n 0"),
    ],
)
def test_bad_generate_arguments_are_one_line_and_change_nothing(project_with_scene, args, needle):
    before = project_with_scene.read_bytes()
    base = ["scenes", "generate", "--n", "1", "--seed", "1", "--db", str(project_with_scene)]
    for i in range(0, len(args), 2):
        flag = args[i]
        if flag in base:
            base[base.index(flag) + 1] = args[i + 1]
        else:
            base += args[i : i + 2]
    result = run(*base)
    assert result.returncode == 2
    assert len(result.stderr.strip().splitlines()) == 1 and needle in result.stderr
    assert project_with_scene.read_bytes() == before


def test_export_into_a_missing_folder_is_refused(project_with_scene, tmp_path):
    out = tmp_path / "nowhere" / "scenes.jsonl"
    result = run("scenes", "export", "--db", str(project_with_scene), "--out", str(out))
    assert result.returncode == 2 and str(out) in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_the_gripper_chosen_is_recorded_and_rebuilt(tmp_path):
    """`--gripper 2f85` next to the default 2F-140: each scene records its gripper (in the
    gripper body's URDF and the generation record), the scene list says which, and a world
    rebuilt from the records has it; a bad choice exits 2 storing nothing."""
    from sim.robotiq import DEFAULT_GRIPPER

    db = tmp_path / "p.reasonscope"
    open_project(db, create=True).close()
    for extra in ((), ("--gripper", "2f85")):
        result = run(
            "scenes",
            "generate",
            "--n",
            "1",
            "--seed",
            "3",
            "--objects",
            "2",
            *extra,
            "--db",
            str(db),
        )
        assert result.returncode == 0, result.stderr
    bad = run("scenes", "generate", "--n", "1", "--seed", "3", "--gripper", "2f99", "--db", str(db))
    assert bad.returncode == 2 and "2f99" in bad.stderr
    with open_project(db, readonly=True) as project:
        summaries = project.scenes.list()
        assert len(summaries) == 2
        assert "robotiq_2f_140" in summaries[0].gripper_asset
        assert "robotiq_2f_85" in summaries[1].gripper_asset
        for scene, key in zip(
            (project.scenes.get(1), project.scenes.get(2)), (DEFAULT_GRIPPER, "2f85"), strict=True
        ):
            assert scene.state["generation"]["gripper"] == key
            world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
            try:
                assert world.gripper_model.key == key
                # the recorded finger angles restore onto the same joints
                assert (
                    world.joint_positions("robot_gripper").keys()
                    == scene.state["bodies"]["robot_gripper"]["joints"].keys()
                )
            finally:
                world.close()
    assert DEFAULT_GRIPPER == "2f140"
