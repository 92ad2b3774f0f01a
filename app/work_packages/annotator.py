"""Merging an annotator package's box and label work: people and objects drawn there,
boxes moved or drawn, entities taken out of frames, copied labels changed or deleted
(docs/work-packages.md#what-an-annotator-package-brings-back).

Each row goes through the same store calls as the Annotate HOI mode
(`add_drawn_entity`, `set_box_2d`/`set_box_3d`, `remove_entity`, `update_label`,
`delete_label`), as the package's person, so the store's rules hold: only a label's
author changes it, nothing is taken out of a frame while it has labels there. Work
on a box or label that was changed here after the package went out is kept aside,
like every other kind of work (`merge._apply` catches the `ProjectError`).

Every function has the signature of `merge._apply`'s appliers:
`(project, person, row, version, context) -> target row id`; `context["entities"]`
(ids copied into the package) and `context["drawn"]` (package id -> id here of the
entities drawn there) say what an entity id of the package is here.
"""

from __future__ import annotations

from typing import Any

from annotation.jrdb.hoi_taxonomy import check_label, load_hoi_taxonomy
from annotation.models import Annotator
from store import Project, ProjectError

#: The label set merged labels must come from (the panels offer only it).
HOI_TAXONOMY = load_hoi_taxonomy()


def entity_here(context: dict, entity_id: int | None) -> int | None:
    """The id here of an entity the package refers to (copied, or drawn and merged)."""
    if entity_id is None or entity_id in context["entities"]:
        return entity_id
    if entity_id in context["drawn"]:
        return context["drawn"][entity_id]
    raise ProjectError(
        f"entity {entity_id} of the package was not merged (drawn there without a box)"
    )


def _in_package(version: Any, frame_id: Any) -> None:
    if version is None:
        raise ProjectError(f"frame {frame_id} was not in this package")


def _changed_since(stamp: str | None, context: dict) -> bool:
    return stamp is not None and stamp > context["since"]


def apply_entity(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    """A person or object drawn in the package: a new entity here, under its key when the
    sequence does not have that key, else the next free one (the report says so)."""
    _in_package(version, row["frame_id"])
    repo = project.sequences
    key = row["entity_key"]
    taken = key in repo.entity_ids(row["sequence_id"])
    entity_id = repo.add_drawn_entity(
        row["sequence_id"],
        row["kind"],
        row["category"],
        person,
        key=None if taken else key,
        attributes=row["attributes"],
    )
    context["drawn"][row["id"]] = entity_id
    if taken:
        new = next(k for k, i in repo.entity_ids(row["sequence_id"]).items() if i == entity_id)
        context["notes"].append(f"{key} drawn in the package is {new} here ({key} was taken)")
    return entity_id


def apply_box(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    """A 2D or 3D box set in the package: set here, unless it changed here since."""
    _in_package(version, row["frame_id"])
    repo = project.sequences
    entity_id = entity_here(context, row["entity_id"])
    here = repo.box_record(entity_id, row["frame_id"], row["dims"])
    what = f"the {row['dims'].upper()} box of {_where(project, entity_id, row['frame_id'])}"
    if here is not None and _changed_since(here.updated_at, context):
        raise ProjectError(f"{what} has been changed here since the package went out")
    if here is None and _removed_since(project, entity_id, row["frame_id"], context):
        raise ProjectError(f"{what}: the entity was taken out of the frame here since")
    if row["dims"] == "2d":
        repo.set_box_2d(entity_id, row["frame_id"], row["values"], person)
        table = "boxes_2d"
    else:
        repo.set_box_3d(entity_id, row["frame_id"], row["values"], person)
        table = "boxes_3d"
    return project.db.execute(
        f"SELECT id FROM {table} WHERE entity_id = ? AND frame_id = ?",
        [entity_id, row["frame_id"]],
    ).fetchone()[0]


def _where(project: Project, entity_id: int, frame_id: int) -> str:
    """ "pedestrian:7 in frame 15" (the dataset's id and the frame's index)."""
    key = project.db.execute("SELECT entity_key FROM entities WHERE id = ?", [entity_id]).fetchone()
    frame = project.sequences.frame(frame_id)
    return f"{key[0] if key else f'entity {entity_id}'} in frame {frame.index}"


def _removed_since(project: Project, entity_id: int, frame_id: int, context: dict) -> bool:
    row = project.db.execute(
        "SELECT removed_at FROM entity_removals WHERE entity_id = ? AND frame_id = ?",
        [entity_id, frame_id],
    ).fetchone()
    return row is not None and _changed_since(row[0], context)


def apply_removal(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    """An entity taken out of a frame in the package: taken out here too, unless one of
    its boxes there changed here since."""
    _in_package(version, row["frame_id"])
    repo = project.sequences
    entity_id = entity_here(context, row["entity_id"])
    for dims in ("2d", "3d"):
        record = repo.box_record(entity_id, row["frame_id"], dims)
        if record is not None and _changed_since(record.updated_at, context):
            raise ProjectError(
                f"the {dims.upper()} box of {_where(project, entity_id, row['frame_id'])} "
                "has been changed here since the package went out"
            )
    repo.remove_entity(entity_id, row["frame_id"], person)
    return project.db.execute(
        "SELECT id FROM entity_removals WHERE entity_id = ? AND frame_id = ?",
        [entity_id, row["frame_id"]],
    ).fetchone()[0]


def apply_restoration(
    project: Project, person: Annotator, row: dict, version, context: dict
) -> int:
    """An entity the project had taken out of a frame, put back in the package: put back
    here too, with the boxes it had, unless it was put back (or taken out anew) here
    since the package went out."""
    _in_package(version, row["frame_id"])
    entity_id = entity_here(context, row["entity_id"])
    here = project.db.execute(
        "SELECT removed_at FROM entity_removals WHERE entity_id = ? AND frame_id = ?",
        [entity_id, row["frame_id"]],
    ).fetchone()
    if here is None or _changed_since(here[0], context):
        raise ProjectError(
            f"{_where(project, entity_id, row['frame_id'])} has been put back or taken out "
            "anew here since the package went out"
        )
    project.sequences.restore_entity(entity_id, row["frame_id"], person)
    return row["id"]


def apply_track_end(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    """A track ended in the package: ended here too, under the store's rules (not before
    a keyframe set here meanwhile). A track reopened there (its row names the frame where
    it had ended) is reopened here."""
    _in_package(version, row["frame_id"])
    entity_id = entity_here(context, row["entity_id"])
    if row.get("reopened"):
        project.sequences.reopen_track(entity_id, person)
    else:
        project.sequences.end_track(entity_id, row["frame_id"], person)
    return entity_id


def _label_here(project: Project, label_id: int, context: dict) -> Any:
    record = project.hoi.record(label_id)
    if record is None or record.label is None:
        raise ProjectError(f"label {label_id} has been deleted here since")
    if _changed_since(record.label.updated_at, context):
        raise ProjectError(f"label {label_id} has been changed here since the package went out")
    return record


def apply_label_edit(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    """A copied label changed in the package (its predicate, target or difficulty)."""
    _in_package(version, row["frame_id"])
    check_label(
        HOI_TAXONOMY, row["predicate"], row["category"], row["object_entity_id"] is not None
    )
    _label_here(project, row["id"], context)
    project.hoi.update_label(
        row["id"],
        person,
        predicate=row["predicate"],
        category=row["category"],
        object_entity_id=entity_here(context, row["object_entity_id"]),
        difficulty=row["difficulty"],
    )
    return row["id"]


def apply_label_deletion(
    project: Project, person: Annotator, row: dict, version, context: dict
) -> int:
    """A copied label deleted in the package: deleted here (into the trash) too."""
    _in_package(version, row["frame_id"])
    _label_here(project, row["id"], context)
    project.hoi.delete_label(row["id"], person)
    return row["id"]
