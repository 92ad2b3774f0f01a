"""Bimanual episodes made here: reference plans, model runs and replays in sim, stored.

Each episode is stored in one transaction with its images (PNG, once by content
hash), so an interrupted run keeps the episodes it finished. The recorded format
is in docs/bimanual-agents.md. `reasonscope run-agent --benchmark bimanual` and
`reasonscope replay-in-sim` call these functions.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

from annotation.progress import Progress
from app.jobs.agents import RunSummary
from app.jobs.batch import run_batch, sim_turn
from sim.llm import EndpointStats, OpenAIConfig
from store import Project, ProjectError, open_project

BIMANUAL_AGENTS = ("openai", "reference")


def episode_data(env, header: dict[str, Any], *, source: str) -> dict[str, Any]:
    """A finished `BimanualEnv` episode as plain data (what a batch worker sends back)."""
    return {
        "header": header,
        "steps": env.steps,
        "images": env.image_store(),
        "image_size": list(env.image_size),
        "source": source,
    }


def store_episode_data(project: Project, data: dict[str, Any]) -> int:
    """Store an `episode_data` dict (its images once, by content) in one transaction."""
    width, height = data["image_size"]
    with project.write():
        for image in data["images"].values():
            project.images.put(image, "image/png", width, height)
        return project.episodes.add(data["header"], data["steps"], source=data["source"]).id


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
    return store_episode_data(
        project,
        play_reference(task, seed, cameras=cameras, image_size=image_size, split=split, tier=tier),
    )


def play_reference(
    task: str,
    seed: int = 0,
    *,
    cameras: tuple[str, ...] = ("head",),
    image_size: tuple[int, int] = (640, 480),
    split: bool = True,
    tier: str = "primitive",
    randomization_seed: int | None = None,
) -> dict[str, Any]:
    """`record_reference_episode`'s episode as plain data, not stored (with
    `randomization_seed`, in that seed's randomized look)."""
    from sim.bimanual.env import BimanualEnv

    env = _env(
        BimanualEnv,
        task,
        seed,
        tier=tier,
        cameras=cameras,
        image_size=image_size,
        max_steps=1000,
        randomization_seed=randomization_seed,
    )
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
        return episode_data(env, header, source=f"reference {task} seed {seed}")
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
    return store_episode_data(project, play_agent(agent, task, seed, **env_kw))


def play_agent(agent, task: str, seed: int, **env_kw: Any) -> dict[str, Any]:
    """`run_bimanual_episode`'s episode as plain data, not stored."""
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
        return episode_data(env, header, source=f"run-agent {agent.name}")
    finally:
        env.close()


def play_bimanual_job(job: dict[str, Any]) -> dict[str, Any]:
    """One episode of a batch as plain data (a Ray worker's job): job = {"agent",
    "task", "seed", "env": BimanualEnv options, "config": an OpenAIConfig or None,
    "retry": a RetryPolicy}; a model episode comes back with its endpoint's request
    counts ("endpoint")."""
    env_kw = dict(job["env"])
    if job["agent"] == "reference":
        return play_reference(
            job["task"],
            job["seed"],
            cameras=env_kw["cameras"],
            image_size=env_kw["image_size"],
            tier=env_kw["tier"],
            randomization_seed=env_kw.get("randomization_seed"),
        )
    from sim.bimanual.agent import BimanualOpenAIAgent
    from sim.llm import DEFAULT_RETRY

    agent = BimanualOpenAIAgent(job["config"], retry=job.get("retry") or DEFAULT_RETRY)
    with sim_turn() as waiting:  # threads of a run simulate in turn, wait together
        agent.waiting = waiting
        data = play_agent(agent, job["task"], job["seed"], **env_kw)
    data["endpoint"] = agent.stats.as_dict()
    return data


def run_bimanual(
    db: str | os.PathLike[str],
    agent_name: str,
    task: str,
    *,
    episodes: int = 1,
    seed: int = 0,
    tier: str = "primitive",
    max_steps: int | None = None,
    truncate: int | None = None,
    cameras: tuple[str, ...] | None = None,
    image_size: tuple[int, int] = (640, 480),
    example: bool = True,
    randomize: bool = False,
    config: str | None = None,
    models: Sequence[Any] | None = None,
    retry: Any = None,
    progress: Progress | None = None,
    agent_factory: Callable[[], Any] | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    concurrency: int | None = None,
    resume: bool = False,
) -> RunSummary:
    """Run `episodes` seeded episodes (seeds seed, seed + 1, ...) of one task with the
    OpenAI-compatible agent (once per model of `models`, `OpenAIConfig`s; else the one of
    `config`) or the scripted reference plan; each is stored as it comes back, in seed
    order per model. With `workers` or `ray_address` the episodes play on Ray
    (app.jobs.batch; the agent is built in the worker from the endpoint settings), with
    `concurrency` K that many at once (threads in this process, or K Ray tasks); with
    `resume`, seeds this agent, model and tier already have an episode of are skipped. An
    episode whose worker fails is listed in the summary's `failed`.

    The protocol is the ST-BiBench harness's unless given (`sim.bimanual.protocol`): on
    the planning tier `max_steps` None is the task's action_limit and `truncate` None its
    action_chunk_num (0: execute whole plans); `cameras` None is head + third (head only
    for row16); `example` shows the task's example reply from the harness's task file and,
    after the text of every request, the task's example picture where it has one.
    With `randomize`, each episode's table, floor and light are randomized from its seed
    (`sim.bimanual.randomize`)."""
    from sim.bimanual.env import get_task

    if agent_name not in BIMANUAL_AGENTS:
        raise ProjectError(
            f"--agent {agent_name}: bimanual agents are {', '.join(BIMANUAL_AGENTS)}"
        )
    try:
        get_task(task)
    except ValueError as exc:
        raise ProjectError(str(exc)) from None
    progress = progress or Progress()
    summary = RunSummary()
    env_kw = bimanual_protocol(
        task,
        tier=tier,
        max_steps=max_steps,
        truncate=truncate,
        cameras=cameras,
        example=example,
    )
    env_kw["image_size"] = tuple(image_size)
    with open_project(db) as project:

        def keep(job: dict[str, Any], data: dict[str, Any]) -> None:
            episode_id = store_episode_data(project, data)
            summary.keep(data["header"], episode_id, f"seed {job['seed']}", data.get("endpoint"))

        all_seeds = list(range(seed, seed + episodes))

        def env_for(s: int) -> dict[str, Any]:
            return {**env_kw, "randomization_seed": s if randomize else None}

        if agent_factory is not None:  # an agent object made here (tests): in this process
            for n, s in enumerate(all_seeds):
                progress.report(n, len(all_seeds), f"{agent_name} on {task} seed {s}")
                agent = agent_factory()
                data = play_agent(agent, task, s, **env_for(s))
                stats = getattr(agent, "stats", None)
                keep({"seed": s}, {**data, "endpoint": stats.as_dict() if stats else None})
            progress.report(len(all_seeds), len(all_seeds), "done")
            return summary
        configs: list[Any] = [None]
        if agent_name == "openai":
            configs = list(models) if models else [make_bimanual_agent(config).config]
        jobs = []
        for cfg in configs:
            model = cfg.label if cfg is not None else ""
            summary.model(model or agent_name, agent_name)
            if cfg is not None:
                summary.endpoints[model] = EndpointStats()
            seeds = all_seeds
            if resume:
                done = _recorded_seeds(project, agent_name, model, task, tier)
                seeds = [s for s in seeds if s not in done]
                summary.skipped += len(all_seeds) - len(seeds)
            jobs += [
                {
                    "agent": agent_name,
                    "task": task,
                    "seed": s,
                    "env": env_for(s),
                    "config": cfg,
                    "retry": retry,
                    "model": model,
                }
                for s in seeds
            ]

        def what(job: dict[str, Any]) -> str:
            return f"{job['model'] or job['agent']} on {job['task']} seed {job['seed']}"

        batch = run_batch(
            jobs,
            play_bimanual_job,
            keep,
            workers=workers,
            ray_address=ray_address,
            progress=progress,
            noun="episode",
            describe=what,
            concurrency=concurrency,
        )
        summary.backend = batch.backend
        by_what = {what(j): j["model"] or j["agent"] for j in jobs}
        for item, why in batch.failed:
            summary.fail(by_what.get(item, ""), item, why)
    return summary


def bimanual_protocol(
    task: str,
    *,
    tier: str = "primitive",
    max_steps: int | None = None,
    truncate: int | None = None,
    cameras: Sequence[str] | None = None,
    example: bool = True,
) -> dict[str, Any]:
    """The `BimanualEnv` options of a run: what is given, the rest from the ST-BiBench
    harness's task file (`sim.bimanual.protocol.task_protocol`). The harness's step limit
    and truncation belong to its planning tier; the row16 tier keeps 10 steps and whole
    plans unless given, and never shows the example (reply or picture). `truncate` 0
    executes whole plans."""
    from sim.bimanual.env import DEFAULT_MAX_STEPS
    from sim.bimanual.protocol import default_cameras, task_protocol

    harness = task_protocol(task)
    planning = tier != "row16"
    if max_steps is None:
        max_steps = harness.max_steps if planning else DEFAULT_MAX_STEPS
    if truncate is None:
        truncate = harness.truncate if planning else None
    return {
        "tier": tier,
        "max_steps": int(max_steps),
        "truncate": truncate or None,
        "cameras": tuple(cameras) if cameras else default_cameras(tier),
        "example": harness.example if example and planning else None,
        "example_image": harness.example_image if example and planning else None,
    }


def _recorded_seeds(project: Project, agent: str, model: str, task: str, tier: str) -> set:
    """Seeds of the project's episodes of this agent, model, task and tier (for --resume)."""
    out = set()
    for episode in project.episodes.list(task=task, limit=10**9):
        h = episode.header
        if (episode.agent, episode.model, h.get("tier")) == (agent, model, tier):
            seed_of = (h.get("bimanual") or {}).get("seed")
            if seed_of is not None:
                out.add(int(seed_of))
    return out


def make_bimanual_agent(config: str | None = None):
    """The OpenAI-compatible bimanual agent, its endpoint from the environment or `config`."""
    from sim.bimanual.agent import BimanualOpenAIAgent

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
    report = resimulate_job(_resim_job(project, episode_id, seed, image_size, try_suggestions))
    if save:
        _store_replay(project, report)
    return report


def _resim_job(project: Project, episode_id: int, seed, image_size, try_suggestions) -> dict:
    """What a replay needs, as plain data: the episode's header and steps."""
    episode = project.episodes.get(episode_id)
    if episode.benchmark != "bimanual":
        raise ProjectError(
            f"episode {episode_id} is a {episode.benchmark or 'non-bimanual'} "
            "episode; replay in sim takes bimanual ones"
        )
    steps = [
        {
            "index": s.index,
            "kind": s.kind,
            "name": s.name,
            "arguments": s.arguments,
            "result": s.result,
            "ok": s.ok,
            "feedback": s.feedback,
            "model_text": s.model_text,
            "raw_output": s.raw_output,
        }
        for s in project.episodes.steps(episode_id)
    ]
    if try_suggestions:
        steps = [_suggested(s) for s in steps]
    header = {
        **episode.header,
        "task": episode.task or episode.header.get("task", ""),
        "model": episode.model,
    }
    return {
        "episode_id": episode_id,
        "header": header,
        "steps": steps,
        "seed": seed,
        "image_size": image_size,
    }


def resimulate_job(job: dict[str, Any]):
    """One replay in sim from plain data (a Ray worker's job): a `ResimReport`."""
    from sim.bimanual.resim import resimulate

    try:
        return resimulate(
            job["header"],
            job["steps"],
            source_episode=job["episode_id"],
            seed=job["seed"],
            image_size=job["image_size"],
        )
    except ValueError as exc:
        raise ProjectError(f"episode {job['episode_id']}: {exc}") from None


def _store_replay(project: Project, report) -> None:
    width, height = report.image_size
    with project.write():
        for data in report.images.values():
            project.images.put(data, "image/png", width, height)
        report.episode_id = project.episodes.add(
            report.header, report.episode_steps, source=f"replay-in-sim {report.source_episode}"
        ).id


def replay_many(
    project: Project,
    episode_ids: list[int],
    *,
    workers: int = 1,
    ray_address: str | None = None,
    try_suggestions: bool = False,
    progress: Progress | None = None,
):
    """Replay many episodes in sim (on Ray with `workers` > 1 or `ray_address`) and store
    each replay as it comes back, in the order given; returns (reports, BatchReport)."""
    reports: list = []

    def keep(_job, report) -> None:
        _store_replay(project, report)
        reports.append(report)

    jobs = [_resim_job(project, i, None, None, try_suggestions) for i in episode_ids]
    batch = run_batch(
        jobs,
        resimulate_job,
        keep,
        workers=workers,
        ray_address=ray_address,
        progress=progress,
        noun="replay",
        describe=lambda j: f"episode {j['episode_id']}",
    )
    return reports, batch


def replayed_sources(project: Project) -> set[int]:
    """Episodes that already have a replay in sim in the project (for --resume)."""
    out = set()
    for episode in project.episodes.list(limit=10**9):
        if episode.agent == "replay-in-sim":
            source = (episode.header.get("bimanual") or {}).get("source_episode")
            if source is not None:
                out.add(int(source))
    return out
