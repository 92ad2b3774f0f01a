"""Read EmbodiedBench step logs: ``episode_{i}_step_{n}.json`` plus ``results/episode_{i}_final_res.json``.

EmbodiedBench rewrites an episode's log after every step, so the files of one
episode overlap; entries are merged by their ``env_step`` (a later file wins).
A file may hold a JSON list of step dicts, one dict, or one dict a line.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from annotation.bimanual.logs import BENCHMARK, outcome_fields, reply_step
from annotation.bimanual.pose import DEFAULT_ORDER
from app.io.bimanual.common import ImportedEpisode, add_image, check_order, read_text
from store import ProjectError

_STEP_FILE = re.compile(r"episode_(\d+)_step_(\d+)\.json$")
_FINAL_FILE = re.compile(r"episode_(\d+)_final_res\.json$")
_IMAGE = re.compile(r"episode_(\d+)_step_(\d+)(?:_[^/]*)?\.(?:png|jpe?g)$", re.I)


def _entries(path: Path) -> list[dict[str, Any]]:
    """The step dicts of one step file; anything else names the file and refuses."""
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        try:  # one JSON object a line
            data = [json.loads(line) for line in text.splitlines() if line.strip()]
        except json.JSONDecodeError:
            raise ProjectError(
                f"{path}:{exc.lineno}: not a JSON list of step objects ({exc.msg})"
            ) from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list) or not data:
        raise ProjectError(f"{path}: not a JSON list of step objects")
    for k, entry in enumerate(data):
        if not isinstance(entry, dict):
            raise ProjectError(f"{path}: entry {k} is {type(entry).__name__}, not an object")
    return data


def _final(path: Path) -> bool | None:
    text = read_text(path)
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ProjectError(f"{path}: not a JSON object")
    for key in ("task_success", "success", "episode_success"):
        value = data.get(key)
        if isinstance(value, (bool, int, float)):
            return bool(value >= 1) if not isinstance(value, bool) else value
    return None


def _ok(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, (int, float)):
        return value >= 1
    return None


def _episode(
    i: int, files: list[tuple[int, Path]], final: Path | None, images: dict[int, Path],
    model: str, task: str, pose_order: str,
) -> ImportedEpisode:  # fmt: skip
    merged: dict[Any, dict[str, Any]] = {}
    for n, path in sorted(files):
        for k, entry in enumerate(_entries(path)):
            step = entry.get("env_step")
            key = (0, step) if isinstance(step, int) else (1, n, k)
            merged[key] = entry
    success = _final(final) if final is not None else None
    header = {
        "benchmark": BENCHMARK,
        "model": model,
        "agent": "embodiedbench",
        "mode": "manipulation",
        "task": task,
        **outcome_fields(success),
        "pose_order": pose_order,
        "log_format": "embodiedbench",
        "episode": i,
        "uid": f"embodiedbench:{task or '-'}:{model or '-'}:episode{i}",
    }
    episode = ImportedEpisode(str(files[-1][1]), header, [])
    for key in sorted(merged, key=lambda k: (k[0], *k[1:])):
        entry = merged[key]
        env_step = entry.get("env_step")
        image = images.get(env_step) if isinstance(env_step, int) else None
        sha = add_image(episode, image) if image is not None else None
        result = {
            k: entry[k]
            for k in ("env_step", "action_id", "action_description", "task_success",
                      "task_progress", "reward")
            if k in entry
        }  # fmt: skip
        raw = entry.get("reasoning")
        step = reply_step(
            raw if raw is not None else "",
            feedback=str(entry.get("env_feedback") or ""),
            ok=_ok(entry.get("last_action_success")),
            pose_order=pose_order,
            result=result,
            image_sha256=sha,
        )
        episode.steps.append(step)
    return episode


def read_embodiedbench(
    source: str | os.PathLike[str], *, model: str | None = None, pose_order: str = DEFAULT_ORDER
) -> list[ImportedEpisode]:
    """Every episode of an EmbodiedBench log folder, read and checked.

    The task is the name of the folder holding the step files (EmbodiedBench's
    eval set), the model the name of the folder above it unless `model` is given.
    """
    check_order(pose_order)
    source = Path(source)
    if not source.is_dir():
        raise ProjectError(f"{source}: no such folder")
    steps: dict[int, list[tuple[int, Path]]] = {}
    finals: dict[int, Path] = {}
    images: dict[int, dict[int, Path]] = {}
    for path in sorted(source.rglob("episode_*")):
        if not path.is_file():
            continue
        if m := _STEP_FILE.match(path.name):
            steps.setdefault(int(m.group(1)), []).append((int(m.group(2)), path))
        elif m := _FINAL_FILE.match(path.name):
            finals[int(m.group(1))] = path
        elif m := _IMAGE.match(path.name):
            images.setdefault(int(m.group(1)), {}).setdefault(int(m.group(2)), path)
    if not steps:
        raise ProjectError(f"{source}: no episode_*_step_*.json files in it")
    out = []
    for i in sorted(steps):
        folder = steps[i][0][1].parent
        task = folder.name
        model_name = model or folder.parent.name
        out.append(_episode(i, steps[i], finals.get(i), images.get(i, {}), model_name, task,
                            pose_order))  # fmt: skip
    return out
