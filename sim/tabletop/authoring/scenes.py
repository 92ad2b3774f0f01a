"""Scenes built by hand, as MG-VQA-Hard's were: chosen objects at chosen spots.

A scene spec (reasonscope-scene-spec/1, docs/scene-authoring.md) lists placements:
a catalog object, a position in metres from the workspace centre and a yaw. Each is
dropped, in list order, onto whatever lies below that spot (the table or objects
placed before it), from just above it, and left to come to rest before the next one;
the finished scene is settled once more and checked as generated scenes are (every
object on the table and inside the model's top-down view).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from sim.robotiq import DEFAULT_GRIPPER
from sim.tabletop.catalog import CatalogEntry, catalog_by_name
from sim.tabletop.scenes import SettleReport, SpawnSpec, problems, settle, spawn, table_textures
from sim.tabletop.world import TABLE_HALF, TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld
from sim.world import TIMESTEP

SPEC_FORMAT = "reasonscope-scene-spec/1"
GENERATOR = "authored/1"
DROP_GAP = 0.004  # metres between an object's lowest point and what it is dropped onto
OBJECT_SETTLE_S = 4.0  # simulated seconds each placed object may take to come to rest
_KEYS = {"catalog", "position", "yaw_deg", "scale", "key"}


class SceneSpecError(ValueError):
    """What is wrong with a scene spec, in one line naming the entry."""


@dataclass(frozen=True)
class Placement:
    entry: CatalogEntry
    position: tuple[float, float]  # metres from the workspace centre
    yaw_deg: float
    scale: float
    key: str


@dataclass(frozen=True)
class SceneSpec:
    placements: tuple[Placement, ...]
    table_texture: str | None
    name: str
    raw: dict[str, Any]


def _number(value: Any, where: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise SceneSpecError(f"{where}: expected a number, not {value!r}")
    return float(value)


def read_scene_spec(data: Any) -> SceneSpec:
    """Check a decoded spec and resolve its catalog names; SceneSpecError names the entry."""
    if not isinstance(data, dict):
        raise SceneSpecError("a scene spec is a JSON object")
    if data.get("format") != SPEC_FORMAT:
        raise SceneSpecError(f"format: expected {SPEC_FORMAT!r}, not {data.get('format')!r}")
    texture = data.get("table_texture")
    if texture is not None and texture not in table_textures():
        raise SceneSpecError(
            f"table_texture: {texture!r} is not a shipped table texture "
            f"(resources/textures/table/index.json)"
        )
    objects = data.get("objects")
    if not isinstance(objects, list) or not objects:
        raise SceneSpecError("objects: expected a non-empty list of placements")
    if len(objects) > 15:
        raise SceneSpecError(f"objects: at most 15 placements, not {len(objects)}")
    catalog = catalog_by_name()
    placements, keys = [], set()
    for i, obj in enumerate(objects):
        where = f"objects[{i}]"
        if not isinstance(obj, dict):
            raise SceneSpecError(f"{where}: expected an object with catalog and position")
        unknown = sorted(set(obj) - _KEYS)
        if unknown:
            raise SceneSpecError(f"{where}: unknown key {unknown[0]!r}")
        entry = catalog.get(obj.get("catalog"))
        if entry is None:
            raise SceneSpecError(f"{where}.catalog: {obj.get('catalog')!r} is not in the catalog")
        position = obj.get("position")
        if not isinstance(position, list) or len(position) != 2:
            raise SceneSpecError(f"{where}.position: expected [x, y] in metres")
        x, y = (_number(v, f"{where}.position") for v in position)
        cx, cy = WORKSPACE_CENTRE
        if abs(cx + x) > TABLE_HALF[0] - 0.02 or abs(cy + y) > TABLE_HALF[1] - 0.02:
            raise SceneSpecError(f"{where}.position: ({x:g}, {y:g}) is off the table")
        yaw = _number(obj.get("yaw_deg", 0.0), f"{where}.yaw_deg")
        lo, hi = entry.scale_range
        scale = _number(obj.get("scale", (lo + hi) / 2), f"{where}.scale")
        if not lo <= scale <= hi:
            raise SceneSpecError(
                f"{where}.scale: {scale:g} is outside {entry.name}'s range {lo:g}-{hi:g}"
            )
        key = obj.get("key") or f"obj_{i:02d}"
        if not isinstance(key, str) or key in keys:
            raise SceneSpecError(f"{where}.key: {key!r} is not a new name")
        keys.add(key)
        placements.append(Placement(entry, (x, y), yaw, scale, key))
    name = data.get("name") or "authored scene"
    return SceneSpec(tuple(placements), texture, str(name), data)


def support_height(world: TabletopWorld, x: float, y: float, half: float) -> float:
    """The highest surface under a footprint of half-size `half` at world (x, y): its
    centre and corners, the table top where nothing else is."""
    points = [(x, y)] + [(x + dx * half, y + dy * half) for dx in (-1, 1) for dy in (-1, 1)]
    hits = world.client.rayTestBatch(
        [(px, py, TABLE_TOP_Z + 1.0) for px, py in points],
        [(px, py, TABLE_TOP_Z - 0.05) for px, py in points],
    )
    tops = [hit[3][2] for hit in hits if hit[0] >= 0 and _supports(world, hit[0])]
    return max(tops, default=TABLE_TOP_Z)


def _supports(world: TabletopWorld, uid: int) -> bool:
    """Objects and the table carry what is put down; the robot's arm above them does not."""
    info = world.info(uid)
    return info is not None and info.role != "robot"


def _support_height(world: TabletopWorld, placement: Placement) -> float:
    half = max(placement.entry.extent(placement.scale)[:2]) / 2 * 0.7
    return support_height(
        world,
        WORKSPACE_CENTRE[0] + placement.position[0],
        WORKSPACE_CENTRE[1] + placement.position[1],
        half,
    )


def place(world: TabletopWorld, placement: Placement) -> None:
    """Drop one object onto whatever is below its spot, from DROP_GAP above it."""
    x = WORKSPACE_CENTRE[0] + placement.position[0]
    y = WORKSPACE_CENTRE[1] + placement.position[1]
    support = _support_height(world, placement)
    spec = SpawnSpec(
        placement.entry,
        placement.scale,
        (x, y, support + 0.5),
        math.radians(placement.yaw_deg),
        placement.key,
    )
    spawn(world, spec)
    body = world.bodies[placement.key].uid
    lowest = world.aabb(placement.key)[0][2]
    position, orientation = world.client.getBasePositionAndOrientation(body)
    lift = support + DROP_GAP - lowest
    world.client.resetBasePositionAndOrientation(
        body, (position[0], position[1], position[2] + lift), orientation
    )


@dataclass
class AuthoredScene:
    world: TabletopWorld
    spec: SceneSpec
    settle: SettleReport


def build_scene(spec: SceneSpec, *, gripper: str = DEFAULT_GRIPPER) -> AuthoredScene:
    """The spec's scene, each object placed and at rest in order; ValueError when a
    settled object has left the table or the top-down view (the world is closed)."""
    world = TabletopWorld(with_robot=True, gripper=gripper)
    try:
        world.set_table_texture(spec.table_texture)
        steps = 0
        for placement in spec.placements:
            place(world, placement)
            steps += settle(world, max_s=OBJECT_SETTLE_S).steps
        final = settle(world)
        found = problems(world, TOP_DOWN)
        if found:
            raise ValueError(f"the settled scene is not usable: {found[0]}")
    except BaseException:
        world.close()
        raise
    total = steps + final.steps
    report = SettleReport(total, total * TIMESTEP, final.at_rest)
    return AuthoredScene(world, spec, report)


def authored_record(scene: AuthoredScene, *, derived_from: int | None = None) -> dict[str, Any]:
    """What the store keeps of an authored scene: as `scene_record`, with the spec as its
    provenance (and the scene it was edited from, if any)."""
    state = scene.world.capture_state()
    state["generation"] = {
        "spec": scene.spec.raw,
        "derived_from": derived_from,
        "settle_steps": scene.settle.steps,
        "settled": scene.settle.at_rest,
        "spawned": [
            {"key": p.key, "catalog": p.entry.name, "scale": p.scale} for p in scene.spec.placements
        ],
        "gripper": scene.world.gripper_model.key,
    }
    return {
        "name": scene.spec.name,
        "benchmark": "mgvqa",
        "seed": None,
        "generator": GENERATOR,
        "camera": TOP_DOWN.as_dict(),
        "state": state,
        "bodies": scene.world.body_records(),
    }
