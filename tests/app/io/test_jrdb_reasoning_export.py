"""JRDB-Reasoning exports read and scored by the real evaluation scripts' own code.

tests/real_clients/jrdb_reasoning_eval.py is JRDB-Reasoning's
`experiments/qwen_vg_eval_matched_new_json.py` and
`experiments/qwen_vqa_eval_matched_new_json.py` (commit c539e9b7) with the model
replaced by the ground truth: every question must load, and score 100 % (VG, on
every documented QUESTION_KEY) or exact_match 1 (VQA).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from PIL import Image

import tests.real_clients.jrdb_reasoning_eval as real
from annotation.query.keys import step_keys
from app.cli import main
from store import open_project
from tests.hoi_fixtures import build_hoi_project

VG_PREFS = [
    ["--task", "vg", "--subject", "human", "--spatial", "single"],
    ["--task", "vg", "--subject", "human", "--spatial", "pair"],
    ["--task", "vg", "--subject", "human", "--spatial", "clique"],
    ["--task", "vg", "--subject", "both", "--spatial", "pair"],
    ["--task", "vg", "--subject", "object", "--spatial", "pair"],
    ["--task", "vg", "--modality", "video", "--temporal", "pair", "--spatial", "pair"],
    ["--task", "vg", "--modality", "video", "--temporal", "clique", "--spatial", "clique"],
    ["--task", "vg", "--modality", "video", "--temporal", "single", "--spatial", "single"],
    # JRDB-Social race and interactions, and objects relative to the robot
    ["--task", "vg", "--spatial", "pair", "--require", "race,hhi"],
    ["--task", "vg", "--subject", "object", "--spatial", "pair", "--require", "SR_Robot_Ref"],
]
VQA_PREFS = [
    ["--task", "vqa-count", "--spatial", "single"],
    ["--task", "vqa-count", "--subject", "both", "--spatial", "clique"],
    ["--task", "vqa-count", "--modality", "video", "--temporal", "pair", "--spatial", "pair"],
    ["--task", "vqa-wh", "--spatial", "single"],
    ["--task", "vqa-wh", "--spatial", "pair"],
    ["--task", "vqa-wh", "--subject", "object", "--spatial", "pair"],
    ["--task", "vqa-wh", "--modality", "video", "--temporal", "pair", "--spatial", "pair"],
]


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("jrdbr")
    base = build_hoi_project(tmp)
    for n, prefs in enumerate(VG_PREFS + VQA_PREFS):
        main(
            [
                "questions",
                "generate",
                "--benchmark",
                "jrdb",
                *prefs,
                "--window",
                "5",
                "--n",
                "3",
                "--seed",
                str(n),
                "--db",
                str(base.db),
            ]
        )
    with open_project(base.db) as p:
        questions = {q.uid: q for q in p.questions.page(limit=500).rows}
    return base, questions


def _export(db, out, fmt):
    assert (
        main(
            [
                "export",
                "benchmark",
                "--format",
                fmt,
                "--status",
                "any",
                "--out",
                str(out),
                "--db",
                str(db),
            ]
        )
        == 0
    )
    return json.loads(out.read_text())


def _images(elements, root):
    """A blank stitched panorama (3760 x 480, JRDB's size) for every frame named."""
    for el in elements:
        folder = root / el["data"]["seq"].removesuffix(".json")
        folder.mkdir(parents=True, exist_ok=True)
        for slot in el["question"]["timestamps"].values():
            for image_id in slot["image_ids"]:
                if not (folder / image_id).exists():
                    Image.new("RGB", (3760, 480)).save(folder / image_id)


def test_vg_ground_truth_scores_100_percent_on_every_key(generated, tmp_path, monkeypatch):
    base, questions = generated
    elements = _export(base.db, tmp_path / "vg.json", "jrdb-reasoning-vg")
    assert len(elements) >= 15
    assert {el["data"]["modality_type"] for el in elements} == {"image", "video"}
    _images(elements, tmp_path / "images")
    monkeypatch.setattr(real, "IMAGES_ROOT", str(tmp_path / "images"))
    monkeypatch.setattr(real, "VIS_DIR", str(tmp_path / "vis"))
    keys = sorted(
        {k for el in elements for k, v in el["labels"]["slot1"].items() if isinstance(v, dict)}
    )
    assert "human" in keys and any("," in k for k in keys)
    # the real scorer grounds the sub-questions of race, hhi and objects from the robot
    assert any("race" in k for k in keys) and any(k.endswith("hhi") for k in keys), keys
    assert {"category, SR_Robot_Ref", "category, distance"} & set(keys), keys
    for key in [None, *keys]:
        monkeypatch.setattr(real, "QUESTION_KEY", key)
        result = real.run_vg_evaluation(str(tmp_path / "vg.json"))
        assert result["processed"] == result["total"] == len(elements), key
        assert (result["precision"], result["recall"], result["avg_iou"]) == (1, 1, 1), key
        assert result["fp"] == result["fn"] == 0
        # the GT boxes per key are the entities that sub-question finds
        expected = 0
        for el in elements:
            q = questions[el["id"]]
            slot = el["labels"]["slot1"]
            if key and isinstance(slot.get(key), dict):
                found = dict(zip(step_keys(q.criteria["pattern"], q.steps), q.steps, strict=True))
                assert slot[key]["target_ID"] == found[key]["entity_ids"]
                expected += len(found[key]["entity_ids"])
            else:
                expected += len(q.answer["entity_ids"])
        assert result["tp"] == expected, key


def test_vg_fields_follow_the_real_writer(generated, tmp_path):
    base, questions = generated
    elements = _export(base.db, tmp_path / "vg.json", "jrdb-reasoning-vg")
    with open_project(base.db) as p:
        frames = {f.id: f.index for f in p.sequences.frames(base.sequence_id)}
        name = p.sequences.get(base.sequence_id).name
    for el in elements:
        q = questions[el["id"]]
        assert list(el)[:7] == [
            "task_type",
            "type",
            "difficulty_level",
            "question_level",
            "data",
            "question",
            "labels",
        ]
        assert el["task_type"] == "VG" and el["question_level"] == "U(S)P(T)"
        assert (
            el["type"]
            == {"human": "human", "object": "object", "both": "human&object"}[
                q.criteria["preferences"]["subject"]
            ]
        )
        assert el["data"] == {
            "seq": f"{name}.json",
            "modality_type": q.criteria["preferences"]["modality"],
            "specs": {"fps": 15},
        }
        question = el["question"]
        assert (question["spatial_level"], question["temporal_level"]) == (
            q.difficulty.S,
            q.difficulty.T,
        )
        assert el["difficulty_level"] == q.difficulty.S + q.difficulty.T
        assert question["entities"]["id"] == q.criteria["pattern"]["nodes"][0]["bound"]
        # every frame of the window, once, in order, over the slots
        slots = list(el["labels"])
        assert slots == [f"slot{k}" for k in range(1, q.difficulty.T + 1)]
        listed = [i for s in slots for i in el["labels"][s]["image_ids"]]
        assert listed == q.criteria["image_ids"]
        for s in slots:
            ts = question["timestamps"][s]
            assert ts["image_ids"] == el["labels"][s]["image_ids"]
            first = q.criteria["image_ids"].index(ts["image_ids"][0])
            last = q.criteria["image_ids"].index(ts["image_ids"][-1])
            assert (ts["t1"], ts["t2"]) == (
                float(frames[q.criteria["frame_ids"][first]]),
                float(frames[q.criteria["frame_ids"][last]]),
            )
            label = el["labels"][s]
            assert list(label)[:5] == [
                "image_ids",
                "final_ID",
                "final_bbox",
                "final_ID_pair",
                "final_bbox_pair",
            ]
            assert label["final_ID"] == q.answer["entity_ids"]
            assert len(label["final_ID_pair"]) == len(label["final_bbox_pair"])
            for key, sub in label.items():
                if isinstance(sub, dict):
                    assert len(sub["target_ID"]) == len(sub["target_bbox"]), key
                    assert "unboxed_ID" not in sub  # every synthetic entity has a box
                    assert key in question["sub_questions"]
        last = el["labels"][slots[-1]]
        assert last["final_bbox"] == q.answer["boxes"]
        assert set(question["sub_questions"]) <= set(el["labels"]["slot1"])
        assert question["sub_questions"][
            "human" if el["type"] != "object" else next(iter(question["sub_questions"]))
        ].startswith("Find")
        if q.difficulty.R:
            relations_to_people = [
                e
                for e in q.criteria["pattern"]["edges"]
                if e["parent"] == 0
                and q.criteria["pattern"]["nodes"][e["child"]]["kind"] != "robot"
            ]
            if relations_to_people:
                assert el["labels"][slots[-1]]["final_ID_pair"]


def test_vqa_ground_truth_loads_and_matches_exactly(generated, tmp_path, monkeypatch):
    base, questions = generated
    elements = _export(base.db, tmp_path / "vqa.json", "jrdb-reasoning-vqa")
    tasks = {questions[el["id"]].task for el in elements}
    assert tasks == {"vqa-wh", "vqa-count"} and len(elements) >= 12
    _images(elements, tmp_path / "images")
    monkeypatch.setattr(real, "IMAGE_ROOT", str(tmp_path / "images"))
    results = real.run_vqa_evaluation(str(tmp_path / "vqa.json"))
    assert len(results) == len(elements)
    for el, r in zip(elements, results, strict=True):
        assert "error" not in r, r
        assert r["exact_match"] == 1, (el["question"], r)
        q = questions[el["id"]]
        answer = el["labels"]["slot1"]["final_answer"]
        if q.task == "vqa-count":
            assert answer == q.answer and el["question"]["options"].count(q.answer) == 1
            # the script compares numbers with the options' strings: its option_accuracy
            # is 0 for every Count question whatever the answer, so only exact_match counts
        else:
            assert answer == [q.answer] and q.answer in el["question"]["options"]
            assert r["option_accuracy"] == 1
        assert el["task_type"] == "VQA"
        assert el["question"]["timestamps"]["slot1"]["image_ids"]
        for sub in el["question"]["sub_questions"].values():
            assert set(sub) == {"question", "options"}


def test_nothing_approved_says_how_many_are_pending(generated, tmp_path, capsys):
    base, questions = generated
    db = tmp_path / "copy.reasonscope"
    shutil.copy(base.db, db)
    pending = sum(1 for q in questions.values() if q.status == "pending")
    for fmt, what in (
        ("jrdb-reasoning-vg", "vg"),
        ("jrdb-reasoning-vqa", "vqa-wh and vqa-count"),
        ("reasonscope-benchmark/1", ""),
    ):
        out = tmp_path / "out.json"
        capsys.readouterr()
        assert (
            main(["export", "benchmark", "--format", fmt, "--out", str(out), "--db", str(db)]) == 2
        )
        err = capsys.readouterr().err
        assert len(err.strip().splitlines()) == 1 and "pending" in err and what in err
        assert not out.exists()
    vg_pending = sum(1 for q in questions.values() if q.task == "vg")
    assert (
        main(
            [
                "export",
                "benchmark",
                "--format",
                "jrdb-reasoning-vg",
                "--out",
                str(tmp_path / "x.json"),
                "--db",
                str(db),
            ]
        )
        == 2
    )
    assert f"({vg_pending} pending" in capsys.readouterr().err
    assert main(["export", "benchmark", "--out", str(tmp_path / "y.jsonl"), "--db", str(db)]) == 2
    assert f"({pending} pending" in capsys.readouterr().err


def test_an_entity_without_a_box_is_named_not_dropped(generated):
    from dataclasses import replace

    from app.io.jrdb_reasoning import Window, element

    base, questions = generated
    q = next(
        q
        for q in questions.values()
        if q.task == "vg" and q.difficulty.T == 1 and len(q.steps[0]["entity_ids"]) > 1
    )
    gone = next(i for i in q.steps[0]["entity_ids"] if i not in q.answer["entity_ids"])
    steps = [{**s, "boxes": {k: v for k, v in s["boxes"].items() if k != gone}} for s in q.steps]
    q = replace(q, steps=steps)
    with open_project(base.db) as p:
        frames = {f.id: f for f in p.sequences.frames(q.sequence_id)}
        keys = {e.id: e.key for e in p.sequences.entities(q.sequence_id)}
        w = Window(p, q, frames, keys)
        w.boxes(0).pop(gone, None)  # the frame has no 2D box of it either
        el = element(q, "seq", w, {})
    sub = el["labels"]["slot1"][q.steps[0]["key"]]
    assert gone not in sub["target_ID"] and sub["unboxed_ID"] == [gone]
    assert len(sub["target_ID"]) == len(sub["target_bbox"]) == len(q.steps[0]["entity_ids"]) - 1


def test_approved_questions_only_by_default(generated, tmp_path, capsys):
    from annotation.verification import Verdict

    base, questions = generated
    db = tmp_path / "approved.reasonscope"
    shutil.copy(base.db, db)
    vg = [q for q in questions.values() if q.task == "vg"][:2]
    approve = Verdict(True, True, True, "approve")
    with open_project(db) as p:
        ann, ben = p.annotators.sign_in("Ann"), p.annotators.sign_in("Ben")
        for q in vg:
            p.verifications.submit(q.id, ann, approve, seconds_on_task=3)
            p.verifications.submit(q.id, ben, approve, seconds_on_task=3)
        assert {p.questions.get(q.id).status for q in vg} == {"approved"}
    out = tmp_path / "vg.json"
    assert (
        main(
            [
                "export",
                "benchmark",
                "--format",
                "jrdb-reasoning-vg",
                "--out",
                str(out),
                "--db",
                str(db),
            ]
        )
        == 0
    )
    assert sorted(el["id"] for el in json.loads(out.read_text())) == sorted(q.uid for q in vg)
    assert "Wrote 2 VG questions" in capsys.readouterr().out
    assert (
        main(
            [
                "export",
                "benchmark",
                "--format",
                "jrdb-reasoning-vqa",
                "--out",
                str(out),
                "--db",
                str(db),
            ]
        )
        == 2
    )  # no VQA question is approved
    assert "no approved jrdb vqa-wh and vqa-count questions" in capsys.readouterr().err


def test_a_video_vg_answer_is_a_track_over_its_window(generated, tmp_path, capsys):
    """Generated video VG questions hold the targets' box in every frame of their window
    (the stored 2D boxes of the frame), the export carries them per slot beside the keys
    the real script reads, and a predicted track is scored by its mean IoU."""
    base, questions = generated
    videos = [
        q
        for q in questions.values()
        if q.task == "vg" and q.criteria["preferences"]["modality"] == "video"
    ]
    assert videos
    with open_project(base.db) as p:
        keys = {e.id: e.key for e in p.sequences.entities(videos[0].sequence_id)}
        for q in videos:
            track = q.answer["track"]
            assert [f["frame_id"] for f in track] == q.criteria["frame_ids"]
            assert [f["image_id"] for f in track] == q.criteria["image_ids"]
            for frame in track:
                stored = {keys[b.entity_id]: b for b in p.sequences.boxes_2d(frame["frame_id"])}
                for target, box in zip(q.answer["entity_ids"], frame["boxes"], strict=True):
                    b = stored.get(target)
                    assert box == (
                        None if b is None else [round(v, 2) for v in (b.x, b.y, b.w, b.h)]
                    )
    elements = {el["id"]: el for el in _export(base.db, tmp_path / "vg.json", "jrdb-reasoning-vg")}
    for q in videos:
        for slot in elements[q.uid]["labels"].values():
            assert slot["final_track_image_ids"] == slot["image_ids"]
            by_image = {f["image_id"]: f for f in q.answer["track"]}
            assert slot["final_track_bbox"] == [
                [b for b in by_image[i]["boxes"] if b is not None] for i in slot["image_ids"]
            ]
    # a track prediction: exact on every frame, then on the answer frame only
    q = videos[0]
    exact = {
        f["image_id"]: [b for b in f["boxes"] if b] for f in q.answer["track"] if any(f["boxes"])
    }
    last = {q.answer["image_id"]: q.answer["boxes"]}
    preds = tmp_path / "tracks.jsonl"
    preds.write_text(
        json.dumps({"question_id": q.uid, "track": exact, "model": "exact"})
        + "\n"
        + json.dumps({"question_id": q.uid, "track": last, "model": "last"})
        + "\n"
    )
    assert main(["import", "predictions", str(preds), "--db", str(base.db)]) == 0
    with open_project(base.db) as p:
        scored = {r.model: r for r in p.reasoning.predictions() if r.question_uid == q.uid}
    assert scored["exact"].correct and scored["exact"].iou == 1.0
    assert scored["last"].iou == pytest.approx(1 / len(exact), abs=1e-3)
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"question_id": q.uid, "track": "everywhere", "model": "x"}) + "\n")
    assert main(["import", "predictions", str(bad), "--db", str(base.db)]) == 2
    assert "bad.jsonl:1: 'track': a track is" in capsys.readouterr().err


def test_every_exported_box_is_the_projects_box_of_its_entity(generated, tmp_path):
    """Values, not lengths: final_bbox, final_bbox_pair and every key's target_bbox hold,
    entity by entity, the box the project stores for that entity in the slot's key frame
    (a step's own boxes where the step was evaluated in that slot, which are the same)."""
    base, questions = generated
    checked = 0
    for fmt in ("jrdb-reasoning-vg", "jrdb-reasoning-vqa"):
        elements = _export(base.db, tmp_path / f"{fmt}.json", fmt)
        with open_project(base.db) as p:
            key_of = {e.id: e.key for e in p.sequences.entities(base.sequence_id)}
            boxes_in = {}
            for f in p.sequences.frames(base.sequence_id):
                boxes_in[Path(f.image_path).name] = {
                    key_of[b.entity_id]: [
                        round(b.x, 2),
                        round(b.y, 2),
                        round(b.w, 2),
                        round(b.h, 2),
                    ]
                    for b in p.sequences.boxes_2d(f.id)
                    if b.entity_id in key_of
                }
        for el in elements:
            for slot in el["labels"].values():
                stored = boxes_in[slot["key_image_id"]]
                pairs = [("final_ID", "final_bbox"), ("final_ID_pair", "final_bbox_pair")]
                pairs += [
                    (f"{k}\0target_ID", f"{k}\0target_bbox")
                    for k, v in slot.items()
                    if isinstance(v, dict) and "target_bbox" in v
                ]
                for ids_at, boxes_at in pairs:
                    if "\0" in ids_at:
                        key = ids_at.split("\0")[0]
                        ids, boxes = slot[key]["target_ID"], slot[key]["target_bbox"]
                    else:
                        ids, boxes = slot[ids_at], slot[boxes_at]
                    for entity, box in zip(ids, boxes, strict=True):
                        assert box == stored[entity], (el["id"], ids_at, entity)
                        checked += 1
    assert checked > 200


def test_every_questions_difficulty_is_counted_from_its_parts(generated):
    """S is the pattern's nodes (the scope asked for: single 1, pair 2, clique 3), R its
    edges, T the time slots it uses (1 on an image), D their sum, and the paper's level
    follows from S, R and T."""
    from annotation.jrdb.reasoning_eval import difficulty_level

    _, questions = generated
    scope = {"single": 1, "pair": 2, "clique": 3}
    assert len(questions) >= 30
    for q in questions.values():
        pattern, prefs = q.criteria["pattern"], q.criteria["preferences"]
        S, R, T = q.difficulty.S, q.difficulty.R, q.difficulty.T  # noqa: N806
        assert S == len(pattern["nodes"]) == scope[prefs["spatial"]], q.uid
        assert R == len(pattern["edges"]), q.uid
        slots = len(q.criteria["question_slots"])
        assert T == (1 if prefs["modality"] == "image" else slots), q.uid
        assert q.difficulty.D == S + R + T, q.uid
        level = difficulty_level(S, R, T)
        expected = (
            "D1"
            if (S, R, T) == (1, 0, 1)
            else "D2"
            if S == 2 and R >= 1 and T == 1
            else "D3"
            if S == 3 and R >= 2 and T == 1
            else "other"
        )
        assert level == expected, q.uid
