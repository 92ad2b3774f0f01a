"""`reasonscope import jrdb` on mutated JRDB roots (the synthetic sequence's full layout, the
real-structure activity file's root): refused in one line naming the file with the project
unchanged, or stored and usable everywhere downstream (tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "jrdb"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    *[(name, (), ACCEPTED) for name in ("synthetic", "real")],  # the real files as written
    # a difficulty of -10**30: read as a whole number, then too big for SQLite (OverflowError)
    (
        "real",
        (
            Mutation(
                "labels/labels_2d_activity_social_stitched/bytes-cafe-2019-02-07_0.json",
                "set",
                ("labels", "000015.jpg", 0, "action_label", "sitting"),
                "-10**30",
            ),
        ),
        REFUSED,
    ),
]


@fuzz(50)
@given(data=st.data())
def test_a_mutated_jrdb_root_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_jrdb_root_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
