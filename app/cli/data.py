"""Subcommands that work on a project's data: scenes, questions, metrics, export, import.

Split from `app/cli/__init__.py`, which keeps the parser, the shared conventions and
the project-level commands.
"""

from __future__ import annotations

import argparse
import json

from app.cli.support import TerminalProgress, default_db, fail
from store import open_project


def cmd_scenes_generate(args: argparse.Namespace) -> int:
    from app.jobs.scenes import generate_and_store, parse_object_range

    if args.n < 1:
        return fail(f"--n {args.n}: need at least one scene")
    try:
        objects = parse_object_range(args.objects)
    except ValueError as exc:
        return fail(str(exc))
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    with TerminalProgress() as progress:
        ids = generate_and_store(path, n=args.n, seed=args.seed, objects=objects, progress=progress)
    if args.json:
        print(json.dumps({"path": str(path), "scene_ids": ids}))
    else:
        print(f"Stored {len(ids)} scenes in {path} (ids {ids[0]}..{ids[-1]})")
    return 0


def cmd_scenes_export(args: argparse.Namespace) -> int:
    from app.jobs.scenes import export_scenes

    count = export_scenes(default_db(args), args.out)
    print(f"Wrote {count} scenes to {args.out}")
    return 0


def cmd_questions_generate(args: argparse.Namespace) -> int:
    from app.jobs.questions import BUILT_TASKS, generate_questions

    if args.benchmark == "jrdb":
        from app.cli.questions import cmd_generate_jrdb

        return cmd_generate_jrdb(args)
    if args.task in ("vg", "vqa-wh", "vqa-count"):
        return fail(
            f"--task {args.task} is a jrdb task; mgvqa tasks: count, find, beneath, compare"
        )
    tasks = list(BUILT_TASKS) if args.task == "all" else [args.task]
    if args.n < 1:
        return fail(f"--n {args.n}: need at least one question")
    if not 0.0 <= args.max_visibility <= 1.0:
        return fail(f"--max-visibility {args.max_visibility}: must lie within 0-1")
    path = default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    with TerminalProgress() as progress:
        summary = generate_questions(
            path,
            tasks=tasks,
            n=args.n,
            seed=args.seed,
            threshold=args.max_visibility,
            progress=progress,
        )
    if args.json:
        print(json.dumps(summary.as_dict(), indent=2))
        return 0
    for task, count in summary.accepted.items():
        print(f"{task:<8} {count} accepted")
    print(f"{summary.attempts} candidates tried; rejected:")
    for reason, count in summary.rejected.most_common() or [("none", 0)]:
        print(f"  {count:>4}  {reason}")
    print(f"time: settling {summary.scene_s:.1f} s, visibility checks {summary.visibility_s:.1f} s")
    return 0


def cmd_metrics(args: argparse.Namespace) -> int:
    from app.jobs.metrics import project_metrics

    metrics = project_metrics(default_db(args))
    if args.json:
        print(json.dumps(metrics, indent=2))
        return 0
    v = metrics["verification"]
    print(f"verification: {v['n']} questions verified by two annotators")
    rows = [("decision", v["decision"])] + list(v["criteria"].items())
    for name, m in rows:
        kappa = "n/a" if m["kappa"] is None else f"{m['kappa']:.2f}"
        print(
            f"  {name:<22} kappa {kappa:>5}  agreement {m['percent_agreement'] or 0:5.1f} %  "
            f"disagreements {m['disagreements']}"
        )
    print(
        f"  status: {', '.join(f'{k} {n}' for k, n in v['status_counts'].items())}; "
        f"awaiting adjudication {v['adjudication_pending']}"
    )
    _print_episode_table(metrics["episodes"])
    _print_hoi(metrics["hoi"])
    _print_reasoning(metrics["reasoning"])
    from app.jobs.metrics import bimanual_lines

    print("\n".join(bimanual_lines(metrics["bimanual"])))
    return 0


def _print_reasoning(r: dict) -> None:
    """JRDB-Reasoning: accuracy by difficulty level per model and task, human rows, Spearman."""
    rows = r["accuracy"] + r["human"]
    print(
        f"reasoning: {len(r['models'])} model(s), {r['counts']['human_answers']} human answers, "
        f"{r['counts']['ratings']} difficulty ratings"
    )
    width = max([16] + [len(row["model"]) for row in rows])
    if rows:
        print(f"  {'model':<{width}} {'task':<10} " + " ".join(f"{lv:>12}" for lv in r["levels"]))
    for row in rows:
        cells = []
        for level in r["levels"]:
            cell = row["levels"][level]
            pct = cell["accuracy_pct"]
            cells.append(f"{'-' if pct is None else f'{pct:.1f} %'} ({cell['n']})".rjust(12))
        print(f"  {row['model']:<{width}} {row['task']:<10} " + " ".join(cells))
    for s in r["spearman"]:
        rho = "n/a" if s["rho"] is None else f"{s['rho']:.2f}"
        print(
            f"  difficulty ratings vs D, {s['benchmark']} {s['task']}: rho {rho} "
            f"over {s['n']} questions ({s['words']})"
        )


def _print_hoi(h: dict) -> None:
    """HOI labels: status, agreement on difficulty and verdicts, progress per sequence."""
    print(
        f"hoi labels: {h['labels']} ({', '.join(f'{k} {n}' for k, n in h['status_counts'].items())})"
    )
    if not h["labels"]:
        return

    def kappa(value: float | None) -> str:
        return "n/a" if value is None else f"{value:.2f}"

    for name, m in h["difficulty"].items():
        if isinstance(m, dict):
            print(
                f"  difficulty {name.replace('_', ' '):<22} pairs {m['n']:>4}  "
                f"kappa quadratic {kappa(m['kappa_quadratic'])} linear {kappa(m['kappa_linear'])}"
            )
    v = h["verdicts"]
    rate = "n/a" if v["accept_rate_pct"] is None else f"{v['accept_rate_pct']:.1f} %"
    print(
        f"  verdicts: {v['reviews']} reviews, accept rate {rate}; reviewer pairs {v['n']}, "
        f"kappa {kappa(v['kappa'])}"
    )
    print(f"  quality checks: {h['qc']['checked']} of {h['qc']['sampled']} sampled labels")
    for s in h["sequences"]:
        print(
            f"  {s['name']}: {s['labelled_person_frames']}/{s['person_frames']} person-frames "
            f"labelled, {s['reviewed_twice']}/{s['labels']} labels reviewed twice"
        )


def _print_episode_table(e: dict) -> None:
    """Success (%) per task and mode, macro average and manipulation calls per question."""
    print(f"episodes: {e['n']}")
    if not e["rows"]:
        return

    def cell(value: float | None, width: int) -> str:
        return f"{'-' if value is None else f'{value:.1f}':>{width}}"

    tasks = e["tasks"]
    print(
        f"  {'model / agent':<28} {'mode':<12} {'n':>4} "
        + " ".join(f"{t[:8]:>8}" for t in tasks)
        + f" {'avg':>6} {'manip/q':>7}"
    )
    for r in e["rows"]:
        who = f"{r['model']} / {r['agent']}" + (" (baseline)" if r["baseline"] else "")
        print(
            f"  {who[:28]:<28} {r['mode'][:12]:<12} {r['n']:>4} "
            + " ".join(cell(r["success"][t]["success_pct"], 8) for t in tasks)
            + f" {cell(r['average_pct'], 6)} {cell(r['manipulation']['mean_calls'], 7)}"
        )


def cmd_export_benchmark(args: argparse.Namespace) -> int:
    from app.io.benchmark import export_benchmark

    if args.format == "jrdb-reasoning-vg":
        from app.io.jrdb_reasoning import export_jrdb_reasoning_vg

        count, skipped = export_jrdb_reasoning_vg(default_db(args), args.out, status=args.status)
        print(f"Wrote {count} VG questions to {args.out} ({skipped} other questions left out)")
        return 0
    count = export_benchmark(default_db(args), args.out, status=args.status)
    print(f"Wrote {count} questions to {args.out}")
    return 0


def cmd_import_benchmark(args: argparse.Namespace) -> int:
    from app.io.benchmark import import_benchmark

    count = import_benchmark(default_db(args), args.file)
    print(f"Imported {count} questions from {args.file}")
    return 0


def cmd_export_episodes(args: argparse.Namespace) -> int:
    from app.io.episodes import export_episodes

    count = export_episodes(default_db(args), args.out)
    print(f"Wrote {count} episodes to {args.out}")
    return 0


def cmd_import_episodes(args: argparse.Namespace) -> int:
    from app.io.episodes import import_episodes

    count, format_errors = import_episodes(
        default_db(args), args.file, args.format, model=args.model, pose_order=args.pose_order
    )
    print(
        f"Imported {count} episodes from {args.file} ({format_errors} format-error steps recorded)"
    )
    return 0
