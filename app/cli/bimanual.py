"""`reasonscope run-agent --benchmark bimanual`: its options and its run, called by `agents.py`.

`replay-in-sim` is in `app/cli/resim.py`.
"""

from __future__ import annotations

import argparse

BIMANUAL_IMAGE_WIDTH = 640


def add_bimanual_run_arguments(p: argparse.ArgumentParser) -> None:
    """run-agent's options for --benchmark bimanual (--workers, --ray-address, --resume
    and the endpoint options are run-agent's own, shared with MG-VQA)."""
    g = p.add_argument_group("bimanual (--benchmark bimanual)")
    g.add_argument("--task", metavar="NAME", help="the ST-BiBench task, e.g. stack_blocks_two")
    g.add_argument(
        "--episodes", type=int, default=1, metavar="N", help="seeded episodes to run (default 1)"
    )
    g.add_argument(
        "--tier",
        choices=["primitive", "row16"],
        default="primitive",
        help="named actions 2.2-2.9 (default) or 16-number end-effector rows",
    )
    g.add_argument(
        "--max-steps",
        type=int,
        default=10,
        metavar="N",
        help="model replies per episode at most (default 10)",
    )
    g.add_argument(
        "--truncate",
        type=int,
        default=None,
        metavar="K",
        help="execute only the first K actions of each plan, then re-observe",
    )
    g.add_argument(
        "--camera",
        action="append",
        choices=["head", "front", "third"],
        help="cameras the model sees (repeatable; default head)",
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
    if args.episodes < 1:
        return f"--episodes {args.episodes}: need at least one episode"
    if args.max_steps < 1:
        return f"--max-steps {args.max_steps}: need at least one step"
    if args.truncate is not None and args.truncate < 1:
        return f"--truncate {args.truncate}: execute at least one action a step"
    return None


def run_bimanual_args(args: argparse.Namespace, path, models, retry, progress):
    """Run the episodes the checked options ask for (`models`: the endpoints' configs,
    None for the reference plan); the `RunSummary`."""
    from app.jobs.bimanual import run_bimanual

    return run_bimanual(
        path,
        args.agent,
        args.task,
        episodes=args.episodes,
        seed=args.seed,
        tier=args.tier,
        max_steps=args.max_steps,
        truncate=args.truncate,
        cameras=tuple(args.camera or ("head",)),
        image_size=_image_size(args.image_size),
        config=args.config,
        models=models,
        retry=retry,
        progress=progress,
        workers=args.workers,
        ray_address=args.ray_address,
        concurrency=args.concurrency,
        resume=args.resume,
    )
