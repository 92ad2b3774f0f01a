"""The papers' "Avg." columns: a row's mean over every column, or incomplete."""

from __future__ import annotations

from annotation.averages import average_text, full_mean, pct


def test_pct_is_a_percentage_and_none_of_nothing():
    assert pct(1, 4) == 25.0
    assert pct(3, 3) == 100.0
    assert pct(0, 0) is None


def test_full_mean_weighs_every_column_the_same():
    assert full_mean({"a": 10.0, "b": 20.0, "c": 60.0}, ["a", "b", "c"]) == (30.0, [])
    # a column outside the set does not count
    assert full_mean({"a": 10.0, "b": 20.0, "z": 90.0}, ["a", "b"]) == (15.0, [])


def test_full_mean_of_a_row_lacking_a_column_is_none_with_the_columns_it_lacks():
    assert full_mean({"a": 10.0, "c": None}, ["a", "b", "c"]) == (None, ["b", "c"])
    assert full_mean({"a": 0.0}, ["a"]) == (0.0, [])
    assert full_mean({}, []) == (None, [])


def test_average_text():
    assert average_text(41.25, []) == "41.2"
    assert average_text(41.25, [], digits=2) == "41.25"
    assert average_text(None, ["Count", "Find"]) == "incomplete (no Count, Find)"
    assert average_text(None, []) == "-"
