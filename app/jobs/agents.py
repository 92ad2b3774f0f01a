"""Running agents on stored questions: one recorded episode per question, saved as it ends.

Shared by `reasonscope run-agent`, the demo and the GUI. Each question's scene
is rebuilt from the project, the agent acts through `sim.tabletop.toolenv.ToolEnv`, and
the episode with every step (and the state after it) is stored in one
transaction, so an interrupted run keeps the episodes it finished.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from annotation.progress import Progress
from store import Project, ProjectError, open_project

AGENT_NAMES = ("chance", "search", "openai")
QUESTION_SETS = ("approved", "any")
MGVQA_TASKS = ("count", "find", "beneath", "compare")


@dataclass
class RunSummary:
    episodes: int = 0
    correct: int = 0
    errors: list[str] = field(default_factory=list)
    episode_ids: list[int] = field(default_factory=list)
    by_task: dict[str, list[int]] = field(default_factory=dict)  # task -> [correct, n]

    def as_dict(self) -> dict[str, Any]:
        return {
            "episodes": self.episodes,
            "correct": self.correct,
            "success_rate": round(self.correct / self.episodes, 4) if self.episodes else None,
            "by_task": {t: {"correct": c, "n": n} for t, (c, n) in self.by_task.items()},
            "errors": self.errors,
            "episode_ids": self.episode_ids,
        }


def make_agent(
    name: str, *, prompt_variant: str = "plain", seed: int = 0, config: str | None = None
):
    """An agent by name; the OpenAI one reads its endpoint from the environment or `config`."""
    from sim.tabletop.agents import ChanceAgent, SearchAgent

    if name == "chance":
        return ChanceAgent(seed)
    if name == "search":
        return SearchAgent(seed=seed)
    if name == "openai":
        from sim.llm import OpenAIConfig
        from sim.tabletop.openai_agent import OpenAIAgent

        try:
            cfg = OpenAIConfig.load(config)
        except ValueError as exc:
            raise ProjectError(f"openai agent: {exc}") from None
        return OpenAIAgent(cfg, prompt_variant=prompt_variant)
    raise ProjectError(f"--agent {name}: agents are {', '.join(AGENT_NAMES)}")


def select_questions(project: Project, which: str, limit: int | None) -> list:
    if which not in QUESTION_SETS:
        raise ProjectError(f"--questions {which}: choose from {', '.join(QUESTION_SETS)}")
    status = "approved" if which == "approved" else None
    out, cursor = [], None
    while True:
        page = project.questions.page(status=status, benchmark="mgvqa", after=cursor, limit=500)
        out += [q for q in page.rows if q.task in MGVQA_TASKS and q.scene_id is not None]
        cursor = page.next_cursor
        if cursor is None or (limit is not None and len(out) >= limit):
            break
    return out[:limit] if limit is not None else out


def run_episode(
    project: Project,
    question,
    agent,
    mode: str,
    *,
    image_size: int = 1024,
    gripper: str | None = None,
) -> int:
    """Run `agent` on one question and store the episode; return its id."""
    from sim.llm import ModelError
    from sim.tabletop.scenes import world_from_records
    from sim.tabletop.toolenv import ToolEnv
    from sim.tabletop.world import TOP_DOWN

    scene = project.scenes.get(question.scene_id)
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state, gripper=gripper)
    camera = TOP_DOWN.with_size(image_size, image_size)
    error = ""
    try:
        env = ToolEnv(world, question, mode, camera=camera)
        try:
            agent.run(env)
        except ModelError as exc:  # a model endpoint failing is an outcome, not a crash
            error = str(exc)
        outcome = "error" if error else env.outcome
        header = {
            "uid": uuid.uuid4().hex,
            "benchmark": "mgvqa",
            "model": agent.model,
            "agent": agent.name,
            "mode": mode,
            "task": question.task,
            "question_id": question.id,
            "scene_id": question.scene_id,
            "outcome": outcome,
            "success": bool(env.correct),
            "score": 1.0 if env.correct else 0.0,
            "prompt_variant": agent.prompt_variant,
            "gripper": world.gripper_model.key,
            "camera": {"width": camera.width, "height": camera.height},
            "question": {
                "uid": question.uid,
                "text": question.text,
                "options": question.options,
                "answer": question.answer,
            },
            "scene": {"id": question.scene_id},
            "answer": env.answer,
            "error": error,
        }
        return project.episodes.add(header, env.steps, source=f"run-agent {agent.name}").id
    finally:
        world.close()


def run_agent(
    db: str | os.PathLike[str],
    agent_name: str,
    mode: str,
    *,
    questions: str = "approved",
    limit: int | None = None,
    prompt_variant: str = "plain",
    seed: int = 0,
    config: str | None = None,
    image_size: int = 1024,
    gripper: str | None = None,
    progress: Progress | None = None,
    agent_factory: Callable[..., Any] | None = None,
) -> RunSummary:
    """Run one agent in one mode on the project's questions; every episode is stored.

    The robot carries the gripper each question's scene recorded, or `gripper` when given.
    """
    from sim.tabletop.toolenv import MODES

    if mode not in MODES:
        raise ProjectError(f"--mode {mode}: modes are {', '.join(MODES)}")
    progress = progress or Progress()
    summary = RunSummary()
    with open_project(db) as project:
        chosen = select_questions(project, questions, limit)
        if not chosen:
            raise ProjectError(
                f"{db}: no {'approved ' if questions == 'approved' else ''}MG-VQA questions "
                "with scenes to run on"
            )
        factory = agent_factory or make_agent
        for i, question in enumerate(chosen):
            agent = factory(agent_name, prompt_variant=prompt_variant, seed=seed + i, config=config)
            progress.report(
                i, len(chosen), f"{agent_name} on {question.task} question {question.id}"
            )
            episode_id = run_episode(
                project, question, agent, mode, image_size=image_size, gripper=gripper
            )
            episode = project.episodes.get(episode_id)
            summary.episodes += 1
            summary.correct += bool(episode.success)
            tally = summary.by_task.setdefault(question.task, [0, 0])
            tally[0] += bool(episode.success)
            tally[1] += 1
            summary.episode_ids.append(episode_id)
            if episode.outcome == "error":
                summary.errors.append(f"question {question.id}: {episode.header.get('error')}")
        progress.report(len(chosen), len(chosen), "done")
    return summary
