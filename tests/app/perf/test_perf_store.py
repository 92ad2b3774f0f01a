"""The store's perf cases: what their measurements hold, never wall-clock limits."""

from __future__ import annotations

import pytest

from app.perf import harness
from app.perf import store as perf_store
from app.perf.store import measure_autosave, measure_paging


def test_measure_paging_fetches_full_pending_pages(tmp_path, monkeypatch):
    monkeypatch.setenv(harness.PERF_DIR_ENV, str(tmp_path))
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
    monkeypatch.setenv(harness.PERF_DIR_ENV, str(tmp_path))
    m = measure_autosave(25)
    assert m.writes == 25
    assert m.labels_stored == 25 + perf_store.AUTOSAVE_WARMUP  # every write was committed
    assert 0 < m.write_median_ms <= m.write_p90_ms
    assert m.dict_us > 0
    assert m.ratio == pytest.approx(m.write_median_ms * 1000 / m.dict_us)
