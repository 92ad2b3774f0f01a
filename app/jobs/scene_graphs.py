"""Scene graphs of JRDB frame windows read from a project.

`facts_from_project` gathers what `annotation.jrdb.graph.graph_from_jrdb`
needs, frame by frame, through the project's repositories (persons and
objects with a box in the frame, action labels, demographics, JRDB-Social
human-human interactions, HOI labels and the stored geometric relations); `graph_for_window` chains the two. Geometric
relations are read, not computed: compute them first with
``app.jobs.relations`` (frames without stored relations simply have no
geometry edges).
"""

from __future__ import annotations

from collections.abc import Sequence

from annotation.jrdb.graph import (
    FrameFacts,
    HoiFacts,
    InteractionFacts,
    ObjectFacts,
    PersonFacts,
    graph_from_jrdb,
)
from annotation.scene_graph import SceneGraph
from store import Project

_DEMOGRAPHICS = ("gender", "age")


def facts_from_project(
    project: Project, sequence_id: int, frame_ids: Sequence[int]
) -> list[FrameFacts]:
    """One `FrameFacts` per frame id, slots 0, 1, ... in the order given."""
    entities = {e.id: e for e in project.sequences.entities(sequence_id)}
    known_frames = {f.id: f for f in project.sequences.frames(sequence_id)}
    out = []
    for slot, frame_id in enumerate(frame_ids):
        frame = known_frames.get(frame_id)
        if frame is None:
            raise ValueError(f"frame {frame_id} is not in sequence {sequence_id}")
        present = {b.entity_id for b in project.sequences.boxes_3d(frame_id)}
        present |= {b.entity_id for b in project.sequences.boxes_2d(frame_id)}
        labels = project.sequences.person_labels(frame_id)
        hoi = project.hoi.labels_for_frame(frame_id)
        present |= {row["entity_id"] for row in labels}
        # an interaction's partner is in the frame with the person who names them
        present |= {
            row["other_entity_id"]
            for row in labels
            if row["kind"] == "interaction" and row["other_entity_id"] is not None
        }
        present |= {h.subject_entity_id for h in hoi}
        present |= {h.object_entity_id for h in hoi if h.object_entity_id is not None}
        actions: dict[int, dict[str, int | None]] = {}
        demographics: dict[int, dict[str, str]] = {}
        for row in labels:
            if row["kind"] == "action":
                actions.setdefault(row["entity_id"], {})[row["label"]] = row["difficulty"]
            elif row["kind"] in (*_DEMOGRAPHICS, "race"):
                demographics.setdefault(row["entity_id"], {}).setdefault(row["kind"], row["label"])
        persons, objects = [], []
        for entity_id in sorted(present, key=lambda i: entities[i].key):
            e = entities[entity_id]
            if e.kind == "human":
                attrs = {**demographics.get(entity_id, {}), **e.attributes}
                persons.append(
                    PersonFacts(
                        entity_id,
                        e.key,
                        gender=attrs.pop("gender", None),
                        age=attrs.pop("age", None),
                        actions=actions.get(entity_id, {}),
                        attributes=attrs,
                    )
                )
            elif e.kind == "object":
                objects.append(ObjectFacts(entity_id, e.key, e.category))
        out.append(
            FrameFacts(
                slot=slot,
                persons=tuple(persons),
                objects=tuple(objects),
                hoi=tuple(
                    HoiFacts(
                        h.subject_entity_id,
                        h.predicate,
                        h.object_entity_id,
                        h.category,
                        h.difficulty,
                    )
                    for h in hoi
                ),
                geometry=tuple(project.sequences.relations(frame_id)),
                frame_id=frame_id,
                frame_index=frame.index,
                interactions=tuple(
                    InteractionFacts(
                        row["entity_id"], row["label"], row["other_entity_id"], row["difficulty"]
                    )
                    for row in labels
                    if row["kind"] == "interaction" and row["other_entity_id"] is not None
                ),
            )
        )
    return out


def graph_for_window(project: Project, sequence_id: int, frame_ids: Sequence[int]) -> SceneGraph:
    """The scene graph of a window of frames (one time slot per frame)."""
    return graph_from_jrdb(facts_from_project(project, sequence_id, frame_ids))
