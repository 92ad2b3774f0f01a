"""`reasonscope export benchmark`: questions with their scenes as reasonscope-benchmark/1 JSON
Lines, as a JRDB-Reasoning question file, or as a Hugging Face dataset folder."""

from __future__ import annotations

import argparse
from pathlib import Path

from app.cli.support import CommandTree, TerminalProgress, db_arg, default_db, fail


def add_parser(commands: CommandTree) -> None:
    """Register `export benchmark`."""
    p = commands.group("export").add_parser(
        "benchmark",
        help="questions with their scenes as reasonscope-benchmark/1 JSON Lines",
        description="Write the current version of each question, one JSON object a line, with "
        "its self-contained scene (docs/benchmark-format.md).",
    )
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="FILE.jsonl",
        help="output file (a folder for --format hf)",
    )
    p.add_argument(
        "--status",
        choices=["approved", "any"],
        default="approved",
        help="approved (and corrected) questions only, or any (default approved)",
    )
    p.add_argument(
        "--tag",
        metavar="TAG",
        help="only questions with this tag (e.g. hard, authored: docs/scene-authoring.md)",
    )
    p.add_argument(
        "--format",
        default="reasonscope-benchmark/1",
        choices=["reasonscope-benchmark/1", "jrdb-reasoning-vg", "jrdb-reasoning-vqa", "hf"],
        help="reasonscope-benchmark/1 JSON Lines (default), a JRDB-Reasoning question file "
        "(a JSON list): jrdb-reasoning-vg the jrdb VG questions, jrdb-reasoning-vqa the "
        "VQA-Wh and VQA-Count ones (docs/jrdb-questions.md), or hf: a Hugging Face dataset "
        "folder with images and a dataset card (needs reasonscope[hf]; docs/sharing.md)",
    )
    p.add_argument(
        "--split",
        default="test",
        metavar="NAME",
        help="--format hf: the split the questions form (default test)",
    )
    p.add_argument(
        "--license",
        default="unknown",
        metavar="ID",
        help="--format hf: the Hub license id the dataset card declares (default unknown)",
    )
    p.set_defaults(func=cmd_export_benchmark)


def _nothing_approved(db) -> str | None:
    """Why an approved-only export would be empty (with how many wait), or None."""
    from app.io.jrdb_reasoning import current_questions
    from store import open_for_reading

    with open_for_reading(db) as project:
        statuses = [q.status for q in current_questions(project, None)]
    if any(s in ("approved", "corrected") for s in statuses):
        return None
    pending = statuses.count("pending")
    return (
        f"no approved questions to export ({pending} pending verification, "
        f"{len(statuses)} in all; --status any exports them unverified)"
    )


def _export_hf(args: argparse.Namespace) -> int:
    """`--format hf`: the dataset folder, or exit 2 with the pip line without the extra."""
    from app.io.hf_dataset import HubSetupError, export_hf_dataset, hf_modules

    try:
        hf_modules()
    except HubSetupError as exc:
        return fail(str(exc))
    if args.status == "approved":
        reason = _nothing_approved(default_db(args))
        if reason:
            return fail(reason)
    with TerminalProgress() as progress:
        done = export_hf_dataset(
            default_db(args),
            args.out,
            split=args.split,
            status=args.status,
            tag=args.tag,
            license_id=args.license,
            progress=progress,
        )
    print(
        f"Wrote {done['questions']} questions with {done['images']} images to {args.out} "
        f"(split {args.split}, {done['shards']} Parquet shard(s), {done['bytes']} bytes)"
    )
    return 0


def cmd_export_benchmark(args: argparse.Namespace) -> int:
    from app.io.benchmark import export_benchmark

    if args.format == "hf":
        return _export_hf(args)
    if args.format.startswith("jrdb-reasoning-"):
        from app.io.jrdb_reasoning import NothingToExport, export_jrdb_reasoning

        try:
            counts = export_jrdb_reasoning(
                default_db(args), args.out, fmt=args.format, status=args.status
            )
        except NothingToExport as exc:
            return fail(str(exc))
        what = "VG" if args.format.endswith("-vg") else "VQA"
        extra = (
            f", {counts['no_box']} left out: the answer has no 2D box" if counts["no_box"] else ""
        )
        print(
            f"Wrote {counts['written']} {what} questions to {args.out} "
            f"({counts['other']} other questions left out{extra})"
        )
        return 0
    if args.status == "approved" and not (args.out.is_dir() or not args.out.parent.exists()):
        reason = _nothing_approved(default_db(args))
        if reason:
            return fail(reason)
    count = export_benchmark(default_db(args), args.out, status=args.status, tag=args.tag)
    tagged = f" tagged {args.tag}" if args.tag else ""
    print(f"Wrote {count} questions{tagged} to {args.out}")
    return 0
