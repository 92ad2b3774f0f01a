"""`reasonscope pack merge` on work packages (one per role, made with `create_package` and
worked in, tests/fuzz/seeds.py) whose rows were edited with plain sqlite3 or whose file was
cut or garbled: refused in one line naming the package with the project unchanged, or merged
and usable everywhere downstream (tests/fuzz/contract.py).

REGRESSIONS are examples the fuzzer found merge getting wrong, each fixed; they run on
every test run."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, BROKEN, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutation, row_edit

INPUT = "pack-merge"
# Examples the fuzzer found merge getting wrong, now fixed: (role, mutations, what went wrong).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    (
        "reviewer",
        (Mutation("", "flip", (), (156, 176)),),
        "a schema text that is not UTF-8: UnicodeDecodeError in package_io._schema_of",
    ),
    (
        "human-baseline",
        (Mutation("", "flip", (), (150, 114)), Mutation("", "flip", (), (364, 246))),
        "refused, but the reason quotes a CREATE TABLE over 4 lines of stderr",
    ),
    (
        "reviewer",
        (Mutation("", "row", ("package_files", 6, "data"), "zero"),),
        "package_files.data not bytes: TypeError in package_io.content_hash",
    ),
    (
        "rater",
        (Mutation("", "row", ("package_files", 1, "path"), "blob"),),
        "package_files.path a blob: TypeError (bytes not JSON) in package_io.content_hash",
    ),
    (
        "verifier",
        (Mutation("", "flip", (), (276, 130)),),
        "a hashed row's text not UTF-8: sqlite3.OperationalError in package_io.content_hash",
    ),
    (
        "reviewer",
        (Mutation("", "flip", (), (720, 99)),),
        "a malformed page: sqlite3.DatabaseError in package_io.content_hash",
    ),
    (
        "reviewer",
        (Mutation("", "row", ("hoi_reviews", 2, "reviewer_id"), "long_str"),),
        "refused, but the reason quotes the 1 MB reviewer_id ('signed by annotator xxx...')",
    ),
    (
        "rater",
        (Mutation("", "flip", (), (208, 208)),),
        "refused, but the reason quotes a CREATE TABLE over 7 lines of stderr",
    ),
]


# More that the fuzzer found, fixed the same way (a BLOB in a worked row is kept aside).
REGRESSIONS += [
    (
        "human-baseline",
        (Mutation("", "row", ("human_answers", 3, "created_at"), "blob"),),
        "a BLOB in a worked row: TypeError (bytes not JSON) in merge's take() digest",
    ),
    (
        "verifier",
        (Mutation("", "row", ("verifications", 1, "created_at"), "blob"),),
        "a BLOB in a worked row: TypeError (bytes not JSON) in merge's take() digest",
    ),
]


@fuzz(50)
@given(data=st.data())
def test_a_package_with_edited_rows_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    role = data.draw(st.sampled_from(sorted(seed.inputs)), label="package")
    rows = row_edit(seed.rows[role])
    edit = st.one_of(rows, rows, rows, mutation(seed.files[role]))  # rows three times as often
    changes = data.draw(st.lists(edit, min_size=1, max_size=3), label="mutations")
    run_example(seed, role, changes)


@pytest.mark.parametrize(
    ("role", "changes"),
    [pytest.param(role, changes, id=why[:60]) for role, changes, why in REGRESSIONS],
)
def test_what_the_fuzzer_found_merge_getting_wrong_is_fixed(fuzz_seed, role, changes):
    assert run_example(fuzz_seed(INPUT), role, changes) != BROKEN


@pytest.mark.parametrize("role", ["verifier", "reviewer", "annotator", "rater", "human-baseline"])
def test_a_worked_package_as_written_merges_and_is_usable(fuzz_seed, role):
    assert run_example(fuzz_seed(INPUT), role, ()) == ACCEPTED
