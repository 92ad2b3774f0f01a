"""Scene work shared by the CLI, the GUI and the demo: generate and store, export."""

from __future__ import annotations

import json
import os
from pathlib import Path

from annotation.progress import Progress
from app.io.jsonl import write_lines
from app.jobs.batch import run_batch
from sim.robotiq import DEFAULT_GRIPPER
from sim.tabletop.scenes import generate_scene, scene_record
from store import ProjectError, open_for_reading, open_project


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


def make_scene_record(task: tuple[int, tuple[int, int], str]) -> dict:
    """One scene as plain data (a batch worker's job): (seed, objects, gripper) -> record."""
    seed, objects, gripper = task
    scene = generate_scene(seed, objects=objects, gripper=gripper)
    try:
        return scene_record(scene)
    finally:
        scene.world.close()


def generate_and_store(
    db: str | os.PathLike[str],
    *,
    n: int,
    seed: int,
    objects: tuple[int, int] = (8, 15),
    gripper: str = DEFAULT_GRIPPER,
    progress: Progress | None = None,
    workers: int = 1,
    ray_address: str | None = None,
    resume: bool = False,
    report: list | None = None,
) -> list[int]:
    """Generate `n` scenes with seeds seed .. seed+n-1 and store each as it comes back; the
    robot carries `gripper` ("2f140" or "2f85"), recorded with each scene. With `workers`
    or `ray_address` the scenes are made on Ray (app.jobs.batch); with `resume`, seeds
    that already have a generated scene in the project are skipped. Returns the new ids;
    `report`, when given, receives the `BatchReport` (failures and how it ran)."""
    ids: list[int] = []
    with open_project(db) as project:
        seeds = list(range(seed, seed + n))
        if resume:
            have = {s.seed for s in project.scenes.list(limit=10**9)}
            seeds = [s for s in seeds if s not in have]
        batch = run_batch(
            [(s, objects, gripper) for s in seeds],
            make_scene_record,
            lambda _task, record: ids.append(project.scenes.add(record)),
            workers=workers,
            ray_address=ray_address,
            progress=progress,
            describe=lambda task: f"seed {task[0]}",
            noun="scene",
        )
    if report is not None:
        report.append(batch)
    return ids


def create_scene(
    db: str | os.PathLike[str], spec_path: str | os.PathLike[str], *, gripper: str = DEFAULT_GRIPPER
) -> int:
    """Build the scene a reasonscope-scene-spec/1 file describes, settle it and store it;
    return its id. A bad file or an unusable scene raises ProjectError naming the file."""
    from sim.tabletop.authoring.scenes import (
        SceneSpecError,
        authored_record,
        build_scene,
        read_scene_spec,
    )

    try:
        data = json.loads(Path(spec_path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ProjectError(f"{spec_path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ProjectError(f"{spec_path}: cannot read it ({exc})") from None
    except json.JSONDecodeError as exc:
        raise ProjectError(f"{spec_path}:{exc.lineno}: not JSON ({exc.msg})") from None
    try:
        spec = read_scene_spec(data)
        scene = build_scene(spec, gripper=gripper)
    except (SceneSpecError, ValueError) as exc:
        raise ProjectError(f"{spec_path}: {exc}") from None
    try:
        record = authored_record(scene)
    finally:
        scene.world.close()
    with open_project(db) as project:
        return project.scenes.add(record)


def export_scenes(db: str | os.PathLike[str], out: str | os.PathLike[str]) -> int:
    """Write every scene as one JSON line (reasonscope-scene/1), all or nothing; return how many."""
    with open_for_reading(db) as project:
        lines = [json.dumps(project.scenes.get(i).export_record()) for i in project.scenes.ids()]
    write_lines(out, lines)
    return len(lines)
