"""Replay in sim: run a recorded bimanual episode's plans again in our dual-arm world.

An episode imported from a BiManiBench / EmbodiedBench log (or recorded here)
keeps each step's plan (`arguments.plan`). `resimulate` sets the task up from
its seeded start and executes the plans step by step (named actions through
`BimanualExecutor.execute`, 16-number rows through `execute_ee`), so that our
feedback, ok, end-effectors and state stand next to what the log recorded. A
format-error step stays one: nothing runs. The result is a `ResimReport` and a
new episode (agent "replay-in-sim") in the step format of `sim.bimanual.env`.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field
from typing import Any

from annotation.bimanual.paper_tables import sim_task
from annotation.progress import Progress
from sim.bimanual.env import TIERS, BimanualEnv, get_task

AGENT = "replay-in-sim"
_LOG_TIERS = {"high_level": "primitive", "low_level": "row16"}


@dataclass
class ResimStep:
    """One recorded step replayed: the log's feedback and ok next to ours."""

    index: int  # the recorded step's index
    kind: str
    recorded_feedback: str
    recorded_ok: bool | None
    our_feedback: str
    our_ok: bool | None
    task_success: bool
    ee: dict[str, Any]
    state: dict[str, Any] = field(repr=False)

    def as_dict(self, *, with_state: bool = False) -> dict[str, Any]:
        out = {
            k: getattr(self, k)
            for k in (
                "index",
                "kind",
                "recorded_feedback",
                "recorded_ok",
                "our_feedback",
                "our_ok",
                "task_success",
                "ee",
            )
        }
        if with_state:
            out["state"] = self.state
        return out


@dataclass
class ResimReport:
    """What replay in sim found; `header`, `steps` and `images` are the new episode."""

    source_episode: int | None
    task: str
    seed: int
    tier: str
    success: bool
    steps: list[ResimStep]
    actor_aliases: dict[str, str]
    header: dict[str, Any] = field(repr=False)
    episode_steps: list[dict[str, Any]] = field(repr=False)
    images: dict[str, bytes] = field(repr=False)
    image_size: tuple[int, int] = (640, 480)
    episode_id: int | None = None  # set once stored

    def as_dict(self, *, with_state: bool = False) -> dict[str, Any]:
        return {
            "source_episode": self.source_episode,
            "episode_id": self.episode_id,
            "task": self.task,
            "seed": self.seed,
            "tier": self.tier,
            "success": self.success,
            "actor_aliases": self.actor_aliases,
            "steps": [s.as_dict(with_state=with_state) for s in self.steps],
        }


def episode_seed(header: dict[str, Any], seed: int | None = None) -> int:
    """The seed to replay with: the argument, else the header's bimanual.seed, else the
    log's episode number, else 0."""
    if seed is not None:
        return int(seed)
    recorded = (header.get("bimanual") or {}).get("seed")
    if recorded is not None:
        return int(recorded)
    number = header.get("episode")
    return int(number) if isinstance(number, int) and not isinstance(number, bool) else 0


def episode_task(header: dict[str, Any]) -> str:
    """The task our world runs for the episode: its recorded task, or for a fine-control
    place_bread_skillet log the variant BiManiBench runs there (place_bread_skillet_vla)."""
    task = header.get("task") or (header.get("bimanual") or {}).get("task") or ""
    if not task:
        raise ValueError("the episode names no task, so it cannot be replayed in sim")
    return sim_task(str(task), header.get("tier"))


def episode_tier(header: dict[str, Any], steps: list[dict[str, Any]]) -> str:
    """primitive or row16: the header's tier (ours or the log's level), else the plans'."""
    tier = header.get("tier") or ""
    tier = _LOG_TIERS.get(tier, tier)
    if tier in TIERS:
        return tier
    for step in steps:
        t = (step.get("arguments") or {}).get("tier")
        if t in TIERS:
            return t
    return "primitive"


def actor_aliases(
    plans: list[list[Any]], objects: list[str], known: dict[str, str] | None = None
) -> dict[str, str]:
    """Actor names of the log that our world spells otherwise: the task's own aliases
    (`known`, the other spellings BiManiBench's harness accepts: 'left_can' -> 'can_left'),
    else a name that is not an object here maps to the one object named '<colour>_<name>'
    ('block' -> 'red_block')."""
    aliases: dict[str, str] = {}
    known = known or {}
    for plan in plans:
        for item in plan:
            params = item.get("parameters") if isinstance(item, dict) else None
            actor = params.get("actor") if isinstance(params, dict) else None
            if not isinstance(actor, str) or actor in objects or actor in aliases:
                continue
            if known.get(actor.lower()) in objects:
                aliases[actor] = known[actor.lower()]
                continue
            matches = [o for o in objects if o.endswith("_" + actor)]
            if len(matches) == 1:
                aliases[actor] = matches[0]
    return aliases


def _aliased(plan: list[Any], aliases: dict[str, str]) -> list[Any]:
    if not aliases:
        return plan
    out = copy.deepcopy(plan)
    for item in out:
        params = item.get("parameters") if isinstance(item, dict) else None
        if isinstance(params, dict) and params.get("actor") in aliases:
            params["actor"] = aliases[params["actor"]]
    return out


def resimulate(
    header: dict[str, Any],
    steps: list[dict[str, Any]],
    *,
    source_episode: int | None = None,
    seed: int | None = None,
    image_size: tuple[int, int] | None = None,
    cameras: tuple[str, ...] | None = None,
    progress: Progress | None = None,
) -> ResimReport:
    """Execute the plans of a recorded episode (header and step dicts) in a fresh seeded
    world; ValueError for an unknown task. Observation steps of the recording are skipped."""
    task = episode_task(header)
    get_task(task)
    recorded = [s for s in steps if s.get("kind") != "observation"]
    bimanual = header.get("bimanual") or {}
    size = image_size or tuple(bimanual.get("image_size") or (640, 480))
    views = tuple(cameras or bimanual.get("cameras") or ("head",))
    tier = episode_tier(header, recorded)
    seed = episode_seed(header, seed)
    progress = progress or Progress()
    env = BimanualEnv(
        task,
        seed,
        tier=tier,
        cameras=views,
        image_size=size,
        max_steps=max(1, len(recorded)),
        truncate=bimanual.get("truncate"),
        # a randomized episode is replayed in the look it was recorded in
        randomization_seed=(bimanual.get("look") or {}).get("seed"),
    )
    try:
        objects = list(env.objects())
        plans = [(s.get("arguments") or {}).get("plan") or [] for s in recorded]
        aliases = actor_aliases(plans, objects, dict(env.task.aliases))
        report_steps: list[ResimStep] = []
        ever = env.success
        for n, (old, plan) in enumerate(zip(recorded, plans, strict=True)):
            progress.report(n, len(recorded), f"replaying step {old.get('index', n)} in sim")
            kind = "format_error" if old.get("kind") == "format_error" else "action"
            parse = (old.get("result") or {}).get("parse")
            step = {
                "kind": kind,
                "name": old.get("name") or "executable_plan",
                "arguments": copy.deepcopy(old.get("arguments") or {}),
                "model_text": dict(old.get("model_text") or {}),
                "raw_output": old.get("raw_output") or "",
                "result": {
                    "parse": parse,
                    "recorded": {
                        "index": old.get("index", n),
                        "feedback": old.get("feedback", ""),
                        "ok": old.get("ok"),
                    },
                },
                "feedback": old.get("feedback", "") if kind == "format_error" else "",
            }
            if aliases:
                step["result"]["actor_aliases"] = aliases
            env.replay_step(step, _aliased(plan, aliases))
            ever = ever or env.success
            report_steps.append(
                ResimStep(
                    index=old.get("index", n),
                    kind=kind,
                    recorded_feedback=old.get("feedback", ""),
                    recorded_ok=old.get("ok"),
                    our_feedback=step["feedback"],
                    our_ok=step["ok"],
                    task_success=bool(step["result"]["task_success"]),
                    ee=step["result"]["ee"],
                    state=step["state"],
                )
            )
        progress.report(len(recorded), len(recorded), "replayed")
        env.success = ever  # as the harness would have stopped at the first success
        out_header = env.header(
            agent=AGENT, model=header.get("model", ""), source_episode=source_episode
        )
        return ResimReport(
            source_episode=source_episode,
            task=task,
            seed=seed,
            tier=tier,
            success=ever,
            steps=report_steps,
            actor_aliases=aliases,
            header=out_header,
            episode_steps=env.steps,
            images=env.image_store(),
            image_size=env.image_size,
        )
    finally:
        env.close()
