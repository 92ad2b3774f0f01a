"""`reasonscope import episodes --format mgvqa` on the documented MG-VQA transcript, mutated
(one file, and a folder of two files): refused in one line naming the file with the project
unchanged, or stored and usable everywhere downstream (tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "mgvqa"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    *[(name, (), ACCEPTED) for name in ("file", "folder")],  # the real files as written
    # a transcript file nested 100,000 deep: RecursionError from json.loads
    ("folder", (Mutation("b.json", "set", (), "deep"),), REFUSED),
]


@fuzz(50)
@given(data=st.data())
def test_a_mutated_transcript_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_transcript_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
