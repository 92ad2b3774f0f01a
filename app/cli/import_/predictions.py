"""`reasonscope import predictions`: model answers to JRDB-Reasoning questions, scored on import."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from app.cli.support import CommandTree, db_arg, default_db
from app.io.jsonl import json_lines, line_error
from store import ProjectError, open_project


def add_parser(commands: CommandTree) -> None:
    """Register `import predictions`."""
    p = commands.group("import").add_parser(
        "predictions",
        help="read model predictions (JSON Lines) and score them",
        description="Read a model's answers to the project's questions, one JSON object a "
        'line: {"question_id": "<question id>", "answer": ...} or {"question_id": ..., "box": '
        '[x, y, w, h]}, optionally "steps": [per-step answers] and "model". Each is scored '
        "against the question's current version (VG: IoU > 0.5; VQA: accuracy). Every line is "
        "checked first and all are stored in one transaction; a bad line is reported as "
        "FILE:LINE: problem and nothing is imported. Importing a model again replaces its "
        "earlier predictions (docs/jrdb-questions.md).",
    )
    p.add_argument("file", type=Path, metavar="FILE.jsonl", help="the predictions file")
    p.add_argument(
        "--model",
        metavar="NAME",
        help="model name for lines without a 'model' field (required when some lack it)",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_import_predictions)


def read_prediction_lines(path: Path) -> tuple[list[dict[str, Any]], list[int]]:
    """The file's JSON objects and their line numbers; ProjectError `FILE:LINE: problem`."""
    rows, lines = [], []
    for number, row in json_lines(path, "a predictions file"):
        if not isinstance(row, dict):
            raise ProjectError(f"{path}:{number}: not a JSON object")
        rows.append(row)
        lines.append(number)
    if not rows:
        raise ProjectError(f"{path}: no predictions in the file")
    return rows, lines


def cmd_import_predictions(args: argparse.Namespace) -> int:
    path = default_db(args)
    rows, lines = read_prediction_lines(args.file)
    model = (args.model or "").strip()
    with open_project(path) as project:
        try:
            report = project.reasoning.import_predictions(
                model, rows, source=args.file.name, lines=lines
            )
        except ValueError as exc:  # "line N: problem"
            raise line_error(args.file, exc) from None
    if args.json:
        print(json.dumps({"path": str(path), "file": str(args.file), **report.as_dict()}, indent=2))
        return 0
    for name, counts in report.by_model.items():
        n, right = counts["imported"], counts["correct"]
        replaced = f", replacing {counts['replaced']} earlier" if counts["replaced"] else ""
        print(
            f"Imported {n} prediction{'s' * (n != 1)} of {name}{replaced}: {right} correct "
            f"({100.0 * right / n:.1f} % accuracy)"
        )
    return 0
