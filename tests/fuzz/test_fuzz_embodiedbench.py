"""`reasonscope import episodes --format embodiedbench` on mutated EmbodiedBench logs (EB-
ALFRED step logs, EB-Manipulation results and planner outputs, the corpus): refused in one
line naming the file with the project unchanged, or stored and usable everywhere downstream
(tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "embodiedbench"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    *[
        (name, (), ACCEPTED) for name in ("alfred", "manipulation", "corpus")
    ],  # the real files as written
    # a results file nested 100,000 deep: RecursionError from json.loads
    (
        "alfred",
        (
            Mutation(
                "gpt-5_base_run/base/results/episode_2_final_res.json", "set", ("reward",), "deep"
            ),
        ),
        REFUSED,
    ),
]


@fuzz(50)
@given(data=st.data())
def test_a_mutated_embodiedbench_log_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_embodiedbench_log_that_broke_once_is_refused_or_usable(
    fuzz_seed, name, changes, outcome
):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
