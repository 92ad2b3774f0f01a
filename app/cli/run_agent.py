"""`reasonscope run-agent`: agents answer the project's questions; every step is recorded.

MG-VQA runs, `--benchmark bimanual` and `--benchmark jrdb` runs share the options and the
report; the bimanual options and run, then the JRDB-Reasoning ones, are at the end.
"""

from __future__ import annotations

import argparse
import json
import sys

from app.cli.support import (
    CommandTree,
    TerminalProgress,
    batch_args,
    batch_problem,
    db_arg,
    default_db,
    fail,
    gripper_arg,
)
from sim.tabletop.world import MODEL_IMAGE_SIZE
from store import open_project

BIMANUAL_IMAGE_WIDTH = 640


def add_parser(commands: CommandTree) -> None:
    """Register `run-agent`."""
    from sim.tabletop.prompts import PROMPT_VARIANTS
    from sim.tabletop.toolenv import MODES

    p = commands.add_parser(
        "run-agent",
        help="run an agent on the project's questions and record its episodes",
        description="Run the chance baseline, the scripted search agent or a model behind an "
        "OpenAI-compatible endpoint on MG-VQA questions, in Direct, Perception or Manipulation "
        "mode. Each question becomes an episode with every tool call, its result and the "
        "simulator state after it; replay them in the app or export them. With --benchmark "
        "bimanual, a model (openai) or the scripted reference plan (reference) plays seeded "
        "episodes of an ST-BiBench task in the dual-arm world (docs/bimanual-agents.md). With "
        "--benchmark jrdb, a model answers the project's JRDB-Reasoning questions as the "
        "paper's evaluation scripts ask it, and its replies are stored as scored predictions "
        "(docs/jrdb-questions.md). "
        "Models: several in one run with --model or --endpoints, --concurrency episodes in "
        "flight, each request timed out, retried with backoff, its latency and tokens "
        "recorded; the end-of-run report gives them per model (docs/model-endpoints.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--agent",
        choices=["chance", "search", "openai", "reference"],
        required=True,
        help="mgvqa: chance, search or openai; bimanual: openai or reference; jrdb: openai",
    )
    p.add_argument(
        "--benchmark",
        choices=["mgvqa", "bimanual", "jrdb"],
        default="mgvqa",
        help="MG-VQA questions (default), ST-BiBench dual-arm tasks or JRDB-Reasoning questions",
    )
    p.add_argument(
        "--mode", choices=sorted(MODES), help="mgvqa (required): which tools it may call"
    )
    p.add_argument(
        "--questions",
        choices=["approved", "any"],
        default="approved",
        help="verified questions only (default) or every current one (jrdb: but excluded ones)",
    )
    p.add_argument("--limit", type=int, metavar="N", help="at most N questions")
    p.add_argument(
        "--prompt-variant",
        choices=list(PROMPT_VARIANTS),
        default="plain",
        help="prompt ablation for model runs (recorded with each episode)",
    )
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed for the agents' random choices (question i: seed + i); "
        "bimanual: the first episode's set-up seed (then seed + 1, ...)",
    )
    p.add_argument(
        "--image-size",
        type=int,
        default=None,
        metavar="PX",
        help=f"observation width (mgvqa {MODEL_IMAGE_SIZE} square; bimanual 640, 4:3)",
    )
    gripper_arg(p, recorded=True)
    add_perception_arguments(p)
    batch_args(
        p,
        workers_help="mgvqa: simulate in N processes of this machine while the episodes' "
        "threads wait on the model (no Ray needed); bimanual: a local Ray with N CPUs "
        "(default 1: in this process)",
        resume="skip what is recorded already: mgvqa, questions this agent, model, "
        "mode and prompt variant have an episode of; bimanual, seeds this agent, model "
        "and tier have one of",
    )
    add_endpoint_arguments(p)
    add_bimanual_run_arguments(p)
    add_jrdb_run_arguments(p)
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_run_agent)


def add_endpoint_arguments(p: argparse.ArgumentParser) -> None:
    """The model endpoint options of run-agent (--agent openai; docs/model-endpoints.md)."""
    g = p.add_argument_group("model endpoints (--agent openai)")
    g.add_argument(
        "--config",
        metavar="FILE",
        help="JSON file with base_url, model, api_key, timeout, max_tokens, "
        "temperature (else the REASONSCOPE_OPENAI_* variables)",
    )
    g.add_argument(
        "--model",
        action="append",
        metavar="NAME",
        help="a model at that endpoint; repeat for several models in one run, "
        "each recorded under its name",
    )
    g.add_argument(
        "--endpoints",
        metavar="FILE",
        help="TOML (or .json) file of [[endpoint]] tables: name, base_url, model, "
        "api_key_env, timeout, max_tokens, temperature; one run over them all",
    )
    g.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="K",
        help="episodes in flight at once, each waiting on the endpoint in its own thread "
        "(default 1; with --workers W, W; on Ray, one per CPU); with --ray-address, K in total",
    )
    g.add_argument(
        "--timeout",
        type=float,
        default=None,
        metavar="SECONDS",
        help="seconds a request may take before it is retried (default: the endpoint's, else 120)",
    )
    g.add_argument(
        "--retries",
        type=int,
        default=4,
        metavar="N",
        help="retries of a failed request, with backoff from 1 s doubling to "
        "30 s, Retry-After honoured up to 60 s (default 4)",
    )


def add_perception_arguments(p: argparse.ArgumentParser) -> None:
    """How perceive_scene and find_object see in Perception and Manipulation mode."""
    g = p.add_argument_group("perception tools (mgvqa, perception and manipulation modes)")
    g.add_argument(
        "--perceiver",
        choices=["vlm", "oracle"],
        help="vlm: a perception model sees only the image (default for --agent openai); "
        "oracle: read from the simulator, an upper bound (default for chance and search)",
    )
    g.add_argument(
        "--perception-model",
        metavar="NAME",
        help="the perception model at the run's endpoint (default: the run's first model)",
    )
    g.add_argument(
        "--perception-config",
        metavar="FILE",
        help="JSON file of the perception model's endpoint (as --config)",
    )
    g.add_argument(
        "--segmenter",
        choices=["rgbd", "oracle"],
        help="find_object from the RGB and depth image (default with --perceiver vlm) or "
        "from the simulator's segmentation (default with --perceiver oracle)",
    )


def _perception_config(args: argparse.Namespace, models):
    """The perception model's endpoint, when --perception-config / --perception-model ask
    for one; None: the run's first model. ValueError in one line."""
    import dataclasses

    from sim.llm import OpenAIConfig

    if args.perception_config:
        try:
            config = OpenAIConfig.load(args.perception_config)
        except ValueError as exc:
            raise ValueError(f"--perception-config: {exc}") from None
        if args.perception_model:
            config = dataclasses.replace(config, model=args.perception_model, name="")
        return config
    if args.perception_model:
        base = (models or [None])[0]
        if base is None:
            try:
                base = OpenAIConfig.load(None)
            except ValueError as exc:
                raise ValueError(f"--perception-model: {exc}") from None
        return dataclasses.replace(base, model=args.perception_model, name="")
    return None


def _common_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with the options both benchmarks share, if anything."""
    if args.image_size is not None and not 64 <= args.image_size <= 2048:
        return f"--image-size {args.image_size}: must lie within 64-2048"
    if args.concurrency is not None and args.concurrency < 1:
        return f"--concurrency {args.concurrency}: need at least one episode in flight"
    if args.timeout is not None and not args.timeout > 0:
        return f"--timeout {args.timeout:g}: must be more than 0 seconds"
    if args.retries < 0:
        return f"--retries {args.retries}: must be 0 or more"
    if args.agent != "openai" and (args.model or args.endpoints):
        return "--model and --endpoints are for --agent openai"
    # MG-VQA runs simulate in --workers processes of this machine, Ray only for a cluster
    return batch_problem(args, local_processes=args.benchmark == "mgvqa")


def cmd_run_agent(args: argparse.Namespace) -> int:
    problem = _common_problem(args)
    if problem is None:
        problem = {"bimanual": bimanual_problem, "jrdb": jrdb_problem}.get(
            args.benchmark, _mgvqa_problem
        )(args)
    if problem:
        return fail(problem)
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    models = retry = None
    if args.agent == "openai":
        from app.jobs.endpoints import model_configs
        from sim.llm import RetryPolicy

        try:  # refuse a bad model config or endpoints file before any simulation
            models = model_configs(
                config=args.config,
                models=args.model or (),
                endpoints=args.endpoints,
                timeout=args.timeout,
            )
        except ValueError as exc:
            return fail(str(exc))
        retry = RetryPolicy(retries=args.retries)
    try:
        perception_config = _perception_config(args, models)
    except ValueError as exc:
        return fail(str(exc))
    args.perception = perception_config
    if args.benchmark == "jrdb":
        return run_jrdb_args(args, path, models, retry)
    with TerminalProgress() as progress:
        if args.benchmark == "bimanual":
            summary = run_bimanual_args(args, path, models, retry, progress)
            title = f"({args.task}, {args.tier})"
        else:
            summary = _run_mgvqa(args, path, models, retry, progress)
            title = f"({args.mode})"
    return report_run(summary, args.json, title)


def _mgvqa_problem(args: argparse.Namespace) -> str | None:
    if args.mode is None:
        return "--mode is required for MG-VQA runs (direct, perception or manipulation)"
    if args.agent == "reference":
        return "--agent reference: the reference plans are for --benchmark bimanual"
    if args.limit is not None and args.limit < 1:
        return f"--limit {args.limit}: need at least one question"
    return None


def _run_mgvqa(args, path, models, retry, progress):
    from app.jobs.agents import run_agent

    return run_agent(
        path,
        args.agent,
        args.mode,
        questions=args.questions,
        limit=args.limit,
        prompt_variant=args.prompt_variant,
        seed=args.seed,
        config=args.config,
        models=models,
        retry=retry or _default_retry(),
        image_size=args.image_size or MODEL_IMAGE_SIZE,
        gripper=args.gripper,
        progress=progress,
        workers=args.workers,
        ray_address=args.ray_address,
        concurrency=args.concurrency,
        resume=args.resume,
        perceiver=args.perceiver,
        perception_config=args.perception,
        segmenter=args.segmenter,
    )


def _default_retry():
    from sim.llm import DEFAULT_RETRY

    return DEFAULT_RETRY


def report_run(summary, as_json: bool, title: str) -> int:
    """Print a run's report (JSON, or text per model); failed items go to stderr too.
    1 if items failed (the rest is stored), else 0."""
    from app.jobs.endpoints import report_lines

    report = summary.as_dict()
    if as_json:
        print(json.dumps(report, indent=2))
    else:
        skipped = f", {summary.skipped} already recorded" if summary.skipped else ""
        print(
            f"{summary.episodes} episodes recorded, {summary.correct} succeeded {title}"
            f"{skipped}; {summary.backend}"
        )
        for task, (correct, n) in sorted(summary.by_task.items()):
            print(f"  {task:<8} {correct}/{n}")
        for line in report_lines(report):
            print(line)
        for error in summary.errors:
            print(f"  error: {error}")
    for item in summary.failed:
        sys.stderr.write(f"reasonscope: failed: {item}\n")
    if summary.failed:
        sys.stderr.write(
            f"reasonscope: {len(summary.failed)} failed; the rest is stored "
            "(run again with --resume to retry them)\n"
        )
    return 1 if summary.failed else 0


# -- --benchmark bimanual -------------------------------------------------------------------
def add_bimanual_run_arguments(p: argparse.ArgumentParser) -> None:
    """run-agent's options for --benchmark bimanual (--workers, --ray-address, --resume
    and the endpoint options are run-agent's own, shared with MG-VQA)."""
    g = p.add_argument_group("bimanual (--benchmark bimanual)")
    g.add_argument(
        "--task",
        metavar="NAME",
        help="the ST-BiBench task, e.g. stack_blocks_two; jrdb: only questions of one task, "
        "vg, vqa-wh or vqa-count",
    )
    g.add_argument(
        "--episodes",
        type=int,
        default=None,
        metavar="N",
        help="seeded episodes to run (default 1; 100 with --protocol paper)",
    )
    g.add_argument(
        "--tier",
        choices=["primitive", "row16"],
        default="primitive",
        help="named actions 2.2-2.9 (default) or 16-number end-effector rows",
    )
    g.add_argument(
        "--protocol",
        choices=["harness", "paper"],
        default="harness",
        help="harness (default): the ST-BiBench harness's per-task step limit, truncation, "
        "head + third-person views and task example; paper: the same plus the paper's 100 "
        "episodes per task and seeded table, floor and light randomization",
    )
    g.add_argument(
        "--max-steps",
        type=int,
        default=None,
        metavar="N",
        help="model replies per episode at most (default: the task's action_limit in the "
        "ST-BiBench harness; 10 for row16)",
    )
    g.add_argument(
        "--truncate",
        type=int,
        default=None,
        metavar="K",
        help="execute only the first K actions of each plan, then re-observe; 0 executes "
        "whole plans (default: the task's action_chunk_num in the harness; none for row16)",
    )
    g.add_argument(
        "--camera",
        action="append",
        choices=["head", "front", "third"],
        help="cameras the model sees (repeatable; default head and third, head for row16)",
    )
    g.add_argument(
        "--no-example",
        dest="example",
        action="store_false",
        help="leave the task's example out of the prompt: the example reply from the "
        "harness's task file and the example picture sent after the text",
    )
    g.add_argument(
        "--randomize",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="randomize the table texture, floor tint and light from each episode's seed "
        "(default off; on with --protocol paper)",
    )


def _image_size(width: int | None) -> tuple[int, int]:
    width = width or BIMANUAL_IMAGE_WIDTH
    return width, max(1, round(width * 3 / 4))


def bimanual_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a --benchmark bimanual run's options, if anything."""
    from sim.bimanual.tasks import TASKS

    if args.agent not in ("openai", "reference"):
        return f"--agent {args.agent}: bimanual agents are openai and reference"
    if not args.task:
        return f"--task is required with --benchmark bimanual ({', '.join(sorted(TASKS))})"
    if args.task not in TASKS:
        return f"--task {args.task}: unknown bimanual task; tasks: {', '.join(sorted(TASKS))}"
    if args.episodes is not None and args.episodes < 1:
        return f"--episodes {args.episodes}: need at least one episode"
    if args.max_steps is not None and args.max_steps < 1:
        return f"--max-steps {args.max_steps}: need at least one step"
    if args.truncate is not None and args.truncate < 0:
        return f"--truncate {args.truncate}: give K >= 1 actions a step, or 0 for whole plans"
    return None


def bimanual_episodes(args: argparse.Namespace) -> int:
    """--episodes, else the protocol's count (the paper's 100 per task, or 1)."""
    from sim.bimanual.protocol import paper_episodes

    if args.episodes is not None:
        return args.episodes
    return paper_episodes() if args.protocol == "paper" else 1


def run_bimanual_args(args: argparse.Namespace, path, models, retry, progress):
    """Run the episodes the checked options ask for (`models`: the endpoints' configs,
    None for the reference plan); the `RunSummary`."""
    from app.jobs.bimanual import run_bimanual

    return run_bimanual(
        path,
        args.agent,
        args.task,
        episodes=bimanual_episodes(args),
        seed=args.seed,
        tier=args.tier,
        max_steps=args.max_steps,
        truncate=args.truncate,
        cameras=tuple(args.camera) if args.camera else None,
        image_size=_image_size(args.image_size),
        example=args.example,
        randomize=args.protocol == "paper" if args.randomize is None else args.randomize,
        config=args.config,
        models=models,
        retry=retry,
        progress=progress,
        workers=args.workers,
        ray_address=args.ray_address,
        concurrency=args.concurrency,
        resume=args.resume,
    )


# -- --benchmark jrdb -----------------------------------------------------------------------
def add_jrdb_run_arguments(p: argparse.ArgumentParser) -> None:
    """run-agent's own option for --benchmark jrdb (--questions, --task, --limit, --resume
    and the endpoint options are shared)."""
    g = p.add_argument_group("JRDB-Reasoning (--benchmark jrdb)")
    g.add_argument(
        "--image-scale",
        type=float,
        default=None,
        metavar="F",
        help="send every panorama scaled by F (default: as JRDB-Reasoning's scripts, 0.5 for "
        "VG and the image as it is for VQA); a run with F is stored under the model's name "
        "followed by (image scale F)",
    )


def jrdb_problem(args: argparse.Namespace) -> str | None:
    """What is wrong with a --benchmark jrdb run's options, if anything."""
    from app.jobs.reasoning_run import JRDB_TASKS

    if args.agent != "openai":
        return f"--agent {args.agent}: JRDB-Reasoning questions are asked of a model (openai)"
    if args.task is not None and args.task not in JRDB_TASKS:
        return f"--task {args.task}: jrdb tasks are {', '.join(JRDB_TASKS)}"
    if args.limit is not None and args.limit < 1:
        return f"--limit {args.limit}: need at least one question"
    if args.image_scale is not None and not 0.05 <= args.image_scale <= 1:
        return f"--image-scale {args.image_scale:g}: must lie within 0.05-1"
    if args.image_size is not None:
        return "--image-size is for mgvqa and bimanual; jrdb panoramas take --image-scale"
    if args.workers != 1 or args.ray_address:
        return "jrdb runs only wait on the endpoint: give --concurrency K, not --workers or Ray"
    return None


def run_jrdb_args(args: argparse.Namespace, path, models, retry) -> int:
    """Run the checked --benchmark jrdb options and print the report."""
    from app.jobs.endpoints import report_lines
    from app.jobs.reasoning_run import run_jrdb
    from store import ProjectError

    try:
        with TerminalProgress() as progress:
            summary = run_jrdb(
                path,
                models=models,
                questions=args.questions,
                task=args.task,
                limit=args.limit,
                image_scale=args.image_scale,
                retry=retry,
                concurrency=args.concurrency,
                resume=args.resume,
                progress=progress,
            )
    except ProjectError as exc:
        return fail(str(exc))
    report = summary.as_dict()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        skipped = f", {summary.skipped} already stored" if summary.skipped else ""
        print(
            f"{summary.episodes} predictions stored, {summary.correct} correct, "
            f"{summary.unreadable} unreadable replies (JRDB-Reasoning){skipped}; "
            f"{summary.backend}"
        )
        for task, (correct, n) in sorted(summary.by_task.items()):
            print(f"  {task:<9} {correct}/{n}")
        for line in report_lines(report):
            print(line.replace(" episodes, ", " predictions, ").replace(" succeeded,", " correct,"))
        for error in summary.errors:
            print(f"  error: {error}")
    for item in summary.failed:
        sys.stderr.write(f"reasonscope: failed: {item}\n")
    if summary.failed:
        sys.stderr.write(
            f"reasonscope: {len(summary.failed)} failed; the rest is stored "
            "(run again with --resume to ask them again)\n"
        )
    return 1 if summary.failed else 0
