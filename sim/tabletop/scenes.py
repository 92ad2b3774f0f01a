"""Seeded cluttered-tabletop scene generation: sample, drop, settle, check.

The same seed gives the same scene: the same objects, scales and colours, and
final poses equal to 1e-6, because every random draw comes from one seeded
generator and PyBullet is deterministic for a fixed sequence of calls.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from sim.camera import CameraSpec, corners, project_points
from sim.robotiq import DEFAULT_GRIPPER, model_for_asset
from sim.tabletop.catalog import CatalogEntry, load_catalog
from sim.tabletop.world import (
    GRIPPER_KEY,
    TABLE_HALF,
    TABLE_TOP_Z,
    TOP_DOWN,
    WORKSPACE_CENTRE,
    WORKSPACE_HALF,
    TabletopWorld,
)
from sim.world import ROLLING_FRICTION, SPINNING_FRICTION, TIMESTEP, LabelPatch, World

MAX_SETTLE_S = 30.0
REST_LINEAR = 0.002  # m/s
REST_ANGULAR = 0.02  # rad/s
REST_WINDOW_S = 0.5  # every body must stay at rest this long
CHECK_EVERY = 12  # steps between speed checks (20 Hz at 240 Hz physics)
SPAWN_MARGIN = 0.04  # keep spawn points this far inside the workspace edge
MAX_ATTEMPTS = 8
PILE_SHARE = 0.7  # with piles: this share of later objects lands on an earlier one
PILE_SPREAD = 0.035  # metres: how far from its anchor a piled object lands (1 sigma)
# With piles, a pile's anchor lands at most this far from the workspace centre: a heap
# spreads as it topples, and one started near the edge spills out of the camera's view.
PILE_REACH = 0.09


@dataclass(frozen=True)
class SettleReport:
    steps: int
    simulated_s: float
    at_rest: bool  # False: stopped by the 30 s limit


@dataclass(frozen=True)
class SpawnSpec:
    """One object to drop: which catalog entry, how big, where."""

    entry: CatalogEntry
    scale: float
    position: tuple[float, float, float]
    yaw: float
    key: str


@dataclass
class GeneratedScene:
    seed: int
    attempt: int
    world: TabletopWorld
    settle: SettleReport
    texture: str | None
    spawned: list[SpawnSpec] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)  # why earlier attempts were discarded
    attempt_steps: list[int] = field(default_factory=list)  # physics steps of every attempt
    settle_s: float = 0.0  # wall-clock seconds spent settling, every attempt's
    with_robot: bool = True  # whether the scene has (or, undressed, will have) the robot
    dressed: bool = True  # False: robot and table texture not added yet (`dress_scene`)

    def scene_dict(self, camera: CameraSpec = TOP_DOWN) -> dict[str, Any]:
        """The self-contained `scene` object of reasonscope-benchmark/1."""
        return {
            "camera": camera.as_dict(),
            "bodies": self.world.body_records(),
            "table_texture": self.texture,
        }


def settle(
    world: TabletopWorld,
    *,
    max_s: float = MAX_SETTLE_S,
    early_stop: bool = True,
    doomed: Callable[[], bool] | None = None,
) -> SettleReport:
    """Step until every object has been at rest for REST_WINDOW_S, or max_s of simulated time.

    `doomed`, checked every half second of simulated time, ends a settle that can
    no longer give a usable scene (an object already off the table or out of view).
    """
    max_steps = int(round(max_s / TIMESTEP))
    window_checks = max(1, int(math.ceil(REST_WINDOW_S / (CHECK_EVERY * TIMESTEP))))
    calm = 0
    steps = 0
    while steps < max_steps:
        n = min(CHECK_EVERY, max_steps - steps)
        world.step(n)
        steps += n
        if doomed is not None and steps % (10 * CHECK_EVERY) == 0 and doomed():
            return SettleReport(steps, steps * TIMESTEP, False)
        if not early_stop:
            continue
        lin, ang = world.object_speeds()
        calm = calm + 1 if (lin < REST_LINEAR and ang < REST_ANGULAR) else 0
        if calm >= window_checks:
            return SettleReport(steps, steps * TIMESTEP, True)
    lin, ang = world.object_speeds()
    return SettleReport(steps, steps * TIMESTEP, lin < REST_LINEAR and ang < REST_ANGULAR)


def problems(world: TabletopWorld, camera: CameraSpec = TOP_DOWN) -> list[str]:
    """Why a settled scene is unusable: objects off the table or outside the camera's view."""
    found = []
    hx, hy = TABLE_HALF
    for body in world.objects():
        lo, hi = world.aabb(body.key)
        centre = (lo + hi) / 2
        if centre[2] < TABLE_TOP_Z - 0.005 or abs(centre[0]) > hx or abs(centre[1]) > hy:
            found.append(f"{body.key} left the table")
            continue
        uv, depth = project_points(camera, corners(lo, hi))
        if (
            (depth <= 0).any()
            or (uv < 0).any()
            or (uv[:, 0] > camera.width).any()
            or (uv[:, 1] > camera.height).any()
        ):
            found.append(f"{body.key} is outside the top-down view")
    return found


def sample_spawns(
    rng: np.random.Generator,
    entries: Sequence[CatalogEntry],
    n: int,
    *,
    first: Sequence[CatalogEntry] = (),
    piles: bool = False,
    pile_on: int | None = None,
) -> list[SpawnSpec]:
    """`first` entries are dropped before the random ones (so they tend to end up covered).

    With `piles`, most later objects are dropped close above an earlier one (one of
    the first `pile_on`; by default a `first` one when there are any), heaping the
    clutter the way MG-VQA's scenes are heaped, so that what was dropped first is
    likely to end up buried. The objects piles can start on land within PILE_REACH
    of the workspace centre. What rolls (`rolls`) is neither piled nor piled on: a
    ball dropped on a heap bounces out of view, so the random ones go down right
    after `first`, wherever they fall. With `first`, the widest random object that
    does not roll is dropped squarely on the first one (a cover, as a hand would put
    it). Each object starts just above the ones dropped under it (footprints by the
    circles around their extents), not from a height that grows with its index:
    long falls made heaps burst and spill out of view.
    """
    randoms = [entries[i] for i in rng.integers(0, len(entries), size=max(0, n - len(first)))]
    cap = None
    if piles:
        if first and any(not rolls(e) for e in randoms):
            cap = max((e for e in randoms if not rolls(e)), key=_footprint)
            randoms.remove(cap)
            randoms.insert(0, cap)
        randoms.sort(key=rolls, reverse=True)  # stable: otherwise in the order drawn
    chosen = list(first) + randoms
    cap_index = chosen.index(cap, len(first)) if cap is not None else -1
    spawns = []
    lim = WORKSPACE_HALF - SPAWN_MARGIN
    bases = (pile_on if pile_on is not None else len(first)) or len(chosen)
    for i, entry in enumerate(chosen):
        lo, hi = entry.scale_range
        scale = float(rng.uniform(lo, hi))
        reach = PILE_REACH if piles and i < bases and not rolls(entry) else lim
        x = WORKSPACE_CENTRE[0] + float(rng.uniform(-reach, reach))
        y = WORKSPACE_CENTRE[1] + float(rng.uniform(-reach, reach))
        piled = float(rng.uniform()) < PILE_SHARE if piles and spawns else False
        anchors = [s for s in spawns[:bases] if not rolls(s.entry)] or spawns[:bases]
        if piled and (i < len(first) or not rolls(entry)):
            ax, ay, _ = anchors[int(rng.integers(0, len(anchors)))].position
            x = float(
                np.clip(
                    ax + rng.normal(0, PILE_SPREAD),
                    WORKSPACE_CENTRE[0] - lim,
                    WORKSPACE_CENTRE[0] + lim,
                )
            )
            y = float(
                np.clip(
                    ay + rng.normal(0, PILE_SPREAD),
                    WORKSPACE_CENTRE[1] - lim,
                    WORKSPACE_CENTRE[1] + lim,
                )
            )
        height = entry.extent(scale)[2]
        if i == cap_index:  # the widest object lands squarely on the first one
            x, y = spawns[0].position[0], spawns[0].position[1]
        if piles:  # just above whatever was dropped under it: short falls scatter nothing
            z = TABLE_TOP_Z + 0.005 + height / 2
            for s in spawns:
                reach_s = _radius(s.entry, s.scale) + _radius(entry, scale)
                if math.hypot(s.position[0] - x, s.position[1] - y) < reach_s:
                    top = s.position[2] + s.entry.extent(s.scale)[2] / 2
                    z = max(z, top + height / 2 + 0.005)
        else:  # staggered so drops do not interpenetrate
            z = TABLE_TOP_Z + 0.02 + height / 2 + 0.035 * i
        spawns.append(
            SpawnSpec(
                entry, scale, (x, y, z), float(rng.uniform(-math.pi, math.pi)), f"obj_{i:02d}"
            )
        )
    return spawns


def _footprint(entry: CatalogEntry) -> float:
    """Area the entry covers lying as it rests, at the middle of its scale range."""
    x, y, _ = entry.extent(sum(entry.scale_range) / 2)
    return x * y


def _radius(entry: CatalogEntry, scale: float) -> float:
    x, y, _ = entry.extent(scale)
    return math.hypot(x, y) / 2


def rolls(entry: CatalogEntry) -> bool:
    """Whether the object is round and rolls away when it lands on something: balls, fruit."""
    return entry.shape == "sphere" or entry.kind == "ball"


def spawn(world: TabletopWorld, spec: SpawnSpec) -> None:
    e = spec.entry
    orientation = world.client.getQuaternionFromEuler((0, 0, spec.yaw))
    if e.is_primitive:
        world.add_primitive(
            spec.key,
            e.shape,
            e.size,
            spec.position,
            orientation,
            rgba=e.rgba or (0.7, 0.7, 0.7, 1),
            mass=e.mass(spec.scale),
            name=e.name,
            category=e.category,
            scale=spec.scale,
        )
    else:
        world.add_urdf(
            spec.key,
            e.asset,
            spec.position,
            orientation,
            scale=spec.scale,
            rgba=e.rgba,
            name=e.name,
            category=e.category,
        )
        world.client.changeDynamics(
            world.bodies[spec.key].uid,
            -1,
            mass=e.mass(spec.scale),
            lateralFriction=0.8,
            rollingFriction=ROLLING_FRICTION,
            spinningFriction=SPINNING_FRICTION,
        )
    world.bodies[spec.key].extra["catalog"] = e.name


def table_textures() -> list[str]:
    """Asset references of the shipped table textures (resources/textures/table/index.json)."""
    import json

    from sim.assets import resolve_asset

    index = resolve_asset("resources:textures/table/index.json")
    return [item["file"] for item in json.loads(index.read_text())]


def draw(
    seed: int,
    attempt: int,
    *,
    objects: tuple[int, int],
    entries: Sequence[CatalogEntry],
    textures: Sequence[str],
    first: Sequence[CatalogEntry] = (),
    piles: bool = False,
    pile_on: int | None = None,
) -> tuple[list[SpawnSpec], str | None]:
    """Everything attempt `attempt` of scene `seed` draws at random: the objects to drop and
    the table texture.

    Every random draw of the attempt comes from one generator seeded with
    (seed, attempt), in a fixed order, so an attempt can be drawn again exactly.
    """
    lo, hi = objects
    rng = np.random.default_rng([seed, attempt])
    n = int(rng.integers(lo, hi + 1))
    texture = textures[int(rng.integers(0, len(textures)))] if textures else None
    return sample_spawns(rng, entries, n, first=first, piles=piles, pile_on=pile_on), texture


def drop(
    seed: int,
    attempt: int,
    *,
    objects: tuple[int, int],
    entries: Sequence[CatalogEntry],
    textures: Sequence[str],
    first: Sequence[CatalogEntry] = (),
    piles: bool = False,
    with_robot: bool = True,
    gripper: str = DEFAULT_GRIPPER,
) -> tuple[TabletopWorld, list[SpawnSpec], str | None]:
    """Attempt `attempt` of scene `seed` in a new world: its objects dropped, not yet settled."""
    spawns, texture = draw(
        seed, attempt, objects=objects, entries=entries, textures=textures, first=first, piles=piles
    )
    world = TabletopWorld(with_robot=with_robot, gripper=gripper)
    world.set_table_texture(texture)
    for spec in spawns:
        spawn(world, spec)
    return world, spawns, texture


def clear_objects(world: TabletopWorld, empty_state: dict[str, Any]) -> None:
    """Take every object out of `world` and put the rest back as `empty_state` has it (the
    world's state before any object was added): the next attempt starts from the same world."""
    for body in world.objects():
        world.remove(body.key)
    world.restore_state(empty_state)


def generate_scene(
    seed: int,
    *,
    objects: tuple[int, int] = (8, 15),
    entries: Sequence[CatalogEntry] | None = None,
    first: Sequence[CatalogEntry] = (),
    early_stop: bool = True,
    textures: Sequence[str] | None = None,
    with_robot: bool = True,
    piles: bool = False,
    pile_on: int | None = None,
    gripper: str = DEFAULT_GRIPPER,
    check_spawns: Callable[[list[SpawnSpec]], str | None] | None = None,
    rest_within_s: float | None = None,
    dress: bool = True,
) -> GeneratedScene:
    """A settled, valid scene for `seed`; attempts that fail the checks are redrawn (seeded).

    Every attempt of a seed drops its objects into the same world, emptied and put back
    as it was built. The robot and the table's texture are added once an attempt is
    kept: loading either is costly, physics does not see the texture, and the folded
    arm stands out of reach of any scene that passes the checks (an object near it is
    out of the camera's view), while simulating it costs a quarter of every step. The
    call sequence is fixed by the seed, so the result is too.

    `check_spawns` looks at an attempt's draw before anything is dropped: the reason
    it gives (a caller's criterion the draw already fails) discards the attempt. With
    `rest_within_s`, an attempt still moving after that much simulated time is
    discarded too (one that never comes to rest would otherwise be kept after 30 s).
    With `dress=False` the kept scene comes without the robot and the table's texture,
    for a caller that checks it first and calls `dress_scene` only if it keeps it
    (nothing simulates in between, so the dressed world is the same either way).
    """
    lo, hi = objects
    if not (1 <= lo <= hi <= 15):
        raise ValueError(f"object count range {lo}-{hi} must lie within 1-15")
    entries = list(entries or load_catalog())
    textures = list(textures if textures is not None else table_textures())
    rejected: list[str] = []
    attempt_steps: list[int] = []
    settle_s = 0.0
    world = TabletopWorld(with_robot=False, gripper=gripper)
    empty = world.capture_state()
    for attempt in range(MAX_ATTEMPTS):
        if world.objects():
            clear_objects(world, empty)
        spawns, texture = draw(
            seed,
            attempt,
            objects=objects,
            entries=entries,
            textures=textures,
            first=first,
            piles=piles,
            pile_on=pile_on,
        )
        why = check_spawns(spawns) if check_spawns is not None else None
        if why is not None:
            rejected.append(f"attempt {attempt}: {why}")
            attempt_steps.append(0)
            continue
        for spec in spawns:
            spawn(world, spec)
        t0 = time.perf_counter()
        report = settle(
            world,
            max_s=rest_within_s or MAX_SETTLE_S,
            early_stop=early_stop,
            doomed=lambda w=world: bool(problems(w)),
        )
        settle_s += time.perf_counter() - t0
        attempt_steps.append(report.steps)
        found = problems(world)
        if not found and rest_within_s is not None and not report.at_rest:
            found = [f"objects still moving after {rest_within_s:g} s"]
        if not found:
            scene = GeneratedScene(
                seed, attempt, world, report, texture, spawns, rejected, attempt_steps, settle_s
            )
            scene.with_robot, scene.dressed = with_robot, False
            if dress:
                dress_scene(scene)
            return scene
        rejected.append(f"attempt {attempt}: {found[0]}")
    world.close()
    raise NoValidScene(
        f"seed {seed}: no valid scene in {MAX_ATTEMPTS} attempts ({rejected[-1]})", settle_s
    )


def dress_scene(scene: GeneratedScene) -> None:
    """Add what `generate_scene(..., dress=False)` left out: the robot (when the scene has
    one) and the table's texture, in the order `generate_scene` adds them."""
    if scene.dressed:
        return
    if scene.with_robot:
        scene.world.add_robot()
    scene.world.set_table_texture(scene.texture)
    scene.dressed = True


class NoValidScene(RuntimeError):
    """No attempt of a seed gave a usable scene; `settle_s` is the time spent settling them."""

    def __init__(self, message: str, settle_s: float = 0.0) -> None:
        super().__init__(message)
        self.settle_s = settle_s


GENERATOR = "mgvqa-clutter/2"  # 2: attempts reuse one world, the robot joins the kept one


def scene_record(scene: GeneratedScene) -> dict[str, Any]:
    """What the store keeps of a generated scene: camera, exact state, bodies, provenance."""
    state = scene.world.capture_state()
    state["generation"] = {
        "attempt": scene.attempt,
        "rejected": scene.rejected,
        "settle_steps": scene.settle.steps,
        "settled": scene.settle.at_rest,
        "spawned": [
            {"key": s.key, "catalog": s.entry.name, "scale": s.scale} for s in scene.spawned
        ],
        "gripper": scene.world.gripper_model.key,
    }
    return {
        "name": f"clutter seed {scene.seed}",
        "benchmark": "mgvqa",
        "seed": scene.seed,
        "generator": GENERATOR,
        "camera": TOP_DOWN.as_dict(),
        "state": state,
        "bodies": scene.world.body_records(),
    }


def recorded_gripper(bodies: Sequence[dict[str, Any]]) -> str:
    """The gripper a stored scene was made with, from its gripper body's URDF (scenes
    recorded before the choice existed have the 2F-85)."""
    asset = next((b.get("asset") for b in bodies if b.get("id") == GRIPPER_KEY), None)
    return model_for_asset(asset).key


def world_from_records(
    bodies: Sequence[dict[str, Any]],
    state: dict[str, Any] | None = None,
    *,
    gripper: str | None = None,
) -> TabletopWorld:
    """Rebuild a stored scene: our fixtures and robot, its objects, then its exact state.

    The robot gets the gripper the scene recorded, unless `gripper` asks for another
    (both grippers share their joint names, so a recorded state restores on either).
    """
    from sim.tabletop.catalog import catalog_by_name

    catalog = catalog_by_name()
    with_robot = any(b.get("role") == "robot" for b in bodies)
    world = TabletopWorld(with_robot=with_robot, gripper=gripper or recorded_gripper(bodies))
    for b in bodies:
        if b.get("role", "object") == "object":
            add_object_record(world, b, catalog)
    for b in bodies:
        if b.get("role", "object") == "object" and b.get("texture"):
            world.set_body_texture(b["id"], b["texture"])  # e.g. A/B/C labels
    if state is not None:
        world.restore_state(state)
    else:
        texture = next((b.get("texture") for b in bodies if b["id"] == "table"), None)
        world.set_table_texture(texture)
    return world


def add_object_record(world: World, b: dict[str, Any], catalog: dict | None = None) -> None:
    """Add one stored object (a `body_records` entry) to a world, with its catalog mass and
    friction (its texture is the caller's: `set_body_texture`)."""
    if catalog is None:
        from sim.tabletop.catalog import catalog_by_name

        catalog = catalog_by_name()
    entry = catalog.get(b["name"])
    scale = float(b.get("scale", 1.0))
    mass = entry.mass(scale) if entry else 0.1
    if b["asset"].startswith("primitive:"):
        world.add_primitive(
            b["id"],
            b["asset"].split(":", 1)[1],
            b["size"],
            b["position"],
            b["orientation"],
            rgba=tuple(b["rgba"] or (0.7, 0.7, 0.7, 1)),
            mass=mass,
            name=b["name"],
            category=b.get("category", ""),
            scale=scale,
            label_patch=LabelPatch.from_record(b["label_patch"]) if b.get("label_patch") else None,
        )
    else:
        world.add_urdf(
            b["id"],
            b["asset"],
            b["position"],
            b["orientation"],
            scale=scale,
            rgba=tuple(b["rgba"]) if b.get("rgba") else None,
            name=b["name"],
            category=b.get("category", ""),
        )
        world.client.changeDynamics(
            world.bodies[b["id"]].uid,
            -1,
            mass=mass,
            lateralFriction=0.8,
            rollingFriction=ROLLING_FRICTION,
            spinningFriction=SPINNING_FRICTION,
        )
