"""Batch work on Ray (app.jobs.batch): the same results with 1 and 2 workers, failures of
one item recorded while the rest is stored, and a killed run resumed without duplicates."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from app.cli import main
from app.jobs.batch import run_batch
from app.jobs.scenes import make_scene_record
from store import open_project

SMALL = "3-4"


def _new(path):
    open_project(path, create=True).close()
    return str(path)


def _generate(capsys, db, *extra):
    code = main(
        ["scenes", "generate", "--db", db, "--n", "3", "--seed", "11", "--objects", SMALL, *extra]
    )
    out = capsys.readouterr()
    assert code == 0, out.err
    return out.out


def test_one_and_two_workers_store_identical_scenes(tmp_path, capsys, ray_local):
    one, two = _new(tmp_path / "one.reasonscope"), _new(tmp_path / "two.reasonscope")
    assert "in-process" in _generate(capsys, one)
    assert "ray (" in _generate(capsys, two, "--workers", "2")
    for db in (one, two):
        assert main(["scenes", "export", "--db", db, "--out", db + ".jsonl"]) == 0
    capsys.readouterr()
    assert open(one + ".jsonl", "rb").read() == open(two + ".jsonl", "rb").read()


def test_a_failing_item_is_reported_and_the_rest_stored(tmp_path, ray_local):
    stored = []
    items = [(1, (3, 4), "2f140"), (2, (3, 4), "no-such-gripper"), (3, (3, 4), "2f85")]
    report = run_batch(
        items,
        make_scene_record,
        lambda item, rec: stored.append(rec["seed"]),
        workers=2,
        describe=lambda t: f"seed {t[0]}",
    )
    assert stored == [1, 3] and report.stored == 2
    ((item, why),) = report.failed
    assert item == "seed 2" and "no-such-gripper" in why


def test_questions_with_one_and_two_workers_are_the_same(tmp_path, ray_local):
    from app.jobs.questions import generate_questions

    got = []
    for workers in (1, 2):
        db = _new(tmp_path / f"q{workers}.reasonscope")
        summary = generate_questions(
            db, tasks=["find"], n=2, seed=40, image_size=256, workers=workers
        )
        with open_project(db) as p:
            qs = [p.questions.get(i) for i in summary.question_ids]
            got.append(
                [(q.seed, q.text, q.answer, p.scenes.get(q.scene_id).export_record()) for q in qs]
            )
    assert got[0] == got[1] and len(got[0]) == 2


@pytest.mark.parametrize("workers", ["1", "2"])
def test_killed_then_resumed_gives_every_seed_once(tmp_path, capsys, workers):
    """kill -9 of the command in the middle leaves whole scenes; --resume does the rest."""
    db = _new(tmp_path / "killed.reasonscope")
    args = [
        "scenes",
        "generate",
        "--db",
        db,
        "--n",
        "5",
        "--seed",
        "0",
        "--objects",
        SMALL,
        "--workers",
        workers,
    ]
    proc = subprocess.Popen(
        [sys.executable, "-m", "app.cli", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    try:
        while time.monotonic() < deadline and proc.poll() is None:
            with open_project(db) as p:
                if len(p.scenes.ids()) >= 2:
                    break
            time.sleep(0.2)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)  # the command and any Ray it started
        proc.wait()
    with open_project(db) as p:
        before = sorted(s.seed for s in p.scenes.list())
    assert 2 <= len(before) <= 5 and before == list(range(len(before)))
    assert main([*args[:-2], "--resume"]) == 0, capsys.readouterr().err
    with open_project(db) as p:
        seeds = sorted(s.seed for s in p.scenes.list())
    assert seeds == [0, 1, 2, 3, 4]


def test_bimanual_reference_episodes_on_two_workers_match_and_resume(tmp_path, capsys, ray_local):
    """run-agent --benchmark bimanual: the same episodes with 1 and 2 workers (bar their
    uids); --resume then adds only the seeds that are missing."""
    got = []
    for workers in ("1", "2"):
        db = _new(tmp_path / f"b{workers}.reasonscope")
        args = [
            "run-agent",
            "--benchmark",
            "bimanual",
            "--agent",
            "reference",
            "--task",
            "stack_blocks_two",
            "--episodes",
            "2",
            "--seed",
            "3",
            "--image-size",
            "160",
            "--db",
            db,
            "--workers",
            workers,
        ]
        assert main(args) == 0, capsys.readouterr().err
        with open_project(db) as p:
            episodes = [p.episodes.get(i) for i in p.episodes.ids()]
            got.append(
                [
                    (
                        {k: v for k, v in e.header.items() if k != "uid"},
                        [
                            (s.kind, s.arguments, s.feedback, s.image_sha256)
                            for s in p.episodes.steps(e.id)
                        ],
                    )
                    for e in episodes
                ]
            )
        assert [h["bimanual"]["seed"] for h, _ in got[-1]] == [3, 4]
    assert got[0] == got[1]
    args[args.index("--episodes") + 1] = "3"
    assert main([*args, "--resume"]) == 0, capsys.readouterr().err
    with open_project(db) as p:
        seeds = [p.episodes.get(i).header["bimanual"]["seed"] for i in p.episodes.ids()]
    assert seeds == [3, 4, 5]


def test_replay_in_sim_all_on_two_workers_and_resume(tmp_path, capsys, ray_local):
    db = _new(tmp_path / "r.reasonscope")
    assert (
        main(
            [
                "run-agent",
                "--benchmark",
                "bimanual",
                "--agent",
                "reference",
                "--task",
                "stack_blocks_two",
                "--episodes",
                "2",
                "--image-size",
                "160",
                "--db",
                db,
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["replay-in-sim", "--all", "--db", db, "--workers", "2"]) == 0
    assert "2 episodes replayed in sim, 2 succeeded (ray (" in capsys.readouterr().out
    assert main(["replay-in-sim", "--all", "--db", db, "--resume"]) == 0
    assert "0 episodes replayed in sim" in capsys.readouterr().out
    with open_project(db) as p:
        replays = [p.episodes.get(i) for i in p.episodes.ids()]
        sources = [
            e.header["bimanual"]["source_episode"] for e in replays if e.agent == "replay-in-sim"
        ]
    assert sorted(sources) == [1, 2]
    assert main(["replay-in-sim", "--db", db]) == 2
    assert "give one EPISODE_ID or --all" in capsys.readouterr().err


def test_batch_options_where_they_do_not_apply_are_refused(tmp_path, capsys):
    db = _new(tmp_path / "x.reasonscope")
    assert (
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                "--task",
                "vg",
                "--n",
                "1",
                "--seed",
                "0",
                "--db",
                db,
                "--workers",
                "2",
            ]
        )
        == 2
    )
    assert "are for --benchmark mgvqa" in capsys.readouterr().err
    assert (
        main(["scenes", "generate", "--n", "1", "--seed", "0", "--db", db, "--workers", "0"]) == 2
    )
    assert "--workers 0: need at least one" in capsys.readouterr().err


def test_spatial_items_rendered_on_two_workers_match_one(tmp_path, capsys, ray_local):
    outs = {}
    for workers in (1, 2):
        db, out = _new(tmp_path / f"s{workers}.reasonscope"), tmp_path / f"items{workers}"
        code = main(
            [
                "spatial",
                "generate",
                "--setting",
                "sparse",
                "--n",
                "3",
                "--seed",
                "5",
                "--out",
                str(out),
                "--image-size",
                "96",
                "--db",
                db,
                "--workers",
                str(workers),
            ]
        )
        assert code == 0, capsys.readouterr().err
        outs[workers] = {p.name: p.read_bytes() for p in out.iterdir()}
        with open_project(db) as project:
            assert len(project.spatial.items()) == 3
    assert len(outs[1]) == 4 and outs[1] == outs[2]
