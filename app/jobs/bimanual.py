"""Bimanual episodes made here: reference plans, model runs and replays in sim, stored.

Each episode is stored in one transaction with its images (PNG, once by content
hash), so an interrupted run keeps the episodes it finished. The recorded format
is in docs/bimanual-agents.md. `reasonscope run-agent --benchmark bimanual` and
`reasonscope replay-in-sim` call these functions.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

from annotation.progress import Progress
from app.jobs.agents import RunSummary
from store import Project, ProjectError, open_project

BIMANUAL_AGENTS = ("openai", "reference")


def store_env_episode(project: Project, env, header: dict[str, Any], *, source: str) -> int:
    """Store a `BimanualEnv`'s steps and images under `header`; return the episode id."""
    width, height = env.image_size
    with project.write():
        for data in env.image_store().values():
            project.images.put(data, "image/png", width, height)
        return project.episodes.add(header, env.steps, source=source).id


def reference_chunks(plan: list[dict]) -> list[list[dict]]:
    """A reference plan cut into model-sized steps: each ends where an arm goes home."""
    chunks: list[list[dict]] = [[]]
    for action in plan:
        chunks[-1].append(action)
        if action.get("action_name") == "back_to_origin":
            chunks.append([])
    return [c for c in chunks if c]


ROW_CHUNK = 10  # rows a step of the 16-number reference


def record_reference_episode(
    project: Project,
    task: str,
    seed: int = 0,
    *,
    cameras: tuple[str, ...] = ("head",),
    image_size: tuple[int, int] = (640, 480),
    split: bool = True,
    tier: str = "primitive",
) -> int:
    """Run the task's scripted reference plan in a fresh seeded world and store it as an
    episode (agent "reference"); one step per chunk of the plan (each chunk ends with an
    arm going home), or one step for the whole plan when `split` is false. With tier
    "row16" the plan is the primitive one traced into 16-number rows
    (`sim.bimanual.rows`), ROW_CHUNK rows a step."""
    from sim.bimanual.env import BimanualEnv

    env = _env(BimanualEnv, task, seed, tier=tier, cameras=cameras,
               image_size=image_size, max_steps=1000)  # fmt: skip
    try:
        if tier == "row16":
            from sim.bimanual.rows import row_reference

            rows = row_reference(task, seed)[0]
            size = ROW_CHUNK if split else len(rows)
            chunks = [rows[i : i + size] for i in range(0, len(rows), size)]
        else:
            plan = env.task.reference_plan(env.world)
            chunks = reference_chunks(plan) if split else [plan]
        env.max_steps = len(chunks)
        for i, chunk in enumerate(chunks):
            env.run_plan(chunk, language_plan=f"reference plan, part {i + 1} of {len(chunks)}")
            if env.success:
                break
        header = env.header(agent="reference", model="")
        return store_env_episode(project, env, header, source=f"reference {task} seed {seed}")
    finally:
        env.close()


def _env(factory, task: str, seed: int, **kw):
    try:
        return factory(task, seed, **kw)
    except ValueError as exc:
        raise ProjectError(str(exc)) from None


def run_bimanual_episode(project: Project, agent, task: str, seed: int, **env_kw: Any) -> int:
    """Let `agent` (a `BimanualOpenAIAgent`) play one seeded episode and store it; a model
    endpoint that fails for good is recorded as outcome "error"."""
    from sim.bimanual.env import BimanualEnv
    from sim.llm import ModelError

    env = _env(BimanualEnv, task, seed, **env_kw)
    try:
        error = ""
        try:
            agent.run(env)
        except ModelError as exc:
            error = str(exc)
        header = env.header(agent=agent.name, model=agent.model, error=error)
        return store_env_episode(project, env, header, source=f"run-agent {agent.name}")
    finally:
        env.close()


def run_bimanual(
    db: str | os.PathLike[str],
    agent_name: str,
    task: str,
    *,
    episodes: int = 1,
    seed: int = 0,
    tier: str = "primitive",
    max_steps: int = 10,
    truncate: int | None = None,
    cameras: tuple[str, ...] = ("head",),
    image_size: tuple[int, int] = (640, 480),
    config: str | None = None,
    progress: Progress | None = None,
    agent_factory: Callable[[], Any] | None = None,
) -> RunSummary:
    """Run `episodes` seeded episodes (seeds seed, seed + 1, ...) of one task with the
    OpenAI-compatible agent or the scripted reference plan; each is stored as it ends."""
    from sim.bimanual.env import get_task

    if agent_name not in BIMANUAL_AGENTS:
        raise ProjectError(f"--agent {agent_name}: bimanual agents are "
                           f"{', '.join(BIMANUAL_AGENTS)}")  # fmt: skip
    try:
        get_task(task)
    except ValueError as exc:
        raise ProjectError(str(exc)) from None
    factory = agent_factory or (lambda: make_bimanual_agent(config))
    progress = progress or Progress()
    summary = RunSummary()
    with open_project(db) as project:
        for i in range(episodes):
            progress.report(i, episodes, f"{agent_name} on {task} seed {seed + i}")
            if agent_name == "reference":
                episode_id = record_reference_episode(
                    project, task, seed + i, cameras=cameras, image_size=image_size, tier=tier
                )
            else:
                episode_id = run_bimanual_episode(
                    project, factory(), task, seed + i, tier=tier, cameras=cameras,
                    image_size=image_size, max_steps=max_steps, truncate=truncate,
                )  # fmt: skip
            episode = project.episodes.get(episode_id)
            summary.episodes += 1
            summary.correct += bool(episode.success)
            tally = summary.by_task.setdefault(task, [0, 0])
            tally[0] += bool(episode.success)
            tally[1] += 1
            summary.episode_ids.append(episode_id)
            if episode.outcome == "error":
                summary.errors.append(f"seed {seed + i}: {episode.header.get('error')}")
        progress.report(episodes, episodes, "done")
    return summary


def make_bimanual_agent(config: str | None = None):
    """The OpenAI-compatible bimanual agent, its endpoint from the environment or `config`."""
    from sim.bimanual.agent import BimanualOpenAIAgent
    from sim.llm import OpenAIConfig

    try:
        return BimanualOpenAIAgent(OpenAIConfig.load(config))
    except ValueError as exc:
        raise ProjectError(f"openai agent: {exc}") from None


def _suggested(step: dict) -> dict:
    """A format-error step as its repaired reading would have run (a plain action step)."""
    suggestion = (step.get("result") or {}).get("suggestion")
    if step["kind"] != "format_error" or not suggestion:
        return step
    return {**step, "kind": "action", "arguments": suggestion["arguments"]}


def replay_in_sim(
    project: Project,
    episode_id: int,
    *,
    seed: int | None = None,
    save: bool = True,
    progress: Progress | None = None,
    image_size: tuple[int, int] | None = None,
    try_suggestions: bool = False,
):
    """Execute a stored bimanual episode's plans in our world from the task's seeded start
    (seed: the argument, else the header's bimanual.seed, else the log's episode number,
    else 0) and return a `sim.bimanual.resim.ResimReport`; with `save`, store the replay as
    a new episode (agent "replay-in-sim", header.bimanual.source_episode = episode_id) and
    set the report's episode_id. With `try_suggestions`, a format-error step that carries
    a repaired reading (`result.suggestion`, which the harness never ran) runs that plan."""
    from sim.bimanual.resim import resimulate

    episode = project.episodes.get(episode_id)
    if episode.benchmark != "bimanual":
        raise ProjectError(f"episode {episode_id} is a {episode.benchmark or 'non-bimanual'} "
                           "episode; replay in sim takes bimanual ones")  # fmt: skip
    steps = [
        {"index": s.index, "kind": s.kind, "name": s.name, "arguments": s.arguments,
         "result": s.result, "ok": s.ok, "feedback": s.feedback, "model_text": s.model_text,
         "raw_output": s.raw_output}
        for s in project.episodes.steps(episode_id)
    ]  # fmt: skip
    if try_suggestions:
        steps = [_suggested(s) for s in steps]
    header = {**episode.header, "task": episode.task or episode.header.get("task", ""),
              "model": episode.model}  # fmt: skip
    try:
        report = resimulate(header, steps, source_episode=episode_id, seed=seed,
                            image_size=image_size, progress=progress)  # fmt: skip
    except ValueError as exc:
        raise ProjectError(f"episode {episode_id}: {exc}") from None
    if save:
        width, height = report.image_size
        with project.write():
            for data in report.images.values():
                project.images.put(data, "image/png", width, height)
            report.episode_id = project.episodes.add(
                report.header, report.episode_steps, source=f"replay-in-sim {episode_id}"
            ).id
    return report
