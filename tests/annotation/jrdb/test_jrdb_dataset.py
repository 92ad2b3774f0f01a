"""Parsing and checking the JRDB label files and the calibration YAML (the panorama
projection is tests/annotation/jrdb/test_panorama_projection.py)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from annotation.jrdb import dataset as L


def person(label_id="pedestrian:1", box=(10, 20, 30, 60), **attributes):
    return {
        "label_id": label_id,
        "file_id": "000000.jpg",
        "box": list(box),
        "attributes": attributes,
    }


def test_labels_2d_are_read_with_string_flags_as_booleans():
    data = {"labels": {"000007.jpg": [person(truncated="true", occlusion="Mostly_visible")]}}
    [box] = L.parse_labels_2d(data)
    assert box.label_id == "pedestrian:1" and box.frame_index == 7
    assert box.box == (10.0, 20.0, 30.0, 60.0)
    assert box.attributes == {"truncated": True, "occlusion": "Mostly_visible"}


def test_a_box_across_the_seam_is_kept_whole():
    [box] = L.parse_labels_2d({"labels": {"000000.jpg": [person(box=(3740, 100, 50, 120))]}})
    assert box.box[0] + box.box[2] > L.PANORAMA_WIDTH


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ([], "top level"),
        ({"frames": {}}, '"labels": missing'),
        ({"labels": []}, '"labels": expected an object'),
        ({"labels": {"frame.jpg": []}}, 'labels["frame.jpg"]: not a frame name'),
        ({"labels": {"000000.jpg": {}}}, "expected a list"),
        ({"labels": {"000000.jpg": [person(box=(1, 2, 3))]}}, 'labels["000000.jpg"][0].box'),
        ({"labels": {"000000.jpg": [person(box=(1, 2, -3, 4))]}}, "must not be negative"),
        ({"labels": {"000000.jpg": [person(box=(1, 2, "3", 4))]}}, ".box (x, y, w, h)[2]"),
        ({"labels": {"000000.jpg": [{"box": [1, 2, 3, 4]}]}}, "[0].label_id"),
        ({"labels": {"000000.jpg": [person(), person()]}}, "appears twice"),
        ({"labels": {"000000.jpg": [person(occlusion="Half")]}}, "attributes.occlusion"),
        ({"labels": {"000000.jpg": [{"label_id": "pedestrian:1"}]}}, "[0].box: missing"),
    ],
)
def test_malformed_2d_labels_name_the_key(data, needle):
    with pytest.raises(L.LayoutError) as exc:
        L.parse_labels_2d(data)
    assert needle in str(exc.value)
    assert "\n" not in str(exc.value)


def box3(**over):
    box = {"cx": 4.0, "cy": -1.0, "cz": -0.1, "l": 0.5, "w": 0.6, "h": 1.7, "rot_z": -2.5}
    return {**box, **over}


def test_labels_3d_keep_a_negative_yaw_and_their_attributes():
    data = {
        "labels": {
            "000003.pcd": [
                {"label_id": "pedestrian:2", "box": box3(), "attributes": {"num_points": 9}}
            ]
        }
    }
    [b] = L.parse_labels_3d(data)
    assert b.frame_index == 3 and b.box[-1] == -2.5 and b.attributes == {"num_points": 9}


@pytest.mark.parametrize(
    ("box", "needle"),
    [
        ([1, 2, 3], "expected an object with cx"),
        ({k: v for k, v in box3().items() if k != "rot_z"}, "missing rot_z"),
        (box3(cz="low"), ".box.cz: expected a number"),
        (box3(h=-1), "must not be negative"),
        (box3(l=float("nan")), ".box.l: expected a number"),
    ],
)
def test_malformed_3d_boxes_name_the_key(box, needle):
    with pytest.raises(L.LayoutError, match="000000.pcd") as exc:
        L.parse_labels_3d({"labels": {"000000.pcd": [{"label_id": "pedestrian:1", "box": box}]}})
    assert needle in str(exc.value)


def test_objects_have_2d_or_3d_boxes_and_a_category():
    data = {
        "format": L.OBJECTS_FORMAT,
        "labels": {
            "000000.jpg": [
                {"label_id": "chair:1", "box": [1, 2, 3, 4]},
                {"label_id": "bag:2", "category": "backpack", "box_3d": box3()},
            ]
        },
    }
    chair, bag = L.parse_objects(data)
    assert (chair.category, chair.box_2d, chair.box_3d) == ("chair", (1, 2, 3, 4), None)
    assert bag.category == "backpack" and bag.box_2d is None and bag.box_3d[0] == 4.0


@pytest.mark.parametrize(
    ("data", "needle"),
    [
        ({"format": "other/1", "labels": {}}, '"format": expected'),
        ({"labels": {"000000.jpg": [{"label_id": "chair:1"}]}}, "needs a 2D box"),
        ({"labels": {"000000.jpg": [{"label_id": "pedestrian:1", "box": [1, 2, 3, 4]}]}}, "person"),
    ],
)
def test_malformed_objects(data, needle):
    with pytest.raises(L.LayoutError, match=needle):
        L.parse_objects(data)


def test_activity_labels_in_both_accepted_shapes():
    data = {
        "labels": {
            "000001.jpg": [
                {
                    "label_id": "pedestrian:1",
                    "action_label": {"walking": 1, "holding sth": "2"},
                    "social_activity": [{"walking": 1}],
                    "social_group": {"cluster_ID": 3, "cluster_stats": 2},
                    "demographics_info": [{"gender": {"female": 1}}, {"age": {"adulthood": 2}}],
                    "H-interaction": [{"pair": "pedestrian:2", "inter_labels": {"chatting": 3}}],
                },
                {
                    "label_id": "pedestrian:2",
                    "demographics_info": {"gender": {"male": 1}, "height": {"tall": 1}},
                    "H-interaction": {"pedestrian:1": {"chatting": 3}},
                },
            ]
        }
    }
    labels = L.parse_activity(data)
    got = {(p.label_id, p.kind, p.label, p.difficulty, p.other_label_id) for p in labels}
    assert got == {
        ("pedestrian:1", "action", "walking", 1, None),
        ("pedestrian:1", "action", "holding sth", 2, None),
        ("pedestrian:1", "social_activity", "walking", 1, None),
        ("pedestrian:1", "social_group", "3", None, None),
        ("pedestrian:1", "gender", "female", 1, None),
        ("pedestrian:1", "age", "adulthood", 2, None),
        ("pedestrian:1", "interaction", "chatting", 3, "pedestrian:2"),
        ("pedestrian:2", "gender", "male", 1, None),
        ("pedestrian:2", "interaction", "chatting", 3, "pedestrian:1"),
    }
    assert all(p.frame_index == 1 for p in labels)


def test_a_difficulty_that_is_not_an_integer_is_an_error():
    data = {"labels": {"000000.jpg": [{"label_id": "pedestrian:1", "action_label": {"a": 1.5}}]}}
    with pytest.raises(L.LayoutError, match=r'action_label\["a"\]: difficulty'):
        L.parse_activity(data)


@pytest.mark.parametrize("value", [1, 1.0, "1", " 1 ", "1.0", 3.0])
def test_every_whole_number_type_is_a_difficulty(value):
    assert L.integral(value, "x") == int(float(value))
    assert L.integral(None, "x") is None


@pytest.mark.parametrize("value", [1.5, "1.5", "easy", True, float("nan"), [1], {}])
def test_anything_else_is_refused_with_the_key_and_value(value):
    with pytest.raises(L.LayoutError, match=r"^x\.y: difficulty must be a whole number"):
        L.integral(value, "x.y")


def test_group_info_difficulties_are_checked_and_cluster_stat_is_the_group_difficulty():
    entry = {
        "label_id": "pedestrian:1",
        "social_group": {"cluster_ID": 4.0, "cluster_stat": "3"},
        "group_info": [{"venue": {"street": "1"}, "SSC": {"table": "1", "wall": 2.0}}],
    }
    (group,) = L.parse_activity({"labels": {"000015.jpg": [entry]}})
    assert (group.kind, group.label, group.difficulty) == ("social_group", "4", 3)
    entry["group_info"][0]["SSC"]["wall"] = 2.5
    with pytest.raises(L.LayoutError, match=r'group_info\[0\]\.SSC\["wall"\]: .* got 2\.5'):
        L.parse_activity({"labels": {"000015.jpg": [entry]}})
    assert L.demographic("Young_Adulthood") == "young_adulthood"
    assert L.demographic("impossible") is None


def test_decode_json_says_where_it_breaks():
    with pytest.raises(L.LayoutError, match="line 2: not JSON"):
        L.decode_json(b'{"labels":\n  {oops}')
    with pytest.raises(L.LayoutError, match="not UTF-8"):
        L.decode_json(b"\xff\xfe")


DEFAULTS_YAML = """\
# comments are fine
calibrated:
  # translation in metres, rotation in radians
  lidar_upper_to_rgb:
    translation: [0, 0, -0.33529]
    rotation: [0, 0, 0.085]   # only the yaw
  lidar_lower_to_rgb:
    translation: [0, 0,
                  0.13511]
    rotation: [0, 0, 0]
image:
  width: 3760
  height: 480
  stitched_image0:
    row: { a: 1 }
    names:
      - "sensor_0"
      - sensor_2
    cameras:
      - name: a
        id: 1
"""


def test_a_defaults_file_is_read():
    calibration = L.parse_calibration(DEFAULTS_YAML)
    assert calibration.lower.translation == (0.0, 0.0, 0.13511)  # a list over two lines
    assert calibration.upper == L.SensorPose((0.0, 0.0, -0.33529), (0.0, 0.0, 0.085))
    assert calibration.image_size == (3760, 480)


def test_calibration_numbers_are_read_as_python_writes_them():
    # YAML 1.1 reads 1e-05 (Python's "g" format, no decimal point) and -.5 as strings
    text = DEFAULTS_YAML.replace("[0, 0, 0.085]", "[-.5, 1.5e3, 1e-05]")
    assert L.parse_calibration(text).upper.rotation == (-0.5, 1500.0, 1e-05)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("image:\n  width: 3\n", "calibrated: missing"),
        ("calibrated:\n  lidar_upper_to_rgb:\n    translation: [0, 0]\n", "translation"),
        ("calibrated:\n  lidar_upper_to_rgb: {}\n", "lidar_upper_to_rgb: missing"),
        ("calibrated:\n  a: 1\n    b: 2\n", "line 3: not YAML"),
        ("calibrated:\n  a: [1, 2\n", "while parsing a flow sequence at line 2"),
        ("- calibrated\n", "top level: expected a mapping"),
    ],
)
def test_a_broken_calibration_names_the_key_or_line(text, needle):
    with pytest.raises(L.LayoutError, match=needle.replace("[", r"\[")):
        L.parse_calibration(text)


def test_calibration_round_trips_and_can_be_adjusted():
    calibration = L.parse_calibration(DEFAULTS_YAML)
    again = L.Calibration.from_dict(calibration.as_dict())
    assert (again.upper, again.lower, again.image_size) == (
        calibration.upper,
        calibration.lower,
        calibration.image_size,
    )
    moved = calibration.with_pose("lower", rotation=(0.0, 0.0, 0.02), source="Ada")
    assert moved.lower.rotation == (0.0, 0.0, 0.02)
    assert moved.lower.translation == calibration.lower.translation
    assert moved.upper == calibration.upper and moved.source == "Ada"
    assert L.Calibration.from_dict({}) == L.Calibration()


def test_sensor_pose_follows_jrdbs_subtract_then_rotate_convention():
    pose = L.SensorPose((1.0, 0.0, -0.5), (0.0, 0.0, math.pi / 2))
    m = pose.to_label()
    p = np.array([2.0, 0.0, 0.0, 1.0])
    # (p - t) = (1, 0, 0.5), rotated +90 degrees about z -> (0, 1, 0.5)
    assert np.allclose(m @ p, [0.0, 1.0, 0.5, 1.0])
    assert np.allclose(pose.origin(), m[:3, 3])


def test_entity_kinds_and_frame_names():
    assert L.entity_kind("pedestrian:4") == ("human", "pedestrian")
    assert L.entity_kind("chair:2") == ("object", "chair")
    assert L.frame_index("000123.pcd") == 123 and L.frame_name(5, ".pcd") == "000005.pcd"
