"""`reasonscope import benchmark`: a reasonscope-benchmark/1 file's questions and scenes read into
a project."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db, fail


def add_parser(commands: CommandTree) -> None:
    """Register `import benchmark`."""
    p = commands.group("import").add_parser(
        "benchmark",
        help="read a reasonscope-benchmark/1 file or a Hugging Face dataset folder",
        description="Read questions and their scenes from a reasonscope-benchmark/1 file, or from "
        "a folder `export benchmark --format hf` wrote (needs reasonscope[hf]). Every line (row) "
        "is checked first; a bad one names itself and nothing is imported.",
    )
    p.add_argument("file", type=Path, metavar="FILE.jsonl|DIR")
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--prerender",
        action="store_true",
        help="render the first view of every MG-VQA question's scene (top-down, the "
        "model's image size) now and store it, so that model runs send it at once",
    )
    p.set_defaults(func=cmd_import_benchmark)


def cmd_import_benchmark(args: argparse.Namespace) -> int:
    from app.io.benchmark import import_benchmark

    if args.file.is_dir():
        from app.io.hf_dataset import HubSetupError, import_hf_dataset

        try:
            count = import_hf_dataset(default_db(args), args.file)
        except HubSetupError as exc:
            return fail(str(exc))
        print(f"Imported {count} questions from the dataset folder {args.file}")
    else:
        count = import_benchmark(default_db(args), args.file)
        print(f"Imported {count} questions from {args.file}")
    if args.prerender:
        from app.cli.support import TerminalProgress
        from app.jobs.first_views import prerender_questions

        with TerminalProgress() as progress:
            rendered = prerender_questions(default_db(args), progress=progress)
        print(f"first views prerendered: {rendered}")
    return 0
