"""`reasonscope import episodes --format bimanibench` on mutated BiManiBench runs (the
harness's high-level and fine-control writers, the corpus's run): refused in one line naming
the file with the project unchanged, or stored and usable everywhere downstream
(tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "bimanibench"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    *[(name, (), ACCEPTED) for name in ("run", "vla", "corpus")],  # the real files as written
]


@fuzz(50)
@given(data=st.data())
def test_a_mutated_bimanibench_run_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_bimanibench_run_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
