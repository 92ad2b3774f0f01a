"""`reasonscope import predictions` on a mutated predictions file for the project's three JRDB-
Reasoning questions: refused in one line naming the file with the project unchanged, or
stored and usable everywhere downstream (tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "predictions"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    ("predictions", (), ACCEPTED),  # the real file as written
    # a 1 MB question id: refused with the whole megabyte on the error line
    ("predictions", (Mutation("", "set", (2, "question_id"), "long_str"),), REFUSED),
]


@fuzz(60)
@given(data=st.data())
def test_a_mutated_predictions_file_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_predictions_file_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
