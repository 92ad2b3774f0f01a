"""Episodes exported as Rerun recordings and read back with rerun-sdk's own reader: the
entity paths, one `step` per stored step, every body's pose at every step against the
stored states, the agent's images, the texts, the failed grasp's mask, points, candidates
and gripper poses, both arms of a dual-arm episode, and the error labels."""

from __future__ import annotations

import shutil
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest
from demo_failed_grasps import closed_grasps, pending_demo  # noqa: F401 (a fixture)

from app.cli import main
from store import open_project

rr = pytest.importorskip("rerun")
from rerun.chunk import RrdReader  # noqa: E402

from app.io.rerun.export import INSTALL_HINT, export_rerun  # noqa: E402


def read_rrd(path: Path) -> dict[str, list[dict]]:
    """Entity path -> its rows (column name -> value), static rows with step None."""
    rows: dict[str, list[dict]] = defaultdict(list)
    for chunk in RrdReader(path).stream():
        batch = chunk.to_record_batch()
        data = batch.to_pydict()
        for i in range(batch.num_rows):
            rows[chunk.entity_path].append({k: v[i] for k, v in data.items()})
    return rows


def at_step(rows: list[dict], column: str) -> dict[int, object]:
    """step -> the column's value logged at it (rows without it skipped)."""
    return {r["step"]: r[column] for r in rows if r.get(column) is not None and "step" in r}


def latest(rows: list[dict], column: str, step: int):
    """The column's value in force at `step`: static, or the last logged at or before it."""
    found = [r for r in rows if r.get(column) is not None and (r.get("step") or 0) <= step]
    return max(found, key=lambda r: r.get("step") or -1)[column][0] if found else None


def assert_links_in_place(rows, root: str, world, step: int) -> None:
    """Every robot shape's logged pose (its body's frame, then its own) is where the
    restored world draws it."""
    from sim.visuals import link_frames, pose_matrix, shape_world_matrix, visual_shapes

    frames = link_frames(world)
    for n, shape in enumerate(visual_shapes(world)):
        if not shape.body_key.startswith("robot") or shape.geometry == "plane":
            continue
        body = rows[f"{root}/world/bodies/{shape.body_key}"]
        base = pose_matrix(
            latest(body, "Transform3D:translation", step),
            latest(body, "Transform3D:quaternion", step),
        )
        own = rows[f"{root}/world/bodies/{shape.body_key}/shape_{n}"]
        local = np.eye(4)
        local[:3, :3] = np.asarray(latest(own, "Transform3D:mat3x3", step)).reshape(3, 3).T
        local[:3, 3] = latest(own, "Transform3D:translation", step)
        expected = shape_world_matrix(shape, frames)
        if shape.geometry == "mesh":
            expected = expected @ np.diag([*shape.dimensions[:3], 1.0])
        assert np.allclose(base @ local, expected, atol=1e-5), (shape.body_key, n, step)


def same_rotation(q1, q2) -> bool:
    return abs(float(np.dot(q1, q2))) > 1 - 1e-5


@pytest.fixture(scope="module")
def labelled_project(episode_project, tmp_path_factory):
    path = tmp_path_factory.mktemp("rerun") / "episodes.reasonscope"
    shutil.copy(episode_project, path)
    with open_project(path) as project:
        ada = project.annotators.sign_in("ada")
        alpha = next(project.episodes.get(i) for i in project.episodes.ids())
        assert alpha.model == "alpha"
        project.episodes.add_label(alpha.id, 6, "environment", "execution_flaw", "too wide", ada)
    return path


@pytest.fixture(scope="module")
def exported(labelled_project, tmp_path_factory):
    out = tmp_path_factory.mktemp("rrd") / "alpha.rrd"
    with open_project(labelled_project) as project:
        alpha = next(project.episodes.get(i) for i in project.episodes.ids())
    assert export_rerun(labelled_project, out, [alpha.uid]) == 1
    return out, alpha


def test_the_failed_grasp_episode_reads_back_step_by_step(labelled_project, exported):
    from sim.tabletop.replay import state_at
    from sim.tabletop.scenes import world_from_records

    out, alpha = exported
    rows = read_rrd(out)
    root = f"/episodes/{alpha.uid}"
    with open_project(labelled_project) as project:
        steps = project.episodes.steps(alpha.id)
        scene = project.scenes.get(alpha.scene_id)
    step_dicts = [{"state": s.state} for s in steps]
    calls = rows[f"{root}/log/calls"]
    assert [r["step"] for r in calls] == list(range(len(steps)))  # one step each, in order
    assert "grasp" in calls[6]["TextLog:text"][0] and "failed" in calls[6]["TextLog:text"][0]
    # an image where the world changed (Rerun shows the latest at every step): the first
    # step's, then after the push and the grasp that moved things; looks and finds reuse it
    states = [state_at(step_dicts, i, scene.state) for i in range(len(steps))]
    changed = [i for i in range(len(steps)) if i == 0 or states[i] != states[i - 1]]
    assert sorted(at_step(rows[f"{root}/camera/image"], "EncodedImage:blob")) == changed
    assert 2 in changed and 4 in changed and 1 not in changed
    # every body's pose at every step, as the stored states put it
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    try:
        for key in ("red_box", "blue_box", "wide_box", "robot_arm", "table"):
            translation = at_step(rows[f"{root}/world/bodies/{key}"], "Transform3D:translation")
            quaternion = at_step(rows[f"{root}/world/bodies/{key}"], "Transform3D:quaternion")
            assert sorted(translation) == list(range(len(steps)))
            for i in range(len(steps)):
                world.restore_state(state_at(step_dicts, i, scene.state))
                position, orientation = world.link_frame_pose(key)
                assert np.allclose(translation[i][0], position, atol=1e-5), (key, i)
                assert same_rotation(quaternion[i][0], orientation), (key, i)
        # the arm's and gripper's links where their joints put them, at every step
        for i in range(len(steps)):
            world.restore_state(state_at(step_dicts, i, scene.state))
            assert_links_in_place(rows, root, world, i)
    finally:
        world.close()
    # the pushed box moved; the grasped one ended in the basket (its stored pose says so)
    moved = at_step(rows[f"{root}/world/bodies/blue_box"], "Transform3D:translation")
    assert not np.allclose(moved[0][0], moved[len(steps) - 1][0], atol=0.01)
    # the shapes: boxes as boxes, the robot as meshes
    assert any(
        r.get("Boxes3D:half_sizes")
        for r in rows[f"{root}/world/bodies/red_box/shape_" + _n(rows, root, "red_box")]
    )
    assert any(p.startswith(f"{root}/world/bodies/robot_arm/shape_") for p in rows)


def _n(rows, root, key) -> str:
    prefix = f"{root}/world/bodies/{key}/shape_"
    return next(p[len(prefix) :] for p in rows if p.startswith(prefix))


def test_grasps_show_mask_points_candidates_and_gripper_poses(labelled_project, exported):
    out, alpha = exported
    rows = read_rrd(out)
    root = f"/episodes/{alpha.uid}"
    with open_project(labelled_project) as project:
        steps = project.episodes.steps(alpha.id)
    grasps = [s.index for s in steps if s.name == "grasp"]
    assert grasps == [4, 6]
    masks = at_step(rows[f"{root}/grasp/mask"], "SegmentationImage:buffer")
    points = at_step(rows[f"{root}/world/grasp/points"], "Points3D:positions")
    planned = at_step(rows[f"{root}/world/grasp/planned"], "LineStrips3D:strips")
    assert sorted(masks) == sorted(points) == sorted(planned) == grasps
    assert len(points[6]) > 50  # the wide box's top, lifted from the depth before the step
    wide = steps[6].result["replay"]
    assert not steps[6].ok and wide["reason"]
    # the blue box's grasp closed its fingers: planned and actual gripper both drawn
    actual = at_step(rows[f"{root}/world/grasp/actual"], "LineStrips3D:strips")
    assert 4 in actual and steps[4].result["replay"].get("tool_at_close")
    assert np.allclose(actual[4][0][0], steps[4].result["replay"]["tool_at_close"], atol=1e-4)
    if steps[4].result["replay"]["plan"].get("candidates"):
        assert 4 in at_step(rows[f"{root}/world/grasp/candidates"], "LineStrips3D:strips")
    # a grasp's drawing is cleared at the next step
    clears = [r["step"] for r in rows[f"{root}/world/grasp"] if r.get("step") is not None]
    assert 5 in clears and 7 in clears
    # the failure is in the feedback log, the label at its step
    feedback = " ".join(
        t[0] for t in at_step(rows[f"{root}/log/feedback"], "TextLog:text").values()
    )
    assert wide["reason"] in feedback
    labels = rows[f"{root}/log/labels"]
    assert [r["step"] for r in labels] == [6]
    assert "environment/execution_flaw" in labels[0]["TextLog:text"][0]
    assert "by ada" in labels[0]["TextLog:text"][0]


def test_a_dual_arm_episode_shows_both_hands_at_every_step(tmp_path):
    from app.jobs.bimanual import record_reference_episode

    db = tmp_path / "dual.reasonscope"
    with open_project(db, create=True) as project:
        episode_id = record_reference_episode(project, "stack_blocks_two", 0, image_size=(160, 120))
        episode = project.episodes.get(episode_id)
        steps = project.episodes.steps(episode_id)
    out = tmp_path / "dual.rrd"
    assert (
        main(
            [
                "export",
                "episodes",
                "--db",
                str(db),
                "--format",
                "rerun",
                "--out",
                str(out),
                str(episode_id),
            ]
        )
        == 0
    )
    rows = read_rrd(out)
    root = f"/episodes/{rr.escape_entity_path_part(episode.uid)}"
    for arm in ("left", "right"):
        ee = at_step(rows[f"{root}/world/arms/{arm}/end_effector"], "Transform3D:translation")
        grip = at_step(rows[f"{root}/arms/{arm}/gripper_opening"], "Scalars:scalars")
        assert sorted(ee) == sorted(grip) == list(range(len(steps)))
        assert all(0.0 <= g[0] <= 1.0 for g in grip.values())
    # the bodies and hands where the stored states put them, in a world set up anew
    from sim.bimanual.tasks import TASKS
    from sim.bimanual.world import DualArmWorld

    with DualArmWorld() as world:
        TASKS["stack_blocks_two"].setup(world, 0)
        prefix = f"{root}/world/bodies/"
        logged = {p[len(prefix) :] for p in rows if p.startswith(prefix) and "/shape_" not in p}
        assert logged == set(world.bodies) == set(steps[-1].state["bodies"])
        for i, step in enumerate(steps):
            world.restore_state(step.state)
            for key in world.bodies:
                pose = at_step(rows[prefix + key], "Transform3D:translation")[i][0]
                assert np.allclose(pose, world.link_frame_pose(key)[0], atol=1e-5), (key, i)
            for arm in ("left", "right"):
                ee = at_step(
                    rows[f"{root}/world/arms/{arm}/end_effector"], "Transform3D:translation"
                )
                assert np.allclose(ee[i][0], world.ee_pose(arm)[0], atol=1e-5)
    shas = [s.image_sha256 for s in steps]
    assert all(shas)  # the views it recorded, each logged when it changes
    changed = [i for i in range(len(steps)) if i == 0 or shas[i] != shas[i - 1]]
    assert sorted(at_step(rows[f"{root}/camera/image"], "EncodedImage:blob")) == changed


def test_an_imported_log_keeps_its_stored_images_and_texts(tmp_path):
    from bimanual_corpus import imported_project

    db = imported_project(tmp_path)
    out = tmp_path / "all.rrd"
    count = export_rerun(db, out)
    rows = read_rrd(out)
    with open_project(db) as project:
        assert count == len(project.episodes.ids())
        for i in project.episodes.ids():
            episode, steps = project.episodes.get(i), project.episodes.steps(i)
            root = f"/episodes/{rr.escape_entity_path_part(episode.uid)}"
            assert len(rows[f"{root}/log/calls"]) == len(steps)
            shas = [s.image_sha256 for s in steps if s.image_sha256]
            shown = sum(1 for i, sha in enumerate(shas) if i == 0 or sha != shas[i - 1])
            assert len(rows.get(f"{root}/camera/image", [])) == shown
            assert not any(p.startswith(f"{root}/world/bodies/") for p in rows)  # no states


def test_without_rerun_the_command_says_how_to_install_it(
    labelled_project, tmp_path, capsys, monkeypatch
):
    monkeypatch.setitem(sys.modules, "rerun", None)
    out = tmp_path / "x.rrd"
    args = [
        "export",
        "episodes",
        "--db",
        str(labelled_project),
        "--format",
        "rerun",
        "--out",
        str(out),
    ]
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and INSTALL_HINT in err[0]
    assert "pip install 'reasonscope[rerun]'" in err[0]
    assert not out.exists()


def test_an_unknown_episode_is_refused_in_one_line(labelled_project, tmp_path, capsys):
    args = ["export", "episodes", "--db", str(labelled_project), "--format", "rerun"]
    assert main([*args, "--out", str(tmp_path / "x.rrd"), "no-such-episode"]) == 2
    assert "episode no-such-episode: no such episode" in capsys.readouterr().err
    assert not (tmp_path / "x.rrd").exists() and not (tmp_path / "x.rrd.partial").exists()


def test_the_viewer_loads_the_file(exported):
    """`rerun rrd verify`: the viewer's own loader reads every chunk (where it is installed)."""
    import subprocess

    viewer = shutil.which("rerun") or str(Path(sys.executable).parent / "rerun")
    if not Path(viewer).exists():
        pytest.skip("the rerun viewer is not installed")
    result = subprocess.run(
        [viewer, "rrd", "verify", str(exported[0])], capture_output=True, text=True, timeout=120
    )
    assert result.returncode == 0, result.stderr[-2000:]


def test_a_demo_grasp_that_closed_on_nothing_shows_where_the_gripper_went(
    pending_demo,  # noqa: F811
    tmp_path,
):
    """The demo's scripted agent on generated clutter at the real image size: a failed grasp
    whose fingers closed, drawn planned vs actual, the actual one in red."""
    with open_project(pending_demo) as project:
        episode_id, step = closed_grasps(project)[0]
        episode = project.episodes.get(episode_id)
        n_steps = len(project.episodes.steps(episode_id))
    out = tmp_path / "failed.rrd"
    assert export_rerun(pending_demo, out, [str(episode_id)]) == 1
    rows = read_rrd(out)
    root = f"/episodes/{rr.escape_entity_path_part(episode.uid)}"
    assert len(rows[f"{root}/log/calls"]) == n_steps
    replay = step.result["replay"]
    actual = {r["step"]: r for r in rows[f"{root}/world/grasp/actual"]}
    strips = actual[step.index]["LineStrips3D:strips"]
    assert np.allclose(strips[0][0], replay["tool_at_close"], atol=1e-4)
    rgba = actual[step.index]["LineStrips3D:colors"][0]
    assert rgba >> 24 > 200 and (rgba >> 16) & 0xFF < 80  # red: it failed
    planned = at_step(rows[f"{root}/world/grasp/planned"], "LineStrips3D:strips")
    assert step.index in planned
    assert not np.allclose(planned[step.index][0][0], replay["tool_at_close"], atol=1e-4)
    feedback = at_step(rows[f"{root}/log/feedback"], "TextLog:text")
    assert any(replay["reason"] in t for t in feedback[step.index])
