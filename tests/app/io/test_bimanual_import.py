"""Bimanual log import from the command line: BiManiBench/ST-BiBench folders and EmbodiedBench
step logs become episodes with parsed steps and stored observations; broken folders refuse
with one line and store nothing; Replay opens the result without crashing."""

from __future__ import annotations

import json

import pytest
from bimanual_corpus import EMBODIED, EPISODES, RUN, make_corpus

from app.cli import main
from store import open_project


@pytest.fixture
def corpus(tmp_path):
    return make_corpus(tmp_path)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "fresh.reasonscope"
    open_project(path, create=True).close()
    return path


def run(capsys, *args):
    code = main(["import", "episodes", *map(str, args)])
    out = capsys.readouterr()
    return code, out.out.strip(), out.err.strip()


def episodes(db):
    with open_project(db) as project:
        return [
            (project.episodes.get(i), project.episodes.steps(i)) for i in project.episodes.ids()
        ]


def counts(db):
    with open_project(db) as project:
        rows = project.db.execute(
            "SELECT (SELECT count(*) FROM episodes), "
            "(SELECT count(*) FROM steps), (SELECT count(*) FROM images)"
        )
        return tuple(next(iter(rows)))


def test_a_bimanibench_run_becomes_episodes(capsys, tmp_path, db):
    """The parser corpus as models write it, read as the harness ran it: only a reply
    json.loads reads ran (no failed_record.txt: nothing the harness could run failed)."""
    corpus = make_corpus(tmp_path, fixed=False)
    code, out, err = run(capsys, corpus / "bimanibench", "--format", "bimanibench", "--db", db)
    assert (code, err) == (0, "")
    assert out.endswith("(7 format-error steps recorded)") and "Imported 2 episodes" in out
    (won, won_steps), (lost, lost_steps) = episodes(db)
    for e in (won, lost):
        assert (e.benchmark, e.model, e.task, e.agent) == (
            "bimanual",
            "gpt-5",
            "handover_block",
            "bimanibench",
        )
        assert e.header["tier"] == "high_level" and e.header["pose_order"] == "xyz_wxyz"
    assert (won.outcome, won.success, won.score, won.step_count) == ("success", True, 1.0, 3)
    assert (lost.outcome, lost.success, lost.step_count) == ("failure", False, 5)
    assert [s.kind for s in won_steps] == ["action", "format_error", "format_error"]
    assert [s.kind for s in lost_steps] == ["format_error"] * 5
    assert won_steps[0].feedback == "\n".join(["Action succeeded."] * 3)
    assert won_steps[1].feedback.startswith("Action is empty, no action taken. If task")
    assert lost_steps[2].result["format_error"].startswith("json.loads failed")
    assert "suggestion" not in lost_steps[2].result  # no reading at all
    assert lost_steps[2].raw_output.startswith("I am unable to decide")
    assert won_steps[1].result["suggestion"]["parse"]["repairs"] == [
        "code_fence",
        "trailing_commas",
    ]
    first = won_steps[0]
    assert first.name == "executable_plan" and first.model_text["language_plan"].startswith("1)")
    assert first.result["parse"] == {
        "ok": True,
        "tier": "primitive",
        "repairs": [],
        "problems": [],
        "error": "",
    }
    place = first.arguments["plan"][2]
    assert place["parameters"]["target_pose"] == [0, 0, 0.9, 0, 1, 0, 0]  # as the model wrote
    assert place["poses"]["target_pose"]["orientation"] == [1.0, 0.0, 0.0, 0.0]  # xyzw
    assert won_steps[2].result["task_success"] is True
    # images: 3 + 1 final + 5 head views, and the three identical third views stored once
    assert counts(db) == (2, 8, 10)
    assert len({s.image_sha256 for s in won_steps + lost_steps}) == 8
    assert set(won_steps[0].result["images"]) == {"head", "third"}
    with open_project(db) as project:
        mime, data = project.images.get(won.header["final_image_sha256"])
        assert mime == "image/jpeg" and data[:2] == b"\xff\xd8"
    assert main(["info", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["format_error_steps"] == 7


def test_one_episode_folder_finds_its_run_and_reimport_names_the_duplicate(capsys, corpus, db):
    folder = corpus / EPISODES / "episode1"
    code, out, _ = run(capsys, folder, "--format", "bimanibench", "--model", "other", "--db", db)
    assert code == 0 and "Imported 1 episodes" in out
    ((episode, _steps),) = episodes(db)
    assert (episode.model, episode.outcome) == ("other", "failure")
    code, _, err = run(capsys, folder, "--format", "bimanibench", "--model", "other", "--db", db)
    assert code == 2 and len(err.splitlines()) == 1
    assert "bimanibench:handover_block:other:2025-06-01_120000:round0:episode1" in err
    assert "is already in" in err and str(folder) in err
    assert counts(db)[0] == 1


def test_pose_order_can_be_overridden(capsys, corpus, db):
    folder = corpus / EPISODES / "episode0"
    code, _, _ = run(
        capsys, folder, "--format", "bimanibench", "--pose-order", "xyz_xyzw", "--db", db
    )
    assert code == 0
    ((episode, steps),) = episodes(db)
    assert episode.header["pose_order"] == "xyz_xyzw"
    place = steps[0].arguments["plan"][2]["poses"]["target_pose"]
    assert place["orientation"] == [0.0, 1.0, 0.0, 0.0]  # already xyzw: a half turn about y


def test_an_embodiedbench_log_becomes_episodes(capsys, corpus, db):
    code, out, _ = run(capsys, corpus / "embodiedbench", "--format", "embodiedbench", "--db", db)
    assert code == 0 and out.startswith("Imported 2 episodes") and "(1 format-error" in out
    (one, one_steps), (two, two_steps) = episodes(db)
    assert (one.model, one.task, one.agent) == ("gpt-5_base", "stack_blocks_two", "embodiedbench")
    assert (one.outcome, one.step_count, two.outcome, two.step_count) == (
        "success",
        2,
        "failure",
        2,
    )  # (the step files overlap: merged by env_step)
    assert [s.result["env_step"] for s in one_steps] == [1, 2]
    assert one_steps[0].arguments["tier"] == "row16" and len(one_steps[0].arguments["plan"]) == 14
    row = one_steps[0].arguments["plan"][0]
    assert row["left"]["orientation"] == [-0.2843, 0.64743, 0.2843, 0.64743]
    assert one_steps[0].feedback == "Last action executed successfully." and one_steps[0].ok
    # step 0's view informed the first reply, step 1's the second; step 2's is the end
    assert one_steps[0].image_sha256 and one_steps[1].image_sha256
    assert one_steps[0].image_sha256 != one_steps[1].image_sha256
    assert one.header["final_image_sha256"] not in {s.image_sha256 for s in one_steps}
    assert two_steps[0].kind == "format_error" and two_steps[0].feedback.startswith(
        "Format error: json.loads failed"
    )
    assert two_steps[0].result["env_feedback"] == "Last action is invalid."
    assert two_steps[1].ok is False and two_steps[1].result["pose_notes"] == [
        "executable_plan[0]: a dual-arm row needs 16 numbers, not 15",
        "executable_plan[1]: left quaternion had norm 2; normalised",
    ]


@pytest.mark.parametrize(
    ("fmt", "breakage", "needle"),
    [
        (
            "bimanibench",
            lambda root: (root / EPISODES / "episode1" / "vlmout.txt").unlink(),
            "episode1/vlmout.txt: missing",
        ),
        (
            "bimanibench",
            lambda root: (root / EPISODES / "episode0" / "vlmout.txt").write_text(
                "no separators here\n"
            ),
            "vlmout.txt: no 'step N:' lines",
        ),
        (
            "embodiedbench",
            lambda root: (root / EMBODIED / "episode_1_step_2.json").write_text('[{"env_step": 1,'),
            "episode_1_step_2.json:1: not a JSON list of step objects",
        ),
        (
            "embodiedbench",
            lambda root: (root / EMBODIED / "episode_2_step_2.json").write_text("[1, 2]"),
            "episode_2_step_2.json: entry 0 is int, not an object",
        ),
        (
            "embodiedbench",
            lambda root: (root / EMBODIED / "results" / "episode_1_final_res.json").write_text("{"),
            "episode_1_final_res.json:1: not JSON",
        ),
    ],
)
def test_a_broken_folder_refuses_with_one_line_and_stores_nothing(
    capsys, corpus, db, fmt, breakage, needle
):
    breakage(corpus)
    code, out, err = run(capsys, corpus / fmt, "--format", fmt, "--db", db)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and needle in err, err
    assert counts(db) == (0, 0, 0)


def test_bad_paths_and_orders_are_one_line(capsys, tmp_path, db):
    code, _, err = run(capsys, tmp_path / "nowhere", "--format", "bimanibench", "--db", db)
    assert code == 2 and "no such folder" in err
    empty = tmp_path / "empty"
    empty.mkdir()
    code, _, err = run(capsys, empty, "--format", "embodiedbench", "--db", db)
    assert code == 2 and "no episode_*_step_*.json files" in err
    with pytest.raises(SystemExit):
        main(["import", "episodes", str(empty), "--format", "bimanibench", "--pose-order", "wxyz"])
    assert "invalid choice" in capsys.readouterr().err


def test_replay_opens_and_seeks_through_an_imported_episode(qtbot, capsys, corpus, db, tmp_path):
    from gestures import open_as_ada

    assert run(capsys, corpus / "bimanibench", "--format", "bimanibench", "--db", db)[0] == 0
    window = open_as_ada(qtbot, db, "replay")
    replay = window.mode("replay")
    try:
        for row, steps in ((0, 3), (1, 5)):
            replay.episodes.select_row(row)
            qtbot.waitUntil(lambda: replay.view.loaded is not None, timeout=30000)
            assert "handover_block" in replay.banner.text()
            for index in [*range(steps), 0, steps - 1]:
                replay.state.seek(index)
                assert replay.state.index == index
    finally:
        window.close()
    assert RUN.name in str(RUN)  # the corpus layout the tests rely on


# -- a run written by BiManiBench's own writer (tests/bimanual_corpus.py) --------------------
@pytest.fixture
def real_run(tmp_path):
    from bimanual_corpus import write_bimanibench_run

    return write_bimanibench_run(tmp_path / "bimanibench_real")


def test_a_real_run_imports_what_the_harness_did(capsys, real_run, db):
    save_dir, did = real_run
    code, out, err = run(capsys, save_dir, "--format", "bimanibench", "--db", db)
    assert (code, err) == (0, ""), err
    unreadable = sum(k in ("decode", "other") for _, _, kinds in did.values() for k in kinds)
    assert f"Imported {len(did)} episodes" in out and f"({unreadable} format-error" in out
    got = {f"{e.header['round']}/{e.header['episode']}": (e, steps) for e, steps in episodes(db)}
    assert set(got) == set(did)
    for key, (feedbacks, success, kinds) in did.items():
        episode, steps = got[key]
        assert episode.success is success and episode.outcome == (
            "success" if success else "failure"
        )
        assert len(steps) == len(feedbacks)
        # one line per executed action, whole, as the harness told the model
        assert [s.feedback for s in steps] == [f.removesuffix("\n") for f in feedbacks]
        assert [s.kind for s in steps] == [
            "format_error" if k in ("decode", "other") else "action" for k in kinds
        ]
    assert main(["info", "--db", str(db), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["format_error_steps"] == unreadable


def test_an_unparseable_reply_ran_nothing_and_keeps_a_marked_suggestion(capsys, real_run, db):
    save_dir, _ = real_run
    assert run(capsys, save_dir, "--format", "bimanibench", "--db", db)[0] == 0
    got = {(e.header["round"], e.header["episode"]): steps for e, steps in episodes(db)}
    prose = got[(0, 1)][0]  # text around the JSON: json.loads fails, nothing runs
    assert prose.kind == "format_error" and prose.arguments == {} and prose.ok is False
    assert prose.feedback.startswith("Action is empty, no action taken. If task is not finished")
    assert prose.result["format_error"].startswith("json.loads failed")
    suggestion = prose.result["suggestion"]
    assert suggestion["note"].startswith("not executed")
    assert suggestion["arguments"]["plan"][0]["action_name"] == "grasp_actor"
    assert suggestion["parse"]["repairs"] == ["extracted_object"]
    cut = got[(1, 0)][0]  # a reply cut short: repaired only as a suggestion
    assert (
        cut.kind == "format_error"
        and "closed_brackets" in cut.result["suggestion"]["parse"]["repairs"]
    )
    bare = got[(1, 1)][0]  # a JSON list: .get fails, {} returned
    assert bare.kind == "format_error" and "not an object" in bare.result["format_error"]


def test_non_dict_items_keep_the_harness_invalid_format_feedback(capsys, real_run, db):
    save_dir, _ = real_run
    assert run(capsys, save_dir, "--format", "bimanibench", "--db", db)[0] == 0
    got = {(e.header["round"], e.header["episode"]): steps for e, steps in episodes(db)}
    step = got[(0, 1)][1]
    assert step.kind == "action" and step.ok is False
    assert step.feedback.splitlines() == [
        "Invalid action format: grasp the block with the right arm",
        "Action failed: grasp_actor: the right arm cannot reach block",
    ]  # the back_to_origin after the failure never ran
    assert step.result["executed"] == [1]
    only_text = got[(1, 1)][2]
    assert only_text.kind == "action" and only_text.ok is None
    assert (
        only_text.feedback == "Invalid action format: move left\nInvalid action format: [0.1, 0, 0]"
    )
    multi = got[(1, 1)][3]  # a failure message holding a newline, kept whole
    assert multi.feedback == "Action failed: place_actor: no plan found\nfor the left arm"
    won = got[(0, 0)][1]  # the loop stops after the action that finished the task
    assert won.feedback == "Action succeeded.\nAction succeeded." and won.result["executed"] == [
        0,
        1,
    ]


def _truncate_last_line(path, keep=12):
    text = path.read_text()
    path.write_text(text[:-keep])


@pytest.mark.parametrize(
    ("breakage", "needle"),
    [
        (lambda d: _truncate_last_line(d / "success_record.txt"), "success_record.txt:"),
        (
            lambda d: (d / "success_record.txt").write_text(
                (d / "success_record.txt")
                .read_text()
                .replace("success at round 0", "succes at round 0")
            ),
            "success_record.txt:1: not a line the harness writes",
        ),
        (
            lambda d: _truncate_last_line(d / "failed_record.txt", 5),
            "failed_record.txt:3: the last line is cut short",
        ),
        (
            lambda d: (d / "failed_record.txt").write_text(
                "Task handover_block failed at round 0, episode 1, action count 1, action it:\n"
            ),
            "failed_record.txt:1: not a line the harness writes",
        ),
        (
            lambda d: _truncate_last_line(d / "obsimg/round1/episode1/vlmout.txt", 30),
            "episode1/vlmout.txt:",
        ),
        (
            lambda d: (d / "obsimg/round0/episode0/obsimg_0001.jpg").write_bytes(
                (d / "obsimg/round0/episode0/obsimg_0001.jpg").read_bytes()[:60]
            ),
            "obsimg_0001.jpg: not an image that decodes",
        ),
    ],
)
def test_a_broken_real_run_refuses_with_file_and_line_and_changes_nothing(
    capsys, real_run, db, breakage, needle
):
    save_dir, _ = real_run
    assert main(["info", "--db", str(db), "--json"]) == 0
    before = capsys.readouterr().out
    breakage(save_dir)
    code, out, err = run(capsys, save_dir, "--format", "bimanibench", "--db", db)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and needle in err, err
    assert main(["info", "--db", str(db), "--json"]) == 0
    assert capsys.readouterr().out == before


def test_replay_in_sim_can_try_a_suggestion(capsys, real_run, db):
    from app.jobs.bimanual import replay_in_sim

    save_dir, _ = real_run
    assert (
        run(
            capsys,
            save_dir / "obsimg" / "round0" / "episode1",
            "--format",
            "bimanibench",
            "--db",
            db,
        )[0]
        == 0
    )
    with open_project(db) as project:
        (episode_id,) = project.episodes.ids()
        as_run = replay_in_sim(project, episode_id, save=False)
        tried = replay_in_sim(project, episode_id, save=False, try_suggestions=True)
    assert as_run.steps[0].kind == "format_error"
    assert tried.steps[0].kind == "action" and tried.steps[0].our_feedback
    # the same from the command line
    assert main(["replay-in-sim", str(episode_id), "--no-save", "--json", "--db", str(db)]) == 0
    plain = json.loads(capsys.readouterr().out)
    argv = ["replay-in-sim", str(episode_id), "--no-save", "--try-suggestions", "--json"]
    assert main([*argv, "--db", str(db)]) == 0
    suggested = json.loads(capsys.readouterr().out)
    assert [s["kind"] for s in plain["steps"]][0] == "format_error"
    assert [s["kind"] for s in suggested["steps"]][0] == "action"


# -- EmbodiedBench logs written by its own writers (tests/bimanual_corpus.py) ----------------
@pytest.fixture
def alfred(tmp_path):
    from bimanual_corpus import write_alfred_run

    return write_alfred_run(tmp_path / "running" / "eb_alfred")


def _by_set(db):
    return {(e.task, e.header["episode"]): (e, s) for e, s in episodes(db)}


def test_alfred_steps_keep_the_log_order_and_the_counted_error_is_a_format_error(
    capsys, alfred, db
):
    model_dir, did = alfred
    code, out, err = run(capsys, model_dir, "--format", "embodiedbench", "--db", db)
    assert (code, err) == (0, ""), err
    counted = sum(info["planner_output_error"] for _, info in did.values())
    assert f"Imported {len(did)} episodes" in out and f"({counted} format-error" in out
    got = _by_set(db)
    assert set(got) == set(did)  # base and spatial apart, never merged by episode number
    for key, (log, info) in did.items():
        episode, steps = got[key]
        assert episode.success is (info["task_success"] >= 1)
        assert [s.result.get("action_id") for s in steps] == [e["action_id"] for e in log]
        assert [s.raw_output for s in steps] == [e["reasoning"] for e in log]
        assert sum(s.kind == "format_error" for s in steps) == info["planner_output_error"]
    steps = got[("base", 1)][1]
    assert steps[2].kind == "format_error" and "env_step" not in steps[2].result
    assert steps[2].result["format_error"].startswith("json.loads failed")
    assert [s.result.get("env_step") for s in steps] == [1, 2, None, 3, 4]
    empty = got[("base", 2)][1]
    assert [s.kind for s in empty] == ["action"] and empty[0].arguments["plan"] == []
    invented = got[("spatial", 1)][1][1]  # an action id out of range: invalid, not counted
    assert invented.kind == "action" and invented.ok is False


def test_alfred_images_attach_to_the_reply_they_informed(capsys, alfred, db):
    model_dir, _ = alfred
    assert run(capsys, model_dir, "--format", "embodiedbench", "--db", db)[0] == 0
    episode, steps = _by_set(db)[("base", 1)]
    folder = model_dir / "base" / "images" / "episode_1"

    def sha(k):
        import hashlib

        return hashlib.sha256((folder / f"episode_1_step_{k}.png").read_bytes()).hexdigest()

    # reply 1 saw step 0 (two actions), reply 2 (cut) and reply 3 saw step 2, the end is step 4
    assert [s.image_sha256 for s in steps] == [sha(0), None, sha(2), sha(2), None]
    assert episode.header["final_image_sha256"] == sha(4)


def test_a_set_folder_alone_imports_that_set(capsys, alfred, db):
    model_dir, _ = alfred
    code, out, _ = run(capsys, model_dir / "spatial", "--format", "embodiedbench", "--db", db)
    assert code == 0 and "Imported 1 episodes" in out
    ((episode, _),) = episodes(db)
    assert (episode.task, episode.model) == ("spatial", "gpt-5_base_run")


def test_eb_manipulation_results_only_layout_imports(capsys, tmp_path, db):
    from bimanual_corpus import write_manipulation_run

    model_dir, did = write_manipulation_run(tmp_path / "running" / "eb_manipulation")
    code, out, err = run(capsys, model_dir, "--format", "embodiedbench", "--db", db)
    assert (code, err) == (0, ""), err
    assert f"Imported {len(did)} episodes" in out and "(1 format-error" in out
    got = _by_set(db)
    for key, (replies, info) in did.items():
        episode, steps = got[key]
        assert [s.raw_output for s in steps] == replies
        assert episode.success is (info["task_success"] >= 1)
        assert steps[0].image_sha256
    cut = got[("base", 1)][1][1]
    assert cut.kind == "format_error" and "random action" in cut.feedback
    assert got[("base", 2)][0].header["final_image_sha256"]


@pytest.mark.parametrize(
    ("where", "key", "value"),
    [
        ("base/episode_1_step_4.json", "env_step", "one"),
        ("base/episode_1_step_4.json", "last_action_success", "yes"),
        ("base/results/episode_1_final_res.json", "task_success", "yes"),
    ],
)
def test_wrong_types_are_refused_with_file_and_key(capsys, alfred, db, where, key, value):
    model_dir, _ = alfred
    path = model_dir / where
    lines = path.read_text().splitlines()
    record = json.loads(lines[0])
    record[key] = value
    path.write_text("\n".join([json.dumps(record), *lines[1:]]) + "\n")
    assert main(["info", "--db", str(db), "--json"]) == 0
    before = capsys.readouterr().out
    code, out, err = run(capsys, model_dir, "--format", "embodiedbench", "--db", db)
    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1 and f"{path}:1: {key} is {value!r}" in err, err
    assert main(["info", "--db", str(db), "--json"]) == 0
    assert capsys.readouterr().out == before


def test_the_replay_panel_marks_the_suggestion_and_shows_each_feedback_line(capsys, real_run, db):
    from widgets.replay.bimanual_step import bimanual_step_html

    save_dir, _ = real_run
    assert run(capsys, save_dir, "--format", "bimanibench", "--db", db)[0] == 0
    got = {(e.header["round"], e.header["episode"]): steps for e, steps in episodes(db)}
    prose, failed = (
        {"kind": s.kind, "feedback": s.feedback, "arguments": s.arguments, "result": s.result}
        for s in got[(0, 1)][:2]
    )
    text = bimanual_step_html(prose)
    assert "Nothing ran" in text and "Suggested reading (not executed)" in text
    assert "grasp_actor" in text
    assert "right arm<br>Action failed" in bimanual_step_html(failed)


def test_an_embodiedbench_view_that_does_not_decode_refuses(capsys, alfred, db):
    model_dir, _ = alfred
    image = model_dir / "spatial" / "images" / "episode_1" / "episode_1_step_0.png"
    image.write_bytes(image.read_bytes()[:40])
    code, out, err = run(capsys, model_dir, "--format", "embodiedbench", "--db", db)
    assert (code, out) == (2, "") and len(err.splitlines()) == 1
    assert f"{image}: not an image that decodes" in err
    assert counts(db) == (0, 0, 0)
