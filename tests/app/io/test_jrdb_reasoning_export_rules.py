"""The JRDB-Reasoning export writer's rules, value by value, on a project built in a few
hundredths of a second (tests/jrdb_reasoning_fixture.py): every field an element holds,
checked against the project's boxes, ids and answers; the fallbacks; each refusal's exact
words. `make mutants` runs these over app/io/jrdb_reasoning.py. The layout is the real
writer's, as test_jrdb_reasoning_export.py (seconds a test) established it against
JRDB-Reasoning's own scripts (tests/real_clients/jrdb_reasoning_eval.py), whose readers
read the files here too.
"""

from __future__ import annotations

import json
from dataclasses import replace
from itertools import islice

import pytest
from jrdb_reasoning_fixture import (
    CORRECTED_BOX,
    IMAGES,
    P1,
    P2,
    P3,
    SEQUENCE,
    STEP_TABLE_BOX,
    T1,
    as_question,
    assert_count_options,
    box,
    build_tiny_project,
    element_of,
    imported_count,
    questions_only_project,
    reading,
    same,
    slot_times,
    sub,
    vg_group,
    vg_robot,
    vg_simple,
    vg_two,
)

import tests.real_clients.jrdb_reasoning_eval as real
from app.io.jrdb_reasoning import (
    NothingToExport,
    clean_answer,
    current_questions,
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
            "variable": {"action": {"variable": ["running"]}},
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


def test_a_wh_question_asks_its_attribute_and_offers_the_values_in_use(tiny, stored, tmp_path):
    """Approved (and corrected), the values of `action` in use are the two Wh answers;
    with the pending questions, their `standing` joins them. The man asked about has no
    box in frame 2."""
    _, elements = export(tiny.db, tmp_path, VQA)
    el = elements["wh-action"]
    answer = ["looking at something"]  # "looking at sth.", as the real scorer reads it
    options = el["question"]["options"]
    assert sorted(options) == [answer[0], "walking"]
    assert sorted(elements["wh-walk"]["question"]["options"]) == [answer[0], "walking"]
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
        "options": options,
        "sub_questions": {
            **{k: {"question": t, "options": []} for k, t in steps.items()},
            "action": {"question": text, "options": options},
        },
    }
    same(el["question"], expected)
    assert (el["task_type"], el["type"], el["difficulty_level"]) == ("VQA", "human", 2)
    _, everything = export(tiny.db, tmp_path, VQA, "any")
    assert sorted(everything["wh-action"]["question"]["options"]) == [
        answer[0],
        "standing",
        "walking",
    ]
    age = everything["wh-age"]["question"]
    assert sorted(age["options"]) == sorted(AGES)  # JRDB's closed list, the answer once
    assert age["sub_questions"]["age"] == {"question": age["question"], "options": age["options"]}
    assert everything["wh-age"]["labels"]["slot1"]["final_answer"] == ["young adult"]


def test_the_files_hold_the_wanted_questions_and_say_what_was_left_out(tiny, tmp_path):
    """approved and corrected by default, every status with "any"; `other` counts the
    questions of the other tasks that the status would take, `no_box` the VG questions
    whose answer has no box (left out)."""
    vqa = ["count", "wh-action", "wh-walk"]
    cases = [
        (VG, "approved", ["vg-pair", "vg-video"], {"written": 2, "other": 4, "no_box": 1}),
        (VG, "any", ["vg-pair", "vg-video", "vg-pending"], {"written": 3, "other": 5, "no_box": 2}),
        (VQA, "approved", vqa, {"written": 3, "other": 4, "no_box": 0}),
        (VQA, "any", [*vqa, "wh-age"], {"written": 4, "other": 6, "no_box": 0}),
        (VQA, "corrected", vqa, {"written": 3, "other": 4, "no_box": 0}),
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
    for image in IMAGES:
        (tmp_path / "images" / SEQUENCE / image).touch()
    truth = {"count": (1, "numeric"), "wh-action": (["looking at something"], "text_list")}
    truth |= {"wh-walk": (["walking"], "text_list"), "wh-age": (["young adult"], "text_list")}
    for uid, (answer, kind) in truth.items():
        evaluator = real.VQAEvaluator(vqa[uid], None, None)
        assert (evaluator.true_answer, evaluator.answer_type) == (answer, kind)
        result = evaluator.run_evaluation()
        assert result["exact_match"] == 1 and "error" not in result, (uid, result)


def test_with_nothing_to_export_it_says_how_many_wait_and_writes_nothing(tmp_path):
    """Two pending VG questions, an excluded one, an approved MG-VQA question: nothing
    approved to export, and no VQA question at all."""
    records = [
        vg_simple("p1", "pending", 0, P1),
        vg_simple("p2", "pending", 0, P2),
        vg_simple("x", "excluded", 0, P1),
        {
            "uid": "m",
            "benchmark": "mgvqa",
            "task": "count",
            "status": "approved",
            "text": "How many mugs?",
            "answer": 1,
        },
    ]
    db = questions_only_project(tmp_path / "refusing.reasonscope", records)
    out = tmp_path / "out.json"
    tail = "pending verification; --status any exports them unverified)"
    for fmt, status, words in [
        (VG, "approved", f"no approved jrdb vg questions to export (2 {tail}"),
        (VQA, "approved", f"no approved jrdb vqa-wh and vqa-count questions to export (0 {tail}"),
        (VQA, "any", f"no jrdb vqa-wh and vqa-count questions to export (0 {tail}"),
    ]:
        with pytest.raises(NothingToExport) as refused:
            export_jrdb_reasoning(db, out, fmt=fmt, status=status)
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
    has a box and nothing is a pair (there is no graph); the file names no sequence. A Wh
    question naming no attribute asks for the "answer"."""
    wh = {"uid": "wh", "task": "vqa-wh", "status": "approved", "text": "What?", "answer": "walking"}
    db = questions_only_project(tmp_path / "imported.reasonscope", [imported_count(), wh])
    _, elements = export(db, tmp_path, VQA)
    asked = elements["wh"]["question"]["sub_questions"]
    assert asked == {"answer": {"question": "What?", "options": ["walking"]}}
    with open_for_reading(db) as p:
        options = exported_options(p, p.questions.page().rows)
    assert options == {"imported": elements["imported"]["question"]["options"], "wh": ["walking"]}
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
    times = {"t1": 42.0, "t2": 0.0, "image_ids": images, "type": "specific"}
    same(el["question"]["timestamps"], {"slot1": times})
    hoi = {"hoi": {"variable": ["holding"], "id_pair": T1}}
    variable = {"action": {"variable": ["walking"]}, **hoi}
    slot1 = {"start": 42, "end": 0, "variable": variable, "type": "specific"}
    entities = {"id": P1, "gender": "male", "variation_slots": {"slot1": slot1}}
    same(el["question"]["entities"], entities)
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
        {**pattern["edges"][0], "parent": 1},  # the person's, not the table's
        {**pattern["edges"][1], "parent_is_subject": False},
    ]
    record["steps"] = [
        {**record["steps"][2], "node": 0, "key": "category"},
        {**record["steps"][1], "node": 1, "key": "hoi_pair: age"},
        {**record["steps"][4], "key": None},
        {**record["steps"][2], "node": 0, "key": "category, hoi"},
    ]
    record["answer"] = {"entity_ids": [T1], "image_id": I0, "boxes": [box(T1, 0)]}
    el = element_of(tiny, as_question(tiny, record))
    held = el["labels"]["slot1"]
    assert (held["final_ID"], held["final_ID_pair"], held["final_bbox_pair"]) == (
        [T1],
        [P1],
        [box(P1, 0)],
    )
    slots = el["question"]["entities"]["variation_slots"]
    assert slots["slot1"]["variable"] == {"hoi": {"variable": ["holding"], "id_pair": P1}}


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
            for n in range(601)
        )
        every = [q.uid for q in islice(current_questions(p, None), 2000)]
        approved = [q.uid for q in islice(current_questions(p, {"approved"}), 2000)]
    assert every == [f"q{n:04d}" for n in range(601)]
    assert approved == [f"q{n:04d}" for n in range(601) if n % 3]


def test_answers_keep_only_what_the_real_scorer_reads():
    """Letters, digits, spaces and hyphens; dataset labels in words."""
    assert clean_answer("looking at sth.") == "looking at something"
    assert clean_answer("middle-aged adult") == "middle-aged adult"
    assert clean_answer("talking/on  the_phone!") == "talking on the phone"
    assert clean_answer(3) == "3"


def test_relations_are_named_as_the_real_engine_names_them(tiny):
    """Person-object geometry is `hoG`, a JRDB-Social group `social_group`; the pairs are
    the table at that distance and the other man of the group."""
    el = element_of(tiny, as_question(tiny, vg_group()))
    assert el["question"]["entities"]["variation_slots"]["slot1"]["variable"] == {
        "hoG": {"variable": ["moderate"], "id_pair": T1},
        "social_group": {"variable": ["in the same group as"], "id_pair": P3},
    }
    slot = el["labels"]["slot1"]
    assert (slot["final_ID_pair"], slot["final_bbox_pair"]) == ([T1, P3], [box(T1, 1), box(P3, 1)])
    # a relation the frame does not have pairs nothing
    q = as_question(tiny, vg_group())
    pattern = q.criteria["pattern"]
    edges = [{**pattern["edges"][0], "value": "far"}, pattern["edges"][1]]
    far = replace(q, criteria={**q.criteria, "pattern": {**pattern, "edges": edges}})
    assert element_of(tiny, far)["labels"]["slot1"]["final_ID_pair"] == [P3]


def test_a_vg_answer_is_the_answers_entities_not_the_last_steps(tiny, stored):
    """A verifier's correction may name another entity than the steps found."""
    q = stored["vg-pair"]
    corrected = replace(q, answer={"entity_ids": [P1], "image_id": I1, "boxes": [box(P1, 1)]})
    slot = element_of(tiny, corrected)["labels"]["slot1"]
    # and the adult the question relates her to is no partner of his own
    assert (slot["final_ID"], slot["final_bbox"], slot["final_ID_pair"]) == ([P1], [box(P1, 1)], [])


def test_a_vqa_question_without_steps_has_no_final_entities(tiny, stored):
    el = element_of(tiny, replace(stored["wh-action"], steps=[]))
    slot = el["labels"]["slot1"]
    assert (slot["final_ID"], slot["final_bbox"], slot["final_answer"]) == (
        [],
        [],
        ["looking at something"],
    )
    assert slot["action"] == {"target_ID": [], "target_answer": ["looking at something"]}
    assert list(el["question"]["sub_questions"]) == ["action"]


def test_a_step_without_its_question_asks_nothing_and_count_rewords_only_the_verb(tiny, stored):
    """Only the first "Find" becomes "Count"."""
    for uid in ("vg-pair", "count", "wh-action"):
        q = stored[uid]
        steps = [{k: v for k, v in q.steps[0].items() if k != "question"}, *q.steps[1:]]
        human = element_of(tiny, replace(q, steps=steps))["question"]["sub_questions"]["human"]
        assert (human if uid == "vg-pair" else human["question"]) == "", uid
    q = stored["count"]
    steps = [*q.steps[:1], {**q.steps[1], "question": "Find all tables of the Find-a-Seat cafe."}]
    subs = element_of(tiny, replace(q, steps=steps))["question"]["sub_questions"]
    assert subs["hoi_pair: category"]["question"] == "Count all tables of the Find-a-Seat cafe."


def test_a_filter_or_relation_of_an_earlier_slot_is_that_slots_variable(tiny, stored):
    q = stored["vg-video"]
    pattern = q.criteria["pattern"]
    target = {
        **pattern["nodes"][0],
        "filters": [["action", "walking", 0], ["gender", "male", None]],
    }
    edges = [{**pattern["edges"][0], "slot": 2}]
    moved = {**pattern, "nodes": [target, pattern["nodes"][1]], "edges": edges}
    el = element_of(tiny, replace(q, criteria={**q.criteria, "pattern": moved}))
    entities = el["question"]["entities"]
    assert entities["gender"] == "male"
    assert entities["variation_slots"]["slot1"]["variable"] == {"action": {"variable": ["walking"]}}
    assert entities["variation_slots"]["slot2"]["variable"] == {
        "hoi": {"variable": ["holding"], "id_pair": T1}
    }


def test_the_answer_slot_and_the_question_slots_shape_the_window(tiny, stored):
    """Answered at the start: the corrected box is slot1's. Evaluated at frames 0 and 1:
    slot2 still runs to the window's end, boxed in frame 1. A record with an answer slot
    but no question slots has one slot over the window, boxed in the answer's frame."""
    q = stored["vg-video"]
    corrected = [[float(v) for v in CORRECTED_BOX]]
    at_start = element_of(tiny, replace(q, criteria={**q.criteria, "answer_slot": 0}))["labels"]
    assert (at_start["slot1"]["final_bbox"], at_start["slot2"]["final_bbox"]) == (
        corrected,
        [box(P1, 2)],
    )
    early = element_of(
        tiny, replace(q, criteria={**q.criteria, "question_slots": [0, 1], "answer_slot": 1})
    )
    slot2 = early["labels"]["slot2"]
    assert (slot2["image_ids"], slot2["key_image_id"], slot2["final_bbox"]) == (
        [I1, I2],
        I1,
        corrected,
    )
    same(early["question"]["timestamps"]["slot2"], slot_times("s", [6, 7], [I1, I2])["s"])
    one = {k: v for k, v in q.criteria.items() if k != "question_slots"}
    el = element_of(tiny, replace(q, criteria={**one, "answer_slot": 0}))
    assert list(el["labels"]) == ["slot1"]
    slot1 = el["labels"]["slot1"]
    assert (slot1["image_ids"], slot1["key_image_id"], slot1["final_bbox"]) == (
        [I0, I1, I2],
        I0,
        corrected,
    )
    assert slot1["final_track_image_ids"] == [I0, I1, I2]
