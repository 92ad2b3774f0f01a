"""The report of `make mutants`: per module, how many mutants were killed and how many
survived, and each survivor's diff, marked as listed in tests/mutants-equivalent.txt
(with its reason) or as unexplained.

Run from the repository root after `mutmut run`; it reads mutmut's results through
its own commands (`mutmut results --all true`, `mutmut show NAME`). Exits 1 when a
survivor is unexplained, so that `make mutants` fails until each one is killed by a
test or listed as equivalent.

    python scripts/mutants_report.py [build/mutants/report.txt]
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections import Counter, defaultdict
from pathlib import Path

EQUIVALENT_FILE = Path("tests/mutants-equivalent.txt")
# The tests noticed the mutant: they failed, or the process running them died (PyBullet
# given None where it wants a number crashes the test process: mutmut says "segfault").
CAUGHT = ("killed", "segfault")
# "annotation.verification.xǁVerdictǁ__post_init____mutmut_3" or "...x_derive_outcome__mutmut_7"
MODULE_OF_NAME = re.compile(r"^(?P<module>.+?)\.x[_ǁ]")


def mutmut(*args: str) -> str:
    mutmut_bin = Path(sys.executable).with_name("mutmut")
    done = subprocess.run([str(mutmut_bin), *args], capture_output=True, text=True, check=True)
    return done.stdout


def equivalents(path: Path = EQUIVALENT_FILE) -> dict[str, str]:
    """{mutant name: why it cannot change behaviour}: one mutant a line, its name and
    then the reason; blank lines and lines starting with # are skipped."""
    listed: dict[str, str] = {}
    if not path.exists():
        return listed
    for line in path.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        name, _, reason = line.partition(" ")
        listed[name] = reason.strip()
    return listed


def results() -> dict[str, str]:
    """{mutant name: status} from `mutmut results --all true`."""
    statuses: dict[str, str] = {}
    for line in mutmut("results", "--all", "true").splitlines():
        name, sep, status = line.strip().partition(": ")
        if sep:
            statuses[name] = status.strip()
    return statuses


def module_of(name: str) -> str:
    match = MODULE_OF_NAME.match(name)
    return match.group("module") if match else name


def report(statuses: dict[str, str], listed: dict[str, str]) -> tuple[str, int]:
    """(the report's text, how many survivors are unexplained). A survivor is a mutant
    with any status but those of CAUGHT and not checked ("no tests" and "timeout"
    included)."""
    by_module: dict[str, Counter[str]] = defaultdict(Counter)
    survivors: dict[str, list[str]] = defaultdict(list)
    for name, status in statuses.items():
        module = module_of(name)
        by_module[module][status] += 1
        if status not in (*CAUGHT, "not checked"):
            survivors[module].append(name)
    lines = ["Mutation testing of the rules (make mutants)", ""]
    columns = ("mutants", "killed", "survived", "equivalent", "unexplained", "not run")
    header = f"{'module':40}" + "".join(f" {c:>11}" for c in columns)
    lines += [header, "-" * len(header)]
    unexplained_total = 0
    for module in sorted(by_module):
        counts = by_module[module]
        equivalent = sum(1 for n in survivors[module] if n in listed)
        unexplained = len(survivors[module]) - equivalent
        unexplained_total += unexplained
        row = (
            sum(counts.values()),
            sum(counts[s] for s in CAUGHT),
            len(survivors[module]),
            equivalent,
            unexplained,
            counts["not checked"],
        )
        lines.append(f"{module:40}" + "".join(f" {n:>11}" for n in row))
    other = sorted({s for c in by_module.values() for s in c} - {"killed", "survived"})
    if other:
        lines += [
            "",
            "Other statuses (segfault counts as killed, the tests having crashed; "
            "all others but not checked count as survivors): "
            + ", ".join(f"{s} {sum(c[s] for c in by_module.values())}" for s in other),
        ]
    stale = sorted(n for n in listed if statuses.get(n) in CAUGHT)
    missing = sorted(n for n in listed if n not in statuses)
    if stale:
        lines += ["", "Listed as equivalent but now killed (remove from the list):"]
        lines += [f"  {n}" for n in stale]
    if missing:
        lines += ["", "Listed as equivalent but no such mutant (renamed or gone):"]
        lines += [f"  {n}" for n in missing]
    for module in sorted(m for m in survivors if survivors[m]):
        lines += ["", "=" * 78, module, "=" * 78]
        for name in sorted(survivors[module], key=lambda n: (n in listed, n)):
            verdict = (
                f"EQUIVALENT: {listed[name]}"
                if name in listed
                else f"UNEXPLAINED ({statuses[name]})"
            )
            lines += ["", f"{name}  {verdict}", mutmut("show", name).rstrip()]
    lines += ["", f"{unexplained_total} unexplained survivor(s)."]
    return "\n".join(lines) + "\n", unexplained_total


def main(argv: list[str]) -> int:
    out = Path(argv[1]) if len(argv) > 1 else Path("build/mutants/report.txt")
    text, unexplained = report(results(), equivalents())
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(text, encoding="utf-8")
    summary = text.split("\n\n")[1]
    print(summary)
    print(f"Report: {out} ({unexplained} unexplained survivor(s))")
    return 1 if unexplained else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
