"""Import bimanual evaluation logs: BiManiBench / ST-BiBench folders, EmbodiedBench step logs.

`bimanibench` and `embodiedbench` read and check a log into episodes (`common`
has what they share, and stores them in one transaction). See docs/bimanual-logs.md.
"""

from __future__ import annotations

import os

from annotation.bimanual.pose import DEFAULT_ORDER
from app.io.bimanual.bimanibench import read_bimanibench
from app.io.bimanual.common import store_bimanual
from app.io.bimanual.embodiedbench import read_embodiedbench


def import_bimanual(
    db: str | os.PathLike[str],
    source: str | os.PathLike[str],
    fmt: str,
    *,
    model: str | None = None,
    pose_order: str = DEFAULT_ORDER,
) -> tuple[int, int]:
    """Read a BiManiBench ("bimanibench") or EmbodiedBench ("embodiedbench") log and store
    it in one transaction; return (episodes, format-error steps recorded)."""
    if fmt == "bimanibench":
        episodes = read_bimanibench(source, model=model, pose_order=pose_order)
    else:
        episodes = read_embodiedbench(source, model=model, pose_order=pose_order)
    return store_bimanual(db, episodes, str(source))
