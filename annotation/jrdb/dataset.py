"""The JRDB folder layout: where its files live, what their records are, how to check them.

Everything here is pure: it takes decoded JSON (or YAML text, read with PyYAML) and
returns dataclasses, or raises `LayoutError` whose message names the offending key
(`labels["000012.jpg"][3].box: ...`) or line; the caller prefixes the file. Reading
files, point clouds and the database happens elsewhere (`app.io.jrdb`,
`sim.jrdb.lidar`, `store.sequences`); where label-frame points land on the stitched
panorama is `annotation.jrdb.panorama`. The formats are described in docs/jrdb-import.md.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import yaml

from annotation.formats import json_text

# -- where things are, relative to the dataset root ----------------------------
LABELS_2D = "labels/labels_2d_stitched"
LABELS_3D = "labels/labels_3d"
LABELS_ACTIVITY = "labels/labels_2d_activity_social_stitched"
LABELS_OBJECTS = "labels/labels_objects"
IMAGES = "images/image_stitched"
POINTCLOUDS = {"upper": "pointclouds/upper_velodyne", "lower": "pointclouds/lower_velodyne"}
CALIBRATION = "calibration/defaults.yaml"

#: The stitched images' size in pixels (`annotation.jrdb.panorama` maps points onto them).
PANORAMA_WIDTH = 3760
PANORAMA_HEIGHT = 480
#: JRDB annotates its stitched frames at this rate; frame timestamps are index / rate.
FRAME_RATE_HZ = 15.0
OCCLUSION_LEVELS = ("Fully_visible", "Mostly_visible", "Severely_occluded", "Fully_occluded")
OBJECTS_FORMAT = "reasonscope-jrdb-objects/1"
CALIBRATION_FORMAT = "reasonscope-jrdb-calibration/1"
#: Kinds of per-person, per-frame labels read from the activity/social file.
PERSON_LABEL_KINDS = (
    "action",
    "social_activity",
    "social_group",
    "interaction",
    "gender",
    "age",
    "race",
)
PERSON_PREFIXES = ("pedestrian", "person")
BOX_SOURCES = ("import", "annotator")
SENSORS = ("upper", "lower")

_FRAME_NAME = re.compile(r"^(\d{1,9})\.(jpg|jpeg|png|pcd)$", re.IGNORECASE)
MAX_WHOLE = 2**31  # difficulties and group ids stay below this


class LayoutError(ValueError):
    """A label or calibration file does not have the documented shape; names the key."""


# -- records -------------------------------------------------------------------
@dataclass(frozen=True)
class PersonBox2D:
    """One `labels_2d_stitched` entry: a panorama box [x, y, w, h]; x + w may pass the seam."""

    label_id: str
    frame_index: int
    box: tuple[float, float, float, float]
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PersonBox3D:
    """One `labels_3d` entry: centre, extents and yaw in the label (rgb) frame."""

    label_id: str
    frame_index: int
    box: tuple[float, float, float, float, float, float, float]  # cx cy cz l w h rot_z
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ObjectBox:
    """One entry of our objects file: an object's 2D and/or 3D box in one frame."""

    label_id: str
    category: str
    frame_index: int
    box_2d: tuple[float, float, float, float] | None
    box_3d: tuple[float, float, float, float, float, float, float] | None
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class PersonLabel:
    """A per-frame activity, social or demographic label of one person.

    `kind` is one of PERSON_LABEL_KINDS; `other_label_id` is the partner of an
    `interaction`; `difficulty` is JRDB's integer next to each label.
    """

    frame_index: int
    label_id: str
    kind: str
    label: str
    difficulty: int | None = None
    other_label_id: str | None = None


@dataclass(frozen=True)
class SensorPose:
    """Where one lidar sits relative to the label frame, in JRDB's convention.

    A sensor point p maps to the label frame as R (p - translation), with
    R = Rz(yaw) Ry(pitch) Rx(roll) and rotation = (roll, pitch, yaw) in radians.
    JRDB's published files set only the yaw; with roll = pitch = 0 this is
    exactly the transform its toolkit applies.
    """

    translation: tuple[float, float, float] = (0.0, 0.0, 0.0)
    rotation: tuple[float, float, float] = (0.0, 0.0, 0.0)

    def rotation_matrix(self) -> np.ndarray:
        roll, pitch, yaw = self.rotation
        cr, sr, cp, sp, cy, sy = (
            math.cos(roll),
            math.sin(roll),
            math.cos(pitch),
            math.sin(pitch),
            math.cos(yaw),
            math.sin(yaw),
        )
        rx = np.array([[1, 0, 0], [0, cr, -sr], [0, sr, cr]])
        ry = np.array([[cp, 0, sp], [0, 1, 0], [-sp, 0, cp]])
        rz = np.array([[cy, -sy, 0], [sy, cy, 0], [0, 0, 1]])
        return rz @ ry @ rx

    def to_label(self) -> np.ndarray:
        """The 4 x 4 matrix taking homogeneous sensor points to the label frame."""
        r = self.rotation_matrix()
        m = np.eye(4)
        m[:3, :3] = r
        m[:3, 3] = -r @ np.asarray(self.translation, dtype=float)
        return m

    def origin(self) -> np.ndarray:
        """The sensor's origin in the label frame."""
        return self.to_label()[:3, 3]

    def as_dict(self) -> dict[str, list[float]]:
        return {"translation": list(self.translation), "rotation": list(self.rotation)}


@dataclass(frozen=True)
class Calibration:
    """The two lidars' poses for one sequence, as stored in `sequences.calibration`."""

    upper: SensorPose = SensorPose()
    lower: SensorPose = SensorPose()
    source: str = "identity"
    image_size: tuple[int, int] = (PANORAMA_WIDTH, PANORAMA_HEIGHT)

    def pose(self, sensor: str) -> SensorPose:
        if sensor not in SENSORS:
            raise ValueError(f"sensor must be one of {SENSORS}, not {sensor!r}")
        return self.upper if sensor == "upper" else self.lower

    def with_pose(
        self,
        sensor: str,
        *,
        translation: tuple[float, float, float] | None = None,
        rotation: tuple[float, float, float] | None = None,
        source: str = "adjusted",
    ) -> Calibration:
        """A copy with one sensor's translation and/or rotation replaced."""
        old = self.pose(sensor)
        new = SensorPose(
            tuple(translation) if translation is not None else old.translation,
            tuple(rotation) if rotation is not None else old.rotation,
        )
        return replace(self, source=source, **{sensor: new})

    def as_dict(self) -> dict[str, Any]:
        return {
            "format": CALIBRATION_FORMAT,
            "source": self.source,
            "convention": "p_label = Rz(yaw) Ry(pitch) Rx(roll) (p_sensor - translation); "
            "rotation = [roll, pitch, yaw] in radians",
            "lidar_upper_to_rgb": self.upper.as_dict(),
            "lidar_lower_to_rgb": self.lower.as_dict(),
            "image": {"width": self.image_size[0], "height": self.image_size[1]},
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Calibration:
        """Read the stored form (or the `calibrated` part of defaults.yaml); `{}` is identity."""
        if not data:
            return cls()
        if not isinstance(data, dict):
            raise LayoutError(f"calibration: expected an object, got {type(data).__name__}")
        poses = {}
        for sensor in SENSORS:
            key = f"lidar_{sensor}_to_rgb"
            entry = data.get(key)
            if not isinstance(entry, dict) or not entry:
                raise LayoutError(f"{key}: missing (expected translation and rotation)")
            poses[sensor] = SensorPose(
                _numbers(entry.get("translation"), 3, f"{key}.translation"),
                _numbers(entry.get("rotation", [0, 0, 0]), 3, f"{key}.rotation"),
            )
        image = data.get("image") if isinstance(data.get("image"), dict) else {}
        width = image.get("width", PANORAMA_WIDTH)
        height = image.get("height", PANORAMA_HEIGHT)
        if not all(
            isinstance(v, int) and not isinstance(v, bool) and v > 0 for v in (width, height)
        ):
            raise LayoutError(f"image: width and height must be positive integers, got {image}")
        return cls(
            poses["upper"], poses["lower"], str(data.get("source", "stored")), (width, height)
        )


@dataclass(frozen=True)
class SequenceEntity:
    """A person or object of an imported sequence, with its database row id."""

    id: int
    key: str
    kind: str
    category: str
    attributes: dict[str, Any]
    source: str


@dataclass(frozen=True)
class BoxRecord:
    """A stored box with where it came from: 'import' or 'annotator' (and who, when)."""

    box: Any  # annotation.models.Box2D or Box3D
    source: str
    annotator_id: int | None
    updated_at: str | None
    original: tuple[float, ...] | None = None  # the imported values, once a person changed it


# -- small checks ----------------------------------------------------------------
def _shown(value: Any, limit: int = 60) -> str:
    """A value as a message quotes it: its JSON, cut after `limit` characters."""
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def _key(parent: str, key: str | int) -> str:
    return f"{parent}[{key}]" if isinstance(key, int) else f'{parent}["{key}"]'


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise LayoutError(f"{where}: expected a number, got {_shown(value)}")
    return float(value)


def _numbers(value: Any, n: int, where: str) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n:
        got = f"{len(value)} numbers" if isinstance(value, list) else _shown(value)
        raise LayoutError(f"{where}: expected {n} numbers, got {got}")
    return tuple(_number(v, f"{where}[{i}]") for i, v in enumerate(value))


def _label_id(value: Any, where: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise LayoutError(f'{where}.label_id: expected a name like "pedestrian:3"')
    return value


def frame_index(name: str, where: str = "labels") -> int:
    """The index of a frame file name such as `000123.jpg` or `000123.pcd`."""
    match = _FRAME_NAME.match(name)
    if not match:
        raise LayoutError(f'{_key(where, name)}: not a frame name like "000123.jpg"')
    return int(match.group(1))


def frame_name(index: int, suffix: str = ".jpg") -> str:
    return f"{index:06d}{suffix}"


def entity_kind(label_id: str) -> tuple[str, str]:
    """(kind, category) of a label id: `pedestrian:3` is a human, `chair:2` an object."""
    prefix = label_id.split(":", 1)[0].strip().lower()
    if prefix in PERSON_PREFIXES:
        return "human", "pedestrian"
    return "object", prefix or "object"


def _truthy(value: Any) -> Any:
    """JRDB writes some flags as the strings "true"/"false"; make them booleans."""
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    return value


def _frames(data: Any, suffix_hint: str) -> list[tuple[str, int, list[Any]]]:
    if not isinstance(data, dict):
        raise LayoutError(f"top level: expected an object, got {type(data).__name__}")
    if "labels" not in data:
        raise LayoutError(
            '"labels": missing (expected {"labels": {"000000' + suffix_hint + '": [...]}})'
        )
    labels = data["labels"]
    if not isinstance(labels, dict):
        raise LayoutError(f'"labels": expected an object of frames, got {type(labels).__name__}')
    out = []
    for name, entries in labels.items():
        index = frame_index(name)
        if not isinstance(entries, list):
            raise LayoutError(f"{_key('labels', name)}: expected a list of labels")
        out.append((name, index, entries))
    return out


def _entry(entry: Any, where: str) -> dict[str, Any]:
    if not isinstance(entry, dict):
        raise LayoutError(f"{where}: expected an object, got {json.dumps(entry)[:40]}")
    return entry


def _attributes(entry: dict[str, Any], where: str) -> dict[str, Any]:
    attributes = entry.get("attributes", {})
    if not isinstance(attributes, dict):
        raise LayoutError(f"{where}.attributes: expected an object")
    return attributes


def _box_2d(value: Any, where: str) -> tuple[float, float, float, float]:
    box = _numbers(value, 4, f"{where} (x, y, w, h)")
    if box[2] < 0 or box[3] < 0:
        raise LayoutError(f"{where}: width and height must not be negative, got {list(box)}")
    return box


_BOX_3D_KEYS = ("cx", "cy", "cz", "l", "w", "h", "rot_z")


def _box_3d(value: Any, where: str) -> tuple[float, float, float, float, float, float, float]:
    if not isinstance(value, dict):
        raise LayoutError(f"{where}: expected an object with {', '.join(_BOX_3D_KEYS)}")
    missing = [k for k in _BOX_3D_KEYS if k not in value]
    if missing:
        raise LayoutError(f"{where}: missing {', '.join(missing)}")
    box = tuple(_number(value[k], f"{where}.{k}") for k in _BOX_3D_KEYS)
    if min(box[3:6]) < 0:
        raise LayoutError(f"{where}: l, w and h must not be negative")
    return box


def _unique(seen: set[str], label_id: str, where: str) -> None:
    if label_id in seen:
        raise LayoutError(f"{where}.label_id: {label_id} appears twice in this frame")
    seen.add(label_id)


def _labelled_entries(data: Any, suffix: str) -> Iterator[tuple[int, str, dict, str]]:
    """Every entry of a label file's frames, checked to be an object with a label_id
    unique in its frame: (frame index, where it is for messages, entry, label_id)."""
    for name, index, entries in _frames(data, suffix):
        seen: set[str] = set()
        for i, raw in enumerate(entries):
            where = f"{_key('labels', name)}[{i}]"
            entry = _entry(raw, where)
            label_id = _label_id(entry.get("label_id"), where)
            _unique(seen, label_id, where)
            yield index, where, entry, label_id


# -- the label files ---------------------------------------------------------------
def parse_labels_2d(data: Any) -> list[PersonBox2D]:
    """Boxes of `labels_2d_stitched/<seq>.json`; `truncated` etc. become booleans."""
    out = []
    for index, where, entry, label_id in _labelled_entries(data, ".jpg"):
        if "box" not in entry:
            raise LayoutError(f"{where}.box: missing")
        box = _box_2d(entry["box"], f"{where}.box")
        attributes = {k: _truthy(v) for k, v in _attributes(entry, where).items()}
        occlusion = attributes.get("occlusion")
        if occlusion is not None and occlusion not in OCCLUSION_LEVELS:
            raise LayoutError(
                f"{where}.attributes.occlusion: {_shown(occlusion)} is not one of "
                f"{', '.join(OCCLUSION_LEVELS)}"
            )
        out.append(PersonBox2D(label_id, index, box, attributes))
    return out


def parse_labels_3d(data: Any) -> list[PersonBox3D]:
    """Boxes of `labels_3d/<seq>.json` (frames keyed by `.pcd` names)."""
    out = []
    for index, where, entry, label_id in _labelled_entries(data, ".pcd"):
        box = _box_3d(entry.get("box"), f"{where}.box")
        out.append(PersonBox3D(label_id, index, box, dict(_attributes(entry, where))))
    return out


def parse_objects(data: Any) -> list[ObjectBox]:
    """Object boxes of `labels_objects/<seq>.json`, our own documented format."""
    if isinstance(data, dict) and "format" in data and data["format"] != OBJECTS_FORMAT:
        raise LayoutError(f'"format": expected "{OBJECTS_FORMAT}", got {_shown(data["format"])}')
    out = []
    for index, where, entry, label_id in _labelled_entries(data, ".jpg"):
        kind, category = entity_kind(label_id)
        if kind != "object":
            raise LayoutError(f"{where}.label_id: {label_id} names a person, not an object")
        category = entry.get("category", category)
        if not isinstance(category, str) or not category.strip():
            raise LayoutError(f'{where}.category: expected a name like "chair"')
        box_2d = _box_2d(entry["box"], f"{where}.box") if entry.get("box") is not None else None
        box_3d = (
            _box_3d(entry["box_3d"], f"{where}.box_3d") if entry.get("box_3d") is not None else None
        )
        if box_2d is None and box_3d is None:
            raise LayoutError(f"{where}: needs a 2D box (box), a 3D box (box_3d) or both")
        attributes = {k: _truthy(v) for k, v in _attributes(entry, where).items()}
        out.append(ObjectBox(label_id, category, index, box_2d, box_3d, attributes))
    return out


def integral(value: Any, where: str, what: str = "difficulty") -> int | None:
    """A JRDB difficulty or id: 1, 1.0 and "1" are all 1 (the real files mix them);
    None stays None; 1.5, "easy" or true is a `LayoutError` naming the key and value."""
    if value is None:
        return None
    number = value
    if isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = None
    if isinstance(number, bool) or not isinstance(number, (int, float)):
        number = None
    elif isinstance(number, float) and not (math.isfinite(number) and number.is_integer()):
        number = None
    elif not -MAX_WHOLE < number < MAX_WHOLE:
        number = None  # a database integer holds it; no difficulty or group id is this big
    if number is None:
        raise LayoutError(
            f'{where}: {what} must be a whole number (1, 1.0 or "1"), got {_shown(value)}'
        )
    return int(number)


def _difficulties(value: Any, where: str) -> list[tuple[str, int | None]]:
    """`{label: difficulty}`; a list of such objects is merged."""
    if isinstance(value, list):
        merged: list[tuple[str, int | None]] = []
        for i, item in enumerate(value):
            merged += _difficulties(item, f"{where}[{i}]")
        return merged
    if not isinstance(value, dict):
        raise LayoutError(f"{where}: expected an object {{label: difficulty}}")
    return [(str(k), integral(d, f'{where}["{k}"]')) for k, d in value.items()]


def _demographics(value: Any, where: str) -> list[tuple[str, str, int | None]]:
    """`{"gender": {label: d}, "age": {label: d}}`, or a list of one-key objects."""
    items = value if isinstance(value, list) else [value]
    out = []
    for i, item in enumerate(items):
        at = f"{where}[{i}]" if isinstance(value, list) else where
        if not isinstance(item, dict):
            raise LayoutError(f'{at}: expected an object such as {{"gender": {{"female": 1}}}}')
        for kind, labels in item.items():
            if kind not in ("gender", "age", "race"):
                continue  # other demographic keys are kept out rather than refused
            out += [(kind, label, d) for label, d in _difficulties(labels, f'{at}["{kind}"]')]
    return out


def _interactions(value: Any, where: str) -> list[tuple[str, str, int | None]]:
    """H-interaction: `[{"pair": id, "inter_labels": {label: d}}]` or `{id: {label: d}}`."""
    out = []
    if isinstance(value, dict):
        for other, labels in value.items():
            out += [(other, label, d) for label, d in _difficulties(labels, f'{where}["{other}"]')]
        return out
    if not isinstance(value, list):
        raise LayoutError(f"{where}: expected a list of {{pair, inter_labels}} objects")
    for i, item in enumerate(value):
        at = f"{where}[{i}]"
        if not isinstance(item, dict) or not isinstance(item.get("pair"), str):
            raise LayoutError(f"{at}.pair: expected the partner's label_id")
        labels = item.get("inter_labels", {})
        out += [
            (item["pair"], label, d) for label, d in _difficulties(labels, f"{at}.inter_labels")
        ]
    return out


def parse_activity(data: Any) -> list[PersonLabel]:
    """Per-person, per-frame labels of `labels_2d_activity_social_stitched/<seq>.json`."""
    out = []
    for name, index, entries in _frames(data, ".jpg"):
        for i, raw in enumerate(entries):
            where = f"{_key('labels', name)}[{i}]"
            entry = _entry(raw, where)
            person = _label_id(entry.get("label_id"), where)
            for key, kind in (("action_label", "action"), ("social_activity", "social_activity")):
                if entry.get(key) is not None:
                    out += [
                        PersonLabel(index, person, kind, label, d)
                        for label, d in _difficulties(entry[key], f"{where}.{key}")
                    ]
            group = entry.get("social_group")
            if isinstance(group, dict) and group.get("cluster_ID") is not None:
                at = f"{where}.social_group"
                cluster = integral(group["cluster_ID"], f"{at}.cluster_ID", "a group id")
                stat = integral(group.get("cluster_stat"), f"{at}.cluster_stat")
                out.append(PersonLabel(index, person, "social_group", str(cluster), stat))
            infos = entry.get("group_info") or []
            for j, info in enumerate(infos if isinstance(infos, list) else [infos]):
                for key, labels in info.items() if isinstance(info, dict) else ():
                    _difficulties(labels, f"{where}.group_info[{j}].{key}")  # checked, kept raw
            if entry.get("demographics_info") is not None:
                out += [
                    PersonLabel(index, person, kind, label, d)
                    for kind, label, d in _demographics(
                        entry["demographics_info"], f"{where}.demographics_info"
                    )
                ]
            if entry.get("H-interaction") is not None:
                out += [
                    PersonLabel(index, person, "interaction", label, d, other)
                    for other, label, d in _interactions(
                        entry["H-interaction"], f"{where}.H-interaction"
                    )
                ]
    return out


def demographic(label: str) -> str | None:
    """A demographic label as the app's attribute value: "Young_Adulthood" is
    "young_adulthood", "Female" "female"; "impossible" (not judged) is None."""
    value = str(label).strip().lower()
    return None if value in ("", "impossible", "unknown") else value


def activity_entries(data: Any) -> list[tuple[int, str, dict[str, Any]]]:
    """(frame index, label_id, the entry as written) of every person of an activity file,
    kept whole so that an export can write back every field (call `parse_activity` first)."""
    return [(i, label_id, e) for i, _w, e, label_id in _labelled_entries(data, ".jpg")]


def decode_json(raw: bytes) -> Any:
    """Decode a label file, or raise `LayoutError` saying where the JSON breaks."""
    try:
        return json_text.loads(raw.decode("utf-8"), finite=True)
    except UnicodeDecodeError:
        raise LayoutError("not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise LayoutError(f"line {exc.lineno}: not JSON ({exc.msg})") from None


# -- calibration/defaults.yaml ------------------------------------------------------
class _CalibrationLoader(yaml.SafeLoader):
    """PyYAML's safe loader, reading numbers as YAML 1.2 (and Python) do: `1e-05` (no
    decimal point, as Python's `g` format writes it), `1.5e3` (no sign after the e)
    and `-.5` are floats, where YAML 1.1 would leave them strings."""


_CalibrationLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(
        r"^[-+]?(?:[0-9][0-9_]*(?:\.[0-9_]*)?[eE][-+]?[0-9]+|\.[0-9_]+(?:[eE][-+]?[0-9]+)?)$"
    ),
    list("-+0123456789."),
)


def parse_calibration(text: str) -> Calibration:
    """The lidar poses in a JRDB `calibration/defaults.yaml` (its `calibrated` section)."""
    try:
        data = yaml.load(text, Loader=_CalibrationLoader)  # a safe loader
    except yaml.YAMLError as exc:
        raise LayoutError(_yaml_problem(exc)) from None
    if data is not None and not isinstance(data, dict):
        raise LayoutError("top level: expected a mapping")
    calibrated = data.get("calibrated") if isinstance(data, dict) else None
    if not isinstance(calibrated, dict):
        raise LayoutError("calibrated: missing (expected lidar_upper_to_rgb, lidar_lower_to_rgb)")
    merged = dict(calibrated)
    if isinstance(data.get("image"), dict):
        image = data["image"]
        merged["image"] = {k: image[k] for k in ("width", "height") if k in image}
    merged["source"] = CALIBRATION
    return Calibration.from_dict(merged)


def _yaml_problem(exc: yaml.YAMLError) -> str:
    """A YAML error on one line: `line N: not YAML (what, while what at line M)`."""
    mark = getattr(exc, "problem_mark", None)
    what = getattr(exc, "problem", None) or str(exc)
    context, start = getattr(exc, "context", None), getattr(exc, "context_mark", None)
    if context:
        what += f", {context}" + (f" at line {start.line + 1}" if start is not None else "")
    where = f"line {mark.line + 1}: " if mark is not None else ""
    return " ".join(f"{where}not YAML ({what})".split())
