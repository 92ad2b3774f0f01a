"""One MG-VQA episode: a question, a restored scene, the tools a mode allows, every step recorded.

`ToolEnv.call(name, arguments)` runs a tool and returns what the agent sees; the
step it records (`ToolEnv.steps`) adds what replay needs: the state after the
step, the mask a tool acted on, the grasp plan and where the fingers went. The
agent never sees body keys, hidden objects or the answer.

Steps are dicts in the reasonscope-episode/1 step form, ready for
`store.EpisodeRepository.add`. Step 0 is the initial observation.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from sim.camera import CameraSpec
from sim.llm import png_bytes
from sim.render import RenderedView, render
from sim.tabletop.first_view import FirstView, view_camera
from sim.tabletop.grasp.execute import grasp
from sim.tabletop.masks import decode_mask, encode_mask
from sim.tabletop.perception import OraclePerceiver, Perceiver, find_object
from sim.tabletop.push import DIRECTIONS, push
from sim.tabletop.scoring import score_answer
from sim.tabletop.segment import NoObject, segment_at
from sim.tabletop.world import TOP_DOWN, TOP_DOWN_VIEW, TabletopWorld

PERCEPTION_TOOLS = ("perceive_scene", "find_object")
MANIPULATION_TOOLS = ("grasp", "push")
MODES: dict[str, tuple[str, ...]] = {
    "direct": ("answer_question",),
    "perception": (*PERCEPTION_TOOLS, "answer_question"),
    "manipulation": (*PERCEPTION_TOOLS, *MANIPULATION_TOOLS, "answer_question"),
}
MAX_STEPS = 30  # tool calls before the episode is cut off without an answer
# find_object's segmenters: the segmentation buffer (oracle), or the RGB and depth image
SEGMENTERS = ("oracle", "rgbd")


@dataclass(frozen=True)
class ToolSpec:
    name: str
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments


_POINT = {"type": "array", "items": {"type": "integer"}, "minItems": 2, "maxItems": 2}
TOOL_SPECS = {
    "perceive_scene": ToolSpec(
        "perceive_scene",
        "Describe the visible scene: objects with a 2D image point (u, v) each, and "
        "spatial relations between them. Call again after acting: the scene changes.",
        {"type": "object", "properties": {}},
    ),
    "find_object": ToolSpec(
        "find_object",
        "Segment the visible object at an image point. Returns a mask id, its box and area.",
        {"type": "object", "properties": {"point": _POINT}, "required": ["point"]},
    ),
    "grasp": ToolSpec(
        "grasp",
        "Grasp the object of a mask from above and put it into the basket beside the table.",
        {"type": "object", "properties": {"mask_id": {"type": "string"}}, "required": ["mask_id"]},
    ),
    "push": ToolSpec(
        "push",
        "Push the object of a mask with the closed gripper, in an image direction.",
        {
            "type": "object",
            "properties": {
                "mask_id": {"type": "string"},
                "direction": {"type": "string", "enum": sorted(DIRECTIONS)},
            },
            "required": ["mask_id", "direction"],
        },
    ),
    "answer_question": ToolSpec(
        "answer_question",
        "Give the final answer; this ends the episode. For Find, a yes needs the image "
        "point of the object.",
        {
            "type": "object",
            "properties": {"answer": {"type": "string"}, "point": _POINT},
            "required": ["answer"],
        },
    ),
}


class ToolError(ValueError):
    """A call the environment refuses (unknown tool, not allowed, bad arguments)."""


class ToolEnv:
    def __init__(
        self,
        world: TabletopWorld | None,
        question,
        mode: str,
        *,
        camera: CameraSpec = TOP_DOWN,
        perceiver: Perceiver | None = None,
        max_steps: int = MAX_STEPS,
        first_view: FirstView | None = None,
        segmenter: str = "oracle",
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"mode must be one of {sorted(MODES)}, not {mode!r}")
        if world is None and (first_view is None or mode != "direct"):
            raise ValueError("an episode without a world is a Direct one from its first view")
        if first_view is not None and first_view.segmentation.shape != (
            camera.height,
            camera.width,
        ):
            raise ValueError(
                f"the first view is {first_view.segmentation.shape[1]} x "
                f"{first_view.segmentation.shape[0]} px, the camera {camera.width} x {camera.height}"
            )
        self.world, self.question, self.mode, self.camera = world, question, mode, camera
        # Until a tool moves something, the world looks as its first view shows it.
        self.first_view = first_view
        self.moved = False
        self._rendered: RenderedView | None = None
        if segmenter not in SEGMENTERS:
            raise ValueError(f"segmenter must be one of {SEGMENTERS}, not {segmenter!r}")
        # the oracle reads the simulator; an image-only one (`image_only`) gets the image
        self.perceiver = perceiver or OraclePerceiver()
        self.segmenter = segmenter
        self.max_steps = max_steps
        self.masks: dict[str, np.ndarray] = {}
        self.steps: list[dict[str, Any]] = []
        self.answer: dict[str, Any] | None = None
        self.correct: bool | None = None
        self._record(
            "observation",
            "observe",
            {},
            {"image": "top_down", "size": [camera.width, camera.height]},
            True,
            "",
        )

    # -- what the agent may do ---------------------------------------------------------
    @property
    def tools(self) -> tuple[str, ...]:
        return MODES[self.mode]

    @property
    def done(self) -> bool:
        return self.answer is not None or self.tool_calls >= self.max_steps

    @property
    def tool_calls(self) -> int:
        return sum(1 for s in self.steps if s["kind"] in ("tool", "answer", "format_error"))

    def observation(self, camera: CameraSpec | None = None) -> np.ndarray:
        """The RGB image (H, W, 3) the agent is shown now."""
        if self.world is None:
            raise ToolError("an episode played from its first view has no world to render")
        if camera is None or camera == self.camera:
            return self._view().rgb
        return render(self.world, camera).rgb

    def _seen(self) -> RenderedView:
        """What perceive_scene and find_object read of the world (its segmentation): the
        first view's while nothing has moved, else the render of the world now."""
        if self.first_view is not None and not self.moved:
            # segmentation only: the first view keeps no depth and its pixels as PNG
            return RenderedView(self.camera, None, None, self.first_view.segmentation)
        return self._view()

    def _view(self) -> RenderedView:
        """The agent camera's render of the world now: rendered once per state, shared by
        the tools and the observation until a tool moves something."""
        if self._rendered is None:
            self._rendered = render(self.world, self.camera)
        return self._rendered

    def observation_png(self, view: str = TOP_DOWN_VIEW) -> bytes:
        """The image of a named view now, as the PNG bytes a model is sent: the first view's
        stored bytes while nothing has moved, else rendered afresh."""
        if self.first_view is not None and not self.moved and view in self.first_view.images:
            return self.first_view.images[view]
        return png_bytes(self.observation(view_camera(self.camera, view)))

    @property
    def gripper(self) -> str:
        """The key of the gripper model on the robot."""
        if self.world is None:
            return self.first_view.gripper
        return self.world.gripper_model.key

    # -- steps ---------------------------------------------------------------------------
    def call(
        self,
        name: str,
        arguments: dict[str, Any] | None = None,
        *,
        model_text: dict[str, Any] | None = None,
        raw_output: str = "",
        given: Any = None,
    ) -> dict[str, Any]:
        """Run a tool; return what the agent sees. Refusals are steps too (ok false).
        `given`: perceive_scene's perception (or its error) when an image-only perceiver
        was asked elsewhere (`perception_request`)."""
        arguments = dict(arguments or {})
        if self.done:
            raise ToolError("the episode is over")
        try:
            if name not in TOOL_SPECS:
                raise ToolError(f"unknown tool {name!r}; tools: {', '.join(self.tools)}")
            if name not in self.tools:
                raise ToolError(f"{name} is not available in {self.mode} mode")
            tool = getattr(self, f"_{name}")
            if given is not None:
                seen, replay, ok, feedback = tool(arguments, given=given)
            else:
                seen, replay, ok, feedback = tool(arguments)
        except ToolError as exc:
            seen, replay, ok, feedback = {"error": str(exc)}, {}, False, f"Action failed: {exc}"
        kind = "answer" if name == "answer_question" and ok else "tool"
        self._record(
            kind, name, arguments, {**seen, "replay": replay}, ok, feedback, model_text, raw_output
        )
        return {**seen, "feedback": feedback}

    def record_format_error(
        self, raw_output: str, why: str, model_text: dict | None = None
    ) -> None:
        """A model reply that could not be read as a tool call: kept, not raised."""
        self._record(
            "format_error", "", {}, None, False, f"Format error: {why}", model_text, raw_output
        )

    def _record(self, kind, name, arguments, result, ok, feedback, model_text=None, raw_output=""):
        self.steps.append(
            {
                "kind": kind,
                "name": name,
                "arguments": arguments,
                "result": result,
                "ok": ok,
                "feedback": feedback,
                "model_text": model_text or {},
                "raw_output": raw_output,
                "state": self.world.capture_state()
                if self.world is not None
                else self.first_view.state,
            }
        )

    # -- the tools -------------------------------------------------------------------------
    def _perceive_scene(self, arguments, given=None):
        if getattr(self.perceiver, "image_only", False):
            perception = given
            if perception is None:  # asked here (a run in one process)
                perception = perceive_image(
                    self.perceiver, self.observation_png(), (self.camera.width, self.camera.height)
                )
            if isinstance(perception, Exception):
                raise ToolError(f"perception failed: {perception}")
        else:
            perception = self.perceiver.perceive(self.world, self.camera, view=self._seen())
        replay = {"body_keys": {str(k): v for k, v in perception.body_keys.items()}}
        return perception.as_tool_result(), replay, True, "Scene perceived."

    def _find_object(self, arguments):
        point = _point(arguments.get("point"), "point")
        try:
            if self.segmenter == "rgbd":
                found = segment_object(self._view(), point, self.world)
            else:
                found = find_object(self.world, self.camera, point, view=self._seen())
        except ValueError as exc:
            raise ToolError(str(exc)) from None
        mask_id = f"mask_{len(self.masks) + 1}"
        self.masks[mask_id] = found.mask
        seen = {"mask_id": mask_id, "bbox": list(found.bbox), "area_px": found.area_px}
        replay = {"mask": encode_mask(found.mask), "body_key": found.body_key}
        return seen, replay, True, f"Found an object: {mask_id}."

    def _mask(self, arguments) -> tuple[str, np.ndarray]:
        mask_id = str(arguments.get("mask_id", ""))
        if mask_id not in self.masks:
            known = ", ".join(self.masks) or "none yet; call find_object first"
            raise ToolError(f"no mask {mask_id!r} (masks: {known})")
        return mask_id, self.masks[mask_id]

    def _grasp(self, arguments):
        mask_id, mask = self._mask(arguments)
        view = self._view()  # the world as it is now: rendered once, shared with the plan
        self.moved, self._rendered = True, None
        r = grasp(self.world, self.camera, mask, view=view)
        replay = {
            "mask_id": mask_id,
            "reason": r.reason,
            "body_key": r.body_key,
            "gripper": self.world.gripper_model.key,
            "plan": plan_record(r.plan),
            "attempts": [a.as_record() for a in r.attempts],
            "tool_at_close": list(r.tool_at_close) if r.tool_at_close else None,
        }
        return {"success": r.ok}, replay, r.ok, r.feedback

    def _push(self, arguments):
        mask_id, mask = self._mask(arguments)
        direction = str(arguments.get("direction", ""))
        self.moved, self._rendered = True, None
        r = push(self.world, self.camera, mask, direction)
        replay = {"mask_id": mask_id, "start": list(r.start), "end": list(r.end)}
        return {"success": r.ok}, replay, r.ok, r.feedback

    def _answer_question(self, arguments):
        if "answer" not in arguments:
            raise ToolError("answer_question needs an 'answer'")
        answer = arguments["answer"]
        point = arguments.get("point")
        point = _point(point, "point") if point is not None else None
        unmoved = self.first_view if not self.moved else None
        score = score_answer(
            self.question, answer, point, world=self.world, camera=self.camera, first_view=unmoved
        )
        self.answer = {"answer": answer, "point": list(point) if point else None}
        self.correct = score.correct
        replay = {"correct": score.correct, "why": score.reason}
        return {"recorded": True}, replay, True, "Answer recorded."

    # -- replay support ------------------------------------------------------------------------
    def load_masks(self, steps: list[dict[str, Any]]) -> None:
        """Masks named by earlier recorded find_object steps, so recorded calls can run again."""
        for s in steps:
            replay = (s.get("result") or {}).get("replay") or {}
            if s.get("name") == "find_object" and "mask" in replay:
                self.masks[s["result"]["mask_id"]] = decode_mask(replay["mask"])

    @property
    def outcome(self) -> str:
        if self.answer is not None:
            return "answered"
        return "step limit" if self.tool_calls >= self.max_steps else "running"


CANDIDATES_KEPT = 8  # the best feasible candidates a grasp step records for replay


def plan_record(p) -> dict[str, Any]:
    """What a grasp step keeps of its plan: the chosen grasp, the best few candidates and
    how many were rejected for what."""
    return {
        "centre": [float(v) for v in p.centre],
        "top_z": float(p.top_z),
        "yaw": float(p.yaw),
        "width": float(p.width),
        "feasible": p.feasible,
        "pads_z": None if p.pads_z is None else float(p.pads_z),
        "reason": p.reason,
        "considered": p.considered,
        "rejected": dict(p.rejected),
        "candidates": [c.as_record() for c in p.candidates[:CANDIDATES_KEPT]],
    }


def _point(value: Any, name: str) -> tuple[int, int]:
    try:
        u, v = value
        return int(round(float(u))), int(round(float(v)))
    except (TypeError, ValueError):
        raise ToolError(f"{name} must be [u, v] pixel coordinates, not {value!r}") from None


def perceive_image(perceiver, png: bytes, size: tuple[int, int]):
    """An image-only perceiver's scene graph of `png`, or the `PerceptionError` (data: the
    agent is told, the episode records it)."""
    from sim.tabletop.vlm_perception import PerceptionError

    try:
        return perceiver.perceive_image(png, size)
    except PerceptionError as exc:
        return exc


def segment_object(view: RenderedView, point: tuple[int, int], world=None):
    """find_object from the image alone (`sim.tabletop.segment`): the region at `point` of
    the view's RGB and depth. The world only names the body most of the region shows, for
    replay; the agent never sees it."""
    from sim.tabletop.perception import ObjectMask

    try:
        mask = segment_at(view.rgb, view.depth_m, point)
    except NoObject as exc:
        raise ValueError(str(exc)) from None
    ys, xs = np.nonzero(mask)
    key = ""
    if world is not None:
        uids, counts = np.unique(view.segmentation[mask], return_counts=True)
        info = world.info(int(uids[np.argmax(counts)])) if len(uids) else None
        key = info.key if info is not None else ""
    return ObjectMask(
        mask,
        (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1),
        int(mask.sum()),
        key,
    )
