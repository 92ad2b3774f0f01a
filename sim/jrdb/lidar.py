"""Lidar sweeps of the JRDB layout: check, read, merge into the label frame, and simulate.

JRDB records two Velodynes (upper and lower), each `.pcd` in its own sensor
frame; `calibration/defaults.yaml` says how each maps into the label frame the
3D boxes use (see `annotation.jrdb.dataset.SensorPose`). Reading goes through
Open3D (imported lazily: it takes a second to load); checking a file's header
is plain Python so that an import can refuse a broken file without reading
millions of points. `cast_sweep` ray-casts a spinning lidar against boxes, a
floor and a wall, for synthetic sequences and tests.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from annotation.jrdb.dataset import Calibration, SensorPose

_PCD_TYPES = {("F", 4), ("F", 8), ("I", 1), ("I", 2), ("I", 4), ("I", 8)}
_PCD_TYPES |= {("U", 1), ("U", 2), ("U", 4), ("U", 8)}
_MAX_HEADER_LINES = 20


class LidarError(Exception):
    """A point-cloud file cannot be read; the message starts with its path."""


@dataclass(frozen=True)
class PcdHeader:
    """What a `.pcd` header promises: fields, point count and the data encoding."""

    fields: tuple[str, ...]
    points: int
    data: str  # ascii, binary or binary_compressed
    point_step: int  # bytes per point in binary data
    header_bytes: int


def read_pcd_header(path: str | os.PathLike[str]) -> PcdHeader:
    """Parse and check a `.pcd` header (and, for binary data, the file's length).

    Raises `LidarError` naming the file for anything Open3D would choke on or
    silently read as an empty cloud: not a PCD, no x/y/z, truncated data.
    """
    path = Path(path)
    try:
        with path.open("rb") as fh:
            head = fh.read(4096)
            size = os.fstat(fh.fileno()).st_size
    except OSError as exc:
        raise LidarError(f"{path}: cannot be read ({exc.strerror})") from None
    values: dict[str, list[str]] = {}
    offset = 0
    for _ in range(_MAX_HEADER_LINES):
        end = head.find(b"\n", offset)
        if end < 0:
            break
        try:
            line = head[offset:end].decode("ascii").strip()
        except UnicodeDecodeError:
            raise LidarError(f"{path}: not a PCD file (binary bytes in the header)") from None
        offset = end + 1
        if not line or line.startswith("#"):
            continue
        key, *rest = line.split()
        values[key.upper()] = rest
        if key.upper() == "DATA":
            break
    if "DATA" not in values:
        raise LidarError(f"{path}: not a PCD file (no DATA line in the header)")
    fields = tuple(values.get("FIELDS", []))
    if not {"x", "y", "z"} <= set(fields):
        raise LidarError(f"{path}: the PCD has no x, y, z fields (FIELDS {' '.join(fields)})")
    try:
        sizes = [int(s) for s in values["SIZE"]]
        types = values["TYPE"]
        counts = [int(c) for c in values.get("COUNT", ["1"] * len(fields))]
        points = int(values["POINTS"][0])
    except (KeyError, IndexError, ValueError):
        raise LidarError(f"{path}: the PCD header lacks SIZE, TYPE or POINTS") from None
    if not (len(sizes) == len(types) == len(counts) == len(fields)):
        raise LidarError(f"{path}: the PCD header's FIELDS, SIZE, TYPE and COUNT disagree")
    if any((t.upper(), s) not in _PCD_TYPES for t, s in zip(types, sizes, strict=True)):
        raise LidarError(f"{path}: the PCD header has an unknown TYPE/SIZE")
    data = values["DATA"][0].lower() if values["DATA"] else ""
    if data not in ("ascii", "binary", "binary_compressed"):
        raise LidarError(f"{path}: unknown PCD DATA encoding {data!r}")
    step = sum(s * c for s, c in zip(sizes, counts, strict=True))
    if points < 0:
        raise LidarError(f"{path}: negative POINTS in the PCD header")
    if data == "binary" and size < offset + points * step:
        raise LidarError(
            f"{path}: truncated PCD ({size - offset} data bytes for {points} points "
            f"of {step} bytes)"
        )
    return PcdHeader(fields, points, data, step, offset)


def read_sweep(path: str | os.PathLike[str]) -> np.ndarray:
    """The points of one `.pcd` as an (N, 3) float64 array in its sensor's frame."""
    header = read_pcd_header(path)
    import open3d as o3d

    cloud = o3d.io.read_point_cloud(str(path), format="pcd")
    points = np.asarray(cloud.points)
    if header.points and not len(points):
        raise LidarError(f"{path}: Open3D read no points from a PCD that declares {header.points}")
    return points


def write_sweep(path: str | os.PathLike[str], points: np.ndarray) -> None:
    """Write (N, 3) points as a binary `.pcd` with Open3D."""
    import open3d as o3d

    cloud = o3d.geometry.PointCloud()
    cloud.points = o3d.utility.Vector3dVector(np.asarray(points, dtype=np.float64))
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    if not o3d.io.write_point_cloud(str(path), cloud, write_ascii=False, compressed=False):
        raise LidarError(f"{path}: Open3D could not write the point cloud")


def to_label_frame(points: np.ndarray, pose: SensorPose) -> np.ndarray:
    """Sensor-frame points in the label frame: R (p - t)."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    r = pose.rotation_matrix()
    return (points - np.asarray(pose.translation)) @ r.T


def to_sensor_frame(points: np.ndarray, pose: SensorPose) -> np.ndarray:
    """The inverse of `to_label_frame`: R^T p + t."""
    points = np.asarray(points, dtype=np.float64).reshape(-1, 3)
    return points @ pose.rotation_matrix() + np.asarray(pose.translation)


@dataclass(frozen=True)
class MergedCloud:
    """One frame's points in the label frame; `sensor[i]` is 0 (upper) or 1 (lower)."""

    points: np.ndarray  # (N, 3) float32
    sensor: np.ndarray  # (N,) uint8

    def __len__(self) -> int:
        return len(self.points)

    def of(self, sensor: str) -> np.ndarray:
        return self.points[self.sensor == (0 if sensor == "upper" else 1)]


def merge_sweeps(
    upper: np.ndarray | None, lower: np.ndarray | None, calibration: Calibration
) -> MergedCloud:
    """Both sweeps moved into the label frame with the sequence's calibration, stacked."""
    parts, tags = [], []
    for code, (sensor, points) in enumerate((("upper", upper), ("lower", lower))):
        if points is None or not len(points):
            continue
        parts.append(to_label_frame(points, calibration.pose(sensor)).astype(np.float32))
        tags.append(np.full(len(points), code, dtype=np.uint8))
    if not parts:
        return MergedCloud(np.zeros((0, 3), np.float32), np.zeros(0, np.uint8))
    return MergedCloud(np.concatenate(parts), np.concatenate(tags))


def sensor_of(path: str) -> str | None:
    """'upper' or 'lower' from a path in `pointclouds/{upper,lower}_velodyne/`."""
    parts = Path(path).parts
    if "upper_velodyne" in parts:
        return "upper"
    if "lower_velodyne" in parts:
        return "lower"
    return None


def load_frame_points(
    root: str | os.PathLike[str], pointcloud_paths: Sequence[str], calibration: Calibration
) -> MergedCloud:
    """Read a frame's sweeps (paths relative to the dataset root) and merge them.

    Takes what `store` keeps: `Sequence.root`, `Frame.pointcloud_paths` and
    `Calibration.from_dict(Sequence.calibration)`.
    """
    sweeps: dict[str, np.ndarray] = {}
    for rel in pointcloud_paths:
        sensor = sensor_of(rel)
        if sensor is not None:
            sweeps[sensor] = read_sweep(Path(root) / rel)
    return merge_sweeps(sweeps.get("upper"), sweeps.get("lower"), calibration)


def points_in_box(points: np.ndarray, box: Sequence[float]) -> np.ndarray:
    """Mask of label-frame points inside a 3D box (cx, cy, cz, l, w, h, rot_z)."""
    cx, cy, cz, length, width, height, yaw = box[:7]
    d = np.asarray(points, dtype=np.float64).reshape(-1, 3) - np.array([cx, cy, cz])
    c, s = math.cos(yaw), math.sin(yaw)
    along = d[:, 0] * c + d[:, 1] * s
    across = -d[:, 0] * s + d[:, 1] * c
    return (
        (np.abs(along) <= length / 2)
        & (np.abs(across) <= width / 2)
        & (np.abs(d[:, 2]) <= height / 2)
    )


# -- a simulated spinning lidar -----------------------------------------------------
@dataclass(frozen=True)
class SweepWorld:
    """What a simulated sweep can hit: boxes (label frame), a floor and a round wall."""

    boxes: np.ndarray  # (B, 7) cx cy cz l w h rot_z
    floor_z: float = -1.0
    wall_radius: float = 12.0
    wall_top_z: float = 2.0


def beam_directions(
    points_per_sweep: int, beams: int = 16, fov_deg: tuple[float, float] = (-15.0, 15.0)
) -> np.ndarray:
    """Unit ray directions of one revolution in the sensor frame, beams x azimuths."""
    azimuths = max(points_per_sweep // beams, 1)
    elevation = np.radians(np.linspace(fov_deg[0], fov_deg[1], beams))
    azimuth = np.linspace(-math.pi, math.pi, azimuths, endpoint=False)
    el, az = np.meshgrid(elevation, azimuth, indexing="ij")
    return np.stack(
        [np.cos(el) * np.cos(az), np.cos(el) * np.sin(az), np.sin(el)], axis=-1
    ).reshape(-1, 3)


def cast_sweep(
    world: SweepWorld,
    pose: SensorPose,
    points_per_sweep: int = 20_000,
    *,
    noise_m: float = 0.01,
    rng: np.random.Generator | None = None,
) -> np.ndarray:
    """Ray-cast one sweep of a lidar at `pose`; returns its hits in the sensor frame.

    Rays that leave over the wall return nothing, as they would outdoors.
    """
    rng = rng or np.random.default_rng(0)
    r = pose.rotation_matrix()
    origin = pose.origin()
    dirs = beam_directions(points_per_sweep) @ r.T  # label frame
    n = len(dirs)
    t = np.full(n, np.inf)
    # floor
    down = dirs[:, 2] < -1e-9
    t_floor = np.where(down, (world.floor_z - origin[2]) / np.where(down, dirs[:, 2], 1), np.inf)
    t = np.minimum(t, np.where(t_floor > 0, t_floor, np.inf))
    # the wall: |o + t d|_xy = R from inside
    a = dirs[:, 0] ** 2 + dirs[:, 1] ** 2
    b = 2 * (origin[0] * dirs[:, 0] + origin[1] * dirs[:, 1])
    c = origin[0] ** 2 + origin[1] ** 2 - world.wall_radius**2
    disc = np.maximum(b * b - 4 * a * c, 0)
    t_wall = (-b + np.sqrt(disc)) / np.maximum(2 * a, 1e-12)
    wall_z = origin[2] + t_wall * dirs[:, 2]
    t = np.minimum(t, np.where((a > 1e-9) & (wall_z <= world.wall_top_z), t_wall, np.inf))
    # boxes, by the slab method in each box's own frame
    for box in np.asarray(world.boxes, dtype=float).reshape(-1, 7):
        cx, cy, cz, length, width, height, yaw = box
        cs, sn = math.cos(yaw), math.sin(yaw)
        rot = np.array([[cs, sn, 0], [-sn, cs, 0], [0, 0, 1]])  # label -> box
        o = rot @ (origin - np.array([cx, cy, cz]))
        d = dirs @ rot.T
        d = np.where(np.abs(d) < 1e-12, 1e-12, d)
        half = np.array([length, width, height]) / 2
        t1, t2 = (-half - o) / d, (half - o) / d
        near = np.minimum(t1, t2).max(axis=1)
        far = np.maximum(t1, t2).min(axis=1)
        hit = (far >= near) & (near > 0)
        t = np.minimum(t, np.where(hit, near, np.inf))
    ok = np.isfinite(t)
    ranges = t[ok] + rng.normal(0.0, noise_m, int(ok.sum()))
    hits = origin + dirs[ok] * ranges[:, None]
    return to_sensor_frame(hits, pose)
