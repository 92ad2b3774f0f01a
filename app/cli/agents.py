"""`reasonscope run-agent`: agents answer the project's questions; every step is recorded."""

from __future__ import annotations

import argparse
import json

from app.cli.bimanual import add_bimanual_run_arguments, cmd_run_bimanual
from app.cli.support import CommandTree, TerminalProgress, db_arg, default_db, fail, gripper_arg
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `run-agent` (its bimanual half is in `app/cli/bimanual.py`)."""
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
        "episodes of an ST-BiBench task in the dual-arm world (docs/bimanual-agents.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--agent",
        choices=["chance", "search", "openai", "reference"],
        required=True,
        help="mgvqa: chance, search or openai; bimanual: openai or reference",
    )
    p.add_argument(
        "--benchmark",
        choices=["mgvqa", "bimanual"],
        default="mgvqa",
        help="MG-VQA questions (default) or ST-BiBench dual-arm tasks",
    )
    p.add_argument(
        "--mode", choices=sorted(MODES), help="mgvqa (required): which tools it may call"
    )
    p.add_argument(
        "--questions",
        choices=["approved", "any"],
        default="approved",
        help="verified questions only (default) or every current one",
    )
    p.add_argument("--limit", type=int, metavar="N", help="at most N questions")
    p.add_argument(
        "--prompt-variant",
        choices=list(PROMPT_VARIANTS),
        default="plain",
        help="prompt ablation for model runs (recorded with each episode)",
    )
    p.add_argument("--config", metavar="FILE", help="JSON file with base_url, model, api_key")
    p.add_argument(
        "--seed",
        type=int,
        default=0,
        help="seed for the agents' random choices; "
        "bimanual: the first episode's set-up seed (then seed + 1, ...)",
    )
    p.add_argument(
        "--image-size",
        type=int,
        default=None,
        metavar="PX",
        help="observation width (mgvqa 1024 square; bimanual 640, 4:3)",
    )
    gripper_arg(p, recorded=True)
    add_bimanual_run_arguments(p)
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_run_agent)


def cmd_run_agent(args: argparse.Namespace) -> int:
    from app.jobs.agents import make_agent, run_agent

    if args.image_size is not None and not 64 <= args.image_size <= 2048:
        return fail(f"--image-size {args.image_size}: must lie within 64-2048")
    if args.benchmark == "bimanual":
        return cmd_run_bimanual(args)
    if args.workers != 1 or args.ray_address or args.resume:
        return fail("--workers, --ray-address and --resume are for --benchmark bimanual; "
                    "MG-VQA runs play in this process (docs/scale-out.md)")  # fmt: skip
    if args.mode is None:
        return fail("--mode is required for MG-VQA runs (direct, perception or manipulation)")
    if args.agent == "reference":
        return fail("--agent reference: the reference plans are for --benchmark bimanual")
    if args.image_size is None:
        args.image_size = 1024
    if args.limit is not None and args.limit < 1:
        return fail(f"--limit {args.limit}: need at least one question")
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    make_agent(args.agent, prompt_variant=args.prompt_variant, config=args.config)  # config check
    with TerminalProgress() as progress:
        summary = run_agent(
            path,
            args.agent,
            args.mode,
            questions=args.questions,
            limit=args.limit,
            prompt_variant=args.prompt_variant,
            seed=args.seed,
            config=args.config,
            image_size=args.image_size,
            gripper=args.gripper,
            progress=progress,
        )
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
        return 0
    print(f"{summary.episodes} episodes recorded, {summary.correct} correct")
    for task, (correct, n) in sorted(summary.by_task.items()):
        print(f"  {task:<8} {correct}/{n}")
    for error in summary.errors:
        print(f"  error: {error}")
    return 0
