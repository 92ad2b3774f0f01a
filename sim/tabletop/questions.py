"""MG-VQA-style question generators: the evidence a question needs is hidden in the first view.

Each generator builds a seeded scene (`sim.tabletop.scenes.generate_scene`), measures
the answer-critical objects' visibility in the model's top-down image, and
either returns a candidate question or the reason it was rejected. The
visibility threshold is a parameter and is recorded with every question.
"""

from __future__ import annotations

import random
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotation.tabletop.question_text import (
    NONE_OF_THE_ABOVE,
    beneath_steps,
    phrase,
    plural,
    with_article,
)
from sim.camera import CameraSpec, pixel_ray, project_points
from sim.render import (
    alone_pixel_counts,
    counterfactual_change,
    label_pixels,
    screen_window,
    visibility,
    windowed_view,
)
from sim.robotiq import DEFAULT_GRIPPER
from sim.tabletop.catalog import CatalogEntry, load_catalog
from sim.tabletop.labels import (
    LABEL_MIN_SIDE,
    LABEL_SHAPES,
    LETTER_MIN_PIXELS,
    attach_labels,
    largest_label,
)
from sim.tabletop.scenes import (
    GeneratedScene,
    NoValidScene,
    SettleReport,
    dress_scene,
    generate_scene,
    problems,
    rolls,
    settle,
)
from sim.tabletop.world import (
    MODEL_IMAGE_SIZE,
    TABLE_HALF,
    TABLE_TOP_Z,
    TOP_DOWN,
    WORKSPACE_CENTRE,
)
from sim.world import TABLE_KEY

TASKS = ("count", "find", "beneath", "compare")
MAX_VISIBILITY = 0.10  # answer-critical objects show at most this fraction of themselves
MIN_REVEAL = 0.30  # a cover must reveal at least this much of the hidden object
LABEL_OCCLUDED = 0.25  # a label with at most this much of its letter in view cannot be read
SIZE_RATIO = 1.6  # Compare: each object at least this much larger (by volume) than the next
CONFOUNDING_SHARE = 0.3  # this share of questions get look-alike distractors
# The generator's version, recorded with every question: 2 since the piles were rebuilt
# to bury their targets (the same seed gives another scene than version 1 did); 3 since
# Compare labels one upward face of any flat-faced primitive, not every face of a box; 4
# since Beneath lays a cover on an object when its scene hides none (a seed that gave no
# Beneath question may give one; the questions of version 3 are the same).
GENERATOR = "mgvqa-occlusion/4"
# What seeds a candidate's draws (kept from version 1, so seeds stay where they were).
SEED_NAMESPACE = "mgvqa-occlusion/1"
# A question's scene must come to rest within this much simulated time; a heap that
# keeps jittering (a mug wedged and spinning) is redrawn rather than settled for 30 s.
REST_WITHIN_S = 12.0
BENEATH_PILE_ON = 3  # Beneath's piles heap on the first three objects dropped
# Beneath lays a cover on an object when its settled scene hides none under one: the
# object small and low (at most this tall and this large in plan), the cover flat and
# this many times larger in plan.
COVER_TARGET_HEIGHT = 0.07  # m
COVER_TARGET_AREA = 0.01  # m^2
COVER_HEIGHT = 0.045  # m
COVER_AREA_RATIO = 2.0
COVER_SHOWS = 0.9  # both show at least this much of themselves: nothing lies on them
COVER_TRIES = 3  # objects tried in turn, the scene put back as it was between tries
COUNT_VISIBLE = "count: every target visible above the threshold"
FIND_VISIBLE = "find: target visible above the threshold"


@dataclass
class Timing:  # an attempt's clock, and the one setting every task's scene builder needs
    scene_s: float = 0.0  # building, dropping and settling
    visibility_s: float = 0.0  # rendering and visibility checks
    settle_s: float = 0.0  # of scene_s: stepping the physics until the clutter rests
    gripper: str = DEFAULT_GRIPPER  # the robot's gripper in the attempt's scenes


@dataclass
class Candidate:
    """A generated question and the scene it is about (still open in its world)."""

    task: str
    text: str
    options: list[str] | None
    answer: Any
    evidence_ids: list[str]
    steps: list[dict[str, Any]]
    difficulty: dict[str, int]
    criteria: dict[str, Any]
    seed: int
    confounding: bool
    scene: GeneratedScene
    timing: Timing | None = None

    def question_record(self, scene_id: int | None = None) -> dict[str, Any]:
        return {
            "benchmark": "mgvqa",
            "task": self.task,
            "text": self.text,
            "options": self.options,
            "answer": self.answer,
            "evidence_ids": self.evidence_ids,
            "steps": self.steps,
            "difficulty": self.difficulty,
            "criteria": {**self.criteria, "confounding": self.confounding},
            "seed": self.seed,
            "scene_id": scene_id,
        }


@dataclass
class Rejection:
    reason: str
    timing: Timing = field(default_factory=Timing)


def _difficulty(s: int, r: int, t: int = 1) -> dict[str, int]:
    return {"S": s, "R": r, "T": t, "D": s + r + t}


def _confounders(target: CatalogEntry, pool: Sequence[CatalogEntry]) -> list[CatalogEntry]:
    """Entries that look like `target` (same kind or colour) but are not it."""
    return [
        e
        for e in pool
        if e.name != target.name and (e.kind == target.kind or e.colour == target.colour)
    ]


def _distractor_pool(
    rng: random.Random, target: CatalogEntry, entries: Sequence[CatalogEntry], confounding: bool
) -> list[CatalogEntry]:
    pool = [e for e in entries if e.name != target.name]
    if confounding:
        alike = _confounders(target, pool)
        if alike:  # weight look-alikes up: they make a glimpse of colour insufficient
            pool = pool + alike * 4
    return pool


def _under_table(world, camera: CameraSpec) -> list[str]:
    """The floor and the table's legs when the table top fills the camera's whole image
    (every corner's ray meets the top inside its edges): nothing of them can show."""
    hx, hy = TABLE_HALF
    for u, v in ((0, 0), (camera.width, 0), (0, camera.height), (camera.width, camera.height)):
        origin, direction = pixel_ray(camera, u, v)
        if direction[2] >= 0:
            return []
        x, y, _ = origin + direction * (TABLE_TOP_Z - origin[2]) / direction[2]
        if abs(x) > hx or abs(y) > hy:
            return []
    return [k for k in world.bodies if k == "floor" or k.startswith("table_leg")]


def _visibility(scene: GeneratedScene, camera: CameraSpec, keys: Sequence[str]):
    """The model's view inside the keys' windows (all that the checks read of it: the same
    pixels as the full image), and each key's pixels alone and visible fraction in it."""
    view = windowed_view(scene.world, camera, keys, occluded=_under_table(scene.world, camera))
    vis = visibility(scene.world, camera, keys, view=view)
    return view, {k: v.alone_px for k, v in vis.items()}, {k: v.fraction for k, v in vis.items()}


def generate(
    task: str,
    seed: int,
    *,
    threshold: float = MAX_VISIBILITY,
    image_size: int = MODEL_IMAGE_SIZE,
    entries: Sequence[CatalogEntry] | None = None,
    gripper: str = DEFAULT_GRIPPER,
) -> Candidate | Rejection:
    """One attempt at a `task` question from `seed`: a candidate, or why not."""
    if task not in TASKS:
        raise ValueError(f"task must be one of {TASKS}, not {task!r}")
    entries = list(entries or load_catalog())
    rng = random.Random(f"{SEED_NAMESPACE}:{task}:{seed}")
    camera = TOP_DOWN.with_size(image_size, image_size)
    timing = Timing(gripper=gripper)
    make = {"count": _count, "find": _find, "beneath": _beneath, "compare": _compare}[task]
    result = make(rng, seed, entries, camera, threshold, timing)
    if isinstance(result, Candidate):
        result.timing = timing
    return result


def _timed_scene(
    timing: Timing, seed: int, n: int, pool, first, pile_on=None, check_spawns=None, dress=True
) -> GeneratedScene | None:
    t0 = time.perf_counter()
    try:
        opts = dict(entries=pool, first=first, piles=True, pile_on=pile_on, gripper=timing.gripper)
        scene = generate_scene(
            seed,
            objects=(n, n),
            check_spawns=check_spawns,
            rest_within_s=REST_WITHIN_S,
            dress=dress,
            **opts,
        )
        timing.settle_s += scene.settle_s
        return scene
    except NoValidScene as failed:
        timing.settle_s += failed.settle_s
        return None
    finally:
        timing.scene_s += time.perf_counter() - t0


def _timed_visibility(timing: Timing, scene, camera, keys):
    t0 = time.perf_counter()
    try:
        return _visibility(scene, camera, keys)
    finally:
        timing.visibility_s += time.perf_counter() - t0


def _reject(scene: GeneratedScene | None, reason: str, timing: Timing) -> Rejection:
    if scene is not None:
        scene.world.close()
    return Rejection(reason, timing)


def _count(rng, seed, entries, camera, threshold, timing):
    target = rng.choice(entries)
    k = rng.randint(0, 5)
    confounding = rng.random() < CONFOUNDING_SHARE
    n = rng.randint(max(8, k + 3), 15)
    # Piles heap on the first target only: the rule needs one target buried, and heaps
    # shared between several targets bury none of them.
    pool = _distractor_pool(rng, target, entries, confounding)
    scene = _timed_scene(timing, seed, n, pool, [target] * k, 1)
    if scene is None:
        return Rejection("scene: no valid layout", timing)
    return _count_question(rng, scene, target, confounding, camera, threshold, timing)


def _count_question(rng, scene, target, confounding, camera, threshold, timing):
    """Count's question about a settled `scene`: how many `target`s, one of them hidden."""
    keys = [s.key for s in scene.spawned if s.entry.name == target.name]
    _, _, vis = _timed_visibility(timing, scene, camera, keys)
    if keys and min(vis.values()) > threshold:
        return _reject(scene, COUNT_VISIBLE, timing)
    hidden = [k_ for k_ in keys if vis[k_] <= threshold]
    shown = [k_ for k_ in keys if vis[k_] > threshold]
    names = plural(target.name)
    steps = [
        {"description": f"find the {names} visible in the first view", "entity_ids": shown},
        {"description": f"uncover the clutter where more {names} may hide", "entity_ids": hidden},
        {"description": f"count all {names}: {len(keys)}", "entity_ids": keys},
    ]
    return Candidate(
        "count",
        phrase("count", rng, plural=names),
        None,
        len(keys),
        keys,
        steps,
        _difficulty(max(1, len(keys)), 0),
        _criteria(threshold, vis, k=len(keys), target=target.name),
        scene.seed,
        confounding and bool(_present_confounders(scene, target)),
        scene,
    )


def _find(rng, seed, entries, camera, threshold, timing):
    target = rng.choice(entries)
    present = seed % 2 == 0  # equal numbers of present and absent cases
    confounding = rng.random() < CONFOUNDING_SHARE
    n = rng.randint(8, 15)
    pool = _distractor_pool(rng, target, entries, confounding)
    scene = _timed_scene(timing, seed, n, pool, [target] if present else [])
    if scene is None:
        return Rejection("scene: no valid layout", timing)
    return _find_question(rng, scene, target, present, confounding, camera, threshold, timing)


def _find_question(rng, scene, target, present, confounding, camera, threshold, timing):
    """Find's question about a settled `scene`: is a `target` there (`present`), hidden?"""
    keys = [s.key for s in scene.spawned if s.entry.name == target.name]
    if not present and keys:
        return _reject(scene, "find: absent target present", timing)
    _, _, vis = _timed_visibility(timing, scene, camera, keys)
    if present and vis[keys[0]] > threshold:
        return _reject(scene, FIND_VISIBLE, timing)
    if present:
        com = scene.world.client.getBasePositionAndOrientation(scene.world.bodies[keys[0]].uid)[0]
        uv, _ = project_points(camera, [com])
        answer = {"answer": "yes", "point": [round(float(uv[0, 0]), 1), round(float(uv[0, 1]), 1)]}
        steps = [
            {
                "description": f"look for a {target.name} in the first view: none shows",
                "entity_ids": [],
            },
            {
                "description": f"move the clutter covering it to reveal the {target.name}",
                "entity_ids": keys,
            },
            {"description": "point to it", "entity_ids": keys},
        ]
    else:
        answer = {"answer": "no", "point": None}
        steps = [
            {
                "description": f"look for a {target.name} in the first view: none shows",
                "entity_ids": [],
            },
            {"description": "search under the clutter: none is there either", "entity_ids": []},
        ]
    return Candidate(
        "find",
        phrase("find", rng, a_name=with_article(target.name)),
        ["yes", "no"],
        answer,
        keys,
        steps,
        _difficulty(1, 0),
        _criteria(threshold, vis, present=present, target=target.name),
        scene.seed,
        confounding and bool(_present_confounders(scene, target)),
        scene,
    )


def _beneath(rng, seed, entries, camera, threshold, timing):
    confounding = rng.random() < CONFOUNDING_SHARE
    n = rng.randint(10, 15)
    # Undressed: the robot and the table's texture join only a scene that passes (the
    # checks read segmentation alone, which the texture does not change).
    scene = _timed_scene(timing, seed, n, entries, [], BENEATH_PILE_ON, dress=False)
    if scene is None:
        return Rejection("scene: no valid layout", timing)
    return _beneath_question(rng, scene, entries, confounding, camera, threshold, timing)


def _beneath_question(rng, scene, entries, confounding, camera, threshold, timing):
    """Beneath's question about a settled, undressed `scene`: what lies under a cover."""
    world = scene.world
    keys = [b.key for b in world.objects()]
    t0 = time.perf_counter()
    vis, pairs, windows = _beneath_pairs(world, camera, keys, threshold)
    timing.visibility_s += time.perf_counter() - t0
    state = world.capture_state() if not pairs else None
    for target, cover in _cover_pairs(scene, vis) if not pairs else ():
        if _lay_cover(scene, target, cover, timing):
            t0 = time.perf_counter()  # a cover was laid on an object: measure again
            vis, pairs, windows = _beneath_pairs(world, camera, keys, threshold)
            timing.visibility_s += time.perf_counter() - t0
            if pairs:
                break
        world.restore_state(state)  # as it was, for the next pair
    if not pairs:
        return _reject(scene, "beneath: no cover reveals a hidden object", timing)
    t0 = time.perf_counter()
    before = set(world.bodies)
    dress_scene(scene)
    timing.scene_s += time.perf_counter() - t0
    added = [screen_window(world, camera, k) for k in world.bodies if k not in before]
    if any(_overlap(a, w) for a in added for w in windows.values()):
        t0 = time.perf_counter()  # the robot reaches into the view: measure again with it
        vis, pairs, windows = _beneath_pairs(world, camera, keys, threshold)
        timing.visibility_s += time.perf_counter() - t0
        if not pairs:
            return _reject(scene, "beneath: no cover reveals a hidden object", timing)
    gain, cover, hidden, revealed = max(pairs)
    hidden_name, cover_name = world.bodies[hidden].name, world.bodies[cover].name
    under = {world.bodies[k].name for k in revealed}
    target = next(e for e in entries if e.name == hidden_name)
    choices = [
        e.name
        for e in (_confounders(target, entries) if confounding else [])
        if e.name not in under
    ]
    choices += [
        e.name
        for e in rng.sample(entries, len(entries))
        if e.name not in under and e.name != cover_name
    ]
    distractors = list(dict.fromkeys(c for c in choices if c != hidden_name))
    nota = rng.random() < 0.25
    if nota:
        options = distractors[:3]
        answer = NONE_OF_THE_ABOVE
    else:
        options = [hidden_name, *distractors[:2]]
        answer = hidden_name
    rng.shuffle(options)
    options.append(NONE_OF_THE_ABOVE)
    steps = beneath_steps(cover, cover_name, hidden, hidden_name)
    criteria = _criteria(
        threshold,
        {hidden: vis[hidden], cover: vis[cover]},
        reveal=round(gain, 4),
        cover=cover_name,
        none_of_the_above=nota,
    )
    return Candidate(
        "beneath",
        phrase("beneath", rng, cover=cover_name),
        options,
        answer,
        [cover, hidden],
        steps,
        _difficulty(2, 1),
        criteria,
        scene.seed,
        confounding,
        scene,
    )


def _beneath_pairs(world, camera, keys, threshold):
    """Beneath's measurements: the objects' visible fractions (a dict-like that measures an
    object's pixels alone when first asked), the (gain, cover, hidden, revealed) pairs that
    qualify, and the objects' pixel windows.

    The same values as measuring every object alone, at the cost of the few that matter:
    an object showing more of its window than the threshold shows more than that of itself
    (its pixels alone lie in its window), so it is no hidden object and can be a cover
    without being rendered alone; a gain is divided only for the objects whose pixels
    change when a cover is made transparent (the others gain nothing). Beneath tries only
    covers that overlap an object at most `threshold` visible, and none when there is no
    such object.
    """
    occluded = _under_table(world, camera)
    view = windowed_view(world, camera, keys, occluded=occluded, backdrop=TABLE_KEY)
    vis = _LazyVisibility(world, camera, keys, view)
    windows = {k: screen_window(world, camera, k) for k in keys}
    unsure = [
        k
        for k in keys
        if windows[k] is None or vis.visible[k] <= threshold * _window_area(windows[k])
    ]
    vis.measure(unsure)
    buried = [k for k in unsure if vis[k] <= threshold and windows[k] is not None]
    pairs = []
    for cover in keys if buried else ():
        if cover in unsure and vis[cover] <= threshold:
            continue  # a cover is something the model can see
        if not any(_overlap(windows[cover], windows[h]) for h in buried):
            continue  # it covers none of the hidden objects: making it transparent reveals none
        change = counterfactual_change(
            world, camera, cover, view=view, occluded=occluded, backdrop=TABLE_KEY
        )
        vis.measure([k for k in keys if change.get(k)])
        gains = {k: change[k] / vis.alone[k] for k in keys if change.get(k) and vis.alone[k]}
        for hidden, gain in gains.items():
            if (
                vis[hidden] <= threshold
                and gain >= MIN_REVEAL
                and world.bodies[hidden].name != world.bodies[cover].name
            ):
                revealed = [k for k, g in gains.items() if g >= MIN_REVEAL]
                pairs.append((gain, cover, hidden, revealed))
    return vis, pairs, windows


def _cover_pairs(scene: GeneratedScene, vis) -> list[tuple[str, str]]:
    """When nothing in a settled Beneath scene is hidden under one cover, the (object,
    cover) pairs to try laying a cover on, as a hand would (at most COVER_TRIES): small
    objects resting on the table with nothing on them (at least COVER_SHOWS visible),
    nearest the workspace's centre first, each with the widest flat object with nothing
    on it. Whatever a lift leaves, the question is asked of the settled result with the
    same checks; most Beneath draws that bury nothing (4 to 5 in 10) give a question this
    way instead of nothing, at the cost of a short settle or two."""
    world = scene.world
    spec = {s.key: s for s in scene.spawned}
    targets = [
        k
        for k, s in spec.items()
        if not rolls(s.entry)
        and s.entry.extent(s.scale)[2] <= COVER_TARGET_HEIGHT
        and _footprint(s) <= COVER_TARGET_AREA
        and world.aabb(k)[0][2] <= TABLE_TOP_Z + 0.01
    ]
    cx, cy = WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1]

    def off_centre(k):
        lo, hi = world.aabb(k)
        return float(np.hypot((lo[0] + hi[0]) / 2 - cx, (lo[1] + hi[1]) / 2 - cy)), k

    flat = [k for k, s in spec.items() if s.entry.extent(s.scale)[2] <= COVER_HEIGHT]
    flat.sort(key=lambda k: (-_footprint(spec[k]), k))
    pairs = []
    for target in sorted(targets, key=off_centre):
        if len(pairs) == COVER_TRIES:
            break
        if vis[target] < COVER_SHOWS:
            continue
        cover = next(
            (
                k
                for k in flat
                if k != target
                and spec[k].entry.name != spec[target].entry.name
                and _footprint(spec[k]) >= COVER_AREA_RATIO * _footprint(spec[target])
                and vis[k] >= COVER_SHOWS
            ),
            None,
        )
        if cover is not None:
            pairs.append((target, cover))
    return pairs


def _lay_cover(scene: GeneratedScene, target: str, cover: str, timing: Timing) -> bool:
    """Lift `cover` and drop it squarely on `target`, just above whatever lies under the
    cover's reach, and let the scene settle again: False when the result is not a usable
    scene (something out of view, still moving after REST_WITHIN_S)."""
    world = scene.world
    spec = {s.key: s for s in scene.spawned}
    t0 = time.perf_counter()
    lo, hi = world.aabb(target)
    c = world.client
    uid = world.bodies[cover].uid
    frame = ((lo[0] + hi[0]) / 2, (lo[1] + hi[1]) / 2)
    x, y, height = spec[cover].entry.extent(spec[cover].scale)
    reach = float(np.hypot(x, y)) / 2  # just above whatever lies under its footprint
    top = hi[2]
    for k in spec:
        if k != cover:
            o_lo, o_hi = world.aabb(k)
            near = abs(np.clip(frame[0], o_lo[0], o_hi[0]) - frame[0]) < reach
            if near and abs(np.clip(frame[1], o_lo[1], o_hi[1]) - frame[1]) < reach:
                top = max(top, o_hi[2])
    z = top + height / 2 + 0.005
    orientation = c.getQuaternionFromEuler((0, 0, spec[cover].yaw))
    local_pos, local_orn = c.getDynamicsInfo(uid, -1)[3:5]
    com, com_orn = c.multiplyTransforms((*frame, z), orientation, local_pos, local_orn)
    c.resetBasePositionAndOrientation(uid, com, com_orn)
    c.resetBaseVelocity(uid, (0, 0, 0), (0, 0, 0))
    report = settle(world, max_s=REST_WITHIN_S, doomed=lambda: bool(problems(world)))
    settled = time.perf_counter() - t0
    timing.settle_s += settled
    timing.scene_s += settled
    scene.attempt_steps[-1] += report.steps
    scene.settle = SettleReport(
        scene.settle.steps + report.steps,
        scene.settle.simulated_s + report.simulated_s,
        report.at_rest,
    )
    return report.at_rest and not problems(world)


def _footprint(spec) -> float:
    x, y, _ = spec.entry.extent(spec.scale)
    return x * y


class _LazyVisibility:
    """Objects' visible fractions in `view`, each measured alone when first needed."""

    def __init__(self, world, camera, keys, view) -> None:
        self.world, self.camera = world, camera
        uids, counts = np.unique(view.segmentation, return_counts=True)
        shown = dict(zip(uids.tolist(), counts.tolist(), strict=True))
        self.visible = {k: shown.get(world.bodies[k].uid, 0) for k in keys}
        self.alone: dict[str, int] = {}

    def measure(self, keys) -> None:
        missing = [k for k in keys if k not in self.alone]
        if missing:
            self.alone.update(alone_pixel_counts(self.world, self.camera, missing))

    def __getitem__(self, key: str) -> float:
        self.measure([key])
        alone = self.alone[key]
        return self.visible[key] / alone if alone else 0.0


def _window_area(window: tuple[int, int, int, int]) -> int:
    return (window[2] - window[0]) * (window[3] - window[1])


def _compare(rng, seed, entries, camera, threshold, timing):
    trio = _compare_trio(rng, entries)
    if trio is None:
        return Rejection("compare: no three clearly different sizes", timing)
    extreme = rng.choice(["largest", "smallest"])
    letters = rng.sample(["A", "B", "C"], 3)
    pool = [e for e in entries if e.name not in {t.name for t in trio}]
    scene = _timed_scene(timing, seed, rng.randint(9, 15), pool, trio, None, _sizes_too_close)
    if scene is None:
        return Rejection("scene: no valid layout", timing)
    return _compare_question(rng, scene, extreme, letters, camera, threshold, timing)


def _compare_trio(rng, entries) -> list[CatalogEntry] | None:
    """Three labellable objects, smallest first, each at least SIZE_RATIO larger than the
    one before at their middle scales: the first of 30 draws that are, or None."""
    shapes = [e for e in entries if _labellable(e)]
    for _ in range(30):
        pick = sorted(rng.sample(shapes, 3), key=lambda e: e.volume(sum(e.scale_range) / 2))
        v = [e.volume(sum(e.scale_range) / 2) for e in pick]
        if v[1] / v[0] >= SIZE_RATIO and v[2] / v[1] >= SIZE_RATIO:
            return pick
    return None


def _compare_question(rng, scene, extreme, letters, camera, threshold, timing):
    """Compare's question about a settled `scene` whose first three objects get the
    `letters`: which is the `extreme` one, a label hidden."""
    world = scene.world
    labelled = scene.spawned[:3]
    volumes = {s.key: s.entry.volume(s.scale) for s in labelled}
    ordered = sorted(volumes, key=volumes.get)
    if _sizes_too_close(labelled):  # checked before dropping too: kept for the record
        return _reject(scene, "compare: sampled sizes too close", timing)
    label_of = {spec.key: letter for spec, letter in zip(labelled, letters, strict=True)}
    unlabelled = attach_labels(world, label_of, camera)
    if unlabelled:
        return _reject(scene, f"compare: {unlabelled}", timing)
    t0 = time.perf_counter()
    keys = list(label_of)
    view = windowed_view(world, camera, keys, occluded=_under_table(world, camera))
    letters_seen = label_pixels(world, camera, keys, view=view)
    timing.visibility_s += time.perf_counter() - t0
    if min(alone for alone, _ in letters_seen.values()) < LETTER_MIN_PIXELS:
        return _reject(scene, "compare: a label not visible even alone", timing)
    seen = {k: shown / alone for k, (alone, shown) in letters_seen.items()}
    if min(seen.values()) > LABEL_OCCLUDED:
        return _reject(scene, "compare: every label readable in the first view", timing)
    target = ordered[-1] if extreme == "largest" else ordered[0]
    steps = [
        {
            "description": f"read the labels in view: {', '.join(label_of[k] for k in label_of if seen[k] > LABEL_OCCLUDED) or 'none'}",
            "entity_ids": [k for k in label_of if seen[k] > LABEL_OCCLUDED],
        },
        {
            "description": "uncover the hidden labels",
            "entity_ids": [k for k in label_of if seen[k] <= LABEL_OCCLUDED],
        },
        {"description": "compare the three objects' sizes", "entity_ids": list(label_of)},
        {"description": f"the {extreme} is {label_of[target]}", "entity_ids": [target]},
    ]
    criteria = _criteria(
        threshold,
        {},
        label_visibility={label_of[k]: round(v, 4) for k, v in seen.items()},
        label_occluded_below=LABEL_OCCLUDED,
        volumes_m3={label_of[k]: round(v, 7) for k, v in volumes.items()},
        labels={label_of[k]: world.bodies[k].name for k in label_of},
        label_sides_m={label_of[k]: round(world.bodies[k].label_patch.side, 4) for k in label_of},
        label_letter_px={label_of[k]: letters_seen[k][0] for k in label_of},
    )
    return Candidate(
        "compare",
        phrase("compare", rng, extreme=extreme),
        ["A", "B", "C"],
        label_of[target],
        list(label_of),
        steps,
        _difficulty(3, 2),
        criteria,
        scene.seed,
        False,
        scene,
    )


def _labellable(entry: CatalogEntry) -> bool:
    """Whether an object can carry a Compare label: marked `texturable` in the catalog,
    and a primitive with a flat face that holds a large enough decal at its smallest size."""
    return (
        entry.texturable
        and entry.is_primitive
        and entry.shape in LABEL_SHAPES
        and largest_label(entry.shape, entry.size, entry.scale_range[0]) >= LABEL_MIN_SIDE
    )


def _sizes_too_close(spawned) -> str | None:
    """Compare's size rule on the three labelled boxes' drawn scales (the first three
    spawns): why the draw fails it, or None. Scene generation asks it before dropping
    an attempt, so a scene is never settled for sizes the question cannot use."""
    volumes = sorted(s.entry.volume(s.scale) for s in spawned[:3])
    if any(b / a < SIZE_RATIO * 0.85 for a, b in zip(volumes, volumes[1:], strict=False)):
        return "compare: sampled sizes too close"
    return None


def _overlap(a: tuple[int, int, int, int] | None, b: tuple[int, int, int, int] | None) -> bool:
    """Whether two pixel windows share a pixel."""
    if a is None or b is None:
        return False
    return not (a[2] <= b[0] or a[0] >= b[2] or a[3] <= b[1] or a[1] >= b[3])


def _present_confounders(scene: GeneratedScene, target: CatalogEntry) -> list[str]:
    return [
        s.key
        for s in scene.spawned
        if s.entry.name != target.name
        and (s.entry.kind == target.kind or s.entry.colour == target.colour)
    ]


def _criteria(threshold: float, visibility: dict[str, float], **measured: Any) -> dict[str, Any]:
    return {
        "max_evidence_visibility": threshold,
        "generator": GENERATOR,
        "measured": {"visibility": {k: round(v, 4) for k, v in visibility.items()}, **measured},
    }
