"""Read EmbodiedBench logs: EB-ALFRED / EB-Habitat step logs and EB-Manipulation results.

Followed from the real writers (github:EmbodiedBench/EmbodiedBench, commit b247936):

- EB-ALFRED (`envs/eb_alfred/EBAlfEnv.py` save_episode_log, `evaluator/eb_alfred_evaluator.py`
  evaluate): at the episode's end ``<model>_<exp>/<eval_set>/episode_{i}_step_{n}.json``,
  one JSON dict a line in the order the entries happened (invalid and empty-plan entries
  carry no ``env_step``); ``images/episode_{i}/episode_{i}_step_{k}.png`` the view after
  env step k (k = 0 at reset); ``results/episode_{i}_final_res.json`` (task_success,
  planner_output_error, ...).
- EB-Manipulation (`evaluator/eb_manipulation_evaluator.py` save_episode_metric,
  save_planner_outputs): only ``results/episode_{i}_res.json`` and
  ``results/planner_output_episode_{i}.txt`` (each reply followed by a newline), with
  ``images/episode_{i}/episode_{i}_step_{k}_{view}.png``.

Each eval-set folder's episodes are their own (task = the set); nothing is merged by
episode number across sets.
"""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from annotation.bimanual.logs import BENCHMARK, outcome_fields, reply_step
from annotation.bimanual.pose import DEFAULT_ORDER
from annotation.formats import json_text
from annotation.formats.json_text import brief
from app.io.bimanual.common import ImportedEpisode, add_image, check_order, read_text
from store import ProjectError

_STEP_FILE = re.compile(r"episode_(\d+)_step_(\d+)\.json$")
_FINAL_FILE = re.compile(r"episode_(\d+)_(?:final_)?res\.json$")
_PLANNER_FILE = re.compile(r"planner_output_episode_(\d+)\.txt$")
_IMAGE = re.compile(r"episode_(\d+)_step_(\d+)(?:_(?P<view>[^/]*))?\.(?:png|jpe?g)$", re.I)
NUMBER = (int, float)


def _entries(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """(line, step dict) of one step file: one JSON dict a line as save_episode_log writes,
    or a JSON list of dicts, or one dict; anything else names the file and refuses."""
    text = read_text(path)
    try:
        data = json_text.loads(text, finite=True)
        rows = [(1, d) for d in (data if isinstance(data, list) else [data])]
    except json.JSONDecodeError as whole:
        rows = []
        for n, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append((n, json_text.loads(line, finite=True)))
            except json.JSONDecodeError as exc:
                at = n if len(text.splitlines()) > 1 else whole.lineno
                raise ProjectError(
                    f"{path}:{at}: not a JSON list of step objects ({exc.msg})"
                ) from None
    if not rows:
        raise ProjectError(f"{path}: not a JSON list of step objects")
    for k, (n, entry) in enumerate(rows):
        if not isinstance(entry, dict):
            raise ProjectError(f"{path}: entry {k} is {type(entry).__name__}, not an object")
        _check_types(path, n, entry)
    return rows


def _check_types(path: Path, line: int, entry: dict[str, Any]) -> None:
    """Keys the writers write as numbers must be numbers: refuse with FILE:LINE and key."""
    for key, kinds in (
        ("env_step", (int,)),
        ("last_action_success", NUMBER),
        ("task_success", NUMBER),
        ("task_progress", NUMBER),
        ("planner_output_error", (int,)),
        ("action_id", (int, str)),
    ):
        if key in entry:
            value = entry[key]
            if value is not None and (
                isinstance(value, bool)
                and key == "env_step"
                or not isinstance(value, (*kinds, bool))
            ):
                raise ProjectError(f"{path}:{line}: {key} is {brief(value)}, not a number")


def _final(path: Path) -> dict[str, Any]:
    text = read_text(path)
    try:
        data = json_text.loads(text, finite=True)
    except json.JSONDecodeError as exc:
        raise ProjectError(f"{path}:{exc.lineno}: not JSON ({exc.msg})") from None
    if not isinstance(data, dict):
        raise ProjectError(f"{path}: not a JSON object")
    _check_types(path, 1, data)
    return data


def _success(final: dict[str, Any] | None) -> bool | None:
    for key in ("task_success", "success", "episode_success"):
        value = (final or {}).get(key)
        if isinstance(value, bool):
            return value
        if isinstance(value, NUMBER):
            return value >= 1
    return None


def _ok(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, NUMBER):
        return value >= 1
    return None


def alfred_json_error(reasoning: Any) -> str:
    """Why EB-ALFRED's `VLMPlanner.json_to_action` (planner/vlm_planner.py) counted this
    reply in planner_output_error, or "" (an invalid action id is not counted)."""
    try:
        value = json.loads(reasoning) if isinstance(reasoning, str) else None
        if value is None:
            return "no reply"
        [x["action_id"] for x in value["executable_plan"]]  # noqa: B018  (the harness's read)
    except json.JSONDecodeError as exc:
        return f"json.loads failed ({exc})"
    except Exception as exc:  # the harness catches every other error and counts it too
        return f"the plan could not be read ({type(exc).__name__}: {exc})"
    return ""


def _header(i: int, task: str, model: str, pose_order: str, final: dict | None) -> dict:
    header = {
        "benchmark": BENCHMARK,
        "model": model,
        "agent": "embodiedbench",
        "mode": "manipulation",
        "task": task,
        **outcome_fields(_success(final)),
        "pose_order": pose_order,
        "log_format": "embodiedbench",
        "episode": i,
        "uid": f"embodiedbench:{task or '-'}:{model or '-'}:episode{i}",
    }
    if final is not None:
        header["planner_output_error"] = final.get("planner_output_error")
    return header


def _step(entry: dict[str, Any], pose_order: str, image: str | None) -> dict[str, Any]:
    result = {
        k: entry[k]
        for k in (
            "env_step",
            "action_id",
            "action_description",
            "task_success",
            "task_progress",
            "reward",
        )
        if k in entry
    }
    raw = entry.get("reasoning")
    step = reply_step(
        raw if raw is not None else "",
        feedback=str(entry.get("env_feedback") or ""),
        ok=_ok(entry.get("last_action_success")),
        pose_order=pose_order,
        result=result,
        image_sha256=image,
    )
    why = alfred_json_error(raw) if entry.get("action_id") == -1 else ""
    if why:  # counted in planner_output_error: nothing ran
        step["result"]["format_error"] = why
        if step["kind"] == "action":
            step["result"]["suggestion"] = {
                "arguments": step["arguments"],
                "note": "not executed: a repaired reading",
            }
        step.update(kind="format_error", arguments={}, ok=False, feedback=f"Format error: {why}")
    elif step["kind"] == "format_error" and "env_step" in entry:  # it ran: not our call
        step.update(
            kind="action",
            arguments={"tier": "", "pose_order": pose_order, "plan": []},
            feedback=str(entry.get("env_feedback") or ""),
            ok=_ok(entry.get("last_action_success")),
        )
    return step


def _images(folder: Path, i: int) -> dict[int, Path]:
    """Episode i's views by env step (the front view when there are several)."""
    out: dict[int, Path] = {}
    for path in sorted((folder / "images" / f"episode_{i}").glob("*")) + sorted(folder.glob("*")):
        m = _IMAGE.match(path.name)
        if m and int(m.group(1)) == i and path.is_file():
            k = int(m.group(2))
            if k not in out or "front" in (m.group("view") or ""):
                out[k] = path
    return out


def _alfred_episode(i, files, final_path, folder, model, pose_order) -> ImportedEpisode:  # noqa: ANN001
    path = max(files)[1]  # the log is written whole once; the last file holds every entry
    final = _final(final_path) if final_path is not None else None
    episode = ImportedEpisode(str(path), _header(i, folder.name, model, pose_order, final), [])
    views = _images(folder, i)
    env_step, prev = 0, None
    for _line, entry in _entries(path):
        new_reply = (
            prev is None
            or "env_step" not in prev
            or (entry.get("reasoning") != prev.get("reasoning"))
        )
        image = views.get(env_step) if new_reply else None
        sha = add_image(episode, image) if image is not None else None
        episode.steps.append(_step(entry, pose_order, sha))
        if isinstance(entry.get("env_step"), int):
            env_step = entry["env_step"]
        prev = entry
    attached = {s["image_sha256"] for s in episode.steps}
    last = views.get(env_step)
    if last is not None and add_image(episode, last) not in attached:  # the view after the end
        episode.header["final_image_sha256"] = add_image(episode, last)
    return episode


def split_planner_outputs(text: str) -> list[str]:
    """The replies of a planner_output_episode_N.txt: each was written followed by "\\n";
    a reply that is JSON ends where the JSON ends, any other runs to the next line that
    opens an object."""
    decoder, out, p = json.JSONDecoder(), [], 0
    while p < len(text):
        try:
            _value, end = decoder.raw_decode(text, p)
        except (json.JSONDecodeError, RecursionError):
            nxt = text.find("\n{", p)
            end = len(text) - 1 if nxt < 0 else nxt
            if text.endswith("\n") and end == len(text):
                end -= 1
        out.append(text[p:end])
        p = end + 1 if text[end : end + 1] == "\n" else end
        if p == end:
            p += 1
    return out


def _manip_episode(i, res_path, planner_path, folder, model, pose_order) -> ImportedEpisode:  # noqa: ANN001
    final = _final(res_path)
    episode = ImportedEpisode(str(res_path), _header(i, folder.name, model, pose_order, final), [])
    views = _images(folder, i)
    env_step = 0
    replies = split_planner_outputs(read_text(planner_path)) if planner_path else []
    for raw in replies:
        image = views.get(env_step)
        sha = add_image(episode, image) if image is not None else None
        step = reply_step(raw, pose_order=pose_order, image_sha256=sha)
        why = alfred_json_error(raw) if not raw.strip() or raw.lstrip()[:1] != "{" else ""
        try:
            json_text.loads(raw)
        except ValueError as exc:
            why = why or f"json.loads failed ({exc})"
        if why:  # the evaluator counted it and ran a random action in its place
            step["result"]["format_error"] = why
            step.update(
                kind="format_error",
                ok=False,
                feedback=f"Format error: {why} (the evaluator ran a random action)",
            )
        env_step += len(step["arguments"].get("plan") or []) if not why else 1
        episode.steps.append(step)
    last = views.get(max(views, default=-1))
    if last is not None and add_image(episode, last) not in {
        s["image_sha256"] for s in episode.steps
    }:
        episode.header["final_image_sha256"] = add_image(episode, last)
    return episode


def read_embodiedbench(
    source: str | os.PathLike[str], *, model: str | None = None, pose_order: str = DEFAULT_ORDER
) -> list[ImportedEpisode]:
    """Every episode of an EmbodiedBench log folder (a model folder or one eval set), read
    and checked; each eval set's episodes are their own (task = the set's folder name, the
    model the folder above it unless `model` is given)."""
    check_order(pose_order)
    source = Path(source)
    if not source.is_dir():
        raise ProjectError(f"{source}: no such folder")
    sets: dict[Path, dict[str, dict[int, Any]]] = {}
    for path in sorted(source.rglob("*")):
        if not path.is_file() or "images" in path.relative_to(source).parts[:-1]:
            continue
        folder = path.parent.parent if path.parent.name == "results" else path.parent
        kinds = sets.setdefault(folder, {"steps": {}, "final": {}, "planner": {}})
        if m := _STEP_FILE.match(path.name):
            kinds["steps"].setdefault(int(m.group(1)), []).append((int(m.group(2)), path))
        elif m := _FINAL_FILE.match(path.name):
            kinds["final"][int(m.group(1))] = path
        elif m := _PLANNER_FILE.match(path.name):
            kinds["planner"][int(m.group(1))] = path
    out = []
    for folder, kinds in sorted(sets.items()):
        name = model or folder.parent.name
        for i in sorted(kinds["steps"]):
            out.append(
                _alfred_episode(
                    i, kinds["steps"][i], kinds["final"].get(i), folder, name, pose_order
                )
            )
        if not kinds["steps"]:  # EB-Manipulation: results and planner outputs only
            for i in sorted(
                set(kinds["planner"])
                | {
                    i
                    for i, p in kinds["final"].items()
                    if p.name.endswith("_res.json") and "final" not in p.name
                }
            ):
                if i in kinds["final"]:
                    out.append(
                        _manip_episode(
                            i, kinds["final"][i], kinds["planner"].get(i), folder, name, pose_order
                        )
                    )
    if not out:
        raise ProjectError(f"{source}: no episode_*_step_*.json files or results in it")
    return out
