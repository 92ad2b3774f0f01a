"""A small synthetic JRDB sequence, written in exactly the dataset's folder layout.

People walk, stand, sit at a table with a laptop and carry a bag; one stands
right behind the robot so that their panorama box runs past the seam. Two
lidars (upper and lower) are ray-cast against the scene and each sweep is
written in its own sensor frame, so merging them needs the calibration in
`calibration/defaults.yaml`. The panoramas are 3760 x 480 JPEGs drawn with
Pillow: a wall, a floor, and each person or object as a simple figure where
its 2D box is. Used by the demo, the tests, the bench and
`scripts/make_jrdb_sequence.py`.
"""

from __future__ import annotations

import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from annotation.jrdb import dataset as L
from annotation.jrdb.panorama import PANORAMA_FOCAL_PX, PANORAMA_HORIZON_ROW, panorama_box
from annotation.progress import Progress
from sim.jrdb.lidar import SweepWorld, cast_sweep, points_in_box, to_label_frame, write_sweep

#: The poses the synthetic sweeps are really taken from (label frame: 1 m above the floor).
TRUE_CALIBRATION = L.Calibration(
    upper=L.SensorPose((0.0, 0.0, -0.35), (0.0, 0.0, 0.08)),
    lower=L.SensorPose((0.02, 0.0, 0.45), (0.0, 0.0, -0.03)),
    source="synthetic",
)
FLOOR_Z = -1.0
MARKER = "SYNTHETIC.txt"

_PERSON = (0.5, 0.6, 1.75)  # l (along the heading), w, h
_SIZES = {
    "chair": (0.5, 0.5, 0.9),
    "table": (1.2, 0.8, 0.75),
    "laptop": (0.35, 0.25, 0.03),
    "bag": (0.2, 0.35, 0.4),
}
_PALETTE = [(200, 60, 60), (60, 110, 200), (60, 160, 90), (220, 150, 40), (150, 80, 180)]
_PALETTE += [(40, 170, 170), (190, 90, 130), (120, 120, 40)]
_OBJECT_COLOURS = {
    "chair": (120, 80, 50),
    "table": (150, 110, 70),
    "laptop": (40, 40, 48),
    "bag": (90, 60, 110),
}
#: JRDB-Social race labels as the files write them, by person number; "Others" and
#: "impossible" (not judged) are there too, as in the real files.
_RACES = (
    "Mongoloid/Asian",
    "Caucasian/White",
    "Negroid/Black",
    "Caucasian/White",
    "Others",
    "impossible",
)
_ACTIONS = {
    "walking": {"walking": 1},
    "carrying": {"walking": 1, "carrying something": 2},
    "standing": {"standing": 1, "looking at sth": 2},
    "sitting": {"sitting": 1, "working on computer": 2},
    "phoning": {"standing": 1, "talking on the phone": 3},
}


@dataclass(frozen=True)
class SynthConfig:
    """How big a sequence to write. `lower_yaw_error` (radians) is added to the lower
    lidar's yaw in defaults.yaml, to mimic a published calibration that misaligns."""

    name: str = "synthetic-cafe_0"
    frames: int = 10
    people: int = 6
    objects: int = 6
    points_per_sweep: int = 20_000
    seed: int = 0
    lower_yaw_error: float = 0.0


@dataclass
class Actor:
    """A person or object of the scene: where it starts and how it moves."""

    label_id: str
    category: str
    size: tuple[float, float, float]
    position: tuple[float, float]
    velocity: tuple[float, float] = (0.0, 0.0)
    yaw: float | None = None  # None: face the robot (persons) or along the motion
    action: str | None = None
    lift: float = 0.0  # height of its bottom above the floor
    follows: tuple[str, float, float] | None = None  # (label_id, along, across) offset
    orbit: float = 0.0  # rad/s about the robot: walks a circle instead of a straight line

    @property
    def is_person(self) -> bool:
        return self.category == "pedestrian"


@dataclass
class SynthSummary:
    root: Path
    name: str
    frames: int
    persons: list[str]
    objects: list[str]
    seam_persons: list[str] = field(default_factory=list)  # boxes running past x = 3760


def make_actors(config: SynthConfig) -> list[Actor]:
    """The scene's people and objects; the first six people and objects are fixed roles."""
    rng = np.random.default_rng(config.seed)
    people = [
        Actor("pedestrian:1", "pedestrian", _PERSON, (3.6, 3.2), (0.0, -1.2), action="walking"),
        Actor("pedestrian:2", "pedestrian", _PERSON, (4.4, 2.6), (0.0, -1.2), action="carrying"),
        Actor("pedestrian:3", "pedestrian", _PERSON, (3.2, -2.5), action="standing"),
        Actor("pedestrian:4", "pedestrian", (0.7, 0.6, 1.3), (-1.5, 3.6), action="sitting"),
        Actor("pedestrian:5", "pedestrian", _PERSON, (-6.0, -3.0), (1.0, 0.0), action="walking"),
        Actor("pedestrian:6", "pedestrian", _PERSON, (-4.0, 0.0), action="phoning"),
    ][: config.people]
    for i in range(len(people), config.people):
        radius, angle = rng.uniform(3.0, 9.0), rng.uniform(-math.pi, math.pi)
        moving = rng.random() < 0.5
        # walkers circle the robot, so that long sequences keep them between robot and wall
        orbit = rng.choice([-1, 1]) * rng.uniform(0.6, 1.4) / radius if moving else 0.0
        people.append(
            Actor(
                f"pedestrian:{i + 1}",
                "pedestrian",
                _PERSON,
                (radius * math.cos(angle), radius * math.sin(angle)),
                orbit=float(orbit),
                action="walking" if moving else "standing",
            )
        )
    carrier = "pedestrian:2" if config.people >= 2 else None
    objects = [
        Actor("chair:1", "chair", _SIZES["chair"], (-1.5, 3.6), yaw=math.pi / 2),
        Actor("table:1", "table", _SIZES["table"], (-1.5, 4.5), yaw=0.0),
        Actor("laptop:1", "laptop", _SIZES["laptop"], (-1.5, 4.3), yaw=-0.2, lift=0.75),
        Actor(
            "bag:1",
            "bag",
            _SIZES["bag"],
            (5.3, 3.7),
            yaw=0.0,
            lift=0.45 if carrier else 0.0,
            follows=(carrier, 0.0, 0.42) if carrier else None,
        ),
        Actor("chair:2", "chair", _SIZES["chair"], (-2.6, 4.2), yaw=-0.4),
        Actor("bag:2", "bag", _SIZES["bag"], (3.2, -1.9), yaw=0.5),
    ][: config.objects]
    for i in range(len(objects), config.objects):
        category = ("chair", "bag")[i % 2]
        radius, angle = rng.uniform(2.5, 9.0), rng.uniform(-math.pi, math.pi)
        objects.append(
            Actor(
                f"{category}:{i + 1}",
                category,
                _SIZES[category],
                (radius * math.cos(angle), radius * math.sin(angle)),
                yaw=float(rng.uniform(-math.pi, math.pi)),
            )
        )
    return people + objects


def actor_box(actor: Actor, t: float, actors: dict[str, Actor]) -> tuple[float, ...]:
    """The actor's 3D box (cx, cy, cz, l, w, h, rot_z) at time `t` seconds."""
    if actor.follows is not None:
        leader = actors[actor.follows[0]]
        lx, ly, _, _, _, _, heading = actor_box(leader, t, actors)
        along, across = actor.follows[1:]
        x = lx + along * math.cos(heading) - across * math.sin(heading)
        y = ly + along * math.sin(heading) + across * math.cos(heading)
        yaw = heading
    elif actor.orbit:
        radius = math.hypot(*actor.position)
        angle = math.atan2(actor.position[1], actor.position[0]) + actor.orbit * t
        x, y = radius * math.cos(angle), radius * math.sin(angle)
        yaw = angle + math.copysign(math.pi / 2, actor.orbit)
    else:
        x = actor.position[0] + actor.velocity[0] * t
        y = actor.position[1] + actor.velocity[1] * t
        if actor.yaw is not None:
            yaw = actor.yaw
        elif any(actor.velocity):
            yaw = math.atan2(actor.velocity[1], actor.velocity[0])
        else:
            yaw = math.atan2(-y, -x)  # standing people face the robot
    length, width, height = actor.size
    cz = FLOOR_Z + actor.lift + height / 2
    return (x, y, cz, length, width, height, math.atan2(math.sin(yaw), math.cos(yaw)))


def _calibration_yaml(config: SynthConfig) -> str:
    upper, lower = TRUE_CALIBRATION.upper, TRUE_CALIBRATION.lower
    roll, pitch, yaw = lower.rotation
    lower_rotation = (roll, pitch, yaw + config.lower_yaw_error)

    def nums(values) -> str:
        return "[" + ", ".join(f"{v:.6g}" for v in values) + "]"

    return (
        "# Synthetic JRDB calibration written by ReasonScope (app/demo/jrdb_synth.py).\n"
        "calibrated:\n"
        "  # p_label = Rz(yaw) (p_sensor - translation); rotation = [roll, pitch, yaw]\n"
        "  lidar_upper_to_rgb:\n"
        f"    translation: {nums(upper.translation)}\n"
        f"    rotation: {nums(upper.rotation)}\n"
        "  lidar_lower_to_rgb:\n"
        f"    translation: {nums(lower.translation)}\n"
        f"    rotation: {nums(lower_rotation)}\n"
        "image:\n"
        f"  width: {L.PANORAMA_WIDTH}\n"
        f"  height: {L.PANORAMA_HEIGHT}\n"
    )


def _overlap(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    """Area of a that b covers, trying b shifted by a panorama width either way (the seam)."""
    best = 0.0
    for shift in (-L.PANORAMA_WIDTH, 0, L.PANORAMA_WIDTH):
        dx = min(a[0] + a[2], b[0] + shift + b[2]) - max(a[0], b[0] + shift)
        dy = min(a[1] + a[3], b[1] + b[3]) - max(a[1], b[1])
        best = max(best, max(dx, 0) * max(dy, 0))
    return best


def _occlusion(box: tuple[float, ...], nearer: list[tuple[float, ...]]) -> str:
    area = max(box[2] * box[3], 1e-6)
    covered = min(sum(_overlap(box, other) for other in nearer) / area, 1.0)
    for limit, level in zip((0.1, 0.4, 0.85), L.OCCLUSION_LEVELS, strict=False):
        if covered < limit:
            return level
    return L.OCCLUSION_LEVELS[-1]


def _background() -> Image.Image:
    w, h = L.PANORAMA_WIDTH, L.PANORAMA_HEIGHT
    rows = np.arange(h, dtype=float)[:, None]
    wall_top = PANORAMA_HORIZON_ROW - PANORAMA_FOCAL_PX * (FLOOR_Z + 3.0) / 12.0
    wall_foot = PANORAMA_HORIZON_ROW - PANORAMA_FOCAL_PX * FLOOR_Z / 12.0
    sky = np.array([190, 210, 235]) - rows[..., None] * 0.1
    wall = np.array([222, 214, 196]) - (rows[..., None] - wall_top) * 0.15
    floor = np.array([150, 146, 140]) - (rows[..., None] - wall_foot) * 0.25
    pixels = np.where(
        rows[..., None] < wall_top, sky, np.where(rows[..., None] < wall_foot, wall, floor)
    )
    pixels = np.repeat(pixels, w, axis=1)
    columns = np.arange(w)
    pillar = (columns % 470) < 18  # pillars along the wall give the eye something to track
    band = (np.arange(h) >= wall_top) & (np.arange(h) < wall_foot)
    pixels[np.ix_(band, pillar)] = (188, 180, 165)
    return Image.fromarray(np.clip(pixels, 0, 255).astype(np.uint8), "RGB")


def _draw(draw: ImageDraw.ImageDraw, actor: Actor, box: tuple[float, ...], colour) -> None:
    for shift in (0, -L.PANORAMA_WIDTH) if box[0] + box[2] > L.PANORAMA_WIDTH else (0,):
        x, y, w, h = box[0] + shift, box[1], box[2], box[3]
        if actor.is_person:
            head = min(w * 0.55, h * 0.16)
            cx = x + w / 2
            draw.ellipse([cx - head / 2, y, cx + head / 2, y + head], fill=(224, 186, 150))
            draw.rectangle([x + w * 0.12, y + head, x + w * 0.88, y + h * 0.58], fill=colour)
            leg = (50, 50, 70)
            draw.rectangle([x + w * 0.2, y + h * 0.58, x + w * 0.46, y + h], fill=leg)
            draw.rectangle([x + w * 0.54, y + h * 0.58, x + w * 0.8, y + h], fill=leg)
        elif actor.category == "table":
            draw.rectangle([x, y, x + w, y + h * 0.18], fill=colour)
            draw.rectangle([x + w * 0.05, y, x + w * 0.12, y + h], fill=colour)
            draw.rectangle([x + w * 0.88, y, x + w * 0.95, y + h], fill=colour)
        elif actor.category == "chair":
            draw.rectangle([x, y, x + w * 0.2, y + h], fill=colour)
            draw.rectangle([x, y + h * 0.5, x + w, y + h * 0.62], fill=colour)
            draw.rectangle([x + w * 0.85, y + h * 0.5, x + w, y + h], fill=colour)
        else:  # bags and laptops
            draw.rounded_rectangle([x, y, x + w, y + h], radius=max(1, w * 0.15), fill=colour)


def write_sequence(
    root: str | os.PathLike[str],
    config: SynthConfig = SynthConfig(),
    progress: Progress | None = None,
) -> SynthSummary:
    """Write one synthetic sequence under `root` in the JRDB layout; returns what it holds."""
    progress = progress or Progress()
    root = Path(root)
    name = config.name
    actors = make_actors(config)
    by_id = {a.label_id: a for a in actors}
    rng = np.random.default_rng(config.seed + 1)
    for folder in (L.LABELS_2D, L.LABELS_3D, L.LABELS_ACTIVITY, L.LABELS_OBJECTS):
        (root / folder).mkdir(parents=True, exist_ok=True)
    (root / L.IMAGES / name).mkdir(parents=True, exist_ok=True)
    (root / L.CALIBRATION).parent.mkdir(parents=True, exist_ok=True)
    (root / L.CALIBRATION).write_text(_calibration_yaml(config))
    (root / MARKER).write_text(
        "Synthetic JRDB-layout data written by ReasonScope; safe to delete.\n"
    )
    background = _background()
    labels_2d, labels_3d, activity, objects = {}, {}, {}, {}
    seam: set[str] = set()
    for f in range(config.frames):
        progress.report(f, config.frames, f"Writing synthetic frame {f + 1} of {config.frames}")
        boxes = {a.label_id: actor_box(a, f / L.FRAME_RATE_HZ, by_id) for a in actors}
        world = SweepWorld(np.array(list(boxes.values())), floor_z=FLOOR_Z)
        hits = []
        for sensor, base in L.POINTCLOUDS.items():
            pose = TRUE_CALIBRATION.pose(sensor)
            sweep = cast_sweep(world, pose, config.points_per_sweep, rng=rng)
            write_sweep(root / base / name / L.frame_name(f, ".pcd"), sweep)
            hits.append(to_label_frame(sweep, pose))
        merged = np.concatenate(hits)
        image_name = L.frame_name(f)
        boxes_2d = {k: _clip(panorama_box(b)) for k, b in boxes.items()}
        order = sorted(
            actors, key=lambda a: (-round(math.hypot(*boxes[a.label_id][:2]), 1), a.is_person)
        )
        image = background.copy()
        draw = ImageDraw.Draw(image)
        frame_2d, frame_3d, frame_act, frame_obj = [], [], [], []
        for rank, actor in enumerate(order):
            key, box3, box2 = actor.label_id, boxes[actor.label_id], boxes_2d[actor.label_id]
            colour = _PALETTE[(int(key.split(":")[1]) - 1) % len(_PALETTE)]
            _draw(draw, actor, box2, colour if actor.is_person else _OBJECT_COLOURS[actor.category])
            nearer = [boxes_2d[a.label_id] for a in order[rank + 1 :]]
            attrs_2d = {
                "area": round(box2[2] * box2[3], 1),
                "interpolated": False,
                "no_eval": False,
                "occlusion": _occlusion(box2, nearer),
                "truncated": "false",
            }
            box_3d = dict(zip(("cx", "cy", "cz", "l", "w", "h", "rot_z"), box3, strict=True))
            attrs_3d = {
                "num_points": int(points_in_box(merged, box3).sum()),
                "distance": round(math.hypot(box3[0], box3[1]), 3),
            }
            if actor.is_person:
                if box2[0] + box2[2] > L.PANORAMA_WIDTH:
                    seam.add(key)
                frame_2d.append(
                    {
                        "label_id": key,
                        "file_id": image_name,
                        "box": list(box2),
                        "attributes": attrs_2d,
                    }
                )
                frame_3d.append({"label_id": key, "box": box_3d, "attributes": attrs_3d})
                frame_act.append(_activity(actor, config, frame_2d[-1], boxes_2d))
            else:
                frame_obj.append(
                    {
                        "label_id": key,
                        "category": actor.category,
                        "box": list(box2),
                        "box_3d": box_3d,
                        "attributes": {**attrs_2d, **attrs_3d},
                    }
                )
        image.save(root / L.IMAGES / name / image_name, quality=85)
        key_order = lambda e: int(e["label_id"].split(":")[1])  # noqa: E731
        labels_2d[image_name] = sorted(frame_2d, key=key_order)
        labels_3d[L.frame_name(f, ".pcd")] = sorted(frame_3d, key=key_order)
        activity[image_name] = sorted(frame_act, key=key_order)
        objects[image_name] = frame_obj
    _dump(root / L.LABELS_2D / f"{name}.json", {"labels": labels_2d})
    _dump(root / L.LABELS_3D / f"{name}.json", {"labels": labels_3d})
    _dump(root / L.LABELS_ACTIVITY / f"{name}.json", {"labels": activity})
    _dump(root / L.LABELS_OBJECTS / f"{name}.json", {"format": L.OBJECTS_FORMAT, "labels": objects})
    progress.report(config.frames, config.frames, "Synthetic sequence written")
    persons = [a.label_id for a in actors if a.is_person]
    return SynthSummary(
        root,
        name,
        config.frames,
        persons,
        [a.label_id for a in actors if not a.is_person],
        sorted(seam),
    )


def _clip(box: tuple[float, ...]) -> tuple[float, ...]:
    """Round to 0.1 px and keep the box within the image's rows (columns may pass the seam)."""
    x, y, w, h = box
    top, bottom = max(y, 0.0), min(y + h, float(L.PANORAMA_HEIGHT))
    return (round(x, 1), round(top, 1), round(w, 1), round(max(bottom - top, 0.0), 1))


def _activity(actor: Actor, config: SynthConfig, entry_2d: dict, boxes_2d: dict) -> dict:
    """One person's entry of `labels_2d_activity_social_stitched`, shaped like the real
    files (the fields JRDB-Social's `crop_*` readers and the toolkit's GT conversion read;
    floats, integers and strings as difficulties, as those files mix them)."""
    number = int(actor.label_id.split(":")[1])
    together = number in (1, 2) and config.people >= 2
    entry = {
        **entry_2d,
        "action_label": dict(_ACTIONS[actor.action or "standing"]),
        "social_activity": {
            "walking" if actor.action in ("walking", "carrying") else "standing": 1.0
        },
        "social_group": {"cluster_ID": 1 if number in (1, 2) else number, "cluster_stat": 2},
        "demographics_info": [
            {
                "gender": {("Female", "Male")[number % 2]: "1"},
                "age": {("Young_Adulthood", "Adulthood", "Middle_Adulthood")[number % 3]: "2"},
                "race": {_RACES[(number - 1) % len(_RACES)]: "1" if number % 3 else "2"},
            }
        ],
        "H-interaction": [],
        "group_info": [],
    }
    if together:
        other = f"pedestrian:{3 - number}"
        # one entry per label, as the real files write them; the two talk as they walk, which
        # only pedestrian:1's entry says (the real files do not always list both sides)
        labels = [{"walking together": 1}] + ([{"conversation": 2.0}] if number == 1 else [])
        entry["H-interaction"] = [
            {"pair": other, "box_pair": list(boxes_2d[other]), "inter_labels": inter}
            for inter in labels
        ]
        entry["group_info"] = [
            {
                "venue": {"indoor_cafeteria/dining_hall/food_court": "1"},
                "aim": {"socializing": "1"},
                "inter": {"walking": "1"},
                "BPC": {"floor": "1"},
                "SSC": {"table": "1"},
                "location_pre": {"near": "1"},
            }
        ]
    return entry


def _dump(path: Path, data: dict) -> None:
    path.write_text(json.dumps(data, indent=1))
