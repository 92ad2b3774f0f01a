"""`reasonscope import spatial-predictions` on a mutated replies file for the project's spatial
grounding items: refused in one line naming the file with the project unchanged, or stored
and usable everywhere downstream (tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "spatial-predictions"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    ("replies", (), ACCEPTED),  # the real file as written
    # a line nested 100,000 deep: RecursionError from json.loads
    ("replies", (Mutation("", "set", (1,), "deep"),), REFUSED),
    # a 1 MB item id: refused with the whole megabyte on the error line
    ("replies", (Mutation("", "set", (2, "id"), "long_str"),), REFUSED),
]


@fuzz(60)
@given(data=st.data())
def test_a_mutated_replies_file_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_replies_file_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
