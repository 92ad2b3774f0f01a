"""Point clouds: PCD checks, Open3D round trips, merging two sweeps, the simulated lidar."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.jrdb.dataset import Calibration, SensorPose
from sim.jrdb.lidar import (
    LidarError,
    SweepWorld,
    cast_sweep,
    load_frame_points,
    merge_sweeps,
    points_in_box,
    read_pcd_header,
    read_sweep,
    sensor_of,
    to_label_frame,
    to_sensor_frame,
    write_sweep,
)

UPPER = SensorPose((0.0, 0.0, -0.35), (0.0, 0.0, 0.08))
LOWER = SensorPose((0.02, 0.0, 0.45), (0.0, 0.0, -0.03))
CALIBRATION = Calibration(UPPER, LOWER)
PERSON = (4.0, 1.0, -0.125, 0.5, 0.6, 1.75, 0.4)
WORLD = SweepWorld(np.array([PERSON]), floor_z=-1.0)


def test_write_then_read_round_trips(tmp_path):
    points = np.random.default_rng(1).normal(size=(500, 3))
    path = tmp_path / "upper_velodyne" / "000000.pcd"
    write_sweep(path, points)
    header = read_pcd_header(path)
    assert (
        header.points == 500 and header.data == "binary" and {"x", "y", "z"} <= set(header.fields)
    )
    assert np.allclose(read_sweep(path), points, atol=1e-5)  # stored as float32


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (b"hello, not a point cloud\n", "no DATA line"),
        (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\n", "not a PCD"),
        (
            b"VERSION 0.7\nFIELDS a b\nSIZE 4 4\nTYPE F F\nCOUNT 1 1\nWIDTH 1\nHEIGHT 1\n"
            b"POINTS 1\nDATA ascii\n1 2\n",
            "no x, y, z",
        ),
        (
            b"VERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH 100\n"
            b"HEIGHT 1\nPOINTS 100\nDATA binary\n" + b"\x00" * 120,
            "truncated",
        ),
        (
            b"VERSION 0.7\nFIELDS x y z\nSIZE 4 4\nTYPE F F F\nPOINTS 1\nDATA ascii\n1 2 3\n",
            "disagree",
        ),
        (b"FIELDS x y z\nDATA ascii\n", "lacks SIZE"),
    ],
)
def test_unreadable_pcds_are_refused_naming_the_file(tmp_path, content, needle):
    path = tmp_path / "000000.pcd"
    path.write_bytes(content)
    with pytest.raises(LidarError) as exc:
        read_sweep(path)
    assert str(exc.value).startswith(str(path)) and needle in str(exc.value)


def test_missing_pcd_is_a_lidar_error(tmp_path):
    with pytest.raises(LidarError, match="cannot be read"):
        read_pcd_header(tmp_path / "nope.pcd")


def test_sensor_and_label_frames_are_inverse():
    points = np.random.default_rng(2).uniform(-5, 5, size=(100, 3))
    back = to_label_frame(to_sensor_frame(points, UPPER), UPPER)
    assert np.allclose(back, points)


def test_merged_sweeps_agree_only_with_the_right_calibration():
    rng = np.random.default_rng(3)
    upper = cast_sweep(WORLD, UPPER, 8000, rng=rng)
    lower = cast_sweep(WORLD, LOWER, 8000, rng=rng)
    merged = merge_sweeps(upper, lower, CALIBRATION)
    assert len(merged) == len(upper) + len(lower)
    assert merged.points.dtype == np.float32 and set(np.unique(merged.sensor)) == {0, 1}
    for sensor in ("upper", "lower"):
        floor = merged.of(sensor)[merged.of(sensor)[:, 2] < -0.9]
        assert len(floor) and np.percentile(np.abs(floor[:, 2] + 1.0), 90) < 0.03
        assert points_in_box(merged.of(sensor), PERSON).sum() > 20  # both lidars see the person
    # merged without the transform, the lower lidar's floor is 45 cm off
    raw = merge_sweeps(upper, lower, Calibration())
    assert raw.of("lower")[:, 2].min() > -0.6


def test_the_simulated_sweep_is_in_the_sensor_frame_and_sees_the_scene():
    points = cast_sweep(WORLD, LOWER, 4000)
    assert 0 < len(points) <= 4000
    # the lower lidar sits 55 cm above the floor: in its own frame the floor is at -0.55
    assert np.percentile(points[:, 2], 1) == pytest.approx(-0.55, abs=0.05)
    in_label = to_label_frame(points, LOWER)
    assert points_in_box(in_label, PERSON).sum() > 10


def test_load_frame_points_reads_both_sensors_by_folder(tmp_path):
    rel = ["pointclouds/upper_velodyne/s/000000.pcd", "pointclouds/lower_velodyne/s/000000.pcd"]
    write_sweep(tmp_path / rel[0], cast_sweep(WORLD, UPPER, 3000))
    write_sweep(tmp_path / rel[1], cast_sweep(WORLD, LOWER, 3000))
    merged = load_frame_points(tmp_path, rel, CALIBRATION)
    assert len(merged.of("upper")) and len(merged.of("lower"))
    assert [sensor_of(r) for r in rel] == ["upper", "lower"]
    assert len(load_frame_points(tmp_path, [], CALIBRATION)) == 0


def test_points_in_box_respects_the_yaw():
    box = (0.0, 0.0, 0.0, 2.0, 0.2, 1.0, np.pi / 2)  # long along y after the yaw
    inside = points_in_box(np.array([[0.0, 0.9, 0.0], [0.9, 0.0, 0.0]]), box)
    assert inside.tolist() == [True, False]
