"""`reasonscope metrics`: agreement between verifiers, episode results, HOI labels,
JRDB-Reasoning accuracy and bimanual results, as tables or one JSON object."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from annotation.agreement import kappa_text
from app.cli.support import CommandTree, db_arg, default_db, fail
from app.jobs.tables import TABLES


def add_parser(commands: CommandTree) -> None:
    """Register `metrics`."""
    p = commands.add_parser(
        "metrics",
        help="agreement and results",
        description="Agreement between verifiers (Cohen's kappa per criterion and on the "
        "decision, percent agreement, status counts, adjudication backlog) and episode results "
        "(success per task and mode with the chance baseline, manipulation calls, Find present "
        "vs absent, Count under- vs over-counting, recovery after a failed grasp) and HOI "
        "labels (review status, weighted kappa on difficulty, kappa on verdicts, progress).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--json",
        action="store_true",
        help="print a JSON object (keys verification, episodes, hoi, reasoning, bimanual)",
    )
    p.add_argument(
        "--table",
        choices=TABLES,
        help="write one results table (with how it was computed) instead of the report",
    )
    p.add_argument(
        "--format",
        choices=("csv", "latex"),
        default="csv",
        help="the --table's format: CSV (notes as trailing '# ' lines) or a LaTeX table",
    )
    p.add_argument("--out", type=Path, help="write the --table to this file (default: stdout)")
    p.add_argument(
        "--tag",
        metavar="TAG",
        help="episode results only on questions with this "
        "tag (e.g. hard: a Hard table, docs/scene-authoring.md)",
    )
    p.set_defaults(func=cmd_metrics)


def cmd_metrics(args: argparse.Namespace) -> int:
    from app.jobs.metrics import project_metrics

    metrics = project_metrics(default_db(args), tag=args.tag)
    if args.table:
        return _write_table(metrics, args)
    if args.json:
        print(json.dumps(metrics, indent=2))
        return 0
    v = metrics["verification"]
    print(f"verification: {v['n']} questions verified by two annotators")
    rows = [("decision", v["decision"])] + list(v["criteria"].items())
    for name, m in rows:
        kappa = kappa_text(m["kappa"], m.get("kappa_reason"))
        print(
            f"  {name:<22} kappa {kappa:>5}  agreement {m['percent_agreement'] or 0:5.1f} %  "
            f"disagreements {m['disagreements']}  pairs {m.get('n', v['n'])}"
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


def _write_table(metrics: dict, args: argparse.Namespace) -> int:
    from app.jobs.tables import metric_table, to_csv, to_latex

    table = metric_table(metrics, args.table)
    text = to_latex(table) if args.format == "latex" else to_csv(table)
    if args.out is None:
        sys.stdout.write(text)
        return 0
    try:
        args.out.write_text(text, encoding="utf-8")
    except OSError as exc:
        return fail(f"{args.out}: cannot write the table ({exc.strerror or exc})")
    print(f"Wrote the {args.table} table ({len(table.rows)} rows, {args.format}) to {args.out}")
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
        print(
            f"  {'model':<{width}} {'task':<10} {'modality':<8} "
            + " ".join(f"{lv:>12}" for lv in r["levels"])
        )
    for row in rows:
        cells = []
        for level in r["levels"]:
            cell = row["levels"][level]
            pct = cell["accuracy_pct"]
            cells.append(f"{'-' if pct is None else f'{pct:.1f} %'} ({cell['n']})".rjust(12))
        print(
            f"  {row['model']:<{width}} {row['task']:<10} {row['modality']:<8} " + " ".join(cells)
        )
    for s in r["spearman"]:
        rho = "n/a" if s["rho"] is None else f"{s['rho']:.2f}"
        print(
            f"  difficulty ratings vs D, {s['benchmark']} {s['task']}: rho {rho} "
            f"over {s['n']} questions ({s['words']})"
        )
    from app.jobs.metrics import model_lines

    for line in model_lines(r.get("per_model") or []):
        print(line.replace("episodes", "questions"))


def _print_hoi(h: dict) -> None:
    """HOI labels: status, agreement on difficulty and verdicts, progress per sequence."""
    print(
        f"hoi labels: {h['labels']} ({', '.join(f'{k} {n}' for k, n in h['status_counts'].items())})"
    )
    if not h["labels"]:
        return

    for name, m in h["difficulty"].items():
        if isinstance(m, dict):
            why = m.get("kappa_reason")
            print(
                f"  difficulty {name.replace('_', ' '):<22} pairs {m['n']:>4}  "
                f"kappa quadratic {kappa_text(m['kappa_quadratic'], why)} "
                f"linear {kappa_text(m['kappa_linear'], why)}"
            )
    v = h["verdicts"]
    rate = "n/a" if v["accept_rate_pct"] is None else f"{v['accept_rate_pct']:.1f} %"
    print(
        f"  verdicts: {v['reviews']} reviews, accept rate {rate}; reviewer pairs {v['n']}, "
        f"kappa {kappa_text(v['kappa'], v.get('kappa_reason'))}"
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
        + f" {'avg':>6} {'manip/q':>7}  run"
    )
    for r in e["rows"]:
        who = f"{r['model']} / {r['agent']}" + (" (baseline)" if r["baseline"] else "")
        print(
            f"  {who[:28]:<28} {r['mode'][:12]:<12} {r['n']:>4} "
            + " ".join(cell(r["success"][t]["success_pct"], 8) for t in tasks)
            + f" {cell(r['average_pct'], 6)} {cell(r['manipulation']['mean_calls'], 7)}"
            + f"  {r.get('run_label', '')}"
        )
    from app.jobs.metrics import model_lines

    for line in model_lines(e.get("per_model") or []):
        print(line)
