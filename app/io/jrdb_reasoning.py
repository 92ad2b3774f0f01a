"""Export JRDB questions in JRDB-Reasoning's own question files (a JSON list).

`jrdb-reasoning-vg` holds the `vg` questions, `jrdb-reasoning-vqa` the `vqa-wh`
and `vqa-count` ones, each element built as the real writer builds it
(github:sjahangard/JRDB-Reasoning at c539e9b7: `global_functions.create_data_dict`,
`update_final_structures_by_results`, `update_single_sample` (Count),
`update_single_sample_VQA_Wh` (Wh), `VG_task.py`, `VQA_task.py`); the field by
field description is in docs/jrdb-questions.md ("JRDB-Reasoning export").
Sub-questions are keyed by the attribute combination of each step
(`annotation.query.keys`). Slots: an image question has one; a video question
splits its window into T consecutive slots, slot k ending at the frame its
step annotations were evaluated in (the last slot at the window's end), so the
slots' `image_ids` list every frame of the window. A slot's boxes are those of
its key frame (`key_image_id`).
"""

from __future__ import annotations

import json
import os
import random
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from annotation.models import Question
from annotation.query.keys import edge_name, step_keys
from annotation.query.model import IDENTITY_KINDS, GraphIndex
from annotation.query.words import AGE_WORDS, value_words
from app.io.jsonl import write_lines
from app.jobs.scene_graphs import graph_for_window
from store import ProjectError, open_for_reading

FORMAT = "jrdb-reasoning-vg"
FORMATS = {"jrdb-reasoning-vg": ("vg",), "jrdb-reasoning-vqa": ("vqa-wh", "vqa-count")}
TYPE = {"human": "human", "object": "object", "both": "human&object"}
FPS = 15  # create_data_dict's data.specs
WH_OPTIONS = {"gender": ["female", "male"], "age": [w[1] for w in AGE_WORDS.values()]}
MAX_OPTIONS = 15  # update_single_sample_VQA_Wh's max_options


class NothingToExport(ValueError):
    """No question of the wanted tasks and status."""


def clean_answer(text: Any) -> str:
    """An answer word as the real VQA scorer reads it back: it keeps only word characters,
    spaces, hyphens (and splits at commas), so anything else is dropped here."""
    return " ".join(re.sub(r"[^\w\s\-]", " ", str(value_words("", text))).split())


class Window:
    """One question's window: frames, slots, boxes per frame, the graph for pair lookups."""

    def __init__(self, project, q: Question, frames: dict, keys: dict[int, str]) -> None:
        c = q.criteria or {}
        self.frame_ids = list(c.get("frame_ids") or [])
        self.image_ids = list(c.get("image_ids") or [])
        n = len(self.image_ids) or 1
        used = sorted(c.get("question_slots") or [c.get("answer_slot", n - 1)])
        self.answer_slot = c.get("answer_slot", used[-1])
        self.slots = []  # (name, graph slot, first position, last position)
        for k, s in enumerate(used):
            first = 0 if k == 0 else used[k - 1] + 1
            last = n - 1 if k == len(used) - 1 else s
            self.slots.append((f"slot{k + 1}", s, first, last))
        self.index_of = [
            frames[f].index if f in frames else _digits(i)
            for f, i in zip(self.frame_ids, self.image_ids, strict=False)
        ] or [_digits(i) for i in self.image_ids]
        self._project, self._keys, self._boxes, self._graph = project, keys, {}, None
        self._sequence_id = q.sequence_id

    def boxes(self, slot: int) -> dict[str, list[float]]:
        """Graph entity id -> [x, y, w, h] in the frame of graph slot `slot`."""
        if slot not in self._boxes:
            per = {}
            if slot < len(self.frame_ids):
                for b in self._project.sequences.boxes_2d(self.frame_ids[slot]):
                    key = self._keys.get(b.entity_id)
                    if key is not None:
                        per[key] = [round(b.x, 2), round(b.y, 2), round(b.w, 2), round(b.h, 2)]
            self._boxes[slot] = per
        return self._boxes[slot]

    def index(self) -> GraphIndex:
        if self._graph is None:
            self._graph = GraphIndex(
                graph_for_window(self._project, self._sequence_id, self.frame_ids)
            )
        return self._graph


def _digits(image_id: str) -> int:
    found = re.findall(r"\d+", str(image_id))
    return int(found[-1]) if found else 0


def _id_boxes(ids, slot: int, own: dict | None, w: Window) -> dict[str, Any]:
    """target_ID / target_bbox of equal length, and the entities without a box named."""
    frame = w.boxes(slot)
    out_ids, out_boxes, unboxed = [], [], []
    for i in ids:
        box = (own or {}).get(i) or frame.get(i)
        if box is None:
            unboxed.append(i)
        else:
            out_ids.append(i)
            out_boxes.append([float(v) for v in box])
    return {"target_ID": out_ids, "target_bbox": out_boxes, "unboxed": unboxed}


def _track_lists(q: Question, image_ids: list[str]) -> dict[str, list]:
    """A video VG answer's track over a slot's frames, as two lists like final_ID and
    final_bbox (a dict would read as a sub-question key); nothing for other questions."""
    track = q.answer.get("track") if q.task == "vg" and isinstance(q.answer, dict) else None
    if not track:
        return {}
    mine = [f for f in track if f["image_id"] in set(image_ids)]
    return {
        "final_track_image_ids": [f["image_id"] for f in mine],
        "final_track_bbox": [
            [[float(v) for v in b] for b in f["boxes"] if b is not None] for f in mine
        ],
    }


def _key_entry(q: Question, w: Window, step: dict, slot: int, name: str) -> dict[str, Any]:
    """One sub-question key's entry in a slot: the step's entities and their boxes there
    (Count: with their number; a video of several slots: the slot the step was in)."""
    own = step.get("boxes") if step.get("slot") == slot else None
    found = _id_boxes(step.get("entity_ids") or [], slot, own, w)
    sub: dict[str, Any] = {"target_ID": found["target_ID"], "target_bbox": found["target_bbox"]}
    if found["unboxed"]:
        sub["unboxed_ID"] = found["unboxed"]
    if q.task == "vqa-count":
        sub["target_answer"] = len(step.get("entity_ids") or [])
    if len(w.slots) > 1:
        sub["slot"] = next((nm for nm, s, _, _ in w.slots if s == step.get("slot")), name)
    return sub


def _pairs(q: Question, w: Window, final: list[str]) -> list[str]:
    """Entities related to the answer through its own edges (the real final_ID_pair);
    none for a question without a sequence (an imported line naming none): no graph."""
    if q.sequence_id is None:
        return []
    pattern = (q.criteria or {}).get("pattern") or {}
    nodes, out = pattern.get("nodes") or [], []
    for e in pattern.get("edges") or []:
        child = e["child"]
        if e["parent"] != 0 or nodes[child]["kind"] in IDENTITY_KINDS:
            continue
        child_steps = [s for s in q.steps if s.get("node") == child]
        members = child_steps[-1]["entity_ids"] if child_steps else [nodes[child]["bound"]]
        try:
            index = w.index()
        except ValueError as exc:  # frames the question names that its sequence lacks
            raise ProjectError(f"question {q.uid}: {exc}") from None
        pairs = index.pairs.get((e["slot"], e["family"], str(e["value"])), set())
        for t in final:
            for o in members:
                pair = (t, o) if e["parent_is_subject"] else (o, t)
                if pair in pairs and o not in out:
                    out.append(o)
    return out


def _entities(q: Question, w: Window) -> dict[str, Any]:
    """question.entities: the bound target and its filters, as the real selected_person."""
    pattern = (q.criteria or {}).get("pattern") or {}
    nodes = pattern.get("nodes") or [{}]
    target = nodes[0]
    ent: dict[str, Any] = {"id": target.get("bound")}
    slots = {
        name: {
            "start": w.index_of[first] if first < len(w.index_of) else 0,
            "end": w.index_of[last] if last < len(w.index_of) else 0,
            "variable": {},
            "type": "specific",
        }
        for name, _, first, last in w.slots
    }
    name_of = {s: name for name, s, _, _ in w.slots}
    for attr, value, slot in target.get("filters") or []:
        if slot is None:
            ent[attr] = value
        else:
            slots[name_of.get(slot, w.slots[-1][0])]["variable"][attr] = {"variable": [value]}
    for e in pattern.get("edges") or []:
        if e["parent"] != 0:
            continue
        child = nodes[e["child"]]
        key = edge_name(e["family"], target.get("kind", ""), child.get("kind", ""), e["value"])
        slots[name_of.get(e["slot"], w.slots[-1][0])]["variable"][key] = {
            "variable": [e["value"]],
            "id_pair": child.get("bound"),
        }
    ent["variation_slots"] = slots
    return ent


def element(q: Question, seq: str, w: Window, options: dict[str, list[str]]) -> dict[str, Any]:
    """The JRDB-Reasoning element of one stored jrdb question."""
    criteria = q.criteria or {}
    pattern = criteria.get("pattern") or {}
    d = q.difficulty
    s_level, t_level = (d.S, d.T) if d else (1, 1)
    prefs = criteria.get("preferences") or {}
    keys = [s.get("key") for s in q.steps] if all("key" in s for s in q.steps) else None
    keys = keys or step_keys(pattern, q.steps)  # records made before steps had keys
    if q.task == "vg":
        final = list(q.answer.get("entity_ids") or [])
    else:
        final = list(q.steps[-1]["entity_ids"]) if q.steps else []
    pair_ids = _pairs(q, w, final) if pattern else []
    rng = random.Random(q.uid)
    count_options = {}
    labels: dict[str, Any] = {}
    for name, slot, first, last in w.slots:
        own_final = None
        if slot == w.answer_slot and q.task == "vg":
            boxes = q.answer.get("boxes") or []
            if len(boxes) == len(final):
                own_final = dict(zip(final, boxes, strict=True))
        fin = _id_boxes(final, slot, own_final, w)
        pair = _id_boxes(pair_ids, slot, None, w)
        entry: dict[str, Any] = {
            "image_ids": w.image_ids[first : last + 1],
            "final_ID": fin["target_ID"],
            "final_bbox": fin["target_bbox"],
            "final_ID_pair": pair["target_ID"],
            "final_bbox_pair": pair["target_bbox"],
        }
        if fin["unboxed"] or pair["unboxed"]:
            entry["final_unboxed_ID"] = fin["unboxed"] + pair["unboxed"]
        entry.update(_track_lists(q, w.image_ids[first : last + 1]))
        if q.task == "vqa-count":
            entry["final_answer"] = int(q.answer)
        elif q.task == "vqa-wh":
            entry["final_answer"] = [clean_answer(q.answer)]
        for key, step in zip(keys, q.steps, strict=True):
            if key is None:
                continue
            entry[key] = _key_entry(q, w, step, slot, name)
            if q.task == "vqa-count":
                n = entry[key]["target_answer"]
                count_options.setdefault(key, _count_options(n, rng))
        if q.task == "vqa-wh":
            entry[_asked_key(q, keys)] = {
                "target_ID": list(final),
                "target_answer": [clean_answer(q.answer)],
            }
        entry["key_image_id"] = w.image_ids[slot] if slot < len(w.image_ids) else None
        labels[name] = entry
    question: dict[str, Any] = {
        "question": q.text,
        "spatial_level": s_level,
        "temporal_level": t_level,
        "entities": _entities(q, w),
        "timestamps": {
            name: {
                "t1": float(w.index_of[first]) if first < len(w.index_of) else 0.0,
                "t2": float(w.index_of[last]) if last < len(w.index_of) else 0.0,
                "image_ids": w.image_ids[first : last + 1],
                "type": "specific",
            }
            for name, _, first, last in w.slots
        },
    }
    steps_with_keys = [(k, s) for k, s in zip(keys, q.steps, strict=True) if k is not None]
    if q.task == "vg":
        question["sub_questions"] = {k: s.get("question", "") for k, s in steps_with_keys}
    elif q.task == "vqa-count":
        question["options"] = _count_options(int(q.answer), rng)
        question["sub_questions"] = {
            k: {
                "question": s.get("question", "").replace("Find", "Count", 1),
                "options": count_options[k],
            }
            for k, s in steps_with_keys
        }
    else:
        wh = _wh_options(q, options, rng)
        question["options"] = wh
        question["sub_questions"] = {
            k: {"question": s.get("question", ""), "options": []} for k, s in steps_with_keys
        }
        question["sub_questions"][_asked_key(q, keys)] = {"question": q.text, "options": wh}
    return {
        "task_type": "VG" if q.task == "vg" else "VQA",
        "type": TYPE.get(prefs.get("subject", "human"), "human"),
        "difficulty_level": s_level + t_level,
        "question_level": "U(S)P(T)",
        "data": {
            "seq": seq if seq.endswith(".json") else f"{seq}.json",
            "modality_type": prefs.get("modality", "image"),
            "specs": {"fps": FPS},
        },
        "question": question,
        "labels": labels,
        "id": q.uid,
        "task": q.task,
        "difficulty": d.as_dict() if d else {},
        "pattern": pattern or None,
    }


def _asked_key(q: Question, keys: list[str | None]) -> str:
    asked = (q.criteria or {}).get("asked") or "answer"
    return asked if asked not in keys else f"{asked} (asked)"


def _count_options(answer: int, rng: random.Random) -> list[int]:
    """generate_options_count: the answer and random counts 1..12, five in all, sorted."""
    options = {answer}
    while len(options) < 5:
        options.add(rng.randint(1, 12))
    return sorted(options)


def _wh_options(q: Question, options: dict[str, list[str]], rng: random.Random) -> list[str]:
    asked = (q.criteria or {}).get("asked") or ""
    answer = clean_answer(q.answer)
    pool = [
        o for o in dict.fromkeys(WH_OPTIONS.get(asked, []) + options.get(asked, [])) if o != answer
    ]
    rng.shuffle(pool)
    chosen = [answer] + pool[: MAX_OPTIONS - 1]
    rng.shuffle(chosen)
    return chosen


def _vocabulary(questions: list[Question]) -> dict[str, list[str]]:
    """Values each attribute takes in the exported questions (Wh options beyond the closed lists)."""
    out: dict[str, list[str]] = {}
    for q in questions:
        c = q.criteria or {}
        if q.task == "vqa-wh" and c.get("asked"):
            out.setdefault(c["asked"], []).append(clean_answer(q.answer))
        for node in (c.get("pattern") or {}).get("nodes") or []:
            for attr, value, _ in node.get("filters") or []:
                out.setdefault(attr, []).append(clean_answer(value_words(attr, value)))
    return {k: sorted(set(v)) for k, v in out.items()}


def current_questions(project, wanted: set[str] | None) -> Iterable[Question]:
    after = None
    while True:
        page = project.questions.page(after=after, limit=500)
        for q in page.rows:
            if wanted is None or q.status in wanted:
                yield q
        if page.next_cursor is None:
            return
        after = page.next_cursor


def export_jrdb_reasoning(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    *,
    fmt: str = FORMAT,
    status: str = "approved",
) -> dict[str, int]:
    """Write the JSON list; returns counts: written, other (not this format's tasks), no_box
    (VG questions whose answer has no 2D box in its frame, left out as the real writer does).

    Raises NothingToExport (saying how many are pending) when no question qualifies.
    """
    tasks = FORMATS[fmt]
    wanted = None if status == "any" else {"approved", "corrected"}
    target = Path(out)
    if target.is_dir() or not target.parent.exists():
        raise ProjectError(f"{target}: not a writable file path")  # before any reading
    with open_for_reading(db) as project:
        names = {s.id: s.name for s in project.sequences.list()}
        mine, other, pending = [], 0, 0
        for q in current_questions(project, None):
            if q.benchmark != "jrdb" or q.task not in tasks:
                other += int(wanted is None or q.status in wanted)
                continue
            if wanted is None or q.status in wanted:
                mine.append(q)
            elif q.status == "pending":
                pending += 1
        if not mine:
            what = " and ".join(tasks)
            raise NothingToExport(
                f"no {'' if wanted is None else 'approved '}jrdb {what} questions to export "
                f"({pending} pending verification; --status any exports them unverified)"
            )
        vocabulary = _vocabulary(mine)
        frames_of: dict[int, dict] = {}
        keys_of: dict[int, dict[int, str]] = {}
        elements, no_box = [], 0
        for q in mine:
            sid = q.sequence_id
            if sid not in frames_of:
                frames_of[sid] = {f.id: f for f in project.sequences.frames(sid)} if sid else {}
                keys_of[sid] = {e.id: e.key for e in project.sequences.entities(sid)} if sid else {}
            w = Window(project, q, frames_of[sid], keys_of[sid])
            el = element(q, names.get(sid, ""), w, vocabulary)
            last = el["labels"][w.slots[-1][0]]
            if q.task == "vg" and not last["final_bbox"]:
                no_box += 1
                continue
            elements.append(el)
    write_lines(out, [json.dumps(elements, indent=1)])  # the whole file or nothing
    return {"written": len(elements), "other": other, "no_box": no_box}


def exported_options(project, questions: Iterable[Question], status: str = "approved") -> dict:
    """uid -> `question.options` of each VQA question as the jrdb-reasoning-vqa export of
    `status` writes it (a model run asks with them): Count options are seeded by the uid;
    Wh options are drawn from the values the file's questions use, so they depend on
    which questions the file holds, the export's selection and not the run's."""
    wanted = None if status == "any" else {"approved", "corrected"}
    tasks = FORMATS["jrdb-reasoning-vqa"]
    mine = [
        q for q in current_questions(project, wanted) if q.benchmark == "jrdb" and q.task in tasks
    ]
    vocabulary = _vocabulary(mine)
    names = {s.id: s.name for s in project.sequences.list()}
    frames_of: dict[int, dict] = {}
    keys_of: dict[int, dict[int, str]] = {}
    out = {}
    for q in questions:
        if q.task not in tasks:
            continue
        sid = q.sequence_id
        if sid not in frames_of:
            frames_of[sid] = {f.id: f for f in project.sequences.frames(sid)} if sid else {}
            keys_of[sid] = {e.id: e.key for e in project.sequences.entities(sid)} if sid else {}
        w = Window(project, q, frames_of[sid], keys_of[sid])
        out[q.uid] = element(q, names.get(sid, ""), w, vocabulary)["question"].get("options")
    return out
