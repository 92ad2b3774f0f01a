"""Averages over a benchmark's whole column set, as the papers' "Avg." columns are.

A results row that lacks a column (a model run on three of four tasks, a spatial
run on one setting) has no average: averaging only the columns it has would rank a
model that did one easy task above one that did them all. Such a row is reported
as incomplete, with the columns it lacks. A cell's rate is a percentage (`pct`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

#: How `full_mean` averages, for the `settings` of the metrics that use it.
AVERAGE_RULE = (
    "mean over every column (task or setting), each weighing the same; "
    "null for a row that lacks any column (shown as incomplete)"
)


def pct(part: int, whole: int) -> float | None:
    """`part` as a percentage of `whole`, or None when there is nothing to divide by."""
    return None if whole == 0 else 100.0 * part / whole


def full_mean(
    values: Mapping[str, float | None], columns: Sequence[str]
) -> tuple[float | None, list[str]]:
    """(mean of `values[c]` over every column c, columns without a value); the mean is
    None when any column lacks a value, or when there are no columns."""
    missing = [c for c in columns if values.get(c) is None]
    if missing or not columns:
        return None, missing
    return sum(values[c] for c in columns) / len(columns), []


def average_text(value: float | None, missing: Sequence[str], digits: int = 1) -> str:
    """An average as a report prints it: the value, or "incomplete (no X, Y)"."""
    if value is not None:
        return f"{value:.{digits}f}"
    return f"incomplete (no {', '.join(missing)})" if missing else "-"
