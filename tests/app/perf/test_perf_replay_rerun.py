"""The `episode_rerun_export` bench case without rerun-sdk: reported skipped with the pip
line, so `reasonscope bench` still runs the other cases."""

from __future__ import annotations

import math
import sys

from app.perf import harness
from app.perf import replay as case


def test_without_rerun_sdk_the_case_is_skipped_with_the_pip_line(monkeypatch):
    monkeypatch.setitem(sys.modules, "rerun", None)
    result = harness.CASES[case.RERUN_NAME].fn(True)
    assert result.skipped and math.isnan(result.value)
    assert "pip install 'reasonscope[rerun]'" in result.detail
    assert result.goal == case.RERUN_GOAL
