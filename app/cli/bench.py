"""`reasonscope bench`: the performance cases of `app.perf.harness`."""

from __future__ import annotations

import argparse
import json
import sys

from app.cli.support import CommandTree, fail


def add_parser(commands: CommandTree) -> None:
    """Register `bench`."""
    p = commands.add_parser(
        "bench",
        help="run the performance cases",
        description="Run the performance cases; each reports a value (a ratio "
        "against a baseline measured in the same process), its goal and "
        "whether it met it (cases whose goal is 'report' only report). Exits 1 "
        "when a case misses its goal, naming the cases.",
    )
    p.add_argument("--json", action="store_true", help="print a JSON list of results")
    p.add_argument("--quick", action="store_true", help="smaller inputs (a few minutes at most)")
    p.add_argument(
        "--case", action="append", metavar="NAME", help="run only this case (repeatable)"
    )
    p.set_defaults(func=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from app.perf.harness import known_cases, missed_cases, run_cases

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
            if r.skipped:
                print(f"--  {r.name:<28} {'skipped':>10} {'':<8} goal {r.goal:<24} {r.detail}")
                continue
            mark = {"pass": "ok ", "FAIL": "MISS", "report": "rep"}[r.verdict]
            print(f"{mark} {r.name:<28} {r.value:>10.3g} {r.unit:<8} goal {r.goal:<24} {r.detail}")
    missed = missed_cases(results)
    if missed:
        sys.stderr.write(
            f"bench: {len(missed)} case{'s' * (len(missed) != 1)} missed "
            f"{'their goals' if len(missed) != 1 else 'its goal'}: {', '.join(missed)}\n"
        )
        return 1
    return 0
