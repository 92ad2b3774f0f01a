"""Point-cloud distances and the per-frame geometric relations of a JRDB frame.

The person-object distance of JRDB-Reasoning is a k-nearest-neighbour figure:
for every lidar point of the person, find its `k` nearest points of the object
(with a KD-tree over the object's points) and average all those distances.
`knn_mean_distance` does this with Open3D's nearest-neighbour search
(``open3d.core.nns``, a KD-tree index, float64); `knn_mean_distance_brute`
computes the same number from the full distance matrix and is the reference
for tests and `reasonscope bench`. If Open3D cannot be imported, the KD-tree
path falls back to ``scipy.spatial.cKDTree`` (see `KD_BACKEND`); both give the
same numbers.

`frame_relations` combines these with the box geometry of
`annotation.jrdb.geometry` into every relation of one frame. Definitions and worked
examples: docs/relations.md.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Protocol

import numpy as np
from scipy.spatial.distance import cdist

from annotation.jrdb.geometry import (
    METHOD_BOX_CENTRE,
    METHOD_POINTS_CENTROID,
    ROBOT_POSE,
    BoxLike,
    GeometricRelation,
    ReferencePose,
    centre_distance,
    knn_method,
    points_in_box,
    relate,
)

try:  # Open3D is a dependency; the scipy path exists only for broken installs
    import open3d as _o3d
except ImportError:  # pragma: no cover - exercised by monkeypatching in the tests
    _o3d = None

#: Neighbours per query point in the person-object distance.
DEFAULT_K = 10

#: Source rows per block of the brute-force distance matrix (bounds its memory).
BRUTE_BLOCK_ROWS = 2048


def kd_backend() -> str:
    """``"open3d"`` normally, ``"scipy"`` when Open3D is not importable."""
    return "open3d" if _o3d is not None else "scipy"


KD_BACKEND = kd_backend()


class PersonBox(BoxLike, Protocol):
    """A person's 3D box with its entity id (`annotation.models.Box3D` is one)."""

    entity_id: int


def _as_points(points: np.ndarray | Sequence[Sequence[float]], what: str) -> np.ndarray:
    arr = np.ascontiguousarray(np.asarray(points, dtype=np.float64).reshape(-1, 3))
    if len(arr) == 0:
        raise ValueError(f"{what} has no points")
    return arr


class KnnIndex:
    """A KD-tree over one point set, answering k-nearest-neighbour distance queries."""

    def __init__(self, target: np.ndarray | Sequence[Sequence[float]]) -> None:
        self.target = _as_points(target, "target")
        if _o3d is not None:
            self._nns = _o3d.core.nns.NearestNeighborSearch(_o3d.core.Tensor(self.target))
            if not self._nns.knn_index():
                raise RuntimeError("open3d could not build a KD-tree index")
            self._tree = None
        else:
            from scipy.spatial import cKDTree

            self._nns = None
            self._tree = cKDTree(self.target)

    def __len__(self) -> int:
        return len(self.target)

    def distances(self, source: np.ndarray, k: int = DEFAULT_K) -> np.ndarray:
        """Distances from each source point to its min(k, len(target)) nearest targets, (N, k)."""
        src = _as_points(source, "source")
        k = _clip_k(k, len(self.target))
        if self._nns is not None:
            _, squared = self._nns.knn_search(_o3d.core.Tensor(src), k)
            return np.sqrt(squared.numpy())
        dist, _ = self._tree.query(src, k=k)
        return np.asarray(dist, dtype=np.float64).reshape(len(src), k)


def _clip_k(k: int, available: int) -> int:
    if k < 1:
        raise ValueError(f"k must be at least 1, not {k}")
    return min(int(k), available)


def knn_mean_distance(
    source: np.ndarray | Sequence[Sequence[float]],
    target: np.ndarray | Sequence[Sequence[float]],
    k: int = DEFAULT_K,
) -> float:
    """Mean distance from every source point to its k nearest target points (KD-tree).

    `k` is clipped to the number of target points. The mean runs over all
    len(source) x k distances. Not symmetric: swap the sets and the number
    changes. Raises ValueError for an empty set.
    """
    return float(KnnIndex(target).distances(np.asarray(source), k).mean())


def knn_mean_distance_brute(
    source: np.ndarray | Sequence[Sequence[float]],
    target: np.ndarray | Sequence[Sequence[float]],
    k: int = DEFAULT_K,
) -> float:
    """`knn_mean_distance` from the full distance matrix, block by block (no tree)."""
    src, tgt = _as_points(source, "source"), _as_points(target, "target")
    k = _clip_k(k, len(tgt))
    total = 0.0
    for start in range(0, len(src), BRUTE_BLOCK_ROWS):
        squared = cdist(src[start : start + BRUTE_BLOCK_ROWS], tgt, "sqeuclidean")
        if k < len(tgt):
            squared = np.partition(squared, k - 1, axis=1)[:, :k]
        total += float(np.sqrt(np.sort(squared, axis=1)).sum())
    return total / (len(src) * k)


def human_object_distance(
    person_points: np.ndarray, object_points: np.ndarray, k: int = DEFAULT_K, brute: bool = False
) -> float:
    """The person-object distance: the person's points queried against the object's."""
    fn = knn_mean_distance_brute if brute else knn_mean_distance
    return fn(person_points, object_points, k)


def human_object_distances(
    persons: Mapping[int, np.ndarray],
    objects: Mapping[int, np.ndarray],
    k: int = DEFAULT_K,
    brute: bool = False,
) -> dict[tuple[int, int], float]:
    """Every person-object distance of a frame, keyed (object id, person id).

    With the KD-tree one index is built per object and all persons' points are
    queried in one batch; `brute=True` computes the same numbers from distance
    matrices. Empty point sets raise ValueError.
    """
    out: dict[tuple[int, int], float] = {}
    if not persons or not objects:
        return out
    ids = list(persons)
    sets = [_as_points(persons[i], f"person {i}") for i in ids]
    if brute:
        for oid, pts in objects.items():
            for pid, person in zip(ids, sets, strict=True):
                out[(oid, pid)] = knn_mean_distance_brute(person, pts, k)
        return out
    stacked = np.vstack(sets)
    starts = np.cumsum([0] + [len(s) for s in sets[:-1]])
    counts = np.array([len(s) for s in sets], dtype=np.float64)
    for oid, pts in objects.items():
        index = KnnIndex(_as_points(pts, f"object {oid}"))
        dist = index.distances(stacked, k)
        sums = np.add.reduceat(dist.sum(axis=1), starts)
        means = sums / (counts * dist.shape[1])
        for pid, mean in zip(ids, means, strict=True):
            out[(oid, pid)] = float(mean)
    return out


def _person_points(
    box: PersonBox, person_points: Mapping[int, np.ndarray] | None, cloud: np.ndarray | None
) -> np.ndarray | None:
    if person_points is not None and box.entity_id in person_points:
        pts = np.asarray(person_points[box.entity_id], dtype=np.float64).reshape(-1, 3)
    elif cloud is not None:
        pts = cloud[points_in_box(cloud, box)]
    else:
        return None
    return pts if len(pts) else None


def frame_relations(
    frame_id: int,
    persons: Iterable[PersonBox],
    object_points: Mapping[int, np.ndarray] | None = None,
    *,
    person_points: Mapping[int, np.ndarray] | None = None,
    cloud: np.ndarray | None = None,
    robot: ReferencePose = ROBOT_POSE,
    k: int = DEFAULT_K,
) -> list[GeometricRelation]:
    """Every geometric relation of one frame, in this order:

    1. each person to the robot (reference_entity_id None): the person's box
       centre seen from `robot`; distance from the robot point to that centre;
    2. each person to every other person (both orders, since each faces its own
       way): centre seen from the other's centre and rot_z; centre distance;
    3. each object to every person: the object's point centroid seen from the
       person; distance `knn_mean_distance(person's points, object's points, k)`.
    4. each object to the robot (reference_entity_id None): the object's point
       centroid seen from `robot`; distance from the robot point to that centroid
       (method ``points_centroid``), as a person's is to their box centre.

    `object_points` maps object entity ids to their lidar points (N x 3, the box
    frame); objects with no points are skipped. A person's points come from
    `person_points` (by entity id) or else from the points of `cloud` inside
    their box; a person with none is queried from their box centre alone
    (method ``knn{k}_centre`` instead of ``knn{k}_points``).
    """
    people = list(persons)
    objects = {
        oid: np.asarray(pts, dtype=np.float64).reshape(-1, 3)
        for oid, pts in (object_points or {}).items()
    }
    objects = {oid: pts for oid, pts in objects.items() if len(pts)}
    cloud_arr = None if cloud is None else np.asarray(cloud, dtype=np.float64).reshape(-1, 3)
    out: list[GeometricRelation] = []

    for box in people:
        place = relate((box.cx, box.cy, box.cz), robot)
        out.append(
            GeometricRelation.from_placement(
                frame_id, box.entity_id, None, place, METHOD_BOX_CENTRE
            )
        )

    for ref in people:
        pose = ReferencePose.of_box(ref)
        for subj in people:
            if subj is ref or subj.entity_id == ref.entity_id:
                continue
            place = relate((subj.cx, subj.cy, subj.cz), pose, centre_distance(subj, ref))
            out.append(
                GeometricRelation.from_placement(
                    frame_id, subj.entity_id, ref.entity_id, place, METHOD_BOX_CENTRE
                )
            )

    centroids = {oid: pts.mean(axis=0) for oid, pts in objects.items()}
    if people and objects:
        out += _object_person_relations(
            frame_id, people, objects, centroids, person_points, cloud_arr, k
        )
    for oid in objects:
        place = relate(centroids[oid], robot)
        out.append(
            GeometricRelation.from_placement(frame_id, oid, None, place, METHOD_POINTS_CENTROID)
        )
    return out


def _object_person_relations(
    frame_id: int,
    people: list[PersonBox],
    objects: Mapping[int, np.ndarray],
    centroids: Mapping[int, np.ndarray],
    person_points: Mapping[int, np.ndarray] | None,
    cloud_arr: np.ndarray | None,
    k: int,
) -> list[GeometricRelation]:
    """Every object seen from every person, with the k-NN person-object distance."""
    out: list[GeometricRelation] = []
    queries: dict[int, np.ndarray] = {}
    methods: dict[int, str] = {}
    for box in people:
        pts = _person_points(box, person_points, cloud_arr)
        methods[box.entity_id] = knn_method(k, from_points=pts is not None)
        queries[box.entity_id] = pts if pts is not None else np.array([[box.cx, box.cy, box.cz]])
    distances = human_object_distances(queries, objects, k)
    for oid in objects:
        for ref in people:
            place = relate(
                centroids[oid], ReferencePose.of_box(ref), distances[(oid, ref.entity_id)]
            )
            out.append(
                GeometricRelation.from_placement(
                    frame_id, oid, ref.entity_id, place, methods[ref.entity_id]
                )
            )
    return out
