"""`reasonscope run-agent --benchmark bimanual`: its options and its run, called by `agents.py`.

`replay-in-sim` is in `app/cli/resim.py`.
"""

from __future__ import annotations

import argparse
import json

from app.cli.support import TerminalProgress, batch_args, batch_problem, default_db, fail
from store import open_project

BIMANUAL_IMAGE_WIDTH = 640


def add_bimanual_run_arguments(p: argparse.ArgumentParser) -> None:
    """run-agent's options for --benchmark bimanual."""
    g = p.add_argument_group("bimanual (--benchmark bimanual)")
    batch_args(g, resume="bimanual: skip seeds this agent, model and tier already have an "
               "episode of")  # fmt: skip
    g.add_argument("--task", metavar="NAME", help="the ST-BiBench task, e.g. stack_blocks_two")
    g.add_argument("--episodes", type=int, default=1, metavar="N",
                   help="seeded episodes to run (default 1)")  # fmt: skip
    g.add_argument(
        "--tier",
        choices=["primitive", "row16"],
        default="primitive",
        help="named actions 2.2-2.9 (default) or 16-number end-effector rows",
    )
    g.add_argument("--max-steps", type=int, default=10, metavar="N",
                   help="model replies per episode at most (default 10)")  # fmt: skip
    g.add_argument(
        "--truncate",
        type=int,
        default=None,
        metavar="K",
        help="execute only the first K actions of each plan, then re-observe",
    )
    g.add_argument("--camera", action="append", choices=["head", "front", "third"],
                   help="cameras the model sees (repeatable; default head)")  # fmt: skip


def _image_size(width: int | None) -> tuple[int, int]:
    width = width or BIMANUAL_IMAGE_WIDTH
    return width, max(1, round(width * 3 / 4))


def cmd_run_bimanual(args: argparse.Namespace) -> int:
    from app.jobs.bimanual import make_bimanual_agent, run_bimanual
    from sim.bimanual.tasks import TASKS

    if args.agent not in ("openai", "reference"):
        return fail(f"--agent {args.agent}: bimanual agents are openai and reference")
    if not args.task:
        return fail(f"--task is required with --benchmark bimanual ({', '.join(sorted(TASKS))})")
    if args.task not in TASKS:
        return fail(f"--task {args.task}: unknown bimanual task; tasks: "
                    f"{', '.join(sorted(TASKS))}")  # fmt: skip
    if args.episodes < 1:
        return fail(f"--episodes {args.episodes}: need at least one episode")
    if args.max_steps < 1:
        return fail(f"--max-steps {args.max_steps}: need at least one step")
    if args.truncate is not None and args.truncate < 1:
        return fail(f"--truncate {args.truncate}: execute at least one action a step")
    problem = batch_problem(args)
    if problem:
        return fail(problem)
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    if args.agent == "openai":
        make_bimanual_agent(args.config)  # refuse a bad model config before any simulation
    with TerminalProgress() as progress:
        summary = run_bimanual(
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
            progress=progress,
            workers=args.workers,
            ray_address=args.ray_address,
            resume=args.resume,
        )
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
        return 0
    print(f"{summary.episodes} episodes recorded, {summary.correct} succeeded ({args.task}, "
          f"{args.tier})")  # fmt: skip
    for error in summary.errors:
        print(f"  error: {error}")
    return 0
