"""`run-agent --benchmark jrdb --agent openai` against the fake model server.

What is sent (the question, the images in order and at the scripts' scale), how replies
are stored and scored (the same scoring as imported predictions), what a broken reply
and a failing endpoint leave, requests in flight, latency and tokens, and that runs made
differently never share a model name.
"""

from __future__ import annotations

import base64
import csv
import io
import json
import sqlite3
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

import tests.real_clients.jrdb_reasoning_eval as real
from annotation.jrdb.reasoning_prompts import VG_SYSTEM
from app.cli import main
from app.jobs.endpoints import text_reply
from app.jobs.metrics import project_metrics
from store import open_project
from tests.hoi_fixtures import build_hoi_project, copy_of
from tests.model_server import serve

PREFS = [
    ["--task", "vg", "--spatial", "single"],
    ["--task", "vqa-count", "--spatial", "single"],
    ["--task", "vqa-wh", "--spatial", "single"],
    ["--task", "vg", "--modality", "video", "--temporal", "pair", "--spatial", "pair"],
    ["--task", "vqa-wh", "--modality", "video", "--temporal", "pair", "--spatial", "pair"],
    # one time slot over a video window: a D1 question of Table 3, not of Table 2
    ["--task", "vqa-count", "--modality", "video", "--temporal", "single", "--spatial", "single"],
]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jrdbrun")
    project = build_hoi_project(tmp)
    for n, prefs in enumerate(PREFS):
        args = ["questions", "generate", "--benchmark", "jrdb", *prefs, "--window", "5"]
        assert main([*args, "--n", "2", "--seed", str(n), "--db", str(project.db)]) == 0
    return project


@pytest.fixture
def project(base, tmp_path):
    p = copy_of(base, tmp_path)
    with open_project(p.db) as opened:
        questions = list(opened.questions.page(benchmark="jrdb", limit=100).rows)
        root = Path(opened.sequences.get(base.sequence_id).root)
        frames = {
            Path(f.image_path).name: root / f.image_path
            for f in opened.sequences.frames(base.sequence_id)
        }
    return p, questions, frames


def _run(db, url, monkeypatch, *extra, model="fake-vl"):
    monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
    args = ["run-agent", "--benchmark", "jrdb", "--agent", "openai", "--model", model]
    return main([*args, "--questions", "any", "--retries", "0", *extra, "--db", str(db)])


def _user(body):
    return next(m for m in body["messages"] if m["role"] == "user")["content"]


def _text(body):
    return "".join(p["text"] for p in _user(body) if p["type"] == "text")


def _images(body):
    out = []
    for part in _user(body):
        if part["type"] == "image_url":
            head, data = part["image_url"]["url"].split(",", 1)
            out.append((head, base64.b64decode(data)))
    return out


def _question_of(body, questions):
    text = _text(body)
    return next(q for q in sorted(questions, key=lambda q: -len(q.text)) if text.startswith(q.text))


def gold_reply(questions):
    """A model that knows the answers, replying in the scripts' formats."""

    def script(body, n):
        q = _question_of(body, questions)
        if q.task == "vg" and q.answer.get("track"):  # every frame, numbered from 1
            boxes = [
                {"image": k, "bbox_2d": [x * 0.5, y * 0.5, (x + w) * 0.5, (y + h) * 0.5]}
                for k, frame in enumerate(q.answer["track"], 1)
                for x, y, w, h in (b for b in frame["boxes"] if b)
            ]
            return text_reply("```json\n" + json.dumps(boxes) + "\n```")
        if q.task == "vg":
            boxes = [
                {"bbox_2d": [x * 0.5, y * 0.5, (x + w) * 0.5, (y + h) * 0.5]}
                for x, y, w, h in q.answer["boxes"]
            ]
            return text_reply("```json\n" + json.dumps(boxes) + "\n```")
        return text_reply(str(q.answer))

    return script


def _rows(db):
    with sqlite3.connect(db) as conn:
        return conn.execute(
            "SELECT q.uid, p.model, p.correct, p.reason, p.raw_output, p.source, p.settings, "
            "p.latency_s, p.tokens_in, p.tokens_out FROM reasoning_predictions p "
            "JOIN questions q ON q.id = p.question_id ORDER BY p.id"
        ).fetchall()


def test_each_request_carries_the_question_and_its_images_as_the_scripts_send_them(
    project, monkeypatch
):
    p, questions, frames = project
    with serve(gold_reply(questions)) as (fake, url):
        assert _run(p.db, url, monkeypatch) == 0
    assert len(fake.requests) == len(questions)
    seen = set()
    for body in fake.requests:
        q = _question_of(body, questions)
        seen.add(q.uid)
        images = _images(body)
        files = [frames[i] for i in q.criteria["image_ids"]]
        video = q.criteria["preferences"]["modality"] == "video"
        assert len(images) == (5 if video else 1) == len(files)
        if q.task == "vg":
            # the script's system message; the text, then the image(s) resized by 0.5
            assert body["messages"][0] == {"role": "system", "content": VG_SYSTEM}
            assert [p["type"] for p in _user(body)][0] == "text"
            assert body["max_tokens"] == 512
            for (head, data), path in zip(images, files, strict=True):
                assert head == "data:image/png;base64"
                got = Image.open(io.BytesIO(data))
                assert got.size == (1880, 240)
                with Image.open(path) as original:
                    want = original.convert("RGB").resize((1880, 240))
                assert np.array_equal(np.asarray(got.convert("RGB")), np.asarray(want))
            if video:  # the boxes in every frame, numbered: a track
                assert _text(body).startswith(q.text + "\nThe 5 images are frames of a video")
                assert "numbering the images from 1 to 5" in _text(body)
            else:
                assert _text(body) == q.text
        else:
            # one user message: the panoramas as they are (the files' bytes), then the text
            assert [m["role"] for m in body["messages"]] == ["user"]
            assert [p["type"] for p in _user(body)][-1] == "text"
            assert body["max_tokens"] == 50
            assert [data for _, data in images] == [f.read_bytes() for f in files]
            assert Image.open(io.BytesIO(images[0][1])).size == (3760, 480)
            assert "\nChoose only from these options where possible: " in _text(body)
    assert seen == {q.uid for q in questions}


def test_good_vg_and_vqa_replies_are_scored_correct_by_the_import_scoring(project, monkeypatch):
    p, questions, _ = project
    with serve(gold_reply(questions)) as (_fake, url):
        assert _run(p.db, url, monkeypatch) == 0
    rows = _rows(p.db)
    assert len(rows) == len(questions)
    assert all(r[2] == 1 for r in rows), [r[3] for r in rows if not r[2]]
    assert {r[1] for r in rows} == {"fake-vl"}
    assert {r[5] for r in rows} == {"run-agent fake-vl"}
    assert {json.loads(r[6])["vg_image_scale"] for r in rows} == {0.5}
    with open_project(p.db) as opened:
        by_task = {pr.task for pr in opened.reasoning.predictions() if pr.correct}
    assert by_task == {"vg", "vqa-count", "vqa-wh"}


@pytest.mark.parametrize(
    ("reply", "reason"),
    [
        ("The woman is at the left of the image.", "unreadable reply: not JSON"),
        ('[{"bbox_2d": "left"}]', "unreadable reply: no bbox_2d of four numbers"),
        ("", "unreadable reply: empty reply"),
    ],
)
def test_a_broken_reply_is_stored_wrong_with_its_raw_text(project, monkeypatch, reply, reason):
    p, _questions, _ = project
    with serve(lambda body, n: text_reply(reply)) as (_fake, url):
        assert _run(p.db, url, monkeypatch, "--task", "vg") == 0
    rows = _rows(p.db)
    assert rows and all(r[2] == 0 and r[3] == reason and r[4] == reply for r in rows)


def test_a_count_reply_without_a_number_is_wrong_and_says_so(project, monkeypatch):
    p, _questions, _ = project
    with serve(lambda body, n: text_reply("Several people.")) as (_fake, url):
        assert _run(p.db, url, monkeypatch, "--task", "vqa-count") == 0
    assert {(r[2], r[3], r[4]) for r in _rows(p.db)} == {
        (0, "unreadable reply: no number", "Several people.")
    }


def test_an_endpoint_error_is_reported_for_its_question_and_the_run_goes_on(
    project, monkeypatch, capsys
):
    p, questions, _ = project
    good = gold_reply(questions)

    def script(body, n):
        return (400, {"error": {"message": "bad image"}}) if n == 2 else good(body, n)

    with serve(script) as (_fake, url):
        assert _run(p.db, url, monkeypatch, "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["predictions"] == len(questions) - 1 == len(_rows(p.db))
    assert len(report["errors"]) == 1 and "HTTP 400" in report["errors"][0]
    assert report["models"]["fake-vl"]["errors"] == 1


def test_concurrency_k_keeps_k_requests_in_flight(project, monkeypatch, capsys):
    p, questions, _ = project
    with serve(gold_reply(questions), delay=0.3) as (fake, url):
        assert _run(p.db, url, monkeypatch, "--concurrency", "4", "--json") == 0
    assert fake.max_in_flight == 4
    report = json.loads(capsys.readouterr().out)
    assert report["backend"] == "in-process, 4 threads"
    assert report["correct"] == report["predictions"] == len(questions)


def test_latency_and_tokens_are_recorded_and_reported_per_model(project, monkeypatch, capsys):
    p, questions, _ = project
    with serve(gold_reply(questions)) as (_fake, url):
        assert _run(p.db, url, monkeypatch, "--json") == 0
    endpoint = json.loads(capsys.readouterr().out)["models"]["fake-vl"]["endpoint"]
    assert endpoint["requests"] == endpoint["answered"] == len(questions)
    assert endpoint["tokens_in"] == 120 * len(questions)
    rows = _rows(p.db)
    assert all(r[7] is not None and r[7] > 0 and (r[8], r[9]) == (120, 12) for r in rows)
    per_model = project_metrics(p.db)["reasoning"]["per_model"]
    row = next(r for r in per_model if r["model"] == "fake-vl")
    assert (row["episodes"], row["requests"]) == (len(questions), len(questions))
    assert (row["tokens_in"], row["tokens_out"]) == (120 * len(questions), 12 * len(questions))
    assert row["mean_latency_s"] > 0


def test_runs_made_differently_never_share_a_model_name(project, monkeypatch, tmp_path, capsys):
    p, questions, _ = project
    with serve(gold_reply(questions)) as (_fake, url):
        assert _run(p.db, url, monkeypatch, "--task", "vqa-wh", "--image-scale", "1") == 0
        assert {r[1] for r in _rows(p.db)} == {"fake-vl (image scale 1)"}
        capsys.readouterr()
        # the same model at the scripts' scales is another row
        assert _run(p.db, url, monkeypatch, "--task", "vqa-wh") == 0
        assert {r[1] for r in _rows(p.db)} == {"fake-vl (image scale 1)", "fake-vl"}
        with sqlite3.connect(p.db) as conn:
            conn.execute("DELETE FROM reasoning_predictions WHERE model = 'fake-vl'")
        # a file imported under the name: a run there would mix with it, so it is refused
        file = tmp_path / "preds.jsonl"
        file.write_text(json.dumps({"question_id": questions[0].uid, "answer": "x"}) + "\n")
        assert (
            main(["import", "predictions", str(file), "--model", "fake-vl", "--db", str(p.db)]) == 0
        )
        capsys.readouterr()
        assert _run(p.db, url, monkeypatch) == 2
    err = capsys.readouterr().err
    assert "fake-vl has 1 prediction imported from" in err and "one model" in err
    wh = sum(q.task == "vqa-wh" for q in questions)
    assert len(_rows(p.db)) == wh + 1


def test_resume_asks_only_what_is_missing(project, monkeypatch, capsys):
    p, questions, _ = project
    with serve(gold_reply(questions)) as (fake, url):
        assert _run(p.db, url, monkeypatch, "--task", "vg") == 0
        vg = len(fake.requests)
        capsys.readouterr()
        assert _run(p.db, url, monkeypatch, "--resume", "--json") == 0
    report = json.loads(capsys.readouterr().out)
    assert report["skipped"] == vg
    assert len(fake.requests) == len(questions)


def test_nothing_approved_exits_2_saying_so(project, monkeypatch, capsys):
    p, _questions, _ = project
    monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", "http://127.0.0.1:9/v1")
    args = ["run-agent", "--benchmark", "jrdb", "--agent", "openai", "--model", "m"]
    assert main([*args, "--db", str(p.db)]) == 2
    assert "no approved JRDB-Reasoning questions" in capsys.readouterr().err


def test_the_export_is_still_read_by_the_real_scripts_after_a_run(project, monkeypatch, tmp_path):
    p, questions, _ = project
    with serve(gold_reply(questions)) as (_fake, url):
        assert _run(p.db, url, monkeypatch) == 0
    out = tmp_path / "vg.json"
    assert (
        main(
            ["export", "benchmark", "--format", "jrdb-reasoning-vg", "--status", "any"]
            + ["--out", str(out), "--db", str(p.db)]
        )
        == 0
    )
    elements = json.loads(out.read_text())
    root = tmp_path / "images"
    for el in elements:
        folder = root / el["data"]["seq"].removesuffix(".json")
        folder.mkdir(parents=True, exist_ok=True)
        for slot in el["question"]["timestamps"].values():
            for image_id in slot["image_ids"]:
                Image.new("RGB", (3760, 480)).save(folder / image_id)
    monkeypatch.setattr(real, "IMAGES_ROOT", str(root))
    monkeypatch.setattr(real, "VIS_DIR", str(tmp_path / "vis"))
    monkeypatch.setattr(real, "QUESTION_KEY", None)
    result = real.run_vg_evaluation(str(out))
    assert result["processed"] == result["total"] == len(elements) > 0
    vqa = tmp_path / "vqa.json"
    assert (
        main(
            ["export", "benchmark", "--format", "jrdb-reasoning-vqa", "--status", "any"]
            + ["--out", str(vqa), "--db", str(p.db)]
        )
        == 0
    )
    monkeypatch.setattr(real, "IMAGE_ROOT", str(root))
    for el in json.loads(vqa.read_text()):
        folder = root / el["data"]["seq"].removesuffix(".json")
        for image_id in el["question"]["timestamps"]["slot1"]["image_ids"]:
            if not (folder / image_id).exists():
                Image.new("RGB", (3760, 480)).save(folder / image_id)
    assert all(r["exact_match"] == 1 for r in real.run_vqa_evaluation(str(vqa)))


def test_by_default_only_approved_questions_are_asked(project, monkeypatch):
    from annotation.verification import Verdict

    p, questions, _ = project
    chosen = [q for q in questions if q.task == "vqa-count"][:1] + [
        q for q in questions if q.task == "vg"
    ][:1]
    approve = Verdict(True, True, True, "approve")
    with open_project(p.db) as opened:
        ann, ben = opened.annotators.sign_in("Ann"), opened.annotators.sign_in("Ben")
        for q in chosen:
            opened.verifications.submit(q.id, ann, approve, seconds_on_task=3)
            opened.verifications.submit(q.id, ben, approve, seconds_on_task=3)
    with serve(gold_reply(questions)) as (fake, url):
        monkeypatch.setenv("REASONSCOPE_OPENAI_BASE_URL", url)
        args = ["run-agent", "--benchmark", "jrdb", "--agent", "openai", "--model", "m"]
        assert main([*args, "--db", str(p.db)]) == 0
    assert {_question_of(b, questions).uid for b in fake.requests} == {q.uid for q in chosen}
    assert {r[0] for r in _rows(p.db)} == {q.uid for q in chosen}


def test_a_video_vg_reply_is_read_as_a_track_and_scored_by_its_frames(project, monkeypatch):
    """A model that finds the target in the last frame only gets that frame's share of the
    track, not a full mark: the track rule, not the answer frame alone."""
    p, questions, _ = project
    videos = [q for q in questions if q.task == "vg" and q.answer.get("track")]
    assert videos

    def last_only(body, n):
        q = _question_of(body, questions)
        if not q.answer.get("track"):
            return text_reply("[]")  # an image question: not this test's
        k, frame = len(q.answer["track"]), q.answer["track"][-1]
        boxes = [
            {"image": k, "bbox_2d": [x * 0.5, y * 0.5, (x + w) * 0.5, (y + h) * 0.5]}
            for x, y, w, h in (b for b in frame["boxes"] if b)
        ]
        return text_reply(json.dumps(boxes))

    with serve(last_only) as (_fake, url):
        assert _run(p.db, url, monkeypatch, "--task", "vg") == 0
    with open_project(p.db) as opened:
        scored = {pr.question_uid: pr for pr in opened.reasoning.predictions()}
    for q in videos:
        framed = sum(1 for f in q.answer["track"] if any(f["boxes"]))
        pr = scored[q.uid]
        assert pr.answer["track"] and pr.iou == pytest.approx(1 / framed, abs=0.01)
        assert not pr.correct and "over" in pr.reason


def test_the_papers_tables_hold_a_run_on_image_and_video_questions(project, monkeypatch, tmp_path):
    """A model behind the fake endpoint answers every question right: JRDB-Reasoning
    Tables 2-4 each hold its row, image and video questions apart, 100 % wherever a level
    has questions."""
    p, questions, _ = project
    with serve(gold_reply(questions)) as (_fake, url):
        assert _run(p.db, url, monkeypatch) == 0
    levels = {"D1", "D2", "D3"}
    for table, modality, tasks in [
        ("jrdb_vqa_images", "image", {"vqa-wh", "vqa-count"}),
        ("jrdb_vqa_videos", "video", {"vqa-wh", "vqa-count"}),
        ("jrdb_vg_images", "image", {"vg"}),
    ]:
        out = tmp_path / f"{table}.csv"
        assert main(["metrics", "--db", str(p.db), "--table", table, "--out", str(out)]) == 0
        lines = [r for r in out.read_text().splitlines()[1:] if not r.startswith("#")]
        rows = list(csv.reader(lines))
        first = next(r for r in rows if r[0] == "fake-vl")
        asked = [
            q
            for q in questions
            if q.task in tasks and q.criteria["preferences"]["modality"] == modality
        ]
        expected_n = {
            lv: sum(1 for q in asked if f"D{q.difficulty.S}" == lv and q.difficulty.T == 1)
            for lv in sorted(levels)
        }
        assert sum(expected_n.values()) > 0, f"{table}: the fixture asks none"
        assert [int(n) for n in first[6:9]] == list(expected_n.values()), table
        for value, n in zip(first[2:5], expected_n.values(), strict=True):
            assert value == ("100.0" if n else "-"), table
