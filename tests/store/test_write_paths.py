"""Each rule of work lives in one place, and every path that writes goes through it: the
app, the CLI, imports and package merges write work only through its repository, whose
methods hold the rules. Checked on the source: SQL that writes a table of work outside
its repository module, or a verdict built without its checks outside the store's reading
code, fails here (and the scanner is shown to find both in a made-up module)."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("app", "store", "annotation", "widgets", "sim")

#: Table of work -> the one module that writes it (its rules are there).
OWNERS = {
    "verifications": "store/verifications.py",
    "hoi_reviews": "store/hoi.py",
    "hoi_labels": "store/hoi.py",
    "hoi_label_trash": "store/hoi.py",
    "error_labels": "store/episodes.py",
    "difficulty_ratings": "store/reasoning.py",
    "human_answers": "store/reasoning.py",
    "boxes_2d": "store/sequences.py",
    "boxes_3d": "store/sequences.py",
    "entities": "store/sequences.py",
    "entity_removals": "store/sequences.py",
}
#: Building a verdict without its checks: only for rows the store reads back.
UNCHECKED = {"Verdict.from_storage": "store/verifications.py"}
_WRITE = re.compile(
    r"\b(?:INSERT(?:\s+OR\s+\w+)?\s+INTO|REPLACE\s+INTO|UPDATE|DELETE\s+FROM)\s+"
    r"(?:main\.)?\"?(\w+)\"?",
    re.IGNORECASE,
)


def offenders(files: dict[str, str]) -> list[str]:
    """'path: what' for each write of a table of work outside its owner, and each
    unchecked verdict outside the store's reading code."""
    found = []
    for rel, text in files.items():
        for match in _WRITE.finditer(text):
            table = match.group(1).lower()
            if table in OWNERS and rel != OWNERS[table]:
                found.append(f"{rel}: writes {table} (only {OWNERS[table]} may)")
        for call, owner in UNCHECKED.items():
            if call in text and rel != owner and f"def {call.split('.')[1]}" not in text:
                found.append(f"{rel}: {call} (only {owner} may)")
    return found


def _sources() -> dict[str, str]:
    files = {}
    for package in PACKAGES:
        for path in (ROOT / package).rglob("*.py"):
            rel = path.relative_to(ROOT).as_posix()
            if rel.startswith("store/schema"):  # the migrations create and move tables
                continue
            files[rel] = path.read_text(encoding="utf-8")
    return files


def test_work_is_written_only_through_its_repository():
    assert offenders(_sources()) == []


def test_the_check_finds_a_write_path_that_skips_the_rules():
    made_up = {
        "app/work_packages/shortcut.py": (
            'db.execute("INSERT INTO verifications(question_id) VALUES (?)", [1])\n'
            'db.execute("UPDATE hoi_labels SET difficulty = 9")\n'
            "verdict = Verdict.from_storage(decision='approve')\n"
        ),
        "store/hoi.py": 'db.execute("DELETE FROM hoi_labels WHERE id = ?", [1])\n',
    }
    assert offenders(made_up) == [
        "app/work_packages/shortcut.py: writes verifications (only store/verifications.py may)",
        "app/work_packages/shortcut.py: writes hoi_labels (only store/hoi.py may)",
        "app/work_packages/shortcut.py: Verdict.from_storage (only store/verifications.py may)",
    ]
