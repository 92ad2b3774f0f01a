"""Masks as run lengths, so a tool result that carries a mask stays small JSON."""

from __future__ import annotations

from typing import Any

import numpy as np


def encode_mask(mask: np.ndarray) -> dict[str, Any]:
    """Row-major run lengths, starting with a run of False (possibly empty)."""
    flat = np.asarray(mask, bool).ravel()
    change = np.flatnonzero(np.diff(flat.astype(np.int8))) + 1
    bounds = np.r_[0, change, flat.size]
    runs = np.diff(bounds).tolist()
    if flat.size and flat[0]:
        runs = [0, *runs]
    return {"shape": list(mask.shape), "runs": runs}


def decode_mask(data: dict[str, Any]) -> np.ndarray:
    """The inverse of `encode_mask`; ValueError names what is wrong with a bad record."""
    try:
        h, w = (int(v) for v in data["shape"])
        runs = [int(v) for v in data["runs"]]
    except (KeyError, TypeError, ValueError) as exc:
        raise ValueError(f"a mask needs 'shape' [h, w] and integer 'runs': {exc}") from None
    if sum(runs) != h * w or min(runs, default=0) < 0:
        raise ValueError(f"mask runs add up to {sum(runs)}, not {h}x{w}")
    values = np.zeros(len(runs), bool)
    values[1::2] = True
    return np.repeat(values, runs).reshape(h, w)
