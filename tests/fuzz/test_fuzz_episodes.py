"""`reasonscope import episodes` (reasonscope-episode/1) on mutated episode files: an MG-VQA
episode recorded with ToolEnv and the bimanual corpus's episodes, as exported: refused in
one line naming the file with the project unchanged, or stored and usable everywhere
downstream (tests/fuzz/contract.py)."""

from __future__ import annotations

import pytest
from contract import ACCEPTED, REFUSED, fuzz, run_example
from hypothesis import given
from hypothesis import strategies as st
from mutations import Mutation, mutations

INPUT = "episodes"
# Examples that broke the contract once (found by hypothesis), with what happens now:
# (input, mutations, outcome).
REGRESSIONS: list[tuple[str, tuple[Mutation, ...], str]] = [
    *[(name, (), ACCEPTED) for name in ("mgvqa", "bimanual")],  # the real files as written
    # an agent that is a list: SQLite could not bind it (a traceback, not a refusal)
    ("bimanual", (Mutation("", "set", (3, "agent"), "list"),), REFUSED),
    # a model of NaN: stored as NULL against NOT NULL (a traceback)
    ("bimanual", (Mutation("", "set", (3, "model"), "nan"),), REFUSED),
    # a score of 10**30: too big for SQLite (OverflowError)
    ("bimanual", (Mutation("", "set", (2, "score"), "10**30"),), REFUSED),
    # a 1 MB mode: refused with the whole megabyte on the error line
    ("mgvqa", (Mutation("", "set", ("mode",), "long_str"),), REFUSED),
]


@fuzz(50)
@given(data=st.data())
def test_a_mutated_episode_file_is_refused_or_usable(fuzz_seed, data):
    seed = fuzz_seed(INPUT)
    name = data.draw(st.sampled_from(sorted(seed.inputs)), label="input")
    changes = data.draw(mutations(seed.files[name]), label="mutations")
    run_example(seed, name, changes)


@pytest.mark.parametrize(("name", "changes", "outcome"), REGRESSIONS)
def test_a_episode_file_that_broke_once_is_refused_or_usable(fuzz_seed, name, changes, outcome):
    assert run_example(fuzz_seed(INPUT), name, changes) == outcome
