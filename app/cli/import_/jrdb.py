"""`reasonscope import jrdb`: read JRDB sequences (the dataset's folder layout) into a project."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from app.cli.support import CommandTree, TerminalProgress, db_arg, default_db


def add_parser(commands: CommandTree) -> None:
    """Register `import jrdb`."""
    p = commands.group("import").add_parser(
        "jrdb",
        help="read JRDB sequences (labels, panoramas, lidar sweeps)",
        description="Read one JRDB sequence, or every sequence labelled under ROOT: stitched 2D "
        "person boxes, 3D boxes, activity/social labels, object boxes (labels/labels_objects, "
        "our format), panoramas and the two lidar sweeps with their calibration. Everything is "
        "checked first and stored in one transaction; a malformed file names itself and the key "
        "and nothing is imported. Missing optional parts are warnings (docs/jrdb-import.md).",
    )
    p.add_argument("root", type=Path, metavar="ROOT", help="the dataset root (holds labels/)")
    p.add_argument(
        "--sequence",
        metavar="NAME",
        help="import only this sequence (default: every labels_2d_stitched/<NAME>.json)",
    )
    p.add_argument(
        "--calibration",
        type=Path,
        metavar="FILE.yaml",
        help="lidar calibration to use instead of ROOT/calibration/defaults.yaml",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--json", action="store_true", help="report as JSON (with the warnings)")
    p.set_defaults(func=cmd_import_jrdb)


def cmd_import_jrdb(args: argparse.Namespace) -> int:
    from app.io.jrdb import import_jrdb

    path = default_db(args)
    with TerminalProgress() as progress:
        result = import_jrdb(
            path,
            args.root,
            args.sequence,
            calibration_path=args.calibration,
            progress=progress,
        )
    if args.json:
        report = {
            "path": str(path),
            "root": str(args.root),
            "sequences": [s.as_dict() for s in result.sequences],
            "warnings": result.warnings,
        }
        print(json.dumps(report, indent=2))
        return 0
    for warning in result.warnings:
        sys.stderr.write(f"reasonscope: warning: {warning}\n")
    for s in result.sequences:
        print(
            f"Imported {s.name}: {s.frames} frames, {s.persons} persons, {s.objects} objects, "
            f"{s.boxes_2d} 2D and {s.boxes_3d} 3D boxes, {s.person_labels} person labels"
        )
    return 0
