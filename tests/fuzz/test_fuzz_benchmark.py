"""`reasonscope import benchmark` on mutated benchmark files (tests/fuzz/seeds.py: two
generated MG-VQA questions with their scene, three JRDB-Reasoning questions): refused in one
line naming the file with the project unchanged, or stored and usable everywhere downstream
(tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "benchmark"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    ("questions", (), ACCEPTED),  # the real file as written
    # an evidence id that is an object: a TypeError while checking it
    ("questions", (Mutation("", "set", (1, "evidence_ids", 0), "dict"),), REFUSED),
    # an asset reference of no known scheme (found as two flipped bytes, "resourcex:"):
    # Verify's restore failed
    ("questions", (Mutation("", "set", (0, "scene", "bodies", 14, "asset"), "str"),), REFUSED),
    # a count of -Infinity: the JRDB-Reasoning VQA export failed on int()
    ("questions", (Mutation("", "set", (3, "answer"), "-inf"),), REFUSED),
    # options that are a number: Verify's correction draft failed iterating them
    ("questions", (Mutation("", "set", (4, "options"), "1e308"),), REFUSED),
    # a JRDB question whose criteria.frame_ids hold an object: the VG export failed (unhashable)
    (
        "questions",
        (
            Mutation("", "dup_item", (3, "steps")),
            Mutation("", "set", (4, "criteria", "frame_ids", 0), "empty_dict"),
        ),
        REFUSED,
    ),
    # JRDB questions without a query pattern (as exported): the VG export failed in step_keys
    ("questions", (Mutation("", "drop_line", (), 0),), ACCEPTED),
]


@fuzz(40)
@given(data=st.data())
def test_a_mutated_benchmark_file_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_benchmark_file_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
