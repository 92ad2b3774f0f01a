"""One ST-BiBench episode in the dual-arm world: observe, read a plan, execute, record.

`BimanualEnv(task_name, seed)` builds a `DualArmWorld`, runs the task's seeded
set-up and records step 0 (an observation: both end-effectors, the camera images
and the world state). Each `step(reply)` reads a planner reply tolerantly
(`annotation.bimanual.reply.parse_reply`), runs its plan (only the first k
actions with execution truncation) through `BimanualExecutor` (primitives for the
"primitive" tier, 16-number rows for "row16"), checks the task and records the
step with the feedback the model will see. A reply that cannot be read is a
`format_error` step; the episode goes on. `run_plan(plan)` does the same for a
plan given as data (the reference plans). The step format is in
docs/bimanual-agents.md.
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

import numpy as np
from PIL import Image

from annotation.bimanual.logs import ACTION_EMPTY, PLAN_STEP, reply_step
from sim.assets import resolve_asset
from sim.bimanual.cameras import camera
from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.randomize import apply_look, draw_look
from sim.bimanual.tasks import TASKS
from sim.bimanual.world import DualArmWorld
from sim.render import render

TIERS = ("primitive", "row16")
POSE_ORDER = "xyz_wxyz"
DEFAULT_MAX_STEPS = 10
ROW_ACTION = "ee_pose"  # the executor's name for one 16-dim row


def task_names() -> list[str]:
    return sorted(TASKS)


def get_task(name: str):
    """The task by name; ValueError naming it and the known ones otherwise."""
    try:
        return TASKS[name]
    except KeyError:
        raise ValueError(
            f"unknown bimanual task {name!r}; tasks: {', '.join(task_names())}"
        ) from None


def png_bytes(rgb: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(rgb[..., :3]).astype(np.uint8), "RGB").save(
        buffer, format="PNG"
    )
    return buffer.getvalue()


def ee_state(world: DualArmWorld) -> dict[str, Any]:
    """Both end-effectors: wire pose [x, y, z, qw, qx, qy, qz] and grip (1 open, 0 closed)."""
    return {
        arm: {
            "pose": [round(v, 6) for v in world.ee_wire_pose(arm)],
            "grip": round(world.gripper_opening(arm), 4),
        }
        for arm in ("left", "right")
    }


def executable_items(plan: list[Any], tier: str) -> tuple[list[Any], str]:
    """What the executor takes from a stored plan: action dicts (primitive) or 16-number
    rows (row16), or ([], why not) when the plan holds items of the other tier."""
    rows = [item for item in plan if isinstance(item, dict) and "row" in item]
    actions = [item for item in plan if isinstance(item, dict) and "row" not in item]
    if tier == "row16":
        if actions:
            return [], "this episode takes 16-number end-effector rows, not named actions"
        return [item["row"] for item in rows], ""
    if rows:
        return [], "this episode takes named actions (2.2-2.9), not 16-number rows"
    return actions, ""


def _arm_of(item: Any) -> str:
    if isinstance(item, dict) and "row" in item:
        return "both"
    params = item.get("parameters") if isinstance(item, dict) else None
    return str(params.get("arm_tag", "")) if isinstance(params, dict) else ""


def _name_of(item: Any) -> str:
    if isinstance(item, dict) and "row" in item:
        return ROW_ACTION
    return str(item.get("action_name", "")) if isinstance(item, dict) else ""


class BimanualEnv:
    """A seeded task in a fresh dual-arm world, recorded step by step."""

    def __init__(
        self,
        task_name: str,
        seed: int = 0,
        *,
        tier: str = "primitive",
        cameras: tuple[str, ...] | list[str] = ("head",),
        image_size: tuple[int, int] = (640, 480),
        max_steps: int = DEFAULT_MAX_STEPS,
        truncate: int | None = None,
        example: str | None = None,
        example_image: str | None = None,
        randomization_seed: int | None = None,
    ) -> None:
        if tier not in TIERS:
            raise ValueError(f"tier {tier!r}: tiers are {', '.join(TIERS)}")
        if max_steps < 1:
            raise ValueError(f"max_steps {max_steps}: need at least one step")
        if truncate is not None and truncate < 1:
            raise ValueError(f"truncate {truncate}: execute at least one action a step")
        self.task = get_task(task_name)
        self.task_name = task_name
        self.seed = int(seed)
        self.tier = tier
        self.image_size = (int(image_size[0]), int(image_size[1]))
        self.cameras = {name: camera(name, *self.image_size) for name in cameras}
        if not self.cameras:
            raise ValueError("at least one camera is needed")
        self.max_steps = int(max_steps)
        self.truncate = truncate
        # the task's example reply the planner is shown (the harness's task file's), or None
        self.example = example
        # the task's example picture (an asset reference, e.g. the harness's shipped
        # "resources:bimanual/example_img/<task>.png"), sent as it is after the text of
        # every request; the planning tier's only, as in the harness's planning loop
        self.example_png: bytes | None = None
        if example_image and tier != "row16":
            self.example_png = resolve_asset(example_image).read_bytes()
        self.look = None if randomization_seed is None else draw_look(randomization_seed)
        self.steps: list[dict[str, Any]] = []
        self.images: list[dict[str, bytes]] = []  # per step: camera -> PNG bytes
        self.success = False
        self.check_reason = ""
        self.world = DualArmWorld()
        try:
            if self.look is not None:
                apply_look(self.world, self.look)
            self.task.setup(self.world, self.seed)
            self.executor = BimanualExecutor(self.world)
            self.initial_ee = ee_state(self.world)
            shas = self._observe()
            self.steps.append(
                {
                    "kind": "observation",
                    "name": "observe",
                    "arguments": {},
                    "result": {"ee": self.initial_ee, "images": shas},
                    "ok": True,
                    "feedback": "",
                    "model_text": {},
                    "raw_output": "",
                    "state": self.world.capture_state(),
                    "image_sha256": self._main_sha(shas),
                }
            )
            self.success, self.check_reason = self.task.check(self.world)
        except BaseException:
            self.world.close()
            raise

    # -- facts ------------------------------------------------------------------------
    @property
    def instruction(self) -> str:
        return self.task.instruction

    @property
    def example_setting(self) -> str | None:
        """The example shown, as results group on it: "harness" (the task file's reply),
        "harness+picture" (the reply and the task's picture), None (none; always on row16).
        Runs with the picture keep apart from those without (recorded before it shipped)."""
        if self.tier == "row16" or not (self.example or self.example_png):
            return None
        return "harness+picture" if self.example_png else "harness"

    @property
    def plan_steps(self) -> int:
        """Model steps taken so far (step 0, the first observation, is not one)."""
        return len(self.steps) - 1

    @property
    def done(self) -> bool:
        return self.success or self.plan_steps >= self.max_steps

    def image_store(self) -> dict[str, bytes]:
        """Every recorded image once: sha256 -> PNG bytes."""
        return {hashlib.sha256(d).hexdigest(): d for shots in self.images for d in shots.values()}

    def latest_images(self) -> dict[str, bytes]:
        """The current view of every camera (PNG bytes)."""
        return dict(self.images[-1])

    def objects(self) -> dict[str, list[float]]:
        """The task's objects and their positions (metres, RoboTwin frame)."""
        out = {}
        for key, info in self.world.bodies.items():
            if info.role == "object":
                out[key] = [round(float(v), 4) for v in self.world.body_pose(key)[0]]
        return out

    def history(self, n: int = 3) -> list[dict[str, Any]]:
        """The last n model steps: {"step", "kind", "plan" (as the model wrote it), "feedback"}."""
        out = []
        for index, step in enumerate(self.steps[1:], start=1):
            plan = [
                item["row"]
                if "row" in item
                else {k: item[k] for k in ("action_id", "action_name", "parameters") if k in item}
                for item in step["arguments"].get("plan", [])
            ]
            out.append(
                {"step": index, "kind": step["kind"], "plan": plan, "feedback": step["feedback"]}
            )
        return out[-n:] if n else []

    def header(
        self, *, agent: str, model: str = "", error: str = "", source_episode: int | None = None
    ) -> dict[str, Any]:
        """The episode header as docs/bimanual-agents.md gives it."""
        import uuid

        outcome = "error" if error else ("success" if self.success else "failure")
        return {
            "uid": uuid.uuid4().hex,
            "benchmark": "bimanual",
            "mode": "manipulation",
            "agent": agent,
            "model": model,
            "task": self.task_name,
            "outcome": outcome,
            "success": bool(self.success),
            "score": 1.0 if self.success else 0.0,
            "tier": self.tier,
            "bimanual": {
                "task": self.task_name,
                "seed": self.seed,
                "instruction": self.instruction,
                "cameras": list(self.cameras),
                "image_size": list(self.image_size),
                "max_steps": self.max_steps,
                "truncate": self.truncate,
                "example": self.example_setting,
                "example_image": (
                    hashlib.sha256(self.example_png).hexdigest() if self.example_png else None
                ),
                "randomization": self.look is not None,
                "look": self.look.as_header() if self.look is not None else None,
                "source_episode": source_episode,
            },
            "error": error,
        }

    # -- acting -----------------------------------------------------------------------
    def step(self, raw_reply_text: str, model_text: dict[str, str] | None = None) -> str:
        """Read one reply, execute its plan, record the step; return the feedback text."""
        if self.done:
            raise RuntimeError("the episode is over")
        step = reply_step(raw_reply_text, pose_order=POSE_ORDER)
        if model_text:
            step["model_text"] = {**step["model_text"], **model_text}
        plan = step["arguments"].get("plan", []) if step["kind"] == "action" else []
        step["arguments"] = {"tier": self.tier, "pose_order": POSE_ORDER, "plan": plan}
        return self._finish(step, plan, execute=step["kind"] == "action")

    def run_plan(self, plan: list[Any], *, language_plan: str = "") -> str:
        """Execute a plan given as data (actions or rows) as one step; return the feedback."""
        reply = {
            "visual_state_description": "",
            "reasoning_and_reflection": "",
            "language_plan": language_plan,
            PLAN_STEP: plan,
        }
        return self.step(json.dumps(reply, ensure_ascii=False))

    def replay_step(self, step: dict[str, Any], plan: list[Any]) -> str:
        """Record a prepared step (kind, name, model_text, raw_output, parse report) with our
        own execution of `plan` (stored plan items); for replay in sim, which goes on past
        the step budget and past a success to compare every recorded step."""
        return self._finish(step, plan, execute=step.get("kind") == "action")

    def _finish(self, step: dict[str, Any], plan: list[Any], *, execute: bool) -> str:
        result = step.setdefault("result", {})
        actions = [
            {
                "index": i,
                "action_name": _name_of(item),
                "arm": _arm_of(item),
                "ok": None,
                "feedback": "",
            }
            for i, item in enumerate(plan)
        ]
        if not execute:
            feedback, ok, executed = step.get("feedback") or "Format error", False, 0
        else:
            feedback, ok, executed = self._execute(plan, actions)
        self.success, self.check_reason = self.task.check(self.world)
        shas = self._observe()
        result.update(
            actions=actions,
            executed=executed,
            ee=ee_state(self.world),
            task_success=bool(self.success),
            images=shas,
        )
        step.update(
            feedback=feedback,
            ok=ok,
            state=self.world.capture_state(),
            image_sha256=self._main_sha(shas),
        )
        step.setdefault("model_text", {})
        step.setdefault("raw_output", "")
        step["name"] = PLAN_STEP
        self.steps.append(step)
        return feedback

    def _execute(self, plan: list[Any], actions: list[dict]) -> tuple[str, bool | None, int]:
        items, why = executable_items(plan, self.tier)
        if why:
            return f"Action failed: {why}; nothing was executed.", False, 0
        if not items:
            return ACTION_EMPTY, None, 0
        run = self.executor.execute_ee if self.tier == "row16" else self.executor.execute
        try:
            results = run(items, self.truncate)
        except Exception as exc:  # a value the executor cannot use (e.g. z: "up") is feedback
            return f"Action failed: {type(exc).__name__}: {exc}", False, 0
        poses = []
        for r in results:
            if r.index < len(actions):
                actions[r.index].update(ok=r.ok, feedback=r.feedback)
            if r.ok and r.name == "get_arm_pose" and r.result is not None:
                arm = actions[r.index]["arm"]
                poses.append(f"The {arm} arm pose is {[round(v, 5) for v in r.result]}.")
        failed = next((r for r in results if not r.ok), None)
        if failed is not None:
            feedback = failed.feedback
            if len(items) > 1:
                feedback += (
                    f" (action {failed.index + 1} of {len(items)}, {failed.name}; "
                    "the actions after it were not executed)"
                )
            return feedback, False, len(results)
        feedback = " ".join(["Action succeeded.", *poses])
        if len(results) < len(items):
            feedback += (
                f" Only the first {len(results)} of the {len(items)} actions were "
                "executed; plan again from the new observation."
            )
        return feedback, True, len(results)

    # -- observation ------------------------------------------------------------------
    def _observe(self) -> dict[str, str]:
        light = self.look.light_direction if self.look is not None else None
        shots = {
            name: png_bytes(render(self.world, cam, light_direction=light).rgb)
            for name, cam in self.cameras.items()
        }
        self.images.append(shots)
        return {name: hashlib.sha256(data).hexdigest() for name, data in shots.items()}

    def _main_sha(self, shas: dict[str, str]) -> str:
        return shas.get("head") or next(iter(shas.values()))

    def close(self) -> None:
        self.world.close()

    def __enter__(self) -> BimanualEnv:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
