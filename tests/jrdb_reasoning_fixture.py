"""A tiny JRDB project and its questions for the JRDB-Reasoning export's rule tests
(tests/app/io/test_jrdb_reasoning_export_rules.py), built straight through the store in
a few hundredths of a second: the generated-question tests take seconds a project.

Three frames (numbers 5, 6, 7; their images numbered from 105, as when a sequence is cut
from a longer recording, so a frame's number and its image's name differ), three people
and a table. Every entity has a 2D box in every frame but two: pedestrian:3 and table:1
have none in frame 7. pedestrian:2 walks together with pedestrian:1 and with
pedestrian:3 (JRDB-Social interactions, both ways); pedestrian:1 and :3 are one JRDB-Social
group; pedestrian:1 holds the table (HOI, one way: person, then object), and is
front-left of the robot and at a moderate distance from the table (geometry). The questions are records as the query engine stores them
(`steps` with their `key` and own `boxes`, `criteria` with the bound `pattern`), with
every status the export tells apart: approved, corrected, pending and excluded, and one
MG-VQA question, which no JRDB-Reasoning file takes.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from question_fixtures import jrdb_question

from annotation.models import Difficulty, Question
from app.io.jrdb_reasoning import Window, element
from store import open_for_reading, open_project

SEQUENCE = "tiny-cafe_0"
NUMBERS = (5, 6, 7)  # frame numbers (frame_index) of frames 0, 1, 2
IMAGES = ("000105.jpg", "000106.jpg", "000107.jpg")
P1, P2, P3, T1 = "pedestrian:1", "pedestrian:2", "pedestrian:3", "table:1"
ENTITIES = {
    P1: ("human", "pedestrian", {"gender": "male", "age": "adulthood", "social_group": "1"}),
    P2: ("human", "pedestrian", {"gender": "female", "age": "middle_adulthood"}),
    P3: ("human", "pedestrian", {"gender": "male", "age": "young_adulthood", "social_group": "1"}),
    T1: ("object", "table", {}),
}
NO_BOX = {(P3, 2), (T1, 2)}  # (entity, frame) without a 2D box
#: the box pedestrian:1's verifier drew for the corrected video question's answer
CORRECTED_BOX = [1, 2, 3, 4]
#: table:1's box as the video question's step kept it in frame 5, before the box was moved
STEP_TABLE_BOX = [700.5, 80.25, 120.0, 60.0]


def box(key: str, frame: int) -> list[float]:
    """An entity's box in frame 0, 1 or 2 as the export writes it (two decimals); the
    project stores each value 0.0041 more, which rounding to two decimals drops."""
    k = list(ENTITIES).index(key)
    return [100.25 + 400 * k + 10 * frame, 60.75 + 5 * k, 40.5 + 2 * frame, 90.25 + k]


def boxes(keys: list[str], frame: int) -> dict[str, list[float]]:
    """The boxes of `keys` in a frame, as a step keeps them (none of the robot's)."""
    return {k: box(k, frame) for k in keys if k in ENTITIES and (k, frame) not in NO_BOX}


def step(question: str, key: str, ids: list[str], slot: int, node: int = 0) -> dict:
    """A step as the engine stores it; its boxes are those of graph slot `slot` when the
    question's frames are frames 0.. (the image questions below pass their own)."""
    return {
        "description": key,
        "entity_ids": ids,
        "slot": slot,
        "question": question,
        "node": node,
        "key": key,
        "boxes": {},
    }


def with_boxes(s: dict, frame: int) -> dict:
    return {**s, "boxes": boxes(s["entity_ids"], frame)}


def image_criteria(task: str, frame: int, subject: str = "human", **extra) -> dict:
    return {
        "generator": "jrdb-query-engine/1",
        "preferences": {
            "task": task,
            "modality": "image",
            "subject": subject,
            "spatial": "pair",
            "temporal": "single",
        },
        "frame_ids": [frame],  # replaced by the frame's row id when stored
        "image_ids": [IMAGES[frame]],
        "question_slots": [0],
        "answer_slot": 0,
        **extra,
    }


HHI = {
    "parent": 0,
    "child": 1,
    "family": "hhi",
    "value": "walking together",
    "slot": 0,
    "parent_is_subject": True,
}
HOI = {
    "parent": 0,
    "child": 1,
    "family": "hoi",
    "value": "holding",
    "slot": 0,
    "parent_is_subject": True,
}
TABLE = {"kind": "object", "bound": T1, "filters": [["category", "table", None]]}


def vg_pair() -> dict:
    """Image, frame 1: the woman who is walking and walks together with an adult. Her
    partners among all people are pedestrian:1 and :3; the adult among them is :1."""
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find the women.", "gender", [P2], 0),
        step("Find the women who are walking.", "gender, action", [P2], 0),
        step("Find all people.", "hhi_pair: human", [P1, P2, P3], 0, node=1),
        step("Find the adults.", "hhi_pair: age", [P1], 0, node=1),
        step(
            "Find the women who are walking and walk together with an adult.",
            "gender, action, hhi",
            [P2],
            0,
        ),
    ]
    nodes = [
        {
            "kind": "human",
            "bound": P2,
            "filters": [["gender", "female", None], ["action", "walking", 0]],
        },
        {"kind": "human", "bound": P1, "filters": [["age", "adulthood", None]]},
    ]
    return {
        "uid": "vg-pair",
        "task": "vg",
        "status": "approved",
        "text": "Find the woman who is walking and walks together with an adult.",
        "answer": {"entity_ids": [P2], "image_id": IMAGES[1], "boxes": [box(P2, 1)]},
        "steps": [with_boxes(s, 1) for s in steps],
        "difficulty": {"S": 2, "R": 1, "T": 1},
        "criteria": image_criteria(
            "vg", 1, pattern={"nodes": nodes, "edges": [HHI], "answer_slot": 0}
        ),
    }


def vg_video() -> dict:
    """Video over frames 0-2, evaluated at 0 and 2 (slot1 = [0], slot2 = [1, 2]): the
    person running at the end who holds a table at the start. Corrected: the verifier drew
    the answer's box in frame 2 anew; the table's step kept its box as it was then."""
    steps = [
        with_boxes(step("Find all people.", "human", [P1, P2, P3], 2), 2),
        with_boxes(step("Find the people running at the end.", "action", [P1, P2], 2), 2),
        {
            **step("Find all tables.", "hoi_pair: category", [T1], 0, node=1),
            "boxes": {T1: STEP_TABLE_BOX},
        },
        with_boxes(
            step(
                "Find the people running at the end who hold a table at the start.",
                "action, hoi",
                [P1],
                0,
            ),
            0,
        ),
    ]
    nodes = [{"kind": "human", "bound": P1, "filters": [["action", "running", 2]]}, TABLE]
    track = [
        {"frame_id": 0, "image_id": IMAGES[0], "boxes": [box(P1, 0)]},
        {"frame_id": 1, "image_id": IMAGES[1], "boxes": [None]},  # out of view
        {"frame_id": 2, "image_id": IMAGES[2], "boxes": [box(P1, 2)]},
    ]
    return {
        "uid": "vg-video",
        "task": "vg",
        "status": "corrected",
        "text": "Find the person running at the end who holds a table at the start.",
        "answer": {
            "entity_ids": [P1],
            "image_id": IMAGES[2],
            "boxes": [CORRECTED_BOX],
            "track": track,
        },
        "steps": steps,
        "difficulty": {"S": 2, "R": 1, "T": 2},
        "criteria": {
            "generator": "jrdb-query-engine/1",
            "preferences": {
                "task": "vg",
                "modality": "video",
                "subject": "both",
                "spatial": "pair",
                "temporal": "pair",
            },
            "frame_ids": [0, 1, 2],
            "image_ids": list(IMAGES),
            "question_slots": [0, 2],
            "answer_slot": 2,
            "pattern": {"nodes": nodes, "edges": [HOI], "answer_slot": 2},
        },
    }


def vg_simple(uid: str, status: str, frame: int, target: str) -> dict:
    """Image: the one person of the target's age (no relation, no pair)."""
    age = ENTITIES[target][2]["age"]
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find the people of that age.", "age", [target], 0),
    ]
    node = {"kind": "human", "bound": target, "filters": [["age", age, None]]}
    return {
        "uid": uid,
        "task": "vg",
        "status": status,
        "text": f"Find the person of age {age}.",
        "answer": {
            "entity_ids": [target],
            "image_id": IMAGES[frame],
            "boxes": [box(target, frame)] if (target, frame) not in NO_BOX else [],
        },
        "steps": [with_boxes(s, frame) for s in steps],
        "difficulty": {"S": 1, "R": 0, "T": 1},
        "criteria": image_criteria("vg", frame, pattern={"nodes": [node], "edges": []}),
    }


def vqa_count() -> dict:
    """Image, frame 2 (the table has no box there): how many people hold a table."""
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find all tables.", "hoi_pair: category", [T1], 0, node=1),
        step("Find the people who hold a table.", "hoi", [P1], 0),
    ]
    nodes = [{"kind": "human", "bound": P1, "filters": []}, TABLE]
    return {
        "uid": "count",
        "task": "vqa-count",
        "status": "approved",
        "text": "How many people hold a table?",
        "answer": 1,
        "steps": [with_boxes(s, 2) for s in steps],
        "difficulty": {"S": 2, "R": 1, "T": 1},
        "criteria": image_criteria(
            "vqa-count", 2, "both", pattern={"nodes": nodes, "edges": [HOI]}
        ),
    }


def vqa_wh(uid: str, status: str, asked: str, answer: str) -> dict:
    """Image, frame 2: pedestrian:3 (no box there), the man who is young (asked his
    action) or standing (asked his age)."""
    filters = [["gender", "male", None]]
    if asked == "action":
        filters.append(["age", "young_adulthood", None])
        last = step("Find the young men.", "gender, age", [P3], 0)
        text = "What is the young man doing?"
    else:
        filters.append(["action", "standing", 0])
        last = step("Find the men who are standing.", "gender, action", [P3], 0)
        text = "How old is the man who is standing?"
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find the men.", "gender", [P1, P3], 0),
        last,
    ]
    node = {"kind": "human", "bound": P3, "filters": filters}
    return {
        "uid": uid,
        "task": "vqa-wh",
        "status": status,
        "text": text,
        "answer": answer,
        "steps": [with_boxes(s, 2) for s in steps],
        "difficulty": {"S": 1, "R": 0, "T": 1},
        "criteria": image_criteria(
            "vqa-wh", 2, asked=asked, pattern={"nodes": [node], "edges": []}
        ),
    }


ROBOT = {"kind": "robot", "bound": "robot", "filters": []}


def vg_robot() -> dict:
    """Image, frame 0: the adult who holds a table and is front-left of the robot. The
    robot's step has no key (one known entity without a box) and it is no pair."""
    to_robot = {
        "parent": 0,
        "child": 2,
        "family": "direction",
        "value": "front-left",
        "slot": 0,
        "parent_is_subject": True,
    }
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find the adults.", "age", [P1], 0),
        step("Find all tables.", "hoi_pair: category", [T1], 0, node=1),
        step("Find the adults who hold a table.", "age, hoi", [P1], 0),
        {**step("Find the robot.", "", ["robot"], 0, node=2), "key": None},
        step(
            "Find the adults who hold a table and are front-left of the robot.",
            "age, hoi, SR_Robot_Ref",
            [P1],
            0,
        ),
    ]
    nodes = [{"kind": "human", "bound": P1, "filters": [["age", "adulthood", None]]}, TABLE, ROBOT]
    return {
        "uid": "vg-robot",
        "task": "vg",
        "status": "approved",
        "text": "Find the adult who holds a table and is front-left of the robot.",
        "answer": {"entity_ids": [P1], "image_id": IMAGES[0], "boxes": [box(P1, 0)]},
        "steps": [with_boxes(s, 0) for s in steps],
        "difficulty": {"S": 3, "R": 2, "T": 1},
        "criteria": image_criteria(
            "vg", 0, pattern={"nodes": nodes, "edges": [to_robot, HOI], "answer_slot": 0}
        ),
    }


def wh_walk() -> dict:
    """Image, frame 1: what the woman is doing (pedestrian:2, walking)."""
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find the women.", "gender", [P2], 0),
    ]
    node = {"kind": "human", "bound": P2, "filters": [["gender", "female", None]]}
    return {
        "uid": "wh-walk",
        "task": "vqa-wh",
        "status": "approved",
        "text": "What is the woman doing?",
        "answer": "walking",
        "steps": [with_boxes(s, 1) for s in steps],
        "difficulty": {"S": 1, "R": 0, "T": 1},
        "criteria": image_criteria(
            "vqa-wh", 1, asked="action", pattern={"nodes": [node], "edges": []}
        ),
    }


def vg_group() -> dict:
    """Image, frame 1: the man at a moderate distance from a table who is in the same
    group as another man: relations the real engine names `hoG` and `social_group`."""
    distance = {**HOI, "family": "distance", "value": "moderate"}
    group = {**HHI, "child": 2, "family": "spatial", "value": "in the same group as"}
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find all tables.", "hoG_pair: category", [T1], 0, node=1),
        step("Find the people at a moderate distance from a table.", "hoG", [P1], 0),
        step("Find all people.", "social_group_pair: human", [P1, P2, P3], 0, node=2),
        step("Find the men.", "social_group_pair: gender", [P1, P3], 0, node=2),
        step(
            "Find the people at a moderate distance from a table who are in the same "
            "group as a man.",
            "hoG, social_group",
            [P1],
            0,
        ),
    ]
    man = {"kind": "human", "bound": P3, "filters": [["gender", "male", None]]}
    nodes = [{"kind": "human", "bound": P1, "filters": []}, TABLE, man]
    return {
        "uid": "vg-group",
        "task": "vg",
        "status": "approved",
        "text": "Find the person at a moderate distance from a table who is in the same "
        "group as a man.",
        "answer": {"entity_ids": [P1], "image_id": IMAGES[1], "boxes": [box(P1, 1)]},
        "steps": [with_boxes(s, 1) for s in steps],
        "difficulty": {"S": 3, "R": 2, "T": 1},
        "criteria": image_criteria(
            "vg", 1, pattern={"nodes": nodes, "edges": [distance, group], "answer_slot": 0}
        ),
    }


def vg_two() -> dict:
    """Image, frame 1: the two people who walk together with a woman (both with her)."""
    edge = {**HHI, "parent_is_subject": False}
    steps = [
        step("Find all people.", "human", [P1, P2, P3], 0),
        step("Find all people.", "hhi_pair: human", [P1, P2, P3], 0, node=1),
        step("Find the women.", "hhi_pair: gender", [P2], 0, node=1),
        step("Find the people who walk together with a woman.", "hhi", [P1, P3], 0),
    ]
    nodes = [
        {"kind": "human", "bound": P1, "filters": []},
        {"kind": "human", "bound": P2, "filters": [["gender", "female", None]]},
    ]
    return {
        "uid": "vg-two",
        "task": "vg",
        "status": "approved",
        "text": "Find the people who walk together with a woman.",
        "answer": {
            "entity_ids": [P1, P3],
            "image_id": IMAGES[1],
            "boxes": [box(P1, 1), box(P3, 1)],
        },
        "steps": [with_boxes(s, 1) for s in steps],
        "difficulty": {"S": 2, "R": 1, "T": 1},
        "criteria": image_criteria(
            "vg", 1, pattern={"nodes": nodes, "edges": [edge], "answer_slot": 0}
        ),
    }


def imported_count() -> dict:
    """A Count question imported from a line naming no sequence and no frames, only two
    images; its one step was evaluated in the second and kept pedestrian:1's box there."""
    human = {**step("Find all people.", "human", [P1, P2], 1), "boxes": {P1: box(P1, 0)}}
    target = {
        "kind": "human",
        "bound": P1,
        "filters": [["gender", "male", None], ["action", "walking", 0]],
    }
    return {
        "uid": "imported",
        "task": "vqa-count",
        "status": "approved",
        "sequence_id": None,
        "text": "How many people hold a table?",
        "answer": 2,
        "steps": [human],
        "criteria": {
            "image_ids": ["cam2_000042.jpg", "last.jpg"],
            "pattern": {"nodes": [target, TABLE], "edges": [HOI]},
        },
    }


def questions() -> list[dict]:
    """The records, in the order they are stored (the export's order)."""
    return [
        vg_pair(),
        vg_video(),
        vg_simple("vg-nobox", "approved", 2, P3),  # no box of the answer: left out
        vg_simple("vg-pending", "pending", 0, P1),
        vg_simple("vg-excluded", "excluded", 2, P3),  # no box either
        vqa_count(),
        vqa_wh("wh-action", "corrected", "action", "looking at sth."),
        wh_walk(),
        vqa_wh("wh-age", "pending", "age", "young adult"),
        {
            "uid": "mug",
            "benchmark": "mgvqa",
            "task": "count",
            "status": "approved",
            "text": "How many mugs?",
            "answer": 1,
            "sequence_id": None,
        },
    ]


@dataclass(frozen=True)
class TinyProject:
    db: Path
    sequence_id: int
    frame_ids: list[int]  # frames 0, 1, 2
    entity_ids: dict[str, int]  # key -> row id


def build_tiny_project(path: Path, records: list[dict] | None = None) -> TinyProject:
    """The project at `path` with `records` (default: `questions()`); a record's
    `frame_ids` and the frames of its answer's track are positions 0-2, stored as the
    frames' row ids."""
    with open_project(path, create=True) as p, p.write():
        ana = p.annotators.sign_in("ana")
        seq = p.sequences.add(SEQUENCE, str(path.parent))
        frames = [
            p.sequences.add_frame(seq.id, n, f"images/image_stitched/{SEQUENCE}/{image}")
            for n, image in zip(NUMBERS, IMAGES, strict=True)
        ]
        ids = {
            key: p.sequences.add_entity(seq.id, key, kind, category, attributes)
            for key, (kind, category, attributes) in ENTITIES.items()
        }
        for n, frame in enumerate(frames):
            for key, entity in ids.items():
                if (key, n) not in NO_BOX:
                    raw = [v + 0.0041 for v in box(key, n)]
                    p.sequences.add_box_2d(entity, frame.id, raw)
            for partner in (P1, P3):
                p.sequences.add_person_label(
                    frame.id, ids[P2], "interaction", "walking together", 1, ids[partner]
                )
            robot = {
                "subject_entity_id": ids[P1],
                "reference_entity_id": None,
                "direction": "front-left",
                "vertical": "down",
                "distance_bin": "moderate",
                "distance_m": 4.8,
                "method": "box_centre",
            }
            table = {**robot, "reference_entity_id": ids[T1], "direction": "left"}
            p.sequences.set_relations(frame.id, [robot, table])
            p.hoi.add_label(
                frame_id=frame.id,
                subject_entity_id=ids[P1],
                object_entity_id=ids[T1],
                category="physical",
                predicate="holding",
                difficulty=1,
                annotator=ana,
            )
        row = [f.id for f in frames]
        for r in questions() if records is None else records:
            p.questions.add(stored_record(r, seq.id, row))
    return TinyProject(path, seq.id, row, ids)


def questions_only_project(path: Path, records: list[dict]) -> Path:
    """A project holding only `records` (no sequence: what is read before any frame)."""
    with open_project(path, create=True) as p:
        p.questions.add_many(stored_record(r, None, []) for r in records)
    return path


def stored_record(r: dict, sequence_id: int | None, frame_ids: list[int]) -> dict:
    """A record as stored: the frames it names (positions 0-2) as their row ids."""
    record = {"benchmark": "jrdb", "options": None, "sequence_id": sequence_id, "seed": 0}
    record.update(r)
    c = dict(record.get("criteria") or {})
    if "frame_ids" in c and frame_ids:
        c["frame_ids"] = [frame_ids[i] for i in c["frame_ids"]]
    record["criteria"] = c
    answer = record["answer"]
    if isinstance(answer, dict) and "track" in answer:
        track = [{**f, "frame_id": frame_ids[f["frame_id"]]} for f in answer["track"]]
        record["answer"] = {**answer, "track": track}
    return record


def as_question(tiny: TinyProject, r: dict) -> Question:
    """A record of the tiny project as the Question a repository returns, not stored."""
    record = stored_record(r, tiny.sequence_id, tiny.frame_ids)
    d = record.pop("difficulty")
    return jrdb_question(**{**record, "difficulty": Difficulty(d["S"], d["R"], d["T"])})


# -- what the export should write, read back ---------------------------------------


def element_of(tiny, q, options=None, seq=SEQUENCE, keys=None):
    """element() of one question over the tiny project."""
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


def assert_count_options(options, answer):
    """generate_options_count: five different numbers, sorted, the answer among them and
    the others from 1 to 12."""
    assert len(options) == 5 and options == sorted(set(options)), options
    assert answer in options and set(options) - {answer} <= set(range(1, 13)), options
    assert all(type(o) is int for o in options)
