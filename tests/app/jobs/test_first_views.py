"""A question's first view rendered once and shared (issue 33): stored by content, byte for
byte what a fresh render gives, sent by Direct runs without touching the simulator, and
tool modes simulated in worker processes giving the episodes an in-process run gives."""

from __future__ import annotations

import json
from types import SimpleNamespace

import numpy as np
import pytest
from model_server import serve

from app.cli import main
from app.jobs.endpoints import answer_reply
from app.jobs.first_views import first_views, from_stored
from app.perf.endpoints import search_script
from sim.llm import png_bytes, png_url
from sim.render import render
from sim.tabletop.first_view import oblique_camera, render_first_view, view_key
from sim.tabletop.scenes import generate_scene, scene_record, world_from_records
from sim.tabletop.world import OBLIQUE_VIEW, TOP_DOWN, TOP_DOWN_VIEW
from store import open_project

SIZE = 256
CAMERA = TOP_DOWN.with_size(SIZE, SIZE)


@pytest.fixture(scope="module")
def scene() -> dict:
    """A generated scene with the robot (its gripper is part of the view), three or four
    objects: small enough to rebuild quickly."""
    generated = generate_scene(3, objects=(3, 4))
    try:
        return scene_record(generated)
    finally:
        generated.world.close()


def _scene_data(record: dict) -> dict:
    return {"bodies": record["bodies"], "state": record["state"]}


@pytest.fixture
def db(tmp_path, scene):
    path = tmp_path / "views.reasonscope"
    with open_project(path, create=True) as project, project.write():
        sid = project.scenes.add(scene)
        target = next(b["name"] for b in scene["bodies"] if b.get("role") == "object")
        for i in range(3):
            project.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many objects are there? ({i})",
                    "options": None,
                    "answer": 3,
                    "criteria": {},
                    "scene_id": sid,
                }
            )
        project.questions.add(
            {
                "benchmark": "mgvqa",
                "task": "find",
                "text": f"Is there a {target}?",
                "options": ["yes", "no"],
                "answer": {"answer": "yes"},
                "criteria": {"measured": {"target": target}},
                "scene_id": sid,
            }
        )
    return path


def run(capsys, *args) -> tuple[int, str, str]:
    code = main(["run-agent", *map(str, args)])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_stored_first_view_is_byte_identical_to_a_fresh_render(db, scene):
    data = _scene_data(scene)
    views = (TOP_DOWN_VIEW, OBLIQUE_VIEW)
    with open_project(db) as project:
        sid = project.scenes.list()[0].id
        made = first_views(project, {sid: data}, CAMERA, views=views)[sid]
        assert project.rendered_views.count() == 1
    with open_project(db) as project:  # read back from the file, not from memory
        stored = from_stored(project.rendered_views.get(view_key(data, CAMERA, None, views)))
    world = world_from_records(data["bodies"], data["state"])
    try:
        fresh_top = render(world, CAMERA)
        fresh_oblique = render(world, oblique_camera(SIZE))
        assert stored.images[TOP_DOWN_VIEW] == png_bytes(fresh_top.rgb)
        assert stored.images[OBLIQUE_VIEW] == png_bytes(fresh_oblique.rgb)
        assert stored.images == made.images
        assert np.array_equal(stored.segmentation, fresh_top.segmentation)
        assert stored.state == world.capture_state()
        assert stored.gripper == world.gripper_model.key
    finally:
        world.close()
    assert stored.images[OBLIQUE_VIEW] != stored.images[TOP_DOWN_VIEW]


def test_the_key_follows_what_goes_into_the_pixels(scene):
    data = _scene_data(scene)
    key = view_key(data, CAMERA, None)
    assert key == view_key(json.loads(json.dumps(data)), CAMERA, None)  # as stored and read
    moved = json.loads(json.dumps(data))
    body = next(iter(moved["state"]["bodies"].values()))
    body["com_position"][0] += 0.001
    assert view_key(moved, CAMERA, None) != key
    assert view_key(data, TOP_DOWN.with_size(SIZE * 2, SIZE * 2), None) != key
    other = (
        "robotiq_2f_85" if "140" in render_first_view(data, CAMERA).gripper else "robotiq_2f_140"
    )
    assert view_key(data, CAMERA, other) != key
    assert view_key(data, CAMERA, None, (TOP_DOWN_VIEW, OBLIQUE_VIEW)) != key


def test_direct_runs_send_the_stored_view_and_never_rebuild_the_scene(
    capsys, db, scene, monkeypatch
):
    """The first run renders the view once for its four questions and sends those bytes;
    a second run (another model) plays every episode with the simulator out of reach."""
    with serve(lambda body, n: answer_reply("3")) as (server, url):
        monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
        code, _, err = run(
            capsys,
            *("--agent", "openai", "--mode", "direct", "--questions", "any"),
            *("--image-size", SIZE, "--concurrency", 2, "--model", "first", "--db", db),
        )
        assert code == 0, err
        with open_project(db) as project:
            assert project.rendered_views.count() == 1
            stored = project.rendered_views.get(view_key(_scene_data(scene), CAMERA, None))
        sent = {
            part["image_url"]["url"]
            for body in server.requests
            for part in body["messages"][1]["content"]
            if part["type"] == "image_url"
        }
        assert sent == {png_url(stored.images[TOP_DOWN_VIEW])}

        def no_simulator(*args, **kwargs):
            raise AssertionError("a Direct episode with a stored first view rebuilt its scene")

        monkeypatch.setattr("sim.tabletop.scenes.world_from_records", no_simulator)
        code, out, err = run(
            capsys,
            *("--agent", "openai", "--mode", "direct", "--questions", "any"),
            *("--image-size", SIZE, "--concurrency", 2, "--model", "second", "--db", db),
        )
        assert code == 0, err
    with open_project(db) as project:
        episodes = project.episodes.list(limit=100)
        assert len(episodes) == 8 and {e.outcome for e in episodes} == {"answered"}
        first = {(e.question_id, e.task): e for e in episodes if e.model == "first"}
        for e in episodes:
            if e.model != "second":
                continue
            twin = project.episodes.steps(first[(e.question_id, e.task)].id)
            mine = project.episodes.steps(e.id)
            assert [s.state for s in mine] == [s.state for s in twin]
            assert mine[0].state == stored.state
            assert e.success == (e.task == "count")  # a Find "3" is no yes or no


def test_a_find_point_scores_the_same_on_the_first_view_as_on_the_world(scene):
    from sim.tabletop.scoring import score_answer

    data = _scene_data(scene)
    view = render_first_view(data, CAMERA)
    world = world_from_records(data["bodies"], data["state"])
    try:
        names = {b.uid: b.name for b in world.objects()}
        target_uid, target = next(iter(names.items()))
        question = SimpleNamespace(  # what scoring reads of a stored Question
            task="find", answer={"answer": "yes"}, criteria={"measured": {"target": target}}
        )
        seg = view.segmentation
        points = [(0, 0), (SIZE - 1, SIZE - 1), (SIZE + 4, 3)]  # corners and off the image
        for uid in {int(u) for u in np.unique(seg)}:
            ys, xs = np.nonzero(seg == uid)
            points.append((int(xs[len(xs) // 2]), int(ys[len(ys) // 2])))
        verdicts = []
        for point in points:
            live = score_answer(question, "yes", point, world=world, camera=CAMERA)
            stored = score_answer(question, "yes", point, first_view=view)
            assert live == stored, point
            verdicts.append(live.correct)
        assert True in verdicts and False in verdicts  # the target was hit, and missed
    finally:
        world.close()
    assert target_uid in view.names


def test_manipulation_in_simulation_processes_gives_the_in_process_episodes(capsys, db):
    """--workers 2 --concurrency 3: the worlds live in two processes, the threads here talk
    to the model; the episodes are those of a run one at a time in this process."""
    steps = {}
    with serve(search_script) as (server, url):
        for label, extra in (("serial", ()), ("hosts", ("--workers", 2, "--concurrency", 3))):
            code, out, err = run(
                capsys,
                *("--agent", "openai", "--mode", "manipulation", "--questions", "any"),
                *("--limit", 3, "--image-size", SIZE, "--db", db, "--json"),
                *("--config", _config(db.parent, url, label), *extra),
            )
            assert code == 0, err
            report = json.loads(out)
            assert report["episodes"] == 3 and not report["errors"]
            if label == "hosts":
                assert report["backend"] == "in-process, 3 threads, 2 simulation processes"
            with open_project(db) as project:
                steps[label] = [
                    [
                        (s.kind, s.name, s.arguments, s.ok, s.feedback, s.state)
                        for s in project.episodes.steps(e.id)
                    ]
                    for e in project.episodes.list(model=label, limit=100)
                ]
    assert steps["hosts"] == steps["serial"]
    names = [name for episode in steps["serial"] for _, name, *_ in episode]
    assert {"perceive_scene", "find_object", "grasp", "answer_question"} <= set(names)


def _config(folder, url: str, model: str):
    path = folder / f"{model}.json"
    path.write_text(json.dumps({"base_url": url, "model": model}))
    return path


def test_import_benchmark_prerender_stores_the_first_view_a_run_then_uses(
    capsys, db, tmp_path, monkeypatch
):
    out = tmp_path / "bench.jsonl"
    assert main(["export", "benchmark", "--db", str(db), "--out", str(out), "--status", "any"]) == 0
    other = tmp_path / "imported.reasonscope"
    open_project(other, create=True).close()
    code = main(["import", "benchmark", str(out), "--db", str(other), "--prerender"])
    printed = capsys.readouterr().out
    assert code == 0 and "first views prerendered: 1" in printed
    with open_project(other) as project:
        assert project.rendered_views.count() == 1  # one scene under four questions
    with serve(lambda body, n: answer_reply("3")) as (_, url):
        monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
        monkeypatch.setattr("sim.tabletop.scenes.world_from_records", None)  # out of reach
        code, out_text, err = run(
            capsys,
            *("--agent", "openai", "--mode", "direct", "--questions", "any"),
            *("--model", "m", "--db", other, "--limit", 2),
        )
        assert code == 0, err
        assert "2 episodes recorded" in out_text


def test_perception_reads_the_first_view_as_it_reads_a_render(scene):
    """perceive_scene and find_object on a world that has not moved: the same results
    from the stored first view's segmentation as from a fresh render."""
    from sim.tabletop.toolenv import ToolEnv

    data = _scene_data(scene)
    view = render_first_view(data, CAMERA)
    question = SimpleNamespace(task="count", answer=3, criteria={})
    results = []
    for first_view in (None, view):
        world = world_from_records(data["bodies"], data["state"])
        try:
            env = ToolEnv(world, question, "perception", camera=CAMERA, first_view=first_view)
            seen = env.call("perceive_scene")
            found = [env.call("find_object", {"point": o["point"]}) for o in seen["objects"]]
            results.append((seen, found, [s["result"] for s in env.steps]))
        finally:
            world.close()
    assert results[0] == results[1]
    assert results[0][0]["objects"] and all(f.get("mask_id") for f in results[0][1])


def test_the_dataset_export_sends_the_stored_view(db, scene, monkeypatch):
    """The Hugging Face export's model view is the stored first view once there is one."""
    from app.io.hf_dataset import model_view_png, stored_view_png
    from app.jobs.first_views import prerender_questions

    data = _scene_data(scene)
    fresh = model_view_png(data["bodies"], data["state"])
    assert prerender_questions(db) == 1
    monkeypatch.setattr("sim.tabletop.scenes.world_from_records", None)  # out of reach
    with open_project(db) as project:
        assert stored_view_png(project, data["bodies"], data["state"]) == fresh
