"""Read BiManiBench / ST-BiBench evaluation folders (`vlmout.txt`, `obsimg_*`, records).

Everything is read and checked before anything is stored; model replies that
cannot be read are data: format-error steps. See docs/bimanual-logs.md.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from annotation.bimanual.logs import (
    ACTION_EMPTY,
    ACTION_SUCCEEDED,
    BENCHMARK,
    LogError,
    Record,
    outcome_fields,
    read_records,
    reply_step,
    split_vlmout,
)
from annotation.bimanual.pose import DEFAULT_ORDER
from app.io.bimanual.common import ImportedEpisode, add_image, check_order, read_text
from store import ProjectError

_EPISODE_DIR = re.compile(r"episode(\d+)$")
_ROUND_DIR = re.compile(r"round(\d+)$")
_OBSIMG = re.compile(r"obsimg_(?:(?P<view>[A-Za-z]+)_)?(?P<n>\d+)\.(?:jpe?g|png)$", re.I)
_TIERS = ("high_level", "low_level")


# -- BiManiBench / ST-BiBench -------------------------------------------------------------
def _episode_dirs(source: Path) -> list[Path]:
    """Folders named episodeN, or holding a vlmout.txt or obsimg_N.jpg views, under source."""
    if not source.is_dir():
        raise ProjectError(f"{source}: no such folder (give a run folder or an episode folder)")
    found = {p.parent for p in source.rglob("vlmout.txt")}
    found |= {p for p in [source, *source.rglob("episode*")] if _EPISODE_DIR.match(p.name)}
    found |= {p.parent for p in source.rglob("obsimg_*") if _OBSIMG.match(p.name)}
    # the per-action views (obsimg_0001-0002/obsimg_00.jpg) belong to their episode
    found = {p for p in found if p.is_dir() and not re.match(r"obsimg_\d+-\d+$", p.name)}
    if not found:
        raise ProjectError(f"{source}: no episode folder (vlmout.txt with obsimg_*.jpg) in it")
    return sorted(found, key=lambda p: (_number(p.parent.name, _ROUND_DIR), _number(p.name),
                                        str(p)))  # fmt: skip


def _number(name: str, pattern: re.Pattern = _EPISODE_DIR) -> int:
    m = pattern.match(name)
    return int(m.group(1)) if m else 0


def _run_root(episode_dir: Path) -> Path | None:
    """The evaluation's save folder (the one holding obsimg/ and the record files), if any."""
    return next((p.parent for p in episode_dir.resolve().parents if p.name == "obsimg"), None)


def _run_facts(root: Path) -> dict[str, Any]:
    """Records, model and task as the run folder's files and path tell them."""
    facts: dict[str, Any] = {"success": [], "failed": [], "have_records": False}
    for kind in ("success", "failed"):
        path = root / f"{kind}_record.txt"
        if path.is_file():
            facts[kind] = read_records(read_text(path), kind)
            facts["have_records"] = True
    model_file = root / "model_name.txt"
    if model_file.is_file():
        names = re.findall(r"Model used:\s*(.+)", read_text(model_file))
        facts["model"] = names[-1].strip() if names else ""
    parts = root.resolve().parts
    tier = next((p for p in parts if p in _TIERS), "")
    facts["tier"] = tier
    tasks = {r.task for r in facts["success"] + facts["failed"]}
    if len(tasks) == 1:
        facts["task"] = tasks.pop()
    elif tier and parts.index(tier) + 1 < len(parts):
        facts["task"] = parts[parts.index(tier) + 1]
    return facts


def _feedback(
    n: int, failures: list[Record], have_records: bool, parsed_empty: bool
) -> tuple[str, bool | None]:
    """What the harness told the model after step n, rebuilt from the records."""
    failed = [r for r in failures if r.action_count == n]
    if failed:
        text = " ".join(
            r.message if r.message.startswith("Action failed") else f"Action failed: {r.message}"
            for r in failed
        )
        return text, False
    if not have_records:
        return "", None
    return (ACTION_EMPTY, None) if parsed_empty else (ACTION_SUCCEEDED, True)


def _bimanibench_episode(
    folder: Path, source: Path, model: str | None, pose_order: str
) -> ImportedEpisode:
    vlmout = folder / "vlmout.txt"
    if not vlmout.is_file():
        raise ProjectError(f"{vlmout}: missing (every episode folder needs its vlmout.txt)")
    try:
        replies = split_vlmout(read_text(vlmout))
    except LogError as exc:
        raise ProjectError(f"{vlmout}: {exc}") from None
    root = _run_root(folder)
    facts = _run_facts(root if root is not None else source)
    r, e = _number(folder.parent.name, _ROUND_DIR), _number(folder.name)
    successes = [x for x in facts["success"] if (x.round, x.episode) == (r, e)]
    failures = [x for x in facts["failed"] if (x.round, x.episode) == (r, e)]
    images: dict[int, dict[str, Path]] = {}
    for path in sorted(folder.iterdir()):
        m = _OBSIMG.match(path.name)
        if m and path.is_file():
            images.setdefault(int(m.group("n")), {})[(m.group("view") or "head").lower()] = path
    model_name = model or facts.get("model") or ""
    task, run = facts.get("task", ""), root.name if root is not None else ""
    header = {
        "benchmark": BENCHMARK,
        "model": model_name,
        "agent": "bimanibench",
        "mode": "manipulation",
        "task": task,
        **outcome_fields(bool(successes) if facts["have_records"] else None),
        "tier": facts.get("tier", ""),
        "pose_order": pose_order,
        "log_format": "bimanibench",
        "round": r,
        "episode": e,
        "uid": f"bimanibench:{task or '-'}:{model_name or '-'}:{run or '-'}:round{r}:episode{e}",
    }
    episode = ImportedEpisode(str(folder), header, [])
    for n, raw in replies:
        shas = {view: add_image(episode, path) for view, path in sorted(images.get(n, {}).items())}
        result: dict[str, Any] = {"vlmout_step": n, "images": shas}
        if any(s.action_count == n for s in successes):
            result["task_success"] = True
        step = reply_step(raw, pose_order=pose_order, result=result,
                          image_sha256=shas.get("head"))  # fmt: skip
        if step["kind"] == "format_error":
            if facts["have_records"]:  # the harness ran nothing for an unreadable reply
                step["result"]["env_feedback"] = ACTION_EMPTY
        else:
            empty = not step["arguments"]["plan"]
            step["feedback"], step["ok"] = _feedback(n, failures, facts["have_records"], empty)
        episode.steps.append(step)
    last = max((n for n, _ in replies), default=-1)
    final = images.get(last + 1, {}).get("head")
    if final is not None:  # the harness saves one more view after a success
        header["final_image_sha256"] = add_image(episode, final)
    return episode


def read_bimanibench(
    source: str | os.PathLike[str], *, model: str | None = None, pose_order: str = DEFAULT_ORDER
) -> list[ImportedEpisode]:
    """Every episode under a BiManiBench / ST-BiBench evaluation folder (a run, a round or
    one episode folder), read and checked; a structural problem raises ProjectError."""
    check_order(pose_order)
    source = Path(source)
    return [_bimanibench_episode(d, source, model, pose_order) for d in _episode_dirs(source)]


