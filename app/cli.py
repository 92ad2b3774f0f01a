"""The `reasonscope` command: the GUI with no arguments, headless work as subcommands.

Every subcommand has --help, reports with --json where it reports, and exits
2 with one line naming the file and the problem on bad input.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from annotation.progress import Cancelled, Progress
from store import ProjectError, open_project

EXIT_BAD_INPUT = 2


class OneLineParser(argparse.ArgumentParser):
    """argparse, but a usage error is a single line on stderr and exit code 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        sys.stderr.write(f"{self.prog}: error: {message} (see --help)\n")
        raise SystemExit(EXIT_BAD_INPUT)


def _fail(message: str) -> int:
    sys.stderr.write(f"reasonscope: error: {message}\n")
    return EXIT_BAD_INPUT


class TerminalProgress(Progress):
    """Progress on stderr: updated in place on a terminal, one line per message otherwise."""

    def __init__(self) -> None:
        super().__init__(self._show)
        self._last = ""
        self._tty = sys.stderr.isatty()

    def _show(self, done: int, total: int, message: str) -> None:
        pct = int(100 * done / total) if total else 100
        line = f"{pct:3d}% {message}"
        if self._tty:
            sys.stderr.write("\r" + line.ljust(78)[:78])
            sys.stderr.flush()
        elif message != self._last:
            sys.stderr.write(line + "\n")
        self._last = message

    def close(self) -> None:
        if self._tty and self._last:
            sys.stderr.write("\n")


def _db_arg(parser: argparse.ArgumentParser, *, help_text: str) -> None:
    parser.add_argument("--db", metavar="PATH", type=Path, default=None, help=help_text)


def _default_db(args: argparse.Namespace) -> Path:
    from app.paths import demo_project_path

    return args.db if args.db is not None else demo_project_path()


# -- subcommands ---------------------------------------------------------------
def cmd_demo(args: argparse.Namespace) -> int:
    from app.demo import build_demo

    path = _default_db(args)
    progress = TerminalProgress()
    try:
        added = build_demo(path, progress)
    finally:
        progress.close()
    if args.json:
        print(json.dumps({"path": str(path), "added_parts": added}))
    elif added:
        print(f"Demo project {path}: added {', '.join(added)}")
    else:
        print(f"Demo project {path} is already complete")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    path = _default_db(args)
    readonly = path.exists() and not os.access(path, os.W_OK)
    with open_project(path, readonly=readonly) as project:
        summary = project.summary.summary().as_dict()
    if args.json:
        print(json.dumps(summary, indent=2))
        return 0
    width = max(len(k) for k in summary)
    for key, value in summary.items():
        if isinstance(value, dict):
            value = ", ".join(f"{k} {v}" for k, v in value.items())
        print(f"{key.replace('_', ' '):<{width}}  {value}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    from app.bench import known_cases, run_cases

    names = args.case or None
    known = known_cases()
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        return _fail(f"unknown bench case {unknown[0]!r}; known: {', '.join(sorted(known))}")

    def note(message: str) -> None:
        if not args.json:
            sys.stderr.write(message + "\n")

    results = run_cases(names, quick=args.quick, progress=note)
    if args.json:
        print(json.dumps([r.as_dict() for r in results], indent=2))
    else:
        for r in results:
            mark = "ok " if r.passed else "MISS"
            print(f"{mark} {r.name:<28} {r.value:>10.3g} {r.unit:<8} goal {r.goal:<24} {r.detail}")
    return 0


def cmd_scenes_generate(args: argparse.Namespace) -> int:
    from app.scene_jobs import generate_and_store, parse_object_range

    if args.n < 1:
        return _fail(f"--n {args.n}: need at least one scene")
    try:
        objects = parse_object_range(args.objects)
    except ValueError as exc:
        return _fail(str(exc))
    path = _default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    progress = TerminalProgress()
    try:
        ids = generate_and_store(path, n=args.n, seed=args.seed, objects=objects, progress=progress)
    finally:
        progress.close()
    if args.json:
        print(json.dumps({"path": str(path), "scene_ids": ids}))
    else:
        print(f"Stored {len(ids)} scenes in {path} (ids {ids[0]}..{ids[-1]})")
    return 0


def cmd_scenes_export(args: argparse.Namespace) -> int:
    from app.scene_jobs import export_scenes

    count = export_scenes(_default_db(args), args.out)
    print(f"Wrote {count} scenes to {args.out}")
    return 0


def cmd_questions_generate(args: argparse.Namespace) -> int:
    from app.question_jobs import BUILT_TASKS, generate_questions

    if args.benchmark != "mgvqa":
        return _fail(f"--benchmark {args.benchmark}: only mgvqa questions can be generated so far")
    tasks = list(BUILT_TASKS) if args.task == "all" else [args.task]
    if args.n < 1:
        return _fail(f"--n {args.n}: need at least one question")
    if not 0.0 <= args.max_visibility <= 1.0:
        return _fail(f"--max-visibility {args.max_visibility}: must lie within 0-1")
    path = _default_db(args)
    open_project(path).close()  # refuse a bad project before any simulation
    progress = TerminalProgress()
    try:
        summary = generate_questions(
            path,
            tasks=tasks,
            n=args.n,
            seed=args.seed,
            threshold=args.max_visibility,
            progress=progress,
        )
    finally:
        progress.close()
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
    from app.metrics_jobs import verification_metrics

    metrics = verification_metrics(_default_db(args))
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
    return 0


def cmd_export_benchmark(args: argparse.Namespace) -> int:
    from app.benchmark_io import export_benchmark

    count = export_benchmark(_default_db(args), args.out, status=args.status)
    print(f"Wrote {count} questions to {args.out}")
    return 0


def cmd_import_benchmark(args: argparse.Namespace) -> int:
    from app.benchmark_io import import_benchmark

    count = import_benchmark(_default_db(args), args.file)
    print(f"Imported {count} questions from {args.file}")
    return 0


# -- parser ------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="reasonscope",
        description=(
            "Build, check and study visual-reasoning benchmarks for robots. "
            "With no subcommand, open the desktop app."
        ),
    )
    _db_arg(parser, help_text="project file to open in the GUI (default: the demo project)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    p = sub.add_parser(
        "demo",
        help="build the demo project headless",
        description="Build (or complete) the demo project without a screen.",
    )
    _db_arg(p, help_text="where to build it (default: the demo project in the user data folder)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "info",
        help="show what a project holds",
        description="Count what a project holds: annotators, scenes, "
        "sequences, labels, questions by status, episodes, steps.",
    )
    _db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_info)

    scenes = sub.add_parser(
        "scenes",
        help="generate and export tabletop scenes",
        description="Cluttered tabletop scenes in the PyBullet world: generate, export.",
    )
    scenes_sub = scenes.add_subparsers(
        dest="scenes_command", metavar="SUBCOMMAND", parser_class=OneLineParser, required=True
    )
    p = scenes_sub.add_parser(
        "generate",
        help="generate seeded scenes and store them",
        description="Sample objects into the 50 x 50 cm workspace, drop them, settle, discard "
        "scenes where an object left the table or the top-down view, and store each scene's "
        "full state.",
    )
    _db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--n", type=int, required=True, help="how many scenes")
    p.add_argument(
        "--seed", type=int, required=True, help="seed of the first scene; the rest follow"
    )
    p.add_argument(
        "--objects",
        default="8-15",
        metavar="LOW-HIGH",
        help="objects per scene, a count or a range within 1-15 (default 8-15)",
    )
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_scenes_generate)
    p = scenes_sub.add_parser(
        "export",
        help="write scenes as JSON Lines",
        description="Write every scene of the project, one JSON object a line, in the "
        "self-contained scene form of reasonscope-benchmark/1 (camera and every body, fixtures "
        "and robot included).",
    )
    _db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_scenes_export)

    questions = sub.add_parser(
        "questions",
        help="generate benchmark questions",
        description="Generate benchmark questions about the project's worlds.",
    )
    questions_sub = questions.add_subparsers(
        dest="questions_command", metavar="SUBCOMMAND", parser_class=OneLineParser, required=True
    )
    p = questions_sub.add_parser(
        "generate",
        help="generate occlusion-grounded tabletop questions",
        description="Generate MG-VQA questions whose answer-critical objects are hidden in the "
        "model's first view (visibility at most --max-visibility), each with its own scene. "
        "--n questions per task; a summary says how many candidates each criterion rejected.",
    )
    _db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--benchmark", default="mgvqa", help="benchmark (mgvqa)")
    p.add_argument(
        "--task",
        choices=["count", "find", "beneath", "compare", "all"],
        required=True,
        help="task, or all of the built ones",
    )
    p.add_argument("--n", type=int, required=True, help="questions per task")
    p.add_argument("--seed", type=int, required=True, help="first generator seed")
    p.add_argument(
        "--max-visibility",
        type=float,
        default=0.10,
        metavar="FRACTION",
        help="largest visible fraction of an answer-critical object (default 0.10)",
    )
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_questions_generate)

    export = sub.add_parser(
        "export",
        help="write project data in interchange formats",
        description="Write project data in documented interchange formats.",
    )
    export_sub = export.add_subparsers(
        dest="export_command", metavar="WHAT", parser_class=OneLineParser, required=True
    )
    p = export_sub.add_parser(
        "benchmark",
        help="questions with their scenes as reasonscope-benchmark/1 JSON Lines",
        description="Write the current version of each question, one JSON object a line, with "
        "its self-contained scene (docs/benchmark-format.md).",
    )
    _db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.add_argument(
        "--status",
        choices=["approved", "any"],
        default="approved",
        help="approved (and corrected) questions only, or any (default approved)",
    )
    p.set_defaults(func=cmd_export_benchmark)

    imp = sub.add_parser(
        "import",
        help="read interchange files into a project",
        description="Read interchange files into a project, in one transaction.",
    )
    import_sub = imp.add_subparsers(
        dest="import_command", metavar="WHAT", parser_class=OneLineParser, required=True
    )
    p = import_sub.add_parser(
        "benchmark",
        help="read a reasonscope-benchmark/1 file",
        description="Read questions and their scenes from a reasonscope-benchmark/1 file. Every "
        "line is checked first; a bad line names itself and nothing is imported.",
    )
    p.add_argument("file", type=Path, metavar="FILE.jsonl")
    _db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_import_benchmark)

    p = sub.add_parser(
        "metrics",
        help="agreement and results",
        description="Agreement between verifiers: Cohen's kappa per criterion and on the "
        "decision, percent agreement, disagreement counts, status counts, adjudication backlog.",
    )
    _db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print a JSON object (key verification)")
    p.set_defaults(func=cmd_metrics)

    p = sub.add_parser(
        "bench",
        help="run the performance cases",
        description="Run the benchmark cases; each reports a value (a ratio "
        "against a baseline measured in the same process), its goal and "
        "whether it met it.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.add_argument("--quick", action="store_true", help="smaller inputs (a few minutes at most)")
    p.add_argument(
        "--case", action="append", metavar="NAME", help="run only this case (repeatable)"
    )
    p.set_defaults(func=cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        from app.gui import run_gui

        return run_gui(args.db)
    try:
        return args.func(args)
    except ProjectError as exc:
        return _fail(str(exc))
    except Cancelled:
        sys.stderr.write("reasonscope: cancelled\n")
        return 130
    except KeyboardInterrupt:
        sys.stderr.write("\nreasonscope: interrupted\n")
        return 130
    except BrokenPipeError:  # e.g. `reasonscope info | head`: the reader has gone
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
