"""`reasonscope replay-in-sim`: a recorded bimanual episode's plans executed in our dual-arm
world, our feedback next to the recorded one."""

from __future__ import annotations

import argparse
import json

from app.cli.support import (
    CommandTree,
    TerminalProgress,
    batch_args,
    batch_problem,
    db_arg,
    default_db,
    fail,
    report_failures,
)
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `replay-in-sim`."""
    p = commands.add_parser(
        "replay-in-sim",
        help="execute a recorded bimanual episode's plans in the dual-arm world",
        description="Set the episode's task up from its seeded start (--seed, else the seed "
        "it was recorded with, else the log's episode number, else 0) and execute every "
        "step's plan in our dual-arm world: named actions through the primitives, 16-number "
        "rows as end-effector moves. Reports our feedback and ok next to the recorded ones, "
        "and whether the task succeeded; the replay is stored as a new episode (agent "
        "replay-in-sim) unless --no-save. See docs/bimanual-agents.md.",
    )
    p.add_argument(
        "episode_id",
        type=int,
        nargs="?",
        metavar="EPISODE_ID",
        help="the episode to replay (or --all)",
    )
    p.add_argument(
        "--all",
        action="store_true",
        help="replay every recorded bimanual episode (not replays), or those of "
        "--task / --model; each replay is stored as it comes back",
    )
    p.add_argument("--task", metavar="NAME", help="with --all: only this task's episodes")
    p.add_argument("--model", metavar="NAME", help="with --all: only this model's episodes")
    batch_args(p, resume="with --all: skip episodes that already have a replay in sim")
    p.add_argument("--seed", type=int, default=None, help="the task's set-up seed")
    p.add_argument("--no-save", action="store_true", help="report only; store nothing")
    p.add_argument(
        "--try-suggestions",
        action="store_true",
        help="also run our repaired reading of replies the harness could not read (kept "
        "beside those format-error steps as a suggestion; by default only what ran is replayed)",
    )
    p.add_argument("--json", action="store_true", help="report as JSON")
    db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_replay_in_sim)


def cmd_replay_in_sim(args: argparse.Namespace) -> int:
    from app.jobs.bimanual import replay_in_sim

    if args.all == (args.episode_id is not None):
        return fail("give one EPISODE_ID or --all")
    if args.all:
        return _replay_all(args)
    if args.workers != 1 or args.ray_address or args.resume or args.task or args.model:
        return fail("--workers, --ray-address, --resume, --task and --model go with --all")

    with open_project(default_db(args)) as project, TerminalProgress() as progress:
        report = replay_in_sim(
            project,
            args.episode_id,
            seed=args.seed,
            save=not args.no_save,
            progress=progress,
            try_suggestions=args.try_suggestions,
        )
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
        return 0
    outcome = "success" if report.success else "failure"
    print(
        f"episode {args.episode_id} ({report.task}, seed {report.seed}, {report.tier}) "
        f"replayed in sim: {outcome}"
    )
    for s in report.steps:
        same = "same" if s.recorded_ok == s.our_ok else "DIFFERS"
        print(
            f"  step {s.index} [{s.kind}] {same}\n    recorded: {s.recorded_feedback or '-'}"
            f"\n    ours:     {s.our_feedback}"
        )
    if report.actor_aliases:
        print(
            "  actors read as " + ", ".join(f"{a} -> {b}" for a, b in report.actor_aliases.items())
        )
    if report.episode_id is not None:
        print(f"stored as episode {report.episode_id}")
    return 0


def _replay_all(args: argparse.Namespace) -> int:
    from app.jobs.batch import BatchSetupError
    from app.jobs.bimanual import replay_many, replayed_sources

    problem = batch_problem(args)
    if problem:
        return fail(problem)
    if args.no_save:
        return fail("--no-save goes with one EPISODE_ID; --all stores every replay")
    with open_project(default_db(args)) as project, TerminalProgress() as progress:
        chosen = [
            e.id
            for e in project.episodes.list(task=args.task, model=args.model, limit=10**9)
            if e.benchmark == "bimanual" and e.agent != "replay-in-sim"
        ]
        if args.resume:
            done = replayed_sources(project)
            chosen = [i for i in chosen if i not in done]
        try:
            reports, batch = replay_many(
                project,
                chosen,
                workers=args.workers,
                ray_address=args.ray_address,
                try_suggestions=args.try_suggestions,
                progress=progress,
            )
        except BatchSetupError as exc:
            return fail(str(exc))
    wins = sum(r.success for r in reports)
    if args.json:
        print(
            json.dumps(
                {
                    "replayed": [r.as_dict() for r in reports],
                    "failed": [{"item": i, "error": e} for i, e in batch.failed],
                }
            )
        )
    else:
        print(f"{len(reports)} episodes replayed in sim, {wins} succeeded ({batch.backend})")
    return report_failures(batch)
