"""Scripted agents for MG-VQA episodes: the image-blind chance baseline and a search agent.

Both act only through `ToolEnv` and see only what a model would: the question
text (and its options), tool results, feedback. The search agent is a reference
for the behaviour the benchmark asks of models: look, move plausible occluders
out of the way (grasp them into the basket, or push them aside when a grasp
fails), look again after every action, and answer from what is in view.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import Any

from annotation.tabletop.question_text import NONE_OF_THE_ABOVE
from sim.tabletop.toolenv import ToolEnv

CHANCE_ANSWERS = {"count": "0", "find": "no", "beneath": NONE_OF_THE_ABOVE}
MIN_GRASP_AREA = 0.002  # share of the image an object must show before the agent grasps it
LABELLED = re.compile(r" labelled ([A-Z])$")


class ChanceAgent:
    """Answers without looking: 0, no, None of the above, or a random letter for Compare."""

    name = "chance"
    model = "chance"
    prompt_variant = ""

    def __init__(self, seed: int = 0) -> None:
        self.rng = random.Random(seed)

    def run(self, env: ToolEnv) -> None:
        task = env.question.task
        answer = CHANCE_ANSWERS.get(task) or self.rng.choice(list(env.question.options or "ABC"))
        env.call("answer_question", {"answer": answer}, model_text={"content": "image-blind guess"})


@dataclass
class _Seen:
    name: str
    point: list[int]


@dataclass
class SearchAgent:
    """Look, clear plausible occluders, recover from failed grasps, answer from what is seen."""

    max_manipulations: int = 4
    seed: int = 0
    name: str = field(default="search", init=False)
    model: str = field(default="scripted-search", init=False)
    prompt_variant: str = field(default="", init=False)

    def run(self, env: ToolEnv) -> None:
        rng = random.Random(self.seed)
        if "perceive_scene" not in env.tools:  # Direct mode: no eyes but the image
            ChanceAgent(self.seed).run(env)
            return
        first = seen = self._perceive(env, "Look at the table first.")
        tried: set[str] = set()
        manipulations = 0
        while "grasp" in env.tools and manipulations < self.max_manipulations and not env.done:
            if self._enough(env, seen):
                break
            target = self._occluder(env, seen, tried)
            if target is None:
                break
            tried.add(target.name)
            found = env.call(
                "find_object",
                {"point": target.point},
                model_text={"content": f"Segment the {target.name}: it may hide something."},
            )
            mask = found.get("mask_id")
            if (
                mask is None
                or found["area_px"] < MIN_GRASP_AREA * env.camera.width * env.camera.height
            ):
                continue  # too little of it shows to plan a grasp on
            grasped = env.call(
                "grasp",
                {"mask_id": mask},
                model_text={"content": f"Lift the {target.name} away to see beneath it."},
            )
            manipulations += 1
            if not grasped.get("success") and manipulations < self.max_manipulations:
                # the grasp may have moved things: look again before the next action
                seen = self._perceive(env, "The grasp failed; look again before acting.")
                again = next((o for o in seen if o.name == target.name), None)
                if again is not None:
                    mask = self._mask(env, again, f"Segment the {again.name} again.")
                    if mask is not None:
                        env.call(
                            "push",
                            {"mask_id": mask, "direction": _away_from_centre(env, again.point)},
                            model_text={"content": f"Push the {again.name} aside instead."},
                        )
                        manipulations += 1
            if env.done:
                return
            seen = self._perceive(env, "See what the action revealed.")
        if not env.done:
            self._answer(env, first, seen, rng)

    # -- looking -----------------------------------------------------------------------
    def _perceive(self, env: ToolEnv, why: str) -> list[_Seen]:
        result = env.call("perceive_scene", model_text={"content": why})
        return [_Seen(o["name"], o["point"]) for o in result.get("objects", [])]

    def _mask(self, env: ToolEnv, target: _Seen, why: str) -> str | None:
        found = env.call("find_object", {"point": target.point}, model_text={"content": why})
        return found.get("mask_id")

    # -- deciding ----------------------------------------------------------------------
    def _queried(self, env: ToolEnv) -> str:
        measured = env.question.criteria.get("measured", {})
        return str(measured.get("target") or measured.get("cover") or "")

    def _enough(self, env: ToolEnv, seen: list[_Seen]) -> bool:
        task, name = env.question.task, self._queried(env)
        if task == "find":
            return any(o.name == name for o in seen)
        if task == "beneath":
            return not any(o.name == name for o in seen)  # the cover is gone
        if task == "compare":
            return len({m.group(1) for o in seen if (m := LABELLED.search(o.name))}) >= 3
        return False  # count: keep clearing while there are occluders

    def _occluder(self, env: ToolEnv, seen: list[_Seen], tried: set[str]) -> _Seen | None:
        task, name = env.question.task, self._queried(env)
        if task == "beneath":
            return next((o for o in seen if o.name == name and o.name not in tried), None)
        candidates = [
            o
            for o in seen
            if o.name not in tried and o.name != name and not LABELLED.search(o.name)
        ]
        if task == "count":
            # the largest pile is the likeliest hiding place: prefer objects near others
            candidates.sort(key=lambda o: -sum(_near(o.point, p.point) for p in seen))
        return candidates[0] if candidates else None

    def _answer(self, env: ToolEnv, first: list[_Seen], seen: list[_Seen], rng) -> None:
        task, name = env.question.task, self._queried(env)
        arguments: dict[str, Any]
        if task == "count":
            n = sum(1 for o in seen if o.name == name)
            arguments = {"answer": str(n)}
            why = f"I can see {n} {name}(s) after clearing."
        elif task == "find":
            hit = next((o for o in seen if o.name == name), None)
            arguments = {"answer": "yes", "point": hit.point} if hit else {"answer": "no"}
            why = f"The {name} is {'in view' if hit else 'nowhere to be seen'}."
        elif task == "beneath":
            before = {o.name for o in first}
            options = [o for o in env.question.options or [] if o != NONE_OF_THE_ABOVE]
            revealed = [o.name for o in seen if o.name not in before and o.name in options]
            arguments = {"answer": revealed[0] if revealed else NONE_OF_THE_ABOVE}
            why = "What the cover hid: " + (revealed[0] if revealed else "nothing I recognise")
        else:
            arguments, why = self._compare(env, seen, rng)
        env.call("answer_question", arguments, model_text={"content": why})

    def _compare(self, env: ToolEnv, seen: list[_Seen], rng) -> tuple[dict[str, Any], str]:
        """Top-down area stands in for size (the mistake the paper reports models make too)."""
        largest = "small" not in env.question.text.lower()
        areas: dict[str, int] = {}
        for o in seen:
            m = LABELLED.search(o.name)
            if m and m.group(1) not in areas:
                found = env.call(
                    "find_object",
                    {"point": o.point},
                    model_text={"content": f"How big is the object labelled {m.group(1)}?"},
                )
                areas[m.group(1)] = int(found.get("area_px", 0))
        if not areas:
            return {"answer": rng.choice(["A", "B", "C"])}, "No label is readable; a guess."
        pick = (max if largest else min)(areas, key=areas.get)
        return {"answer": pick}, f"By top-down area: {areas}"


def _near(a: list[int], b: list[int], px: int = 120) -> bool:
    return a is not b and abs(a[0] - b[0]) < px and abs(a[1] - b[1]) < px


def _away_from_centre(env: ToolEnv, point: list[int]) -> str:
    """Push towards the nearer image edge, out of the clutter."""
    w, h = env.camera.width, env.camera.height
    du, dv = point[0] - w / 2, point[1] - h / 2
    if abs(du) >= abs(dv):
        return "right" if du > 0 else "left"
    return "down" if dv > 0 else "up"


AGENTS = {"chance": ChanceAgent, "search": SearchAgent}
