"""Running agents on stored questions: one recorded episode per question, saved as it ends.

Shared by `reasonscope run-agent`, the demo and the GUI. Each question's scene is sent
with the question as plain data to `play_question_job` (in this process, in threads,
or on Ray: `app.jobs.batch`), which rebuilds the world, lets the agent act through
`sim.tabletop.toolenv.ToolEnv` and sends the episode back; this process alone stores
it, with every step (and the state after it), in one transaction, in question order,
so an interrupted run keeps a whole prefix of episodes and `--resume` skips them.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Sequence
from contextlib import nullcontext
from dataclasses import dataclass, field
from typing import Any

from annotation.progress import Progress
from app.jobs.batch import run_batch, sim_turn
from app.jobs.first_views import first_views, scene_data
from sim.llm import DEFAULT_RETRY, EndpointStats, OpenAIConfig, RetryPolicy
from sim.tabletop.world import MODEL_IMAGE_SIZE
from store import Project, ProjectError, open_project

AGENT_NAMES = ("chance", "search", "openai")
QUESTION_SETS = ("approved", "any")
MGVQA_TASKS = ("count", "find", "beneath", "compare")


@dataclass
class RunSummary:
    """What a run recorded, per task and per model, with each endpoint's request counts."""

    episodes: int = 0
    correct: int = 0
    errors: list[str] = field(default_factory=list)  # episodes whose model endpoint failed
    episode_ids: list[int] = field(default_factory=list)
    by_task: dict[str, list[int]] = field(default_factory=dict)  # task -> [correct, n]
    failed: list[str] = field(default_factory=list)  # items nothing was stored for, and why
    skipped: int = 0  # already recorded (--resume)
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    endpoints: dict[str, EndpointStats] = field(default_factory=dict)  # model -> requests
    backend: str = "in-process"

    def model(self, name: str, agent: str = "") -> dict[str, Any]:
        """The tally of one model (created empty the first time)."""
        return self.models.setdefault(
            name, {"agent": agent, "episodes": 0, "correct": 0, "errors": 0, "failed": 0}
        )

    def keep(
        self,
        header: dict[str, Any],
        episode_id: int,
        what: str,
        endpoint: dict[str, Any] | None = None,
    ) -> None:
        """Count one stored episode (`what` names it in the errors list)."""
        success = bool(header.get("success"))
        self.episodes += 1
        self.correct += success
        tally = self.by_task.setdefault(header.get("task", ""), [0, 0])
        tally[0] += success
        tally[1] += 1
        self.episode_ids.append(episode_id)
        m = self.model(header.get("model") or header.get("agent", ""), header.get("agent", ""))
        m["episodes"] += 1
        m["correct"] += success
        if header.get("outcome") == "error":
            m["errors"] += 1
            self.errors.append(f"{what}: {header.get('error')}")
        if endpoint is not None:
            self.endpoints.setdefault(header.get("model", ""), EndpointStats()).add(endpoint)

    def fail(self, model: str, what: str, why: str) -> None:
        """Count an item that failed: nothing was stored for it."""
        self.model(model)["failed"] += 1
        self.failed.append(f"{what}: {why}")

    def as_dict(self) -> dict[str, Any]:
        total = EndpointStats()
        for stats in self.endpoints.values():
            total.add(stats)
        models = {}
        for name, m in self.models.items():
            stats = self.endpoints.get(name)
            models[name] = {**m, "endpoint": stats.as_dict() if stats is not None else None}
        return {
            "episodes": self.episodes,
            "correct": self.correct,
            "success_rate": round(self.correct / self.episodes, 4) if self.episodes else None,
            "by_task": {t: {"correct": c, "n": n} for t, (c, n) in self.by_task.items()},
            "errors": self.errors,
            "failed": self.failed,
            "skipped": self.skipped,
            "episode_ids": self.episode_ids,
            "backend": self.backend,
            "models": models,
            "endpoint": total.as_dict() if self.endpoints else None,
        }


def make_agent(
    name: str,
    *,
    prompt_variant: str = "plain",
    seed: int = 0,
    config: str | OpenAIConfig | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
):
    """An agent by name; the OpenAI one talks to `config` (an `OpenAIConfig`, or a JSON file
    path, or None: the environment)."""
    from sim.tabletop.agents import ChanceAgent, SearchAgent

    if name == "chance":
        return ChanceAgent(seed)
    if name == "search":
        return SearchAgent(seed=seed)
    if name == "openai":
        from sim.tabletop.openai_agent import OpenAIAgent

        if not isinstance(config, OpenAIConfig):
            try:
                config = OpenAIConfig.load(config)
            except ValueError as exc:
                raise ProjectError(f"openai agent: {exc}") from None
        return OpenAIAgent(config, prompt_variant=prompt_variant, retry=retry)
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


def play_episode(
    question,
    scene: dict[str, Any],
    agent,
    mode: str,
    *,
    image_size: int = MODEL_IMAGE_SIZE,
    gripper: str | None = None,
    first_view=None,
    hosts=None,
    perception: dict[str, Any] | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
    waiting=None,
) -> dict[str, Any]:
    """Run `agent` on one question in its rebuilt scene; the episode as plain data
    ({"header", "steps", "source"}). A model endpoint failing is outcome "error".

    `first_view` (`sim.tabletop.first_view.FirstView`, for this scene, camera and
    gripper) is what the agent is shown until something moves; a Direct episode with one
    needs no simulator at all. With `hosts` (`app.jobs.sim_hosts.SimHosts`) the world
    lives in a simulation process and this thread only plays the agent's side.
    `perception` ({"perceiver", "config", "segmenter"}) says how perceive_scene and
    find_object see (default: the oracle and the segmentation buffer); `waiting` wraps
    the perception model's requests as the agent's."""
    from sim.llm import ModelError
    from sim.tabletop.scenes import world_from_records
    from sim.tabletop.toolenv import ToolEnv
    from sim.tabletop.vlm_perception import make_perceiver, oracle_spec, spec_segmenter
    from sim.tabletop.world import TOP_DOWN

    camera = TOP_DOWN.with_size(image_size, image_size)
    if mode == "direct":
        perception = None  # Direct mode perceives nothing
    elif perception is None:  # the scripted agents' default, recorded like any other
        perception = oracle_spec()
    perceiver = make_perceiver(perception, retry)
    if waiting is not None and hasattr(perceiver, "waiting"):
        perceiver.waiting = waiting
    segmenter = spec_segmenter(perception)
    world = remote = None
    if mode == "direct" and first_view is not None:
        env = ToolEnv(None, question, mode, camera=camera, first_view=first_view)
    elif hosts is not None:
        env = remote = hosts.open(
            question, scene, mode, camera, gripper, first_view, perception, perceiver
        )
    else:
        world = world_from_records(scene["bodies"], scene["state"], gripper=gripper)
    error = ""
    try:
        if world is not None:
            env = ToolEnv(
                world,
                question,
                mode,
                camera=camera,
                first_view=first_view,
                perceiver=perceiver,
                segmenter=segmenter,
            )
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
            "gripper": env.gripper,
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
        if perception is not None:  # what perceive_scene and find_object saw with
            header["perceiver"] = perceiver.name
            header["perception_model"] = perceiver.model
            header["segmenter"] = segmenter
        return {"header": header, "steps": env.steps, "source": f"run-agent {agent.name}"}
    finally:
        if world is not None:
            world.close()
        if remote is not None:
            hosts.release(remote)


def run_episode(
    project: Project,
    question,
    agent,
    mode: str,
    *,
    image_size: int = MODEL_IMAGE_SIZE,
    gripper: str | None = None,
) -> int:
    """Run `agent` on one question and store the episode; return its id."""
    data = play_episode(
        question,
        scene_data(project, question.scene_id),
        agent,
        mode,
        image_size=image_size,
        gripper=gripper,
    )
    return project.episodes.add(data["header"], data["steps"], source=data["source"]).id


def play_question_job(job: dict[str, Any]) -> dict[str, Any]:
    """One episode of a run as plain data (a batch worker's job): job = {"agent", "mode",
    "question", "scene" (`scene_data`), "seed", "prompt_variant", "image_size", "gripper",
    "config" (an OpenAIConfig or None), "retry", "first_view" (a `FirstView` or None)},
    and in this process's threads "hosts" (`SimHosts`, or None); the episode comes back
    with its endpoint's request counts ("endpoint")."""
    hosts = job.get("hosts")
    first_view = job.get("first_view")
    simulates = not (job["mode"] == "direct" and first_view is not None)
    if hosts is not None and simulates and job["agent"] != "openai":
        # a scripted agent never waits: the whole episode goes to a simulation process
        return hosts.run(play_question_job, {k: v for k, v in job.items() if k != "hosts"})
    agent = make_agent(
        job["agent"],
        prompt_variant=job["prompt_variant"],
        seed=job["seed"],
        config=job["config"],
        retry=job["retry"],
    )
    in_turn = simulates and hosts is None
    with sim_turn() if in_turn else nullcontext(nullcontext()) as waiting:
        agent.waiting = waiting  # threads that simulate here do so in turn, wait together
        data = play_episode(
            job["question"],
            job["scene"],
            agent,
            job["mode"],
            image_size=job["image_size"],
            gripper=job["gripper"],
            first_view=first_view,
            hosts=hosts if simulates else None,
            perception=job.get("perception"),
            retry=job["retry"],
            waiting=waiting if in_turn else None,
        )
    stats = getattr(agent, "stats", None)
    data["endpoint"] = stats.as_dict() if stats is not None else None
    return data


def perception_spec(
    agent_name: str,
    configs: Sequence[OpenAIConfig | None],
    perceiver: str | None,
    perception_config: OpenAIConfig | None,
    segmenter: str | None,
) -> dict[str, Any]:
    """How a run's perception tools see: {"perceiver", "config", "segmenter"}. One
    perception model serves every agent of the run."""
    from sim.tabletop.toolenv import SEGMENTERS
    from sim.tabletop.vlm_perception import ORACLE, PERCEIVERS

    perceiver = perceiver or ("vlm" if agent_name == "openai" else ORACLE)
    if perceiver not in PERCEIVERS:
        raise ProjectError(f"--perceiver {perceiver}: perceivers are {', '.join(PERCEIVERS)}")
    segmenter = segmenter or ("rgbd" if perceiver == "vlm" else ORACLE)
    if segmenter not in SEGMENTERS:
        raise ProjectError(f"--segmenter {segmenter}: segmenters are {', '.join(SEGMENTERS)}")
    config = None
    if perceiver == "vlm":
        config = perception_config or next((c for c in configs if c is not None), None)
        if config is None:
            raise ProjectError(
                "--perceiver vlm needs a perception model: --perception-config FILE "
                "(or run a model with --agent openai)"
            )
    return {"perceiver": perceiver, "config": config, "segmenter": segmenter}


def recorded_questions(
    project: Project, agent: str, model: str, mode: str, prompt_variant: str
) -> set[int]:
    """Questions this agent, model, mode and prompt variant already have an episode of."""
    return {
        e.question_id
        for e in project.episodes.list(model=model, mode=mode, limit=10**9)
        if e.benchmark == "mgvqa"
        and e.agent == agent
        and e.question_id is not None
        and (e.header.get("prompt_variant") or "") == prompt_variant
    }


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
    models: Sequence[OpenAIConfig] | None = None,
    retry: RetryPolicy = DEFAULT_RETRY,
    image_size: int = MODEL_IMAGE_SIZE,
    gripper: str | None = None,
    progress: Progress | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    concurrency: int | None = None,
    resume: bool = False,
    perceiver: str | None = None,
    perception_config: OpenAIConfig | None = None,
    segmenter: str | None = None,
) -> RunSummary:
    """Run one agent in one mode on the project's questions (the OpenAI one once per model
    of `models`, else of `config`); every episode is stored, in question order per model.

    Question i of the selection plays with seed `seed + i`, whatever the workers. The
    robot carries the gripper each question's scene recorded, or `gripper` when given.
    With `resume`, questions that already have an episode of this agent, model, mode and
    prompt variant are skipped.

    In Perception and Manipulation mode, `perceiver` "vlm" (the default for model runs)
    asks `perception_config`'s model (default: the run's first model, at its endpoint)
    for each scene graph from the image alone, and find_object segments the image
    (`segmenter` "rgbd"); "oracle" (the default for the scripted agents) reads the
    simulator. A model run never falls back to the oracle by itself.
    """
    from app.jobs.sim_hosts import SimHosts
    from sim.tabletop import prompts
    from sim.tabletop.toolenv import MODES
    from sim.tabletop.world import TOP_DOWN

    if mode not in MODES:
        raise ProjectError(f"--mode {mode}: modes are {', '.join(MODES)}")
    if agent_name not in AGENT_NAMES:
        raise ProjectError(f"--agent {agent_name}: agents are {', '.join(AGENT_NAMES)}")
    summary = RunSummary()
    configs: list[OpenAIConfig | None] = [None]
    if agent_name == "openai":
        configs = list(models) if models else [make_agent("openai", config=config).config]
    perception = perception_spec(agent_name, configs, perceiver, perception_config, segmenter)
    with open_project(db) as project:
        chosen = select_questions(project, questions, limit)
        if not chosen:
            raise ProjectError(
                f"{db}: no {'approved ' if questions == 'approved' else ''}MG-VQA questions "
                "with scenes to run on"
            )
        scenes: dict[int, dict[str, Any]] = {}
        jobs = []
        for cfg in configs:
            probe = make_agent(agent_name, prompt_variant=prompt_variant, config=cfg)
            summary.model(probe.model, agent_name)
            if cfg is not None:
                summary.endpoints[probe.model] = EndpointStats()
            done = set()
            if resume:
                done = recorded_questions(
                    project, agent_name, probe.model, mode, probe.prompt_variant
                )
            for i, question in enumerate(chosen):
                if question.id in done:
                    summary.skipped += 1
                    continue
                if question.scene_id not in scenes:
                    scenes[question.scene_id] = scene_data(project, question.scene_id)
                jobs.append(
                    {
                        "agent": agent_name,
                        "mode": mode,
                        "question": question,
                        "scene": scenes[question.scene_id],
                        "seed": seed + i,
                        "prompt_variant": prompt_variant,
                        "image_size": image_size,
                        "gripper": gripper,
                        "config": cfg,
                        "retry": retry,
                        "model": probe.model,
                        "perception": perception,
                    }
                )

        def what(job: dict[str, Any]) -> str:
            q = job["question"]
            return f"{job['model']} on {q.task} question {q.id}"

        def keep(job: dict[str, Any], data: dict[str, Any]) -> None:
            episode_id = project.episodes.add(
                data["header"], data["steps"], source=data["source"]
            ).id
            summary.keep(data["header"], episode_id, what(job), data.get("endpoint"))

        # --workers W on this machine: W simulation processes, K threads playing the
        # agents' side (docs/model-endpoints.md); --ray-address: episodes as Ray tasks
        local_hosts = workers > 1 and not ray_address
        threads = (concurrency or workers) if local_hosts else concurrency
        with SimHosts(workers) if local_hosts else nullcontext() as hosts:
            views = first_views(
                project,
                scenes,
                TOP_DOWN.with_size(image_size, image_size),
                gripper=gripper,
                views=prompts.views(prompt_variant),
                progress=progress,
                hosts=hosts,
            )
            for job in jobs:
                job["first_view"] = views[job["question"].scene_id]
                if hosts is not None:
                    job["hosts"] = hosts
            batch = run_batch(
                jobs,
                play_question_job,
                keep,
                workers=1 if local_hosts else workers,
                ray_address=ray_address,
                progress=progress or Progress(),
                describe=what,
                noun="episode",
                concurrency=threads,
            )
        summary.backend = batch.backend
        if local_hosts:
            summary.backend = f"in-process, {threads} threads, {workers} simulation processes"
        by_what = {what(j): j["model"] for j in jobs}
        for item, why in batch.failed:
            summary.fail(by_what.get(item, ""), item, why)
    return summary
