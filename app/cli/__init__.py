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

from annotation.progress import Cancelled
from app.cli.data import (
    cmd_export_benchmark,
    cmd_export_episodes,
    cmd_import_benchmark,
    cmd_import_episodes,
    cmd_metrics,
    cmd_questions_generate,
    cmd_scenes_export,
    cmd_scenes_generate,
)
from app.cli.support import (
    OneLineParser,
    TerminalProgress,
    db_arg,
    default_db,
    fail,
)
from store import ProjectError, open_for_reading


# -- subcommands ---------------------------------------------------------------
def cmd_demo(args: argparse.Namespace) -> int:
    from app.demo import build_demo

    path = default_db(args)
    with TerminalProgress() as progress:
        added = build_demo(path, progress)
    if args.json:
        print(json.dumps({"path": str(path), "added_parts": added}))
    elif added:
        print(f"Demo project {path}: added {', '.join(added)}")
    else:
        print(f"Demo project {path} is already complete")
    return 0


def cmd_new(args: argparse.Namespace) -> int:
    from store import open_project

    path = Path(args.path)
    if path.exists():
        return fail(f"{path}: already exists; a new project needs a new file")
    if not path.parent.is_dir():
        return fail(f"{path}: the folder {path.parent} does not exist")
    open_project(path, create=True).close()
    print(json.dumps({"path": str(path)}) if args.json else f"Created an empty project {path}")
    return 0


def cmd_info(args: argparse.Namespace) -> int:
    with open_for_reading(default_db(args)) as project:
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
    from app.perf.harness import known_cases, run_cases

    names = args.case or None
    known = known_cases()
    unknown = [n for n in names or [] if n not in known]
    if unknown:
        return fail(f"unknown bench case {unknown[0]!r}; known: {', '.join(sorted(known))}")

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


# -- parser ------------------------------------------------------------------
def _group(sub, name: str, help_text: str, description: str, metavar: str):
    """A subcommand that has subcommands of its own (`scenes generate`, `export benchmark`)."""
    group = sub.add_parser(name, help=help_text, description=description)
    return group.add_subparsers(
        dest=f"{name}_command", metavar=metavar, parser_class=OneLineParser, required=True
    )


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="reasonscope",
        description=(
            "Build, check and study visual-reasoning benchmarks for robots. "
            "With no subcommand, open the desktop app."
        ),
    )
    db_arg(parser, help_text="project file to open in the GUI (default: the demo project)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=OneLineParser)

    p = sub.add_parser(
        "demo",
        help="build the demo project headless",
        description="Build (or complete) the demo project without a screen.",
    )
    db_arg(p, help_text="where to build it (default: the demo project in the user data folder)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_demo)

    p = sub.add_parser(
        "new",
        help="create an empty project file",
        description="Create an empty project file, ready for `scenes generate`, `questions "
        "generate`, `import jrdb`, `import benchmark` or `import episodes`. Refuses a path "
        "that already exists.",
    )
    p.add_argument("path", metavar="PATH", help="the new project file, e.g. study.reasonscope")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_new)

    p = sub.add_parser(
        "info",
        help="show what a project holds",
        description="Count what a project holds: annotators, scenes, "
        "sequences, labels, questions by status, episodes, steps.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print a JSON object")
    p.set_defaults(func=cmd_info)

    scenes_sub = _group(
        sub,
        "scenes",
        "generate and export tabletop scenes",
        "Cluttered tabletop scenes in the PyBullet world: generate, export.",
        "SUBCOMMAND",
    )
    p = scenes_sub.add_parser(
        "generate",
        help="generate seeded scenes and store them",
        description="Sample objects into the 50 x 50 cm workspace, drop them, settle, discard "
        "scenes where an object left the table or the top-down view, and store each scene's "
        "full state.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
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
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_scenes_export)

    questions_sub = _group(
        sub,
        "questions",
        "generate benchmark questions",
        "Generate benchmark questions about the project's worlds.",
        "SUBCOMMAND",
    )
    p = questions_sub.add_parser(
        "generate",
        help="generate tabletop (mgvqa) or JRDB-Reasoning (jrdb) questions",
        description="mgvqa: MG-VQA questions whose answer-critical objects are hidden in the "
        "model's first view (visibility at most --max-visibility), each with its own scene; "
        "--n questions per task, and a summary of what each criterion rejected. jrdb: questions "
        "of controlled difficulty from a JRDB sequence's scene graphs by the adaptive query "
        "engine (docs/jrdb-questions.md), with their step-by-step annotations.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--benchmark", default="mgvqa", choices=["mgvqa", "jrdb"], help="benchmark (mgvqa)"
    )
    p.add_argument(
        "--task",
        choices=["count", "find", "beneath", "compare", "all", "vg", "vqa-wh", "vqa-count"],
        required=True,
        help="mgvqa: count, find, beneath, compare or all; jrdb: vg, vqa-wh or vqa-count",
    )
    p.add_argument("--n", type=int, required=True, help="questions (per task for mgvqa)")
    p.add_argument("--seed", type=int, required=True, help="first generator seed")
    p.add_argument(
        "--max-visibility",
        type=float,
        default=0.10,
        metavar="FRACTION",
        help="mgvqa: largest visible fraction of an answer-critical object (default 0.10)",
    )
    from app.cli.questions import add_jrdb_generate_options

    add_jrdb_generate_options(p)
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_questions_generate)

    export_sub = _group(
        sub,
        "export",
        "write project data in interchange formats",
        "Write project data in documented interchange formats.",
        "WHAT",
    )
    p = export_sub.add_parser(
        "benchmark",
        help="questions with their scenes as reasonscope-benchmark/1 JSON Lines",
        description="Write the current version of each question, one JSON object a line, with "
        "its self-contained scene (docs/benchmark-format.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.add_argument(
        "--status",
        choices=["approved", "any"],
        default="approved",
        help="approved (and corrected) questions only, or any (default approved)",
    )
    p.add_argument(
        "--format",
        default="reasonscope-benchmark/1",
        choices=["reasonscope-benchmark/1", "jrdb-reasoning-vg"],
        help="reasonscope-benchmark/1 JSON Lines (default), or the JRDB-Reasoning VG "
        "question list (a JSON list of the jrdb VG questions)",
    )
    p.set_defaults(func=cmd_export_benchmark)
    p = export_sub.add_parser(
        "episodes",
        help="episodes with their steps as reasonscope-episode/1 JSON Lines",
        description="Write every episode, one JSON object a line, with its steps and their "
        "state snapshots (docs/episode-format.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.jsonl", help="output file")
    p.set_defaults(func=cmd_export_episodes)
    from app.cli.labels import add_export_labels_parser

    add_export_labels_parser(export_sub)

    import_sub = _group(
        sub,
        "import",
        "read interchange files into a project",
        "Read interchange files into a project, in one transaction.",
        "WHAT",
    )
    p = import_sub.add_parser(
        "benchmark",
        help="read a reasonscope-benchmark/1 file",
        description="Read questions and their scenes from a reasonscope-benchmark/1 file. Every "
        "line is checked first; a bad line names itself and nothing is imported.",
    )
    p.add_argument("file", type=Path, metavar="FILE.jsonl")
    db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_import_benchmark)
    p = import_sub.add_parser(
        "episodes",
        help="read recorded episodes",
        description="Read episodes in one transaction. Model replies that cannot be read "
        "become format-error steps, recorded rather than refused.",
    )
    p.add_argument("file", type=Path, metavar="FILE")
    p.add_argument(
        "--format",
        default="reasonscope",
        choices=["reasonscope", "mgvqa", "bimanibench", "embodiedbench"],
        help="reasonscope (a reasonscope-episode/1 file), mgvqa (an MG-VQA transcript "
        "file, or a folder of *.json transcripts; docs/mgvqa-transcripts.md), bimanibench "
        "(a BiManiBench / ST-BiBench evaluation folder) or embodiedbench (a folder of "
        "episode_*_step_*.json logs); docs/bimanual-logs.md",
    )
    p.add_argument("--model", help="bimanibench/embodiedbench: the model's name (default: "
                   "from the log's folder or model_name.txt)")  # fmt: skip
    p.add_argument("--pose-order", default="xyz_wxyz", choices=["xyz_wxyz", "xyz_xyzw"],
                   help="bimanibench/embodiedbench: how poses are written in the log (default "
                   "xyz_wxyz, RoboTwin's [x, y, z, qw, qx, qy, qz])")  # fmt: skip
    db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_import_episodes)
    from app.cli.jrdb import add_import_jrdb_parser

    add_import_jrdb_parser(import_sub)
    from app.cli.reasoning import add_import_predictions_parser

    add_import_predictions_parser(import_sub)
    from app.cli.spatial import add_import_spatial_predictions_parser, add_spatial_parser

    add_import_spatial_predictions_parser(import_sub)
    add_spatial_parser(sub)

    from app.cli.agents import add_replay_in_sim_parser, add_run_agent_parser

    add_run_agent_parser(sub)
    add_replay_in_sim_parser(sub)

    p = sub.add_parser(
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
        help="print a JSON object (keys verification, episodes, hoi, reasoning)",
    )
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
        return fail(str(exc))
    except OSError as exc:  # a file we were pointed at cannot be read or written
        return fail(f"{exc.filename or 'file'}: {exc.strerror or exc}")
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
