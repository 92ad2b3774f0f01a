"""Export a sequence's labels as its `labels_2d_activity_social_stitched` file plus our HOI,
and as the dataset's whole `labels/` folder.

Every person entry of the imported activity/social file is written back as it was
read (attributes, action_label, social_group, social_activity, demographics_info,
H-interaction, group_info, ...), so JRDB's own tools read the export as they read the
original. What annotators did is in it too: a box a person moved is the entry's `box`,
with the dataset's box kept in `reasonscope.original_box`; people a person added are
entries of their own; people taken out of a frame are left out of it and listed in
the top-level `removed`. Our HOI labels go beside them in `HOI`, shaped like the file's
`H-interaction` (docs/hoi-labels.md).

`reasonscope export labels --sequence NAME --out FILE.json` calls `export_labels`,
`--labels-dir DIR` calls `export_label_files`; `labels_document` and `label_files`
build the same dictionaries from an open project.
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

FORMAT = "reasonscope-hoi-labels/3"
STATUS_CHOICES = ("any", "accepted")
#: Our fields in a person entry: pose labels (no target) and interactions with objects.
POSE_FIELD, HOI_FIELD = "pose_label", "HOI"
#: Our notes on an entry of a JRDB file: `original_box` (the dataset's box, when a person
#: moved it) and `added` (true for a person or object a person drew).
OURS = "reasonscope"


def _number(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value


def _box(box: Any) -> list[float | int] | None:
    return None if box is None else [_number(v) for v in (box.x, box.y, box.w, box.h)]


def _corrected(entry: dict[str, Any], record: Any, box: list | dict | None) -> dict[str, Any]:
    """The entry with the box a person made (`box`), the dataset's kept beside it."""
    if record is None or record.source != "annotator" or box is None:
        return entry
    ours = dict(entry.get(OURS, {}))
    if record.original is not None:
        ours["original_box"] = _values(record.original, box)
    elif entry.get("box") not in (None, box) and "original_box" not in ours:
        ours["original_box"] = entry["box"]
    return {**entry, "box": box, **({OURS: ours} if ours else {})}


def _values(values: tuple[float, ...], like: list | dict) -> list | dict:
    """Stored box values in the shape of the file's box: [x, y, w, h] or {cx: ...}."""
    if isinstance(like, dict):
        return {k: _number(v) for k, v in zip(like, values, strict=True)}
    return [_number(v) for v in values]


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
    boxes: dict[int, tuple[dict, dict]] | None = None,
) -> dict[str, Any]:
    """The export of one sequence: every frame (JRDB's `NNNNNN.jpg` keys), each person
    entry as imported with the box a person made, plus {"pose_label": {label:
    difficulty}, "HOI": [{"pair": object label_id, "box_pair": its [x, y, w, h] there,
    "inter_labels": {label: difficulty}}]}; people taken out of a frame in `removed`."""
    if status not in STATUS_CHOICES:
        raise ValueError(f"status must be one of {STATUS_CHOICES}, not {status!r}")
    taxonomy = taxonomy or load_hoi_taxonomy()
    sequence = _sequence(project, sequence_name)
    repo = project.sequences
    entities = {e.id: e for e in repo.entities(sequence.id)}
    records = project.hoi.records(sequence_id=sequence.id)
    if status == "accepted":
        records = [r for r in records if r.status == ACCEPTED]
    by_frame: dict[int, list[LabelRecord]] = {}
    for record in records:
        by_frame.setdefault(record.label.frame_id, []).append(record)
    removed: dict[int, list[int]] = {}
    for row in repo.removals(sequence.id):
        removed.setdefault(row["frame_id"], []).append(row["entity_id"])
    categories: dict[str, str] = {}
    frames: dict[str, list[dict[str, Any]]] = {}
    boxes = boxes if boxes is not None else {}
    for frame in repo.frames(sequence.id):
        labelled = by_frame.get(frame.id, [])
        flat, solid = boxes.get(frame.id) or frame_boxes(repo, frame.id)
        people = _frame_people(repo, entities, frame, labelled, removed, flat, set(solid))
        for record in labelled:
            words = taxonomy.words(record.label.predicate)
            categories[words] = record.label.category
            _add_label(people, entities, record.label, words, flat)
        frames[L.frame_name(frame.index)] = list(people.values())
    return {
        "format": FORMAT,
        "sequence": sequence.name,
        "taxonomy": taxonomy.name,
        "status": status,
        "difficulty": {"1": "easy", "2": "medium", "3": "hard"},
        "categories": dict(sorted(categories.items())),
        "removed": {
            L.frame_name(f.index): sorted((entities[i].key for i in removed[f.id]), key=natural_key)
            for f in repo.frames(sequence.id)
            if f.id in removed
        },
        "labels": frames,
    }


def _sequence(project: Any, name: str) -> Any:
    sequence = project.sequences.find(name)
    if sequence is None:
        known = ", ".join(s for _id, s in project.hoi.sequences()) or "none"
        raise ProjectError(f"{project.path}: no sequence {name!r} (sequences: {known})")
    return sequence


def frame_boxes(repo: Any, frame_id: int) -> tuple[dict[int, Any], dict[int, Any]]:
    """A frame's 2D and 3D box records by entity id, read once for everything written."""
    return (
        {r.box.entity_id: r for r in repo.box_records(frame_id, "2d")},
        {r.box.entity_id: r for r in repo.box_records(frame_id, "3d")},
    )


def _frame_people(
    repo: Any,
    entities: dict[int, Any],
    frame: Any,
    labelled: list[LabelRecord],
    removed: dict[int, list[int]],
    records: dict[int, Any],
    drawn_3d: set[int],
) -> dict[int, dict[str, Any]]:
    """A frame's person entries by entity id: the imported ones (less people taken out of
    the frame) with the boxes people made, then entries for people a person drew and for
    labelled people the activity file does not have, in label-id order."""
    gone = set(removed.get(frame.id, ()))
    keys = {i: e.key for i, e in entities.items()}
    people = {
        i: _corrected(entry, records.get(i), _box(records[i].box) if i in records else None)
        for i, entry in repo.label_entries(frame.id).items()
        if i not in gone
    }
    drawn = {
        i
        for i in set(records) | drawn_3d
        if entities[i].source == "annotator" and entities[i].kind == "human"
    }
    subjects = {r.label.subject_entity_id for r in labelled}
    extra = (subjects | (drawn - gone)) - set(people)
    for entity_id in sorted(extra, key=lambda i: natural_key(keys[i])):
        record = records.get(entity_id)
        entry = _person(keys, entity_id, frame, record.box if record else None)
        if entity_id in drawn:
            entry[OURS] = {"added": True}
        people[entity_id] = _corrected(entry, record, entry["box"] if record else None)
    return people


def _add_label(
    people: dict[int, dict[str, Any]], entities: dict[int, Any], label: Any, words: str, records
) -> None:
    """One HOI label into its person's entry: `pose_label` or an `HOI` group per object."""
    entry = people[label.subject_entity_id]
    if label.object_entity_id is None:
        entry.setdefault(POSE_FIELD, {})[words] = label.difficulty
        return
    pair = entities[label.object_entity_id].key
    groups = entry.setdefault(HOI_FIELD, [])
    group = next((g for g in groups if g["pair"] == pair), None)
    if group is None:
        record = records.get(label.object_entity_id)
        group = {"pair": pair, "box_pair": _box(record.box if record else None), "inter_labels": {}}
        groups.append(group)
    group["inter_labels"][words] = label.difficulty


def export_labels(
    db: str | os.PathLike[str],
    sequence_name: str,
    out: str | os.PathLike[str],
    *,
    status: str = "any",
    out_2d: str | os.PathLike[str] | None = None,
    out_3d: str | os.PathLike[str] | None = None,
) -> int:
    """Write one sequence's labels to `out` (whole or not at all); returns how many labels.
    `out_2d` and `out_3d` also get its `labels_2d_stitched` and `labels_3d` files in
    JRDB's layout, people and objects (tracks: keyframes and interpolated boxes, with
    JRDB's `interpolated` attribute); all are built before any is written."""
    with open_for_reading(db) as project:
        files = label_files(project, sequence_name, status=status, objects_inline=True)
    name = sequence_name
    documents = [(out, files[f"{L.LABELS_ACTIVITY}/{name}.json"])]
    documents += [(out_2d, files[f"{L.LABELS_2D}/{name}.json"])] if out_2d else []
    documents += [(out_3d, files[f"{L.LABELS_3D}/{name}.json"])] if out_3d else []
    for path, document in documents:
        write_lines(path, [json.dumps(document, indent=1, ensure_ascii=False)])
    return _count(documents[0][1])


def _count(document: dict[str, Any]) -> int:
    return sum(
        len(p.get(POSE_FIELD, {})) + sum(len(g["inter_labels"]) for g in p.get(HOI_FIELD, []))
        for people in document["labels"].values()
        for p in people
    )


def label_files(
    project: Any, sequence_name: str, *, status: str = "any", objects_inline: bool = False
) -> dict[str, dict[str, Any]]:
    """The sequence's label files as the dataset lays them out, by their path under
    `labels/`-'s parent (`labels/labels_2d_stitched/NAME.json`, ...): the 2D and 3D person
    boxes and our object file as annotators left them (moved boxes with
    `reasonscope.original_box`, drawn ones with `reasonscope.added`, removed ones left
    out), and the activity file of `labels_document`. A track drawn here carries JRDB's
    `interpolated` attribute: false on keyframes, true on the boxes between and after them.
    With `objects_inline` the objects' boxes go into the 2D and 3D files beside the
    people's, as JRDB lays out any labelled thing, and the objects file is empty."""
    sequence = _sequence(project, sequence_name)
    repo = project.sequences
    entities = {e.id: e for e in repo.entities(sequence.id)}
    boxes_2d: dict[str, list] = {}
    boxes_3d: dict[str, list] = {}
    objects: dict[str, list] = {}
    read: dict[int, tuple[dict, dict]] = {}
    for frame in repo.frames(sequence.id):
        image, cloud = L.frame_name(frame.index), L.frame_name(frame.index, ".pcd")
        flat, solid = read[frame.id] = frame_boxes(repo, frame.id)
        people_2d, people_3d, things = [], [], []
        for entity_id in sorted(set(flat) | set(solid), key=lambda i: natural_key(entities[i].key)):
            entity = entities[entity_id]
            entry_2d = _box_entry(entity, flat.get(entity_id), image)
            entry_3d = _box_entry(entity, solid.get(entity_id), None)
            if entity.kind == "human" or objects_inline:
                people_2d += [entry_2d] if entry_2d else []
                people_3d += [entry_3d] if entry_3d else []
                continue
            things.append(_object_entry(entity, entry_2d, entry_3d))
        boxes_2d[image], boxes_3d[cloud], objects[image] = people_2d, people_3d, things
    name = sequence.name
    return {
        f"{L.LABELS_2D}/{name}.json": {"labels": boxes_2d},
        f"{L.LABELS_3D}/{name}.json": {"labels": boxes_3d},
        f"{L.LABELS_OBJECTS}/{name}.json": {"format": L.OBJECTS_FORMAT, "labels": objects},
        f"{L.LABELS_ACTIVITY}/{name}.json": labels_document(
            project, name, status=status, boxes=read
        ),
    }


def _object_entry(entity: Any, flat: dict | None, solid: dict | None) -> dict[str, Any]:
    """An object as our objects file writes it: both boxes in one entry; a moved 3D box's
    original in `reasonscope.original_box_3d`."""
    entry = {"label_id": entity.key, "category": entity.category}
    entry["box"] = flat["box"] if flat else None
    entry["box_3d"] = solid["box"] if solid else None
    entry["attributes"] = (flat or solid or {}).get("attributes", {})
    ours = {**(solid or {}).get(OURS, {}), **(flat or {}).get(OURS, {})}
    ours.pop("original_box", None)
    if flat and "original_box" in flat.get(OURS, {}):
        ours["original_box"] = flat[OURS]["original_box"]
    if solid and "original_box" in solid.get(OURS, {}):
        ours["original_box_3d"] = solid[OURS]["original_box"]
    return {**entry, **({OURS: ours} if ours else {})}


def _box_entry(entity: Any, record: Any, image: str | None) -> dict[str, Any] | None:
    """One box as the dataset's 2D (`image` given: label_id, file_id, box [x, y, w, h],
    attributes) or 3D file writes it (label_id, box {cx, ..., rot_z}, attributes)."""
    if record is None:
        return None
    box = record.box
    if image is not None:
        entry = {"label_id": entity.key, "file_id": image, "box": _box(box)}
    else:
        values = {k: _number(getattr(box, k)) for k in ("cx", "cy", "cz", "l", "w", "h", "rot_z")}
        entry = {"label_id": entity.key, "box": values}
    entry["attributes"] = dict(box.attributes)
    if entity.source == "annotator":  # a track drawn here: JRDB's flag from its keyframes
        entry["attributes"]["interpolated"] = record.source == "interpolated"
    ours: dict[str, Any] = {}
    if record.original is not None:
        ours["original_box"] = _values(record.original, entry["box"])
    if entity.source == "annotator":
        ours["added"] = True
    return {**entry, **({OURS: ours} if ours else {})}


def export_label_files(
    db: str | os.PathLike[str],
    sequence_name: str,
    labels_dir: str | os.PathLike[str],
    *,
    status: str = "any",
) -> dict[str, int]:
    """Write the sequence's four label files under `labels_dir` (the dataset's `labels/`
    folder), each whole or not at all, after all four are built. Returns how many
    boxes and labels went out."""
    with open_for_reading(db) as project:
        files = label_files(project, sequence_name, status=status)
    base = os.fspath(labels_dir)
    if not os.path.isdir(base):
        raise ProjectError(f"{base}: not a folder (give the dataset's labels/ folder to write)")
    counts: dict[str, int] = {}
    for path, document in files.items():
        folder = path.split("/", 1)[1]  # under labels/
        out = os.path.join(base, folder)
        os.makedirs(os.path.dirname(out), exist_ok=True)
        write_lines(out, [json.dumps(document, indent=1, ensure_ascii=False)])
        counts[folder.split("/")[0]] = sum(len(v) for v in document["labels"].values())
    counts["hoi_labels"] = _count(files[f"{L.LABELS_ACTIVITY}/{sequence_name}.json"])
    return counts
