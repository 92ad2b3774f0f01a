"""Work behind the Annotate HOI mode that does not belong on the GUI thread, and small reads.

`load_frame` reads a frame's two lidar sweeps, merges them, prepares them for
drawing (`widgets.jrdb.cloud_points.prepare_cloud`) and, when the frame has no
stored relations yet, computes them; the mode stores what it returns. It
touches no database, so it runs on a worker thread with data read on the
GUI thread.
"""

from __future__ import annotations

from collections.abc import Mapping
from collections.abc import Sequence as Seq
from dataclasses import dataclass

from annotation.jrdb.geometry import GeometricRelation
from annotation.models import Box3D, Frame, Sequence
from app.io.jrdb import frame_points
from store import Project, ProjectError
from widgets.jrdb.cloud_points import PreparedCloud, prepare_cloud


@dataclass(frozen=True)
class LoadedFrame:
    """A frame's cloud ready to draw, and its relations if they were computed here."""

    frame_id: int
    cloud: PreparedCloud | None  # None: the frame has no point clouds, or they failed
    relations: list[GeometricRelation] | None  # None: not asked for
    error: str = ""


def load_frame(
    sequence: Sequence,
    frame: Frame,
    boxes_3d: Seq[Box3D],
    kinds: Mapping[int, str],
    compute_relations: bool,
) -> LoadedFrame:
    """Read and prepare one frame's points; compute its relations if asked (in a worker
    thread: Open3D, which the relations need, is imported here the first time, not when
    the mode is built)."""
    from app.jobs.relations import relations_for_frame

    points = sensor = None
    error = ""
    if frame.pointcloud_paths:
        try:
            merged = frame_points(sequence, frame)
            points, sensor = merged.points, merged.sensor
        except ProjectError as exc:
            error = str(exc)
    cloud = prepare_cloud(points, sensor, boxes_3d) if points is not None else None
    relations = None
    if compute_relations:
        relations = relations_for_frame(frame.id, boxes_3d, kinds, points)
    return LoadedFrame(frame.id, cloud, relations, error)


def list_sequences(project: Project) -> list[Sequence]:
    """The project's sequences in id order."""
    return project.sequences.list()
