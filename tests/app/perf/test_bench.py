"""The bench engine: structure and sanity of its measurements, never wall-clock limits."""

from __future__ import annotations

import importlib
import json
import math
import sys

import pytest

from app.perf import harness as bench
from app.perf import store as bench_store
from app.perf.harness import BenchResult, bench_case, run_cases
from app.perf.store import measure_autosave, measure_paging


@pytest.fixture
def tiny(monkeypatch):
    """Shrink every case so the whole engine runs in a second or two."""
    monkeypatch.setattr(bench_store, "PAGING_SMALL", 400)
    monkeypatch.setattr(bench_store, "PAGING_LARGE", {False: 2_000, True: 2_000})
    monkeypatch.setattr(bench_store, "PAGING_REPEATS", 3)
    monkeypatch.setattr(bench_store, "AUTOSAVE_WRITES", {False: 30, True: 30})


@pytest.fixture
def scratch_cases(monkeypatch):
    """A registry that tests may add to without leaking cases into others."""
    monkeypatch.setattr(bench, "CASES", dict(bench.CASES))
    return bench.CASES


def test_builtin_cases_are_registered():
    assert {"question_paging", "autosave_label_write"} <= set(bench.known_cases())
    assert bench.CASES["question_paging"].goal == "<= 2"
    assert bench.CASES["autosave_label_write"].goal == "median < 2 ms per write"
    assert bench.CASES["question_paging"].description


def test_run_cases_quick(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv(bench.BENCH_DIR_ENV, str(tmp_path))
    messages: list[str] = []
    results = run_cases(["question_paging", "autosave_label_write"], True, messages.append)
    assert [r.name for r in results] == ["question_paging", "autosave_label_write"]
    paging, autosave = results
    for r in results:
        assert isinstance(r, BenchResult)
        assert math.isfinite(r.value) and r.value > 0
        assert r.goal == bench.CASES[r.name].goal
        assert isinstance(r.passed, bool) and r.detail
        assert json.loads(json.dumps(r.as_dict())) == r.as_dict()
        assert set(r.as_dict()) == {"name", "value", "unit", "goal", "passed", "detail"}
    assert paging.unit == "x"
    assert paging.passed == (paging.value <= 2)
    assert "400 questions" in paging.detail and "2,000 questions" in paging.detail
    assert "WRONG PAGES" not in paging.detail
    assert autosave.unit == "x dict"
    assert " ms" in autosave.detail and "µs" in autosave.detail
    # Progress names each case as it starts and ends; temporary projects are gone.
    assert any(m.startswith("question_paging: running") for m in messages)
    assert any(m.startswith("autosave_label_write:") and "x dict" in m for m in messages)
    assert list(tmp_path.iterdir()) == []
    assert bench._progress is None


def test_run_all_cases_by_default(scratch_cases, monkeypatch):
    scratch_cases.clear()
    monkeypatch.setattr(bench, "CASE_MODULES", [])  # only the case registered here

    @bench_case("constant", goal="== 1")
    def constant(quick: bool) -> BenchResult:
        return BenchResult("constant", 1.0, "x", "== 1", True, f"quick={quick}")

    assert run_cases(None, quick=False, progress=None) == [
        BenchResult("constant", 1.0, "x", "== 1", True, "quick=False")
    ]


def test_unknown_case_lists_known_names():
    with pytest.raises(ValueError) as info:
        run_cases(["question_paging", "warp_drive"], quick=True, progress=None)
    message = str(info.value)
    assert "warp_drive" in message
    assert "question_paging" in message and "autosave_label_write" in message


def test_registering_from_another_module(scratch_cases, monkeypatch, tmp_path):
    (tmp_path / "extra_bench_cases.py").write_text(
        "from app.perf.harness import BenchResult, bench_case, report\n"
        "@bench_case('extra_case', goal='>= 0')\n"
        "def extra_case(quick):\n"
        "    report('extra_case: counting')\n"
        "    return BenchResult('extra_case', 3.0, 'x', '>= 0', True, 'three')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(bench, "CASE_MODULES", [*bench.CASE_MODULES, "extra_bench_cases"])
    messages: list[str] = []
    try:
        (result,) = run_cases(["extra_case"], quick=True, progress=messages.append)
        assert result.value == 3.0 and "extra_case" in bench.known_cases()
        assert "extra_case: counting" in messages
        # Importing the module again (a reload) does not count as a clash ...
        importlib.reload(importlib.import_module("extra_bench_cases"))
    finally:
        sys.modules.pop("extra_bench_cases", None)

    # ... but another function taking a registered name does.
    with pytest.raises(ValueError, match="already registered"):

        @bench_case("extra_case", goal="")
        def impostor(quick: bool) -> BenchResult:  # pragma: no cover - never runs
            raise AssertionError


def test_measure_paging_fetches_full_pending_pages(tmp_path, monkeypatch):
    monkeypatch.setenv(bench.BENCH_DIR_ENV, str(tmp_path))
    m = measure_paging(400, 2_000, repeats=3)
    assert (m.small.questions, m.large.questions) == (400, 2_000)
    assert (m.small.pending, m.large.pending) == (200, 1_000)  # half of them wait
    for profile in (m.small, m.large):
        assert profile.page_rows == (100, 100)
        assert profile.statuses == {"pending"}
        assert profile.first_ms > 0 and profile.deep_ms > 0
    assert (m.small.deep_page, m.large.deep_page) == (1, 5)  # halfway into the list
    assert m.ratio == max(m.ratio_first, m.ratio_deep) > 0
    assert m.ratio_first == pytest.approx(m.large.first_ms / m.small.first_ms)
    assert list(tmp_path.iterdir()) == []


def test_measure_autosave(tmp_path, monkeypatch):
    monkeypatch.setenv(bench.BENCH_DIR_ENV, str(tmp_path))
    m = measure_autosave(25)
    assert m.writes == 25
    assert m.labels_stored == 25 + bench_store.AUTOSAVE_WARMUP  # every write was committed
    assert 0 < m.write_median_ms <= m.write_p90_ms
    assert m.dict_us > 0
    assert m.ratio == pytest.approx(m.write_median_ms * 1000 / m.dict_us)


def test_format_results():
    text = bench.format_results(
        [
            BenchResult("a", 1.5, "x", "<= 2", True, "fine"),
            BenchResult("longer_name", 3.0, "x", "<= 2", False, "slow"),
        ]
    )
    lines = text.splitlines()
    assert len(lines) == 2
    assert "pass" in lines[0] and "FAIL" in lines[1] and "slow" in lines[1]
