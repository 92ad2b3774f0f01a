"""`reasonscope export labels`: a sequence's JRDB-Act/Social labels with our HOI labels."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db, fail


def add_parser(commands: CommandTree) -> None:
    """Register `export labels`."""
    p = commands.group("export").add_parser(
        "labels",
        help="one sequence's labels as its labels_2d_activity_social_stitched file plus HOI",
        description="Write one JRDB sequence as its labels_2d_activity_social_stitched file: "
        "every frame (NNNNNN.jpg) and person entry as imported (box, attributes, action_label, "
        "social_group, social_activity, demographics_info, H-interaction, group_info, ...), "
        "with our HOI labels beside them: HOI, shaped like H-interaction (pair, box_pair, "
        "{label: difficulty}), and pose_label; difficulty 1 easy / 2 medium / 3 hard "
        "(docs/hoi-labels.md). Boxes people moved are written as moved (the dataset's in "
        "reasonscope.original_box), people they added get entries, people they took out of "
        "a frame are left out and listed in `removed`. Written in full or not at all.",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument("--sequence", required=True, metavar="NAME", help="the sequence's name")
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", type=Path, metavar="FILE.json", help="the activity file alone")
    where.add_argument(
        "--labels-dir",
        type=Path,
        metavar="DIR",
        help="write the dataset's labels/ folder: labels_2d_stitched, labels_3d, "
        "labels_objects and labels_2d_activity_social_stitched files of the sequence",
    )
    p.add_argument(
        "--out-2d",
        type=Path,
        metavar="FILE.json",
        help="with --out: also the sequence's labels_2d_stitched file (people and objects, "
        "interpolated boxes with JRDB's attribute interpolated: true)",
    )
    p.add_argument(
        "--out-3d",
        type=Path,
        metavar="FILE.json",
        help="with --out: also the sequence's labels_3d file, laid out the same way",
    )
    p.add_argument(
        "--status",
        choices=["any", "accepted"],
        default="any",
        help="every label, or only those both reviewers accepted (default any)",
    )
    p.add_argument("--json", action="store_true", help="report as JSON")
    p.set_defaults(func=cmd_export_labels)


def cmd_export_labels(args: argparse.Namespace) -> int:
    from app.io.hoi_labels import export_label_files, export_labels

    if args.out is None and (args.out_2d or args.out_3d):
        return fail("export labels: --out-2d and --out-3d go with --out FILE")
    if args.labels_dir is not None:
        counts = export_label_files(
            default_db(args), args.sequence, args.labels_dir, status=args.status
        )
        if args.json:
            print(
                json.dumps({"sequence": args.sequence, "labels_dir": str(args.labels_dir)} | counts)
            )
        else:
            what = ", ".join(f"{n} in {folder}" for folder, n in counts.items())
            print(f"Wrote {args.sequence} to {args.labels_dir}: {what}")
        return 0
    count = export_labels(
        default_db(args),
        args.sequence,
        args.out,
        status=args.status,
        out_2d=args.out_2d,
        out_3d=args.out_3d,
    )
    extra = {k: str(v) for k, v in (("out_2d", args.out_2d), ("out_3d", args.out_3d)) if v}
    if args.json:
        print(
            json.dumps({"sequence": args.sequence, "out": str(args.out), "labels": count} | extra)
        )
    else:
        also = f" (and {', '.join(extra.values())})" if extra else ""
        print(f"Wrote {count} labels of {args.sequence} to {args.out}{also}")
    return 0
