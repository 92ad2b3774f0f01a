"""Replaying a recorded MG-VQA episode: seek by stored state, inspect a step.

Every recorded step carries the simulator state after it (`ToolEnv` captures
it), so seeking is `world.restore_state(step.state)`: no physics runs. From
two consecutive states we tell what moved; from the state before a grasp we
render the depth the grasp saw and lift the masked pixels to 3D. Running the
recorded calls again and comparing is `sim.tabletop.resim`.

Steps may be `annotation.models.Step` objects or the step dicts `ToolEnv`
records; everything here reads them through `as_step`. Nothing here knows Qt.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.camera import CameraSpec
from sim.render import RenderedView, render
from sim.robotiq import GRIPPERS, ROBOTIQ_2F85, GripperModel
from sim.tabletop.grasp.execute import grasp_height, position_in_basket
from sim.tabletop.grasp.plan import GraspPlan, tool_axis
from sim.tabletop.heightmap import lift_pixels
from sim.tabletop.masks import decode_mask
from sim.tabletop.world import (
    MODEL_IMAGE_SIZE,
    TOP_DOWN,
    TabletopWorld,
)

MOVED_M = 0.005  # a body moved when its centre travelled more than this ...
MOVED_DEG = 5.0  # ... or it turned more than this
ACTING_TOOLS = ("grasp", "push")
DEFAULT_IMAGE_SIZE = MODEL_IMAGE_SIZE  # the agent's image size when the episode header does not say


# -- reading recorded steps ------------------------------------------------------------------
def as_step(step: Any) -> dict[str, Any]:
    """A recorded step as a `ToolEnv` step dict (accepts `annotation.models.Step` too)."""
    if isinstance(step, dict):
        return step
    return {
        "kind": step.kind,
        "name": step.name,
        "arguments": step.arguments,
        "result": step.result,
        "ok": step.ok,
        "feedback": step.feedback,
        "model_text": step.model_text,
        "raw_output": step.raw_output,
        "state": step.state,
    }


def _replay(step: dict[str, Any]) -> dict[str, Any]:
    result = step.get("result")
    return (result.get("replay") or {}) if isinstance(result, dict) else {}


def restorable(state: Any) -> bool:
    """Whether a stored state has body poses to restore (imported episodes may lack them)."""
    return isinstance(state, dict) and isinstance(state.get("bodies"), dict)


def state_at(steps: Sequence[dict], index: int, initial: dict | None = None) -> dict | None:
    """The world's state after step `index`: its own, or the last stored one before it."""
    for i in range(min(index, len(steps) - 1), -1, -1):
        if restorable(steps[i].get("state")):
            return steps[i]["state"]
    return initial if restorable(initial) else None


def failed_steps(steps: Sequence[dict]) -> list[int]:
    """Indices of steps that failed (a refused or failed call, a format error): the bookmarks."""
    return [
        i
        for i, s in enumerate(steps)
        if s.get("kind") == "format_error"
        or (s.get("kind") != "observation" and s.get("ok") is False)
    ]


def episode_camera(scene_camera: dict | None, header: dict | None) -> CameraSpec:
    """The camera the agent's images came from: the recorded one, else the scene's, else
    the top-down camera, at the size the header records (default 1024 x 1024)."""
    recorded = (header or {}).get("camera") or {}
    full = {"fov_deg", "eye", "target"}
    if full <= set(recorded):
        base = CameraSpec.from_dict({"width": 1, "height": 1, **recorded})
    elif scene_camera and full <= set(scene_camera):
        base = CameraSpec.from_dict({"width": 1, "height": 1, **scene_camera})
    else:
        base = TOP_DOWN
    width = int(recorded.get("width") or DEFAULT_IMAGE_SIZE)
    return base.with_size(width, int(recorded.get("height") or width))


def _find_step(steps: Sequence[dict], before: int, mask_id: Any) -> dict | None:
    for s in reversed(steps[:before]):
        result = s.get("result")
        if s.get("name") == "find_object" and isinstance(result, dict):
            if result.get("mask_id") == mask_id and "mask" in _replay(s):
                return s
    return None


def acted_body(steps: Sequence[dict], index: int) -> str | None:
    """The body a step's tool acted on: the object of its mask (find_object: the one found)."""
    step = steps[index]
    if step.get("name") == "find_object":
        return _replay(step).get("body_key")
    if step.get("name") in ACTING_TOOLS:
        found = _find_step(steps, index, (step.get("arguments") or {}).get("mask_id"))
        if found is not None:
            return _replay(found).get("body_key")
        return _replay(step).get("body_key")
    return None


def step_mask(steps: Sequence[dict], index: int) -> np.ndarray | None:
    """The mask a step made (find_object) or acted on (grasp, push), if recorded."""
    step = steps[index]
    if step.get("name") == "find_object" and "mask" in _replay(step):
        return decode_mask(_replay(step)["mask"])
    if step.get("name") in ACTING_TOOLS:
        found = _find_step(steps, index, (step.get("arguments") or {}).get("mask_id"))
        if found is not None:
            return decode_mask(_replay(found)["mask"])
    return None


# -- what moved --------------------------------------------------------------------------------
def in_basket(position: Sequence[float]) -> bool:
    """Whether a body's centre lies in the basket beside the table (on its floor or on
    what was put in before it), as the grasp tool judges it."""
    return position_in_basket(position)


def turn_deg(q1: Sequence[float], q2: Sequence[float]) -> float:
    """The angle (degrees) of the rotation between two orientations [qx, qy, qz, qw]."""
    a, b = np.asarray(q1, float), np.asarray(q2, float)
    dot = abs(float(a @ b) / (np.linalg.norm(a) * np.linalg.norm(b)))
    return math.degrees(2 * math.acos(min(1.0, dot)))


@dataclass(frozen=True)
class BodyMotion:
    """One body whose pose changed during a step."""

    key: str
    moved_m: float
    turned_deg: float
    before: tuple[float, float, float]
    after: tuple[float, float, float]
    acted_on: bool  # the body the tool acted on (else collateral motion)

    @property
    def into_basket(self) -> bool:
        return in_basket(self.after) and not in_basket(self.before)


def what_moved(
    before: dict | None,
    after: dict | None,
    keys: Sequence[str] | None = None,
    acted: str | None = None,
) -> list[BodyMotion]:
    """Bodies (default: every body in both states) that moved > 5 mm or turned > 5 degrees;
    the acted-on body first, then by distance."""
    if not (restorable(before) and restorable(after)):
        return []
    a, b = before["bodies"], after["bodies"]
    moved = []
    for key in keys if keys is not None else sorted(set(a) & set(b)):
        if key not in a or key not in b:
            continue
        p0, p1 = np.asarray(a[key]["com_position"]), np.asarray(b[key]["com_position"])
        metres = float(np.linalg.norm(p1 - p0))
        degrees = turn_deg(a[key]["com_orientation"], b[key]["com_orientation"])
        if metres > MOVED_M or degrees > MOVED_DEG:
            moved.append(
                BodyMotion(
                    key, metres, degrees, tuple(p0.tolist()), tuple(p1.tolist()), key == acted
                )
            )
    return sorted(moved, key=lambda m: (not m.acted_on, -m.moved_m))


# -- what a grasp saw and planned -----------------------------------------------------------------
def lift_mask(camera: CameraSpec, depth_m: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """World points (N, 3) of the masked pixels, from metric depth and the camera intrinsics."""
    ys, xs = np.nonzero(mask)
    return lift_pixels(camera, depth_m, ys, xs)


def pad_depth(width: float, model: GripperModel = ROBOTIQ_2F85) -> float:
    """How far below tool0 the pads reach when closed on an object `width` wide."""
    return model.depth_at_gap(width)


def gripper_glyph(
    tool: Sequence[float], yaw: float, width: float, model: GripperModel = ROBOTIQ_2F85
) -> np.ndarray:
    """Line segments (point pairs, (2N, 3)) sketching the gripper with tool0 at `tool`,
    closing along world angle `yaw` with its pads `width` apart."""
    tool = np.asarray(tool, float)
    axis = np.array([math.cos(yaw), math.sin(yaw), 0.0])
    half = max(width / 2, 0.004)
    tips_z = tool[2] - pad_depth(width, model)
    palm = np.array([tool[0], tool[1], tips_z + 0.06])
    knuckle = palm - [0, 0, 0.02]
    tips = np.array([tool[0], tool[1], tips_z])
    out = [tool, palm, palm - axis * (half + 0.012), palm + axis * (half + 0.012)]
    for side in (-1, 1):
        out += [palm + side * axis * (half + 0.012), knuckle + side * axis * half]
        out += [knuckle + side * axis * half, tips + side * axis * half]
    return np.array(out)


@dataclass(frozen=True)
class GraspInspection:
    """What a grasp step saw and planned, and where the fingers went."""

    index: int
    mask: np.ndarray  # (H, W) bool: the mask the grasp was given
    points: np.ndarray  # (N, 3) the masked pixels lifted to 3D from the depth before the step
    colours: np.ndarray  # (N, 3) their RGB, 0..1
    plan: dict[str, Any]  # centre, top_z, yaw, width, feasible (as recorded)
    planned_tool: np.ndarray  # where tool0 was meant to be when the fingers closed
    actual_tool: np.ndarray | None  # where it was (None: the grasp never got that far)
    reason: str  # "" on success, else why it failed
    target: str | None  # the object of the mask
    held: str | None  # the object the fingers closed on, if any
    model: GripperModel = ROBOTIQ_2F85  # the gripper the step was made with
    candidates: tuple[dict[str, Any], ...] = ()  # the planner's best feasible grasps, as recorded
    attempts: tuple[dict[str, Any], ...] = ()  # the grasps tried in simulation and their outcomes

    @property
    def offset_m(self) -> float | None:
        """How far tool0 was from the planned closing pose."""
        if self.actual_tool is None:
            return None
        return float(np.linalg.norm(self.actual_tool - self.planned_tool))

    @property
    def closing(self) -> dict[str, Any]:
        """The grasp whose closing pose is shown (`shown_attempt`), else the plan itself."""
        return shown_attempt(self.attempts) or self.plan

    def planned_glyph(self) -> np.ndarray:
        g = self.closing
        return gripper_glyph(self.planned_tool, g["yaw"], g["width"], self.model)

    def actual_glyph(self) -> np.ndarray | None:
        if self.actual_tool is None:
            return None
        g = self.closing
        return gripper_glyph(self.actual_tool, g["yaw"], g["width"], self.model)

    def candidate_glyphs(self) -> list[np.ndarray]:
        """A sketch of every recorded candidate at its closing pose (the tried ones too)."""
        shown = list(self.attempts) + [
            c for c in self.candidates if not any(_same_grasp(c, a) for a in self.attempts)
        ]
        return [
            gripper_glyph(candidate_tool(c, self.model), c["yaw"], c["width"], self.model)
            for c in shown
            if c.get("pads_z") is not None
        ]


def inspect_grasp(
    steps: Sequence[dict], index: int, camera: CameraSpec, before: RenderedView
) -> GraspInspection | None:
    """The grasp at `index` as it saw the world (`before`: the view of the state before it)."""
    step = steps[index]
    replay = _replay(step)
    mask = step_mask(steps, index)
    if step.get("name") != "grasp" or mask is None or "plan" not in replay:
        return None
    if mask.shape != before.depth_m.shape:
        raise ValueError(
            f"the mask is {mask.shape[1]}x{mask.shape[0]} px but the camera renders "
            f"{camera.width}x{camera.height}: the episode header should record its camera size"
        )
    plan = replay["plan"]
    model = GRIPPERS.get(replay.get("gripper") or "2f85", ROBOTIQ_2F85)
    attempts = tuple(replay.get("attempts") or ())
    shown = shown_attempt(attempts)
    if shown is not None:
        planned = candidate_tool(shown, model)
    else:  # recorded before candidates were: work the height out as the planner then did
        depth = before.depth_m[mask]
        flat_top = float(np.mean(depth - depth.min() < 0.01)) if depth.size else 1.0
        grasp_plan = GraspPlan(
            tuple(plan["centre"]),
            plan["top_z"],
            plan["yaw"],
            plan["width"],
            True,
            "",
            flat_top,
            plan.get("pads_z"),
        )
        x, y, _ = plan["centre"]
        planned = np.array([x, y, grasp_height(grasp_plan, model)])
    at_close = replay.get("tool_at_close")
    return GraspInspection(
        index=index,
        mask=mask,
        points=lift_mask(camera, before.depth_m, mask),
        colours=before.rgb[mask].astype(np.float32) / 255.0,
        plan=dict(plan),
        planned_tool=planned,
        actual_tool=np.asarray(at_close, float) if at_close else None,
        reason=replay.get("reason", ""),
        target=acted_body(steps, index),
        held=replay.get("body_key"),
        model=model,
        candidates=tuple(plan.get("candidates") or ()),
        attempts=attempts,
    )


def shown_attempt(attempts: Sequence[dict[str, Any]]) -> dict[str, Any] | None:
    """The recorded attempt whose closing pose a grasp step shows: the last one that closed
    the fingers, else the first one tried (None when nothing was tried)."""
    closed = [a for a in attempts if a.get("tool_at_close")]
    return closed[-1] if closed else (attempts[0] if attempts else None)


def candidate_tool(candidate: dict[str, Any], model: GripperModel) -> np.ndarray:
    """Where tool0 is when the fingers close on a recorded candidate (leaning, if it did)."""
    x, y = candidate["centre"][:2]
    axis = tool_axis(candidate["yaw"], candidate.get("tilt", 0.0))
    return np.array([x, y, candidate["pads_z"]]) - model.depth_at_gap(candidate["width"]) * axis


def _same_grasp(a: dict[str, Any], b: dict[str, Any]) -> bool:
    return (
        math.dist(a["centre"][:2], b["centre"][:2]) < 1e-3
        and abs(a["yaw"] - b["yaw"]) < 1e-3
        and abs(a["width"] - b["width"]) < 1e-3
    )


class EpisodeReplay:
    """A world that shows a recorded episode at any step by restoring the stored states.

    `initial` is the scene's state, for steps before the first stored one.
    Rendered views are cached (the newest `cache_size`).
    """

    def __init__(
        self,
        world: TabletopWorld,
        steps: Sequence[Any],
        camera: CameraSpec,
        *,
        initial: dict | None = None,
        cache_size: int = 12,
    ) -> None:
        self.world, self.camera = world, camera
        self.steps = [as_step(s) for s in steps]
        self.initial = initial
        self.objects = [b.key for b in world.objects()]
        self._views: OrderedDict[tuple[int, bool], RenderedView] = OrderedDict()
        self.cache_size = cache_size

    def state(self, index: int) -> dict | None:
        """The state after step `index` (-1: before the first step)."""
        return state_at(self.steps, index, self.initial) if index >= 0 else self.initial

    def seek(self, index: int) -> bool:
        """Put the world in its state after step `index`; False if none is stored."""
        return self._restore(self.state(index))

    def _restore(self, state: dict | None) -> bool:
        if not restorable(state):
            return False
        with self.world.lock:
            try:
                self.world.restore_state(state)
            except (KeyError, ValueError):  # a state of other bodies than this scene's
                return False
        return True

    def motion(self, index: int) -> list[BodyMotion]:
        """The objects step `index` moved, the one its tool acted on first."""
        if index <= 0:
            return []
        return what_moved(
            self.state(index - 1), self.state(index), self.objects, acted_body(self.steps, index)
        )

    def view(self, index: int, *, before: bool = False) -> RenderedView | None:
        """The agent camera's view after step `index` (or before it), rendered from the state."""
        key = (index, before)
        if key in self._views:
            self._views.move_to_end(key)
            return self._views[key]
        if not self._restore(self.state(index - 1 if before else index)):
            return None
        with self.world.lock:
            view = render(self.world, self.camera)
        self._views[key] = view
        while len(self._views) > self.cache_size:
            self._views.popitem(last=False)
        return view

    def inspect(self, index: int) -> GraspInspection | None:
        """What the grasp at `index` saw and planned (None for other steps)."""
        if self.steps[index].get("name") != "grasp":
            return None
        before = self.view(index, before=True)
        return inspect_grasp(self.steps, index, self.camera, before) if before else None
