"""Export a sequence's HOI labels in the JRDB-Act style: `{label: difficulty}` per person
and frame, the interactions grouped by their target object (docs/hoi-labels.md).

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

FORMAT = "reasonscope-hoi-labels/1"
STATUS_CHOICES = ("any", "accepted")


def labels_document(
    project: Any,
    sequence_name: str,
    *,
    status: str = "any",
    taxonomy: HoiTaxonomy | None = None,
) -> dict[str, Any]:
    """The export of one sequence: every frame (JRDB's `NNNNNN.jpg` keys), each person
    with labels there as {"label_id", "pose_label": {label: difficulty}, "HO-interaction":
    [{"pair": object label_id, "inter_labels": {label: difficulty}}]}."""
    if status not in STATUS_CHOICES:
        raise ValueError(f"status must be one of {STATUS_CHOICES}, not {status!r}")
    taxonomy = taxonomy or load_hoi_taxonomy()
    sequence = project.sequences.find(sequence_name)
    if sequence is None:
        known = ", ".join(name for _id, name in project.hoi.sequences()) or "none"
        raise ProjectError(f"{project.path}: no sequence {sequence_name!r} (sequences: {known})")
    keys = {e.id: e.key for e in project.sequences.entities(sequence.id)}
    records = project.hoi.records(sequence_id=sequence.id)
    if status == "accepted":
        records = [r for r in records if r.status == ACCEPTED]
    by_frame: dict[int, list[LabelRecord]] = {}
    for record in records:
        by_frame.setdefault(record.label.frame_id, []).append(record)
    categories: dict[str, str] = {}
    frames: dict[str, list[dict[str, Any]]] = {}
    for frame in project.sequences.frames(sequence.id):
        people: dict[int, dict[str, Any]] = {}
        for record in by_frame.get(frame.id, []):
            label = record.label
            words = taxonomy.words(label.predicate)
            categories[words] = label.category
            entry = people.setdefault(
                label.subject_entity_id,
                {"label_id": keys[label.subject_entity_id], "pose_label": {}, "HO-interaction": []},
            )
            if label.object_entity_id is None:
                entry["pose_label"][words] = label.difficulty
                continue
            pair = keys[label.object_entity_id]
            group = next((g for g in entry["HO-interaction"] if g["pair"] == pair), None)
            if group is None:
                group = {"pair": pair, "inter_labels": {}}
                entry["HO-interaction"].append(group)
            group["inter_labels"][words] = label.difficulty
        order = sorted(people.values(), key=lambda e: natural_key(e["label_id"]))
        frames[L.frame_name(frame.index)] = order
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
        len(p["pose_label"]) + sum(len(g["inter_labels"]) for g in p["HO-interaction"])
        for people in document["labels"].values()
        for p in people
    )
