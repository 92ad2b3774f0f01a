"""Export a sequence's labels as its `labels_2d_activity_social_stitched` file plus our HOI.

Every person entry of the imported activity/social file is written back as it was
read (box, attributes, action_label, social_group, social_activity,
demographics_info, H-interaction, group_info, ...), so JRDB's own tools read the
export as they read the original; our HOI labels go beside them in `HOI`, shaped
like the file's `H-interaction` (docs/hoi-labels.md).

`reasonscope export labels --sequence NAME --out FILE.json` calls `export_labels`;
`labels_document` builds the same dictionary from an open project.
"""

from __future__ import annotations

import json
import os
from typing import Any

from annotation.jrdb import dataset as L
from annotation.jrdb.hoi_review import ACCEPTED, LabelRecord
from annotation.jrdb.hoi_taxonomy import HoiTaxonomy, load_hoi_taxonomy
from app.io.jrdb import natural_key
from app.io.jsonl import write_lines
from store import ProjectError, open_for_reading

FORMAT = "reasonscope-hoi-labels/2"
STATUS_CHOICES = ("any", "accepted")
#: Our fields in a person entry: pose labels (no target) and interactions with objects.
POSE_FIELD, HOI_FIELD = "pose_label", "HOI"


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _box(box: Any) -> list[float | int] | None:
    return None if box is None else [_number(v) for v in (box.x, box.y, box.w, box.h)]


def _person(keys: dict[int, str], entity_id: int, frame: Any, box: Any) -> dict[str, Any]:
    """An entry for a person the activity file does not have (a box, but no JRDB-Act
    labels): `no_eval` true, so JRDB's evaluation skips it as it skips unlabelled boxes;
    box [0, 0, 0, 0] when the person has only a 3D box there."""
    attributes = {**(box.attributes if box else {}), "no_eval": True}
    entry = {"label_id": keys[entity_id], "file_id": L.frame_name(frame.index)}
    return {**entry, "box": _box(box) or [0, 0, 0, 0], "attributes": attributes}


def labels_document(
    project: Any,
    sequence_name: str,
    *,
    status: str = "any",
    taxonomy: HoiTaxonomy | None = None,
) -> dict[str, Any]:
    """The export of one sequence: every frame (JRDB's `NNNNNN.jpg` keys), each person
    entry as imported plus {"pose_label": {label: difficulty}, "HOI": [{"pair": object
    label_id, "box_pair": its [x, y, w, h] there, "inter_labels": {label: difficulty}}]}."""
    if status not in STATUS_CHOICES:
        raise ValueError(f"status must be one of {STATUS_CHOICES}, not {status!r}")
    taxonomy = taxonomy or load_hoi_taxonomy()
    repo = project.sequences
    sequence = repo.find(sequence_name)
    if sequence is None:
        known = ", ".join(name for _id, name in project.hoi.sequences()) or "none"
        raise ProjectError(f"{project.path}: no sequence {sequence_name!r} (sequences: {known})")
    keys = {e.id: e.key for e in repo.entities(sequence.id)}
    records = project.hoi.records(sequence_id=sequence.id)
    if status == "accepted":
        records = [r for r in records if r.status == ACCEPTED]
    by_frame: dict[int, list[LabelRecord]] = {}
    for record in records:
        by_frame.setdefault(record.label.frame_id, []).append(record)
    categories: dict[str, str] = {}
    frames: dict[str, list[dict[str, Any]]] = {}
    for frame in repo.frames(sequence.id):
        people = repo.label_entries(frame.id)
        labelled = by_frame.get(frame.id, [])
        boxes = {b.entity_id: b for b in repo.boxes_2d(frame.id)} if labelled else {}
        extra = sorted(
            {r.label.subject_entity_id for r in labelled} - set(people),
            key=lambda i: natural_key(keys[i]),
        )
        for entity_id in extra:
            people[entity_id] = _person(keys, entity_id, frame, boxes.get(entity_id))
        for record in labelled:
            label = record.label
            words = taxonomy.words(label.predicate)
            categories[words] = label.category
            entry = people[label.subject_entity_id]
            if label.object_entity_id is None:
                entry.setdefault(POSE_FIELD, {})[words] = label.difficulty
                continue
            pair = keys[label.object_entity_id]
            groups = entry.setdefault(HOI_FIELD, [])
            group = next((g for g in groups if g["pair"] == pair), None)
            if group is None:
                box = _box(boxes.get(label.object_entity_id))
                group = {"pair": pair, "box_pair": box, "inter_labels": {}}
                groups.append(group)
            group["inter_labels"][words] = label.difficulty
        frames[L.frame_name(frame.index)] = list(people.values())
    return {
        "format": FORMAT,
        "sequence": sequence.name,
        "taxonomy": taxonomy.name,
        "status": status,
        "difficulty": {"1": "easy", "2": "medium", "3": "hard"},
        "categories": dict(sorted(categories.items())),
        "labels": frames,
    }


def export_labels(
    db: str | os.PathLike[str],
    sequence_name: str,
    out: str | os.PathLike[str],
    *,
    status: str = "any",
) -> int:
    """Write one sequence's labels to `out` (whole or not at all); returns how many labels."""
    with open_for_reading(db) as project:
        document = labels_document(project, sequence_name, status=status)
    write_lines(out, [json.dumps(document, indent=1, ensure_ascii=False)])
    return sum(
        len(p.get(POSE_FIELD, {})) + sum(len(g["inter_labels"]) for g in p.get(HOI_FIELD, []))
        for people in document["labels"].values()
        for p in people
    )
