"""Re-simulating a recorded MG-VQA episode from a step and comparing it with the recording.

`resimulate` restores the stored state before a step, runs the recorded calls of
it and every later step again with `ToolEnv`, and says, step by step, whether the
outcome matches the recording. Steps are read through `sim.tabletop.replay.as_step`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from annotation.progress import Progress
from sim.camera import CameraSpec
from sim.tabletop.grasp.execute import enable_finger_dynamics
from sim.tabletop.replay import as_step, in_basket, restorable, state_at
from sim.tabletop.toolenv import ToolEnv, ToolError
from sim.tabletop.world import TabletopWorld

MATCH_M = 0.005  # a re-simulated object is where the recording had it within this


@dataclass(frozen=True)
class ResimStep:
    """One re-run step next to its recording."""

    index: int
    name: str
    recorded_ok: bool | None
    ok: bool | None
    recorded_feedback: str
    feedback: str
    deviations: dict[str, float]  # object -> metres between recorded and re-run positions
    in_basket: tuple[str, ...]  # objects in the basket in both runs: where inside is not compared

    @property
    def worst_m(self) -> float:
        compared = [d for k, d in self.deviations.items() if k not in self.in_basket]
        return max(compared, default=0.0)

    @property
    def matches(self) -> bool:
        return (
            self.ok == self.recorded_ok
            and self.feedback == self.recorded_feedback
            and self.worst_m <= MATCH_M
        )

    def diff(self, names: dict[str, str] | None = None) -> list[str]:
        """What differs from the recording, one line each (empty when it matches); objects
        are named by `names` (body key -> name) where given."""
        names = names or {}
        lines = []
        if self.ok != self.recorded_ok:
            lines.append(f"ok: recorded {self.recorded_ok}, re-simulated {self.ok}")
        if self.feedback != self.recorded_feedback:
            lines.append(f"feedback: recorded {self.recorded_feedback!r}")
            lines.append(f"          re-simulated {self.feedback!r}")
        for key, d in sorted(self.deviations.items(), key=lambda kv: -kv[1]):
            if d > MATCH_M and key not in self.in_basket:
                lines.append(f"{names.get(key, key)}: {1000 * d:.1f} mm off its recorded place")
        return lines


@dataclass(frozen=True)
class ResimReport:
    from_index: int
    steps: tuple[ResimStep, ...]

    @property
    def matches(self) -> bool:
        return all(s.matches for s in self.steps)

    @property
    def first_mismatch(self) -> ResimStep | None:
        return next((s for s in self.steps if not s.matches), None)

    def summary(self) -> str:
        n = len(self.steps)
        if self.matches:
            return f"Re-simulated {n} step{'s' * (n != 1)} from step {self.from_index}: all match."
        bad = sum(not s.matches for s in self.steps)
        first = self.first_mismatch
        return (
            f"Re-simulated {n} step{'s' * (n != 1)} from step {self.from_index}: {bad} differ, "
            f"first at step {first.index} ({first.name or 'format error'})."
        )


class _Unscored:
    """Stands in for a question that is not stored: answers are recorded, not scored."""

    task = "beneath"
    answer = None
    criteria: dict = {}


def resimulate(
    world: TabletopWorld,
    question: Any,
    mode: str,
    camera: CameraSpec,
    steps: Sequence[Any],
    from_index: int,
    *,
    initial: dict | None = None,
    progress: Progress | None = None,
) -> ResimReport:
    """Restore the state before step `from_index`, run the recorded calls of it and every later
    step again with `ToolEnv`, and compare each outcome with the recording.

    `world` is changed (use a world of its own, not one on screen). A step
    matches when ok and the feedback are the same and every object is within
    5 mm of its recorded position after it (objects in the basket in both runs
    count as in place). `progress.report` may raise `Cancelled`.
    """
    steps = [as_step(s) for s in steps]
    start = max(from_index, 1 if steps and steps[0].get("kind") == "observation" else 0)
    before = state_at(steps, start - 1, initial) if start > 0 else initial
    if not restorable(before):
        raise ValueError(f"no stored state before step {start} to start from")
    if world.capture_state()["bodies"] != before["bodies"]:
        # Restoring even an identical state perturbs the solver a little; a world built
        # from the scene is already where the first step starts, exactly as recorded.
        world.restore_state(before)
    if any(s.get("name") == "grasp" for s in steps[:start]):
        enable_finger_dynamics(world)  # as the recording's world had them from its first grasp
    env = ToolEnv(world, question or _Unscored(), mode, camera=camera, max_steps=len(steps) + 1)
    env.load_masks(steps[:start])
    objects = [b.key for b in world.objects()]
    total = len(steps) - start
    out: list[ResimStep] = []
    for done, index in enumerate(range(start, len(steps))):
        step = steps[index]
        if progress is not None:
            progress.report(done, total, f"Re-simulating step {index} of {len(steps) - 1}")
        ok, feedback = _run(env, step)
        out.append(_compare(index, step, ok, feedback, world.capture_state(), objects))
    if progress is not None:
        progress.report(total, total, "Re-simulation done")
    return ResimReport(start, tuple(out))


def _run(env: ToolEnv, step: dict) -> tuple[bool | None, str]:
    if step.get("kind") == "format_error":
        why = step.get("feedback", "").removeprefix("Format error: ")
        env.record_format_error(step.get("raw_output", ""), why)
    elif step.get("kind") == "observation":
        return step.get("ok"), step.get("feedback", "")
    else:
        try:
            env.call(step.get("name", ""), step.get("arguments") or {})
        except ToolError as exc:  # the episode is over: the call was not recorded
            return None, f"not run: {exc}"
    last = env.steps[-1]
    return last["ok"], last["feedback"]


def _compare(index, step, ok, feedback, state, objects) -> ResimStep:
    recorded = step.get("state")
    deviations: dict[str, float] = {}
    basket: list[str] = []
    if restorable(recorded):
        for key in objects:
            if key not in recorded["bodies"]:
                continue
            a = np.asarray(recorded["bodies"][key]["com_position"])
            b = np.asarray(state["bodies"][key]["com_position"])
            deviations[key] = float(np.linalg.norm(a - b))
            if in_basket(a) and in_basket(b):
                basket.append(key)
    return ResimStep(
        index,
        step.get("name", ""),
        step.get("ok"),
        ok,
        step.get("feedback", ""),
        feedback,
        deviations,
        tuple(basket),
    )
