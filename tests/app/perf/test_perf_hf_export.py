"""The HF export bench cases: they run on a tiny workload, and are reported skipped with the
pip line where the hf extra is not installed."""

from __future__ import annotations

import math
import sys

import pytest

from app.perf import hf_export
from app.perf.harness import run_cases


def test_without_the_extra_both_cases_are_skipped_with_the_pip_line(monkeypatch):
    for name in ("datasets", "pyarrow", "pyarrow.parquet"):
        monkeypatch.setitem(sys.modules, name, None)
    results = run_cases(["hf_export_overhead", "hf_export_memory"], quick=True)
    assert all(r.skipped and math.isnan(r.value) for r in results)
    assert all("pip install 'reasonscope[hf]'" in r.detail for r in results)


def test_the_overhead_case_runs_on_a_tiny_benchmark(monkeypatch):
    pytest.importorskip("datasets")
    monkeypatch.setattr(hf_export, "TASKS", ("count",))
    monkeypatch.setattr(hf_export, "THROUGHPUT_QUESTIONS", {True: 2, False: 2})
    (result,) = run_cases(["hf_export_overhead"], quick=True)
    assert not result.skipped and result.value > 0
    assert "2 questions with 1024 px views" in result.detail
