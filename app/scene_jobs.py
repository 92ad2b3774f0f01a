"""Scene work shared by the CLI, the GUI and the demo: generate and store, export."""

from __future__ import annotations

import json
import os
from pathlib import Path

from annotation.progress import Progress
from sim.scenes import generate_scene, scene_record
from store import ProjectError, open_project


def parse_object_range(text: str) -> tuple[int, int]:
    """'8-15' -> (8, 15); '10' -> (10, 10); within 1..15."""
    try:
        lo, _, hi = text.partition("-")
        lo_i, hi_i = int(lo), int(hi or lo)
    except ValueError:
        raise ValueError(f"--objects {text!r}: expected a count or a range like 8-15") from None
    if not 1 <= lo_i <= hi_i <= 15:
        raise ValueError(f"--objects {text!r}: counts must satisfy 1 <= low <= high <= 15")
    return lo_i, hi_i


def generate_and_store(
    db: str | os.PathLike[str],
    *,
    n: int,
    seed: int,
    objects: tuple[int, int] = (8, 15),
    progress: Progress | None = None,
) -> list[int]:
    """Generate `n` scenes with seeds seed .. seed+n-1 and store each as it is made."""
    progress = progress or Progress()
    ids = []
    with open_project(db) as project:
        for i in range(n):
            progress.report(i, n, f"Scene {i + 1} of {n} (seed {seed + i})")
            scene = generate_scene(seed + i, objects=objects)
            try:
                ids.append(project.scenes.add(scene_record(scene)))
            finally:
                scene.world.close()
        progress.report(n, n, f"{n} scenes stored")
    return ids


def export_scenes(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Write every scene as one JSON line (reasonscope-scene/1); return how many."""
    out = Path(out)
    if out.is_dir():
        raise ProjectError(f"{out}: is a directory; give a file name")
    if not out.parent.exists():
        raise ProjectError(f"{out}: folder {out.parent} does not exist")
    with open_project(db, readonly=not os.access(db, os.W_OK)) as project:
        ids = project.scenes.ids()
        tmp = out.with_name(out.name + ".partial")
        with tmp.open("w", encoding="utf-8") as fh:
            for scene_id in ids:
                fh.write(json.dumps(project.scenes.get(scene_id).export_record()) + "\n")
        os.replace(tmp, out)  # a failed export leaves no half-written file
    return len(ids)
