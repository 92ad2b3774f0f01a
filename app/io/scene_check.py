"""Benchmark scenes restored before they are stored: each line's scene is restored and its
view measured once, as Verify and Explore restore it later (`sim.tabletop.restore`), so a
scene that cannot be restored (an asset file that is not there or not a URDF, a fixture
given as an object, a camera looking at itself, a body a kilometre away) is refused at the
import, naming its line, instead of failing when someone opens the question."""

from __future__ import annotations

import hashlib
import json
import os

from store import ProjectError


def check_scenes(records: list[dict], source: str | os.PathLike[str]) -> None:
    """Restore every distinct scene of `records` (line n is records[n - 1]); the first that
    fails raises `FILE:LINE: the scene does not restore (why)`."""
    from sim.tabletop.restore import check_restores

    done: set[str] = set()
    for number, record in enumerate(records, start=1):
        scene = record.get("scene")
        if scene is None:
            continue
        key = hashlib.sha256(
            json.dumps([scene["bodies"], scene["state"], scene["camera"]], sort_keys=True).encode()
        ).hexdigest()
        if key in done:
            continue
        try:
            check_restores(scene["bodies"], scene["state"], scene["camera"])
        except Exception as exc:  # noqa: BLE001  (PyBullet, numpy and our checks raise many kinds)
            text = " ".join(str(exc).split())
            why = f"{type(exc).__name__}: {text if len(text) <= 120 else text[:117] + '...'}"
            raise ProjectError(f"{source}:{number}: the scene does not restore ({why})") from None
        done.add(key)
