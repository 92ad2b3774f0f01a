"""The settings of a run: what makes two sets of episodes incomparable.

A result table adds up episodes only when they were recorded under the same settings
(prompt variant, image size, cameras, step limit, ...). A run's settings are a tuple of
(key, value) pairs read from the episode header by each benchmark's `run_settings`;
`run_label` prints them in a row.
"""

from __future__ import annotations

import json
from typing import Any

Run = tuple[tuple[str, Any], ...]


def plain_setting(value: Any) -> Any:
    """A setting as a row key: text and numbers as they are, anything else (a list of
    cameras, or whatever an imported header holds) as compact JSON text, as SQLite's JSON
    functions give it."""
    if isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, separators=(",", ":"))


def run_label(run: Run | dict[str, Any]) -> str:
    """A run's settings as a row shows them, e.g. "plain, 1024x1024 px, 2f140"."""
    parts = []
    for key, value in dict(run).items():
        if value in (None, ""):
            continue
        if key == "image_size":
            parts.append(f"{value} px")
        elif key == "perceiver":
            parts.append(f"{value} perceiver")
        elif key == "segmenter":
            parts.append(f"{value} segmenter")
        elif key == "max_steps":
            parts.append(f"max {value} steps")
        elif key == "truncate":
            parts.append(f"first {value} actions")
        elif key == "example":  # "harness", or "harness+picture" with the task's picture
            base, _, extra = str(value).partition("+")
            parts.append(f"{base} example" + (f" + {extra}" if extra else ""))
        elif key == "cameras":
            parts.append(_cameras(value))
        else:
            parts.append(str(value))
    return ", ".join(parts)


def _cameras(value: Any) -> str:
    try:
        names = json.loads(value) if isinstance(value, str) else value
    except json.JSONDecodeError:
        return str(value)
    if isinstance(names, list) and all(isinstance(n, str) for n in names):
        return " + ".join(names) + (" camera" if len(names) == 1 else " cameras")
    return str(value)
