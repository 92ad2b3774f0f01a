"""The JRDB-Reasoning export writer's rules, value by value, on a project built in a few
hundredths of a second (tests/jrdb_reasoning_fixture.py): every field an element holds,
checked against the project's boxes, ids and answers; the fallbacks (a step's own boxes,
an answer's corrected box, entities without a box, a question without frames or without
a sequence); each refusal's exact words. The run of `make mutants` over
app/io/jrdb_reasoning.py uses these tests (test_jrdb_reasoning_export.py scores generated
questions with the real scripts and takes seconds).

The layout is the real writer's, as test_jrdb_reasoning_export.py established it against
JRDB-Reasoning's own evaluation scripts (tests/real_clients/jrdb_reasoning_eval.py), whose
readers read the files here too.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import replace
from itertools import islice

import pytest
from jrdb_reasoning_fixture import (
    CORRECTED_BOX,
    IMAGES,
    NO_BOX,
    P1,
    P2,
    P3,
    SEQUENCE,
    STEP_TABLE_BOX,
    T1,
    as_question,
    box,
    build_tiny_project,
    step,
    vg_robot,
    vg_simple,
    vg_two,
    vqa_count,
)

import tests.real_clients.jrdb_reasoning_eval as real
from app.io.jrdb_reasoning import (
    NothingToExport,
    Window,
    clean_answer,
    current_questions,
    element,
    export_jrdb_reasoning,
    exported_options,
)
from store import ProjectError, open_for_reading, open_project

VG, VQA = "jrdb-reasoning-vg", "jrdb-reasoning-vqa"
I0, I1, I2 = IMAGES
AGES = {"child", "teenager", "young adult", "adult", "middle-aged adult", "elderly person"}
TOP = ["task_type", "type", "difficulty_level", "question_level", "data", "question"]
TOP += ["labels", "id", "task", "difficulty", "pattern"]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return build_tiny_project(tmp_path_factory.mktemp("jrdbr") / "tiny.reasonscope")


@pytest.fixture(scope="module")
def stored(tiny):
    with open_for_reading(tiny.db) as p:
        return {q.uid: q for q in p.questions.page(limit=50).rows}


def export(db, tmp_path, fmt, status="approved"):
    out = tmp_path / f"{fmt}-{status}.json"
    counts = export_jrdb_reasoning(db, out, fmt=fmt, status=status)
    return counts, {el["id"]: el for el in json.loads(out.read_text())}


def element_of(tiny, q, options=None, seq=SEQUENCE, keys=None):
    with reading(tiny, keys) as element_of_question:
        return element_of_question(q, options, seq)


@contextmanager
def reading(tiny, keys=None):
    """element() of questions over the tiny project, opened once."""
    with open_for_reading(tiny.db) as p:
        frames = {f.id: f for f in p.sequences.frames(tiny.sequence_id)}
        if keys is None:
            keys = {e.id: e.key for e in p.sequences.entities(tiny.sequence_id)}

        def element_of_question(q, options=None, seq=SEQUENCE):
            return element(q, seq, Window(p, q, frames, keys), options or {})

        yield element_of_question


def sub(ids, frame, **extra):
    """A key's entry: the entities with a box in the frame and their boxes, then those
    without one, then the rest (target_answer, slot)."""
    boxed = [i for i in ids if (i, frame) not in NO_BOX]
    entry = {"target_ID": boxed, "target_bbox": [box(i, frame) for i in boxed]}
    if len(boxed) < len(ids):
        entry["unboxed_ID"] = [i for i in ids if i not in boxed]
    return {**entry, **extra}


def same(got, expected):
    """Equal, keys in the same order, and numbers of the same type (6.0 is not 6)."""
    assert got == expected
    assert json.dumps(got) == json.dumps(expected)


def slot_times(name, numbers, image_ids):
    return {
        name: {
            "t1": float(numbers[0]),
            "t2": float(numbers[-1]),
            "image_ids": image_ids,
            "type": "specific",
        }
    }


def test_a_vg_image_question_is_written_field_by_field(tiny, stored, tmp_path):
    _, elements = export(tiny.db, tmp_path, VG)
    q = stored["vg-pair"]
    keys = ["human", "gender", "gender, action", "hhi_pair: human", "hhi_pair: age"]
    keys.append("gender, action, hhi")
    expected = {
        "task_type": "VG",
        "type": "human",
        "difficulty_level": 3,
        "question_level": "U(S)P(T)",
        "data": {"seq": f"{SEQUENCE}.json", "modality_type": "image", "specs": {"fps": 15}},
        "question": {
            "question": "Find the woman who is walking and walks together with an adult.",
            "spatial_level": 2,
            "temporal_level": 1,
            "entities": {
                "id": P2,
                "gender": "female",
                "variation_slots": {
                    "slot1": {
                        "start": 6,
                        "end": 6,
                        "variable": {
                            "action": {"variable": ["walking"]},
                            "hhi": {"variable": ["walking together"], "id_pair": P1},
                        },
                        "type": "specific",
                    }
                },
            },
            "timestamps": slot_times("slot1", [6], [I1]),
            "sub_questions": {k: s["question"] for k, s in zip(keys, q.steps, strict=True)},
        },
        "labels": {
            "slot1": {
                "image_ids": [I1],
                "final_ID": [P2],
                "final_bbox": [box(P2, 1)],
                # pedestrian:3 walks with her too, but the pair's last step kept the adult
                "final_ID_pair": [P1],
                "final_bbox_pair": [box(P1, 1)],
                **{k: sub(s["entity_ids"], 1) for k, s in zip(keys, q.steps, strict=True)},
                "key_image_id": I1,
            }
        },
        "id": "vg-pair",
        "task": "vg",
        "difficulty": {"S": 2, "R": 1, "T": 1, "D": 4},
        "pattern": q.criteria["pattern"],
    }
    same(elements["vg-pair"], expected)
    assert list(expected) == TOP


def test_a_video_vg_question_splits_its_window_into_its_slots(tiny, stored, tmp_path):
    """Evaluated at frames 0 and 2: slot1 is frame 0, slot2 frames 1-2 (boxed in frame 2).
    The answer's corrected box is the answer slot's; a step's own boxes are those of the
    slot it was evaluated in, the frame's elsewhere; each key names its step's slot."""
    _, elements = export(tiny.db, tmp_path, VG)
    el = elements["vg-video"]
    corrected = [float(v) for v in CORRECTED_BOX]
    slot1 = {
        "image_ids": [I0],
        "final_ID": [P1],
        "final_bbox": [box(P1, 0)],
        "final_ID_pair": [T1],
        "final_bbox_pair": [box(T1, 0)],
        "final_track_image_ids": [I0],
        "final_track_bbox": [[box(P1, 0)]],
        "human": sub([P1, P2, P3], 0, slot="slot2"),
        "action": sub([P1, P2], 0, slot="slot2"),
        "hoi_pair: category": {"target_ID": [T1], "target_bbox": [STEP_TABLE_BOX], "slot": "slot1"},
        "action, hoi": sub([P1], 0, slot="slot1"),
        "key_image_id": I0,
    }
    slot2 = {
        "image_ids": [I1, I2],
        "final_ID": [P1],
        "final_bbox": [corrected],
        "final_ID_pair": [],
        "final_bbox_pair": [],
        "final_unboxed_ID": [T1],  # the table has no box in frame 2
        "final_track_image_ids": [I1, I2],
        "final_track_bbox": [[], [box(P1, 2)]],  # out of view in frame 1
        "human": sub([P1, P2, P3], 2, slot="slot2"),
        "action": sub([P1, P2], 2, slot="slot2"),
        "hoi_pair: category": sub([T1], 2, slot="slot1"),
        "action, hoi": sub([P1], 2, slot="slot1"),
        "key_image_id": I2,
    }
    same(el["labels"], {"slot1": slot1, "slot2": slot2})
    question = el["question"]
    same(
        question["timestamps"],
        {**slot_times("slot1", [5], [I0]), **slot_times("slot2", [6, 7], [I1, I2])},
    )
    hoi = {"hoi": {"variable": ["holding"], "id_pair": T1}}
    variation = {
        "slot1": {"start": 5, "end": 5, "variable": hoi, "type": "specific"},
        "slot2": {
            "start": 6,
            "end": 7,
            "variable": {"action": {"variable": ["walking"]}},
            "type": "specific",
        },
    }
    same(question["entities"], {"id": P1, "variation_slots": variation})
    assert (question["spatial_level"], question["temporal_level"]) == (2, 2)
    assert (el["type"], el["difficulty_level"]) == ("human&object", 4)
    assert el["data"]["modality_type"] == "video"
    assert el["difficulty"] == {"S": 2, "R": 1, "T": 2, "D": 5}


def test_a_count_question_counts_every_key(tiny, stored, tmp_path):
    """Frame 2, where the table has no box: the answer's pair is named, not dropped."""
    _, elements = export(tiny.db, tmp_path, VQA)
    el = elements["count"]
    labels = {
        "image_ids": [I2],
        "final_ID": [P1],
        "final_bbox": [box(P1, 2)],
        "final_ID_pair": [],
        "final_bbox_pair": [],
        "final_unboxed_ID": [T1],
        "final_answer": 1,
        "human": sub([P1, P2, P3], 2, target_answer=3),
        "hoi_pair: category": sub([T1], 2, target_answer=1),
        "hoi": sub([P1], 2, target_answer=1),
        "key_image_id": I2,
    }
    same(el["labels"], {"slot1": labels})
    question = el["question"]
    assert list(question) == [
        "question",
        "spatial_level",
        "temporal_level",
        "entities",
        "timestamps",
        "options",
        "sub_questions",
    ]
    assert question["question"] == "How many people hold a table?"
    assert el["task_type"] == "VQA" and el["type"] == "human&object"
    counted = {
        "human": ("Count all people.", 3),
        "hoi_pair: category": ("Count all tables.", 1),
        "hoi": ("Count the people who hold a table.", 1),
    }
    assert list(question["sub_questions"]) == list(counted)
    for key, (text, n) in counted.items():
        got = question["sub_questions"][key]
        assert list(got) == ["question", "options"] and got["question"] == text
        assert_count_options(got["options"], n)
    assert_count_options(question["options"], 1)
    same(question["timestamps"], slot_times("slot1", [7], [I2]))


def assert_count_options(options, answer):
    """generate_options_count: five different numbers, sorted, the answer among them and
    the others from 1 to 12."""
    assert len(options) == 5 and options == sorted(set(options)), options
    assert answer in options and set(options) - {answer} <= set(range(1, 13)), options
    assert all(type(o) is int for o in options)


def test_a_wh_question_asks_its_attribute_and_offers_the_values_in_use(tiny, stored, tmp_path):
    """Approved, only the answer is a value of `action` in use; with the pending
    questions, their `standing` joins it. The man asked about has no box in frame 2."""
    _, elements = export(tiny.db, tmp_path, VQA)
    el = elements["wh-action"]
    answer = ["looking at something"]  # "looking at sth.", as the real scorer reads it
    labels = {
        "image_ids": [I2],
        "final_ID": [],
        "final_bbox": [],
        "final_ID_pair": [],
        "final_bbox_pair": [],
        "final_unboxed_ID": [P3],
        "final_answer": answer,
        "human": sub([P1, P2, P3], 2),
        "gender": sub([P1, P3], 2),
        "gender, age": sub([P3], 2),
        "action": {"target_ID": [P3], "target_answer": answer},
        "key_image_id": I2,
    }
    same(el["labels"], {"slot1": labels})
    text = "What is the young man doing?"
    steps = {
        "human": "Find all people.",
        "gender": "Find the men.",
        "gender, age": "Find the young men.",
    }
    expected = {
        "question": text,
        "spatial_level": 1,
        "temporal_level": 1,
        "entities": {
            "id": P3,
            "gender": "male",
            "age": "young_adulthood",
            "variation_slots": {
                "slot1": {"start": 7, "end": 7, "variable": {}, "type": "specific"}
            },
        },
        "timestamps": slot_times("slot1", [7], [I2]),
        "options": answer,
        "sub_questions": {
            **{k: {"question": t, "options": []} for k, t in steps.items()},
            "action": {"question": text, "options": answer},
        },
    }
    same(el["question"], expected)
    assert (el["task_type"], el["type"], el["difficulty_level"]) == ("VQA", "human", 2)
    _, everything = export(tiny.db, tmp_path, VQA, "any")
    assert sorted(everything["wh-action"]["question"]["options"]) == [answer[0], "standing"]
    age = everything["wh-age"]["question"]
    assert sorted(age["options"]) == sorted(AGES)  # JRDB's closed list, the answer once
    assert age["sub_questions"]["age"] == {"question": age["question"], "options": age["options"]}
    assert everything["wh-age"]["labels"]["slot1"]["final_answer"] == ["young adult"]


def test_the_files_hold_the_wanted_questions_and_say_what_was_left_out(tiny, tmp_path):
    """approved and corrected by default, every status with "any"; `other` counts the
    questions of the other tasks that the status would take, `no_box` the VG questions
    whose answer has no box (left out)."""
    cases = [
        (VG, "approved", ["vg-pair", "vg-video"], {"written": 2, "other": 3, "no_box": 1}),
        (
            VG,
            "any",
            ["vg-pair", "vg-video", "vg-pending", "vg-excluded"],
            {"written": 4, "other": 4, "no_box": 1},
        ),
        (VQA, "approved", ["count", "wh-action"], {"written": 2, "other": 4, "no_box": 0}),
        (VQA, "any", ["count", "wh-action", "wh-age"], {"written": 3, "other": 6, "no_box": 0}),
        (VQA, "corrected", ["count", "wh-action"], {"written": 2, "other": 4, "no_box": 0}),
    ]
    for fmt, status, uids, counts in cases:
        got, elements = export(tiny.db, tmp_path, fmt, status)
        assert (list(elements), got) == (uids, counts), (fmt, status)
    text = (tmp_path / f"{VG}-approved.json").read_text()
    assert text.startswith('[\n {\n  "task_type": "VG",\n')  # one space a level


def test_the_real_scripts_read_the_files(tiny, tmp_path, monkeypatch):
    """The real VG script finds the image of slot1 in the sequence's folder and its ground
    truth in final_bbox, or in a key's target_bbox; the real VQA script reads the answer
    and scores it as an exact match."""
    _, vg = export(tiny.db, tmp_path, VG, "any")
    monkeypatch.setattr(real, "IMAGES_ROOT", str(tmp_path / "images"))
    el = vg["vg-pair"]
    image, question, boxes = real.extract_entry_fields(el)
    assert image == str(tmp_path / "images" / SEQUENCE / I1)
    assert (question, boxes) == (el["question"]["question"], [box(P2, 1)])
    monkeypatch.setattr(real, "QUESTION_KEY", "hhi_pair: age")
    assert real.extract_entry_fields(el)[2] == [box(P1, 1)]
    _, vqa = export(tiny.db, tmp_path, VQA, "any")
    monkeypatch.setattr(real, "IMAGE_ROOT", str(tmp_path / "images"))
    (tmp_path / "images" / SEQUENCE).mkdir(parents=True)
    (tmp_path / "images" / SEQUENCE / I2).touch()
    truth = {"count": (1, "numeric"), "wh-action": (["looking at something"], "text_list")}
    truth["wh-age"] = (["young adult"], "text_list")
    for uid, (answer, kind) in truth.items():
        evaluator = real.VQAEvaluator(vqa[uid], None, None)
        assert (evaluator.true_answer, evaluator.answer_type) == (answer, kind)
        result = evaluator.run_evaluation()
        assert result["exact_match"] == 1 and "error" not in result, (uid, result)


def refusing_project(tmp_path):
    """Two pending VG questions, an excluded one, a pending Count question, an approved
    MG-VQA question: nothing approved to export."""
    records = [
        vg_simple("p1", "pending", 0, P1),
        vg_simple("p2", "pending", 0, P2),
        vg_simple("x", "excluded", 0, P1),
        {**vqa_count(), "status": "pending"},
        {"uid": "m", "benchmark": "mgvqa", "task": "count", "text": "How many mugs?", "answer": 1},
    ]
    return build_tiny_project(tmp_path / "refusing.reasonscope", records)


def test_with_nothing_to_export_it_says_how_many_wait_and_writes_nothing(tmp_path):
    db = refusing_project(tmp_path).db
    empty = build_tiny_project(tmp_path / "empty.reasonscope", []).db
    out = tmp_path / "out.json"
    tail = "pending verification; --status any exports them unverified)"
    for path, fmt, status, words in [
        (db, VG, "approved", f"no approved jrdb vg questions to export (2 {tail}"),
        (
            db,
            VQA,
            "approved",
            f"no approved jrdb vqa-wh and vqa-count questions to export (1 {tail}",
        ),
        (empty, VG, "any", f"no jrdb vg questions to export (0 {tail}"),
    ]:
        with pytest.raises(NothingToExport) as refused:
            export_jrdb_reasoning(path, out, fmt=fmt, status=status)
        assert str(refused.value) == words
        assert not out.exists()
    assert isinstance(refused.value, ValueError)


def test_an_unwritable_path_is_refused_before_the_project_is_read(tmp_path):
    nowhere = tmp_path / "no-such.reasonscope"
    for target in (tmp_path, tmp_path / "missing" / "out.json"):
        with pytest.raises(ProjectError) as refused:
            export_jrdb_reasoning(nowhere, target)
        assert str(refused.value) == f"{target}: not a writable file path"
    assert not nowhere.exists()


def test_exported_options_are_the_files_options(tiny, stored, tmp_path):
    """A model run asks each VQA question with the options the file of the same status
    holds: Count options seeded by the uid, Wh options drawn from that file's values."""
    for status in ("approved", "any"):
        _, elements = export(tiny.db, tmp_path, VQA, status)
        with open_for_reading(tiny.db) as p:
            got = exported_options(p, list(stored.values()), status)
        assert got == {uid: el["question"]["options"] for uid, el in elements.items()} | (
            {"wh-age": got["wh-age"]} if status == "approved" else {}
        )
    with open_for_reading(tiny.db) as p:
        approved = exported_options(p, [stored["wh-age"]])
    assert sorted(approved["wh-age"]) == sorted(AGES)
    assert list(approved) == ["wh-age"]


def test_count_options_are_five_numbers_from_1_to_12_with_the_answer(tiny, stored):
    """Over many uids: always five, sorted, with the answer; every number 1-12 drawn; the
    same uid draws the same options."""
    seen: set[int] = set()
    firsts = set()
    with reading(tiny) as element_of_question:
        for n in range(30):
            q = replace(stored["count"], uid=f"count-{n}", answer=7)
            el = element_of_question(q)
            options = el["question"]["options"]
            assert_count_options(options, 7)
            seen |= set(options)
            for key, target in (("human", 3), ("hoi", 1)):
                assert_count_options(el["question"]["sub_questions"][key]["options"], target)
            firsts.add(tuple(options))
            assert element_of_question(q)["question"] == el["question"]
    assert seen == set(range(1, 13))
    assert len(firsts) > 20


def test_wh_options_are_the_answer_and_at_most_fourteen_others_shuffled(tiny, stored):
    """Twenty values in use: fifteen options, the answer once, the others drawn and the
    answer placed at random (seeded by the uid); values of other attributes never."""
    values = [f"value {n:02d}" for n in range(20)]
    in_use = {"action": values + ["looking at something"], "age": ["ancient"]}
    chosen, places = set(), set()
    with reading(tiny) as element_of_question:
        for n in range(12):
            q = replace(stored["wh-action"], uid=f"wh-{n}")
            options = element_of_question(q, in_use)["question"]["options"]
            assert len(options) == 15 and len(set(options)) == 15, options
            assert options.count("looking at something") == 1
            assert set(options) - {"looking at something"} <= set(values)
            assert element_of_question(q, in_use)["question"]["options"] == options
            chosen.add(frozenset(options))
            places.add(options.index("looking at something"))
    assert len(chosen) > 6 and len(places) > 4
    few = element_of(tiny, stored["wh-action"], {"action": ["sitting"]})
    assert sorted(few["question"]["options"]) == ["looking at something", "sitting"]


def test_a_question_without_a_sequence_numbers_its_frames_from_its_image_names(tmp_path):
    """An imported line naming no sequence and no frames: frame numbers are the last
    digits of each image name (0 without any), the last image is the key frame, nothing
    has a box and nothing is a pair (there is no graph); the file names no sequence."""
    human = {**step("Find all people.", "human", [P1, P2], 1), "boxes": {P1: box(P1, 0)}}
    record = {
        "uid": "imported",
        "task": "vqa-count",
        "status": "approved",
        "sequence_id": None,
        "text": "How many people hold a table?",
        "answer": 2,
        "steps": [human],
        "criteria": {
            "image_ids": ["cam2_000042.jpg", "last.jpg"],
            "pattern": {
                "nodes": [
                    {
                        "kind": "human",
                        "bound": P1,
                        "filters": [["gender", "male", None], ["action", "walking", 0]],
                    },
                    {"kind": "object", "bound": T1, "filters": [["category", "table", None]]},
                ],
                "edges": [
                    {
                        "parent": 0,
                        "child": 1,
                        "family": "hoi",
                        "value": "holding",
                        "slot": 0,
                        "parent_is_subject": True,
                    }
                ],
            },
        },
    }
    db = build_tiny_project(tmp_path / "imported.reasonscope", [record]).db
    _, elements = export(db, tmp_path, VQA)
    el = elements["imported"]
    assert el["data"]["seq"] == ".json"
    images = ["cam2_000042.jpg", "last.jpg"]
    labels = {
        "image_ids": images,
        "final_ID": [],
        "final_bbox": [],
        "final_ID_pair": [],
        "final_bbox_pair": [],
        "final_unboxed_ID": [P1, P2],
        "final_answer": 2,
        # the step was evaluated in the window's last frame (slot 1), where its box is its own
        "human": {
            "target_ID": [P1],
            "target_bbox": [box(P1, 0)],
            "unboxed_ID": [P2],
            "target_answer": 2,
        },
        "key_image_id": "last.jpg",
    }
    same(el["labels"], {"slot1": labels})
    same(
        el["question"]["timestamps"],
        {"slot1": {"t1": 42.0, "t2": 0.0, "image_ids": images, "type": "specific"}},
    )
    variable = {
        "action": {"variable": ["walking"]},
        "hoi": {"variable": ["holding"], "id_pair": T1},
    }
    slot1 = {"start": 42, "end": 0, "variable": variable, "type": "specific"}
    same(
        el["question"]["entities"],
        {"id": P1, "gender": "male", "variation_slots": {"slot1": slot1}},
    )
    assert (el["question"]["spatial_level"], el["difficulty_level"], el["difficulty"]) == (1, 2, {})


def test_only_the_targets_own_relations_to_entities_with_a_box_give_pairs(tiny):
    """The robot is no pair (it has no box), nor is a relation between two other nodes;
    a relation read from the reference to the target pairs them the other way round; a
    partner shared by two answers is named once."""
    robot = element_of(tiny, as_question(tiny, vg_robot()))
    slot = robot["labels"]["slot1"]
    assert (slot["final_ID_pair"], slot["final_bbox_pair"]) == ([T1], [box(T1, 0)])
    assert "final_unboxed_ID" not in slot
    keys = ["human", "age", "hoi_pair: category", "age, hoi", "age, hoi, SR_Robot_Ref"]
    assert list(robot["question"]["sub_questions"]) == keys  # the robot's step has no key
    assert [k for k, v in slot.items() if isinstance(v, dict)] == keys
    assert robot["question"]["entities"]["variation_slots"]["slot1"]["variable"] == {
        "hoi": {"variable": ["holding"], "id_pair": T1},
        "SR_Robot_Ref": {"variable": ["front-left"], "id_pair": "robot"},
    }
    two = element_of(tiny, as_question(tiny, vg_two()))["labels"]["slot1"]
    assert (two["final_ID"], two["final_bbox"]) == ([P1, P3], [box(P1, 1), box(P3, 1)])
    assert (two["final_ID_pair"], two["final_bbox_pair"]) == ([P2], [box(P2, 1)])
    # the table's holder, read from the person: (person, table)
    record = vg_robot()
    pattern = record["criteria"]["pattern"]
    pattern["nodes"] = [pattern["nodes"][1], pattern["nodes"][0], pattern["nodes"][2]]
    pattern["edges"] = [
        {**pattern["edges"][0], "parent_is_subject": False},
        {**pattern["edges"][1], "parent": 1},  # the person's, not the table's
    ]
    record["steps"] = [
        {**record["steps"][2], "node": 0, "key": "category"},
        {**record["steps"][1], "node": 1, "key": "hoi_pair: age"},
        {**record["steps"][4], "key": None},
        {**record["steps"][2], "node": 0, "key": "category, hoi"},
    ]
    record["answer"] = {"entity_ids": [T1], "image_id": I0, "boxes": [box(T1, 0)]}
    held = element_of(tiny, as_question(tiny, record))["labels"]["slot1"]
    assert (held["final_ID"], held["final_ID_pair"], held["final_bbox_pair"]) == (
        [T1],
        [P1],
        [box(P1, 0)],
    )


def test_a_reference_without_steps_is_its_bound_entity(tiny, stored):
    q = stored["vg-pair"]
    alone = replace(q, steps=[s for s in q.steps if s["node"] == 0])
    slot = element_of(tiny, alone)["labels"]["slot1"]
    assert (slot["final_ID_pair"], slot["final_bbox_pair"]) == ([P1], [box(P1, 1)])
    # every partner among all people: pedestrian:1 and :3 (the step before the last)
    first = replace(q, steps=[s for s in q.steps if s["key"] != "hhi_pair: age"])
    slot = element_of(tiny, first)["labels"]["slot1"]
    assert (slot["final_ID_pair"], slot["final_bbox_pair"]) == ([P1, P3], [box(P1, 1), box(P3, 1)])


def test_a_frame_the_sequence_lacks_is_refused_by_the_question(tiny, stored):
    q = stored["vg-pair"]
    gone = replace(q, criteria={**q.criteria, "frame_ids": [999]})
    with pytest.raises(ProjectError) as refused:
        element_of(tiny, gone)
    assert (
        str(refused.value) == f"question vg-pair: frame 999 is not in sequence {tiny.sequence_id}"
    )
    assert refused.value.__cause__ is None and refused.value.__suppress_context__
    # a question without relations needs no graph: its frame number is its image's
    wh = stored["wh-action"]
    el = element_of(tiny, replace(wh, criteria={**wh.criteria, "frame_ids": [999]}))
    assert el["question"]["timestamps"]["slot1"]["t1"] == 107.0
    assert el["labels"]["slot1"]["human"] == {
        "target_ID": [P1, P2],
        "target_bbox": [box(P1, 2), box(P2, 2)],
        "unboxed_ID": [P3],
    }


def test_records_made_before_steps_had_keys_get_the_same_keys(tiny, stored):
    for uid in ("vg-pair", "vg-video", "count", "wh-action"):
        q = stored[uid]
        old = replace(q, steps=[{k: v for k, v in s.items() if k != "key"} for s in q.steps])
        assert element_of(tiny, old) == element_of(tiny, q), uid
    q = stored["vg-pair"]
    partly = replace(
        q, steps=[{k: v for k, v in s.items() if k != "key"} for s in q.steps[:1]] + q.steps[1:]
    )
    assert element_of(tiny, partly) == element_of(tiny, q)


def test_an_asked_attribute_that_is_also_a_step_key_is_marked_asked(tiny, stored):
    """A video Wh question may filter by the action at the start and ask it at the end."""
    q = stored["wh-action"]
    steps = [
        *q.steps[:2],
        {**q.steps[2], "key": "action", "question": "Find the men who are walking."},
    ]
    el = element_of(tiny, replace(q, steps=steps))
    subs = el["question"]["sub_questions"]
    assert list(subs) == ["human", "gender", "action", "action (asked)"]
    assert subs["action"] == {"question": "Find the men who are walking.", "options": []}
    assert subs["action (asked)"] == {"question": q.text, "options": ["looking at something"]}
    label = el["labels"]["slot1"]
    assert label["action"] == {"target_ID": [], "target_bbox": [], "unboxed_ID": [P3]}
    assert label["action (asked)"] == {"target_ID": [P3], "target_answer": ["looking at something"]}


def test_a_question_without_criteria_has_one_slot_and_no_frames(tiny, stored):
    """No frames, no pattern, no asked attribute: one slot numbered 0, its key frame
    unknown; the steps' own boxes (slot 0) are the only boxes; the asked key is "answer"."""
    q = replace(stored["wh-action"], criteria=None, difficulty=None)
    el = element_of(tiny, q, seq="elsewhere.json")
    assert el["data"] == {"seq": "elsewhere.json", "modality_type": "image", "specs": {"fps": 15}}
    assert (el["type"], el["pattern"], el["difficulty"], el["difficulty_level"]) == (
        "human",
        None,
        {},
        2,
    )
    assert (el["question"]["spatial_level"], el["question"]["temporal_level"]) == (1, 1)
    same(
        el["question"]["timestamps"],
        {"slot1": {"t1": 0.0, "t2": 0.0, "image_ids": [], "type": "specific"}},
    )
    slots = {"slot1": {"start": 0, "end": 0, "variable": {}, "type": "specific"}}
    same(el["question"]["entities"], {"id": None, "variation_slots": slots})
    label = el["labels"]["slot1"]
    assert (label["image_ids"], label["key_image_id"]) == ([], None)
    assert label["human"] == sub([P1, P2, P3], 2)
    assert label["answer"] == {"target_ID": [P3], "target_answer": ["looking at something"]}
    assert el["question"]["options"] == ["looking at something"]


def test_a_step_evaluated_in_a_frame_between_the_slots_names_the_slot_it_is_in(tiny, stored):
    q = stored["vg-video"]
    steps = [{**q.steps[1], "slot": 1}, *q.steps[2:]]  # no step of slot 2
    el = element_of(tiny, replace(q, steps=steps))
    assert el["labels"]["slot1"]["action"]["slot"] == "slot1"
    assert el["labels"]["slot2"]["action"]["slot"] == "slot2"
    # without an answer slot the last slot is the answer's (its corrected box)
    no_answer_slot = {k: v for k, v in q.criteria.items() if k != "answer_slot"}
    el = element_of(tiny, replace(q, criteria=no_answer_slot))
    assert el["labels"]["slot2"]["final_bbox"] == [[float(v) for v in CORRECTED_BOX]]
    assert el["labels"]["slot1"]["final_bbox"] == [box(P1, 0)]
    # an answer without its boxes is boxed in each frame
    no_boxes = replace(q, answer={**q.answer, "boxes": []})
    assert element_of(tiny, no_boxes)["labels"]["slot2"]["final_bbox"] == [box(P1, 2)]


def test_entities_without_a_box_in_the_frame_are_named_answer_first(tiny, stored):
    q = stored["count"]
    with open_for_reading(tiny.db) as p:
        keys = {e.id: e.key for e in p.sequences.entities(tiny.sequence_id) if e.key != P1}
    label = element_of(tiny, replace(q, steps=[{**s, "boxes": {}} for s in q.steps]), keys=keys)[
        "labels"
    ]["slot1"]
    assert label["final_unboxed_ID"] == [P1, T1]
    assert label["hoi"] == {
        "target_ID": [],
        "target_bbox": [],
        "unboxed_ID": [P1],
        "target_answer": 1,
    }
    assert label["human"]["target_ID"] == [P2] and label["human"]["unboxed_ID"] == [P1, P3]


def test_every_current_question_is_read_page_by_page(tmp_path):
    """More than a page (500): each question once, in the order they were stored."""
    db = tmp_path / "many.reasonscope"
    with open_project(db, create=True) as p:
        p.questions.add_many(
            {
                "uid": f"q{n:04d}",
                "benchmark": "mgvqa",
                "task": "count",
                "text": "How many?",
                "answer": n,
                "status": "approved" if n % 3 else "pending",
            }
            for n in range(1001)
        )
        every = [q.uid for q in islice(current_questions(p, None), 2000)]
        approved = [q.uid for q in islice(current_questions(p, {"approved"}), 2000)]
    assert every == [f"q{n:04d}" for n in range(1001)]
    assert approved == [f"q{n:04d}" for n in range(1001) if n % 3]


def test_answers_keep_only_what_the_real_scorer_reads():
    """Letters, digits, spaces and hyphens; dataset labels in words."""
    assert clean_answer("looking at sth.") == "looking at something"
    assert clean_answer("middle-aged adult") == "middle-aged adult"
    assert clean_answer("talking/on  the_phone!") == "talking on the phone"
    assert clean_answer(3) == "3"
