"""How a metric's `settings` (the choices behind its numbers, docs/metrics.md) read as one
sentence: the footnote under a Results table and the note of a CSV or LaTeX export."""

from __future__ import annotations

from collections.abc import Mapping


def settings_text(settings: Mapping[str, str] | None) -> str:
    """ "Computed with: key: value; ...." ("" when there are none)."""
    if not settings:
        return ""
    parts = [f"{key.replace('_', ' ')}: {value}" for key, value in settings.items()]
    return "Computed with: " + "; ".join(parts) + "."
