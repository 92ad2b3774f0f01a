"""Scene work shared by the CLI, the GUI and the demo: generate and store, export."""

from __future__ import annotations

import json
import os

from annotation.progress import Progress
from app.io.jsonl import write_lines
from sim.robotiq import DEFAULT_GRIPPER
from sim.tabletop.scenes import generate_scene, scene_record
from store import open_for_reading, open_project


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
    gripper: str = DEFAULT_GRIPPER,
    progress: Progress | None = None,
) -> list[int]:
    """Generate `n` scenes with seeds seed .. seed+n-1 and store each as it is made; the
    robot carries `gripper` ("2f140" or "2f85"), recorded with each scene."""
    progress = progress or Progress()
    ids = []
    with open_project(db) as project:
        for i in range(n):
            progress.report(i, n, f"Scene {i + 1} of {n} (seed {seed + i})")
            scene = generate_scene(seed + i, objects=objects, gripper=gripper)
            try:
                ids.append(project.scenes.add(scene_record(scene)))
            finally:
                scene.world.close()
        progress.report(n, n, f"{n} scenes stored")
    return ids


def export_scenes(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Write every scene as one JSON line (reasonscope-scene/1), all or nothing; return how many."""
    with open_for_reading(db) as project:
        lines = [json.dumps(project.scenes.get(i).export_record()) for i in project.scenes.ids()]
    write_lines(out, lines)
    return len(lines)
