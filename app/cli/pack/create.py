"""`reasonscope pack ...`: work packages for teams on many machines (docs/work-packages.md).

`pack create` hands one person an assignment in a package file; `pack merge` brings
the work back; `pack list`, `pack recall` and `pack conflicts` manage what is out.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from app.cli.support import CommandTree, db_arg, default_db, fail
from store import open_project


def add_parser(commands: CommandTree) -> None:
    """Register `pack create`, `pack merge`, `pack list`, `pack recall`, `pack conflicts`."""
    group = commands.group("pack")
    p = group.add_parser(
        "create",
        help="write one person's assignment to a package file",
        description="Choose the work under the project's rules (a question's two verifiers "
        "are two people, no one reviews their own label, nothing goes to the same person "
        "twice, adjudication goes to a third person), copy what it needs into a package "
        "file and note the items as out with that person.",
    )
    p.add_argument("--for", dest="person", required=True, metavar="NAME", help="who works on it")
    p.add_argument(
        "--role", required=True, choices=["verifier", "reviewer", "adjudicator", "annotator"]
    )
    p.add_argument(
        "--questions",
        metavar="pending|ID,...",
        help="verifier/adjudicator: 'pending' (all the person may take) or ids",
    )
    p.add_argument("--benchmark", help="only questions of this benchmark")
    p.add_argument("--task", help="only questions of this task")
    p.add_argument(
        "--labels",
        nargs="?",
        const="all",
        metavar="ID,...",
        help="reviewer: HOI labels to review (all the person may review, or ids)",
    )
    p.add_argument("--sequence", metavar="NAME", help="annotator: the sequence to label")
    p.add_argument(
        "--episodes",
        metavar="all|failed|ID,...",
        help="annotator: recorded episodes to label errors in",
    )
    p.add_argument("--frames", metavar="A-B", help="annotator: frame indices A to B")
    p.add_argument("--limit", type=int, metavar="N", help="at most N items")
    p.add_argument("--out", type=Path, required=True, metavar="FILE.rspack")
    db_arg(p, help_text="the project that sends it (default: the demo project)")
    p.add_argument("--json", action="store_true", help="print the manifest")
    p.set_defaults(func=cmd_create)

    p = group.add_parser(
        "merge",
        help="bring a returned package's work into the project (all or nothing)",
        description="Refuses, changing nothing, a package of another project, a tampered "
        "one, or one with work signed by anyone but its person. Work on items changed here "
        "since the package went out is kept aside as a conflict. Merging again changes "
        "nothing.",
    )
    p.add_argument("file", type=Path, metavar="FILE.rspack")
    db_arg(p, help_text="the project the package came from (default: the demo project)")
    p.add_argument("--dry-run", action="store_true", help="report what would merge; change nothing")
    p.add_argument("--json", action="store_true", help="print the merge report as JSON")
    p.set_defaults(func=cmd_merge)

    p = group.add_parser("list", help="packages sent from the project and their state")
    db_arg(p, help_text="project file (default: the demo project)")
    p.add_argument(
        "--items",
        action="store_true",
        help="each package's items: out (since when), done or recalled",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_list)

    p = group.add_parser("recall", help="take back what a package still has out")
    p.add_argument("package_id", metavar="PACKAGE_ID", help="the package id (or a unique prefix)")
    db_arg(p, help_text="project file (default: the demo project)")
    p.set_defaults(func=cmd_recall)

    p = group.add_parser("conflicts", help="merged work kept aside, and deciding on it")
    db_arg(p, help_text="project file (default: the demo project)")
    decide = p.add_mutually_exclusive_group()
    decide.add_argument(
        "--discard", type=int, metavar="ID", help="decide: drop this conflict's work"
    )
    decide.add_argument(
        "--apply",
        type=int,
        metavar="ID",
        help="decide: apply its work to the item as it is now (a verdict to the "
        "question's current version, a review to the label's current round)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_conflicts)


def cmd_create(args: argparse.Namespace) -> int:
    from app.work_packages.create import create_package, package_request

    if args.limit is not None and args.limit < 1:
        return fail(f"--limit {args.limit}: need at least one item")
    request = package_request(
        args.person,
        args.role,
        questions=args.questions,
        labels=args.labels,
        sequence=args.sequence,
        frames=args.frames,
        limit=args.limit,
        episodes=args.episodes,
        benchmark=args.benchmark,
        task=args.task,
    )
    manifest = create_package(default_db(args), request, args.out)
    if args.json:
        shown = {k: v for k, v in manifest.items() if k != "copied"}
        print(json.dumps(shown, indent=2))
        return 0
    size = args.out.stat().st_size / 1e6
    print(
        f"Wrote {args.out} ({size:.1f} MB): {len(manifest['items'])} "
        f"{manifest['items'][0]['kind']}s for {manifest['person']} as {manifest['role']}, "
        f"package {manifest['package_id']}"
    )
    for note in manifest["notes"]:
        print(f"note: {note}")
    return 0


def cmd_merge(args: argparse.Namespace) -> int:
    from app.work_packages.merge import merge_package

    report = merge_package(default_db(args), args.file, dry_run=args.dry_run)
    if args.json:
        print(json.dumps(report.as_dict(), indent=2))
    else:
        print("\n".join(report.lines()))
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    with open_project(default_db(args)) as project:
        packages = project.packages.list()
        project_items = {
            p["package_id"]: project.packages.assignments(p["package_id"]) for p in packages
        }
    rows = [
        {
            "package_id": p["package_id"],
            "person": p["person"],
            "role": p["role"],
            "items": len(p["manifest"]["items"]),
            "created": p["created"],
            "merged_at": p["merged_at"],
            "recalled_at": p["recalled_at"],
            "file": p["file"],
            **({"assignments": project_items[p["package_id"]]} if args.items else {}),
        }
        for p in packages
    ]
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    if not rows:
        print("No packages sent yet (reasonscope pack create --help)")
    for r in rows:
        state = "recalled" if r["recalled_at"] else "merged" if r["merged_at"] else "out"
        print(
            f"{r['package_id'][:8]}  {r['person']:<16} {r['role']:<11} {r['items']:>5} items  "
            f"{r['created'][:10]}  {state:<8} {r['file']}"
        )
        for a in r.get("assignments", []):
            now = (
                f"done {a['done_at'][:16]}"
                if a["done_at"]
                else f"recalled {a['recalled_at'][:16]}"
                if a["recalled_at"]
                else f"out since {a['assigned_at'][:16]}"
            )
            print(f"    {a['kind']} {a['item_id']} {a['version']}: {now}")
    return 0


def cmd_recall(args: argparse.Namespace) -> int:
    with open_project(default_db(args)) as project:
        matches = [
            p["package_id"]
            for p in project.packages.list()
            if p["package_id"].startswith(args.package_id)
        ]
        if len(matches) != 1:
            what = "no package" if not matches else f"{len(matches)} packages"
            return fail(f"{project.path}: {what} with id {args.package_id}")
        count = project.packages.recall(matches[0])
    print(f"Recalled {count} items of package {matches[0]}")
    return 0


def cmd_conflicts(args: argparse.Namespace) -> int:
    if args.apply is not None:
        from app.work_packages.merge import apply_conflict

        target = apply_conflict(default_db(args), args.apply)
        print(f"Conflict #{args.apply}: its work is applied (row {target})")
        return 0
    with open_project(default_db(args)) as project:
        if args.discard is not None:
            project.packages.resolve(args.discard, "discarded")
            print(f"Conflict #{args.discard}: its work is discarded")
            return 0
        conflicts = project.packages.conflicts()
    if args.json:
        print(json.dumps(conflicts, indent=2))
        return 0
    if not conflicts:
        print("No open conflicts")
    for c in conflicts:
        print(f"#{c['id']}  {c['person']}: {c['kind']} {c['item_id']}: {c['reason']}")
    return 0
