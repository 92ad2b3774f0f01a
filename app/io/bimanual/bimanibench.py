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
    BENCHMARK,
    LogError,
    Record,
    harness_plan,
    harness_step,
    harness_vla_step,
    outcome_fields,
    read_records,
    split_vlmout,
    vla_chunk,
    vla_plan,
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
    return sorted(
        found, key=lambda p: (_number(p.parent.name, _ROUND_DIR), _number(p.name), str(p))
    )


def _number(name: str, pattern: re.Pattern = _EPISODE_DIR) -> int:
    m = pattern.match(name)
    return int(m.group(1)) if m else 0


def _run_root(episode_dir: Path) -> Path | None:
    """The evaluation's save folder (the one holding obsimg/ and the record files), if any."""
    return next((p.parent for p in episode_dir.resolve().parents if p.name == "obsimg"), None)


def _log_error(path: Path, exc: LogError) -> ProjectError:
    return ProjectError(f"{path}:{exc.line}: {exc}" if exc.line else f"{path}: {exc}")


def _run_facts(root: Path) -> dict[str, Any]:
    """Records, model and task as the run folder's files and path tell them; a record
    line the harness cannot have written refuses the import with FILE:LINE."""
    facts: dict[str, Any] = {"success": [], "failed": [], "have_records": False}
    for kind in ("success", "failed"):
        path = root / f"{kind}_record.txt"
        if path.is_file():
            text = read_text(path)
            try:
                facts[kind], total = read_records(text, kind)
            except LogError as exc:
                raise _log_error(path, exc) from None
            facts["have_records"] = True
            facts[f"{kind}_path"] = path
            if total is not None and total[0] != len(facts[kind]):
                raise ProjectError(
                    f"{path}:{len(text.splitlines())}: says {total[0]} successes"
                    f" but the file has {len(facts[kind])} success lines"
                )
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


def _check_records(
    facts: dict[str, Any],
    vlmout: Path,
    plans: dict[int, Any],
    successes: list[Record],
    failures: list[Record],
    *,
    rows: bool = False,
) -> None:
    """Records vlmout.txt cannot have led to refuse the import: the harness stops right
    after the step that succeeded, and a failure names a dict action of its step (in the
    fine-control tier, `rows`, any item of its step)."""
    last = max(plans, default=-1)
    for rec in successes:
        if rec.action_count != last:
            raise ProjectError(
                f"{vlmout}: ends at step {last}, but "
                f"{facts['success_path']}:{rec.line} records success at "
                f"step {rec.action_count}"
            )
    for rec in failures:
        plan = plans.get(rec.action_count)
        items = plan if isinstance(plan, list) else []
        it = rec.action_it if rec.action_it is not None else -1
        if not (0 <= it < len(items)) or not (rows or isinstance(items[it], dict)):
            raise ProjectError(
                f"{facts['failed_path']}:{rec.line}: step {rec.action_count}"
                f" action {it} is not an action {vlmout} ran"
            )


def _vla_plans(vlmout: Path, text: str, replies: list[tuple[int, str]]) -> dict[int, Any]:
    """Each step's plan as the fine-control planner took it; a plan it fails on before
    logging (a non-empty object, a number) refuses the import at the reply's line."""
    plans = {}
    for n, raw in replies:
        try:
            plans[n] = vla_plan(raw)[0]
        except LogError as exc:
            mark = re.search(rf"^step {n}:", text, re.M)
            line = text.count("\n", 0, mark.start()) + 2 if mark else None
            raise _log_error(vlmout, LogError(f"step {n}: {exc}", line)) from None
    return plans


def _ran(folder: Path, n: int) -> set[int] | None:
    """The actions of step n that left a per-action view (obsimg_N-M/obsimg_II.jpg), or
    None without that folder."""
    views = folder / f"obsimg_{n:04d}-{n + 1:04d}"
    if not views.is_dir():
        return None
    names = (re.fullmatch(r"obsimg_(\d+)\.jpg", p.name) for p in views.iterdir())
    return {int(m.group(1)) for m in names if m}


def _bimanibench_episode(
    folder: Path, source: Path, model: str | None, pose_order: str
) -> ImportedEpisode:
    vlmout = folder / "vlmout.txt"
    if not vlmout.is_file():
        raise ProjectError(f"{vlmout}: missing (every episode folder needs its vlmout.txt)")
    text = read_text(vlmout)
    try:
        replies = split_vlmout(text)
    except LogError as exc:
        raise _log_error(vlmout, exc) from None
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
    rows = header["tier"] == "low_level"  # script/myvlmEb_eval_vla.py: 16-number rows
    plans = (
        _vla_plans(vlmout, text, replies)
        if rows
        else {n: harness_plan(raw)[0] for n, raw in replies}
    )
    if facts["have_records"]:
        _check_records(facts, vlmout, plans, successes, failures, rows=rows)
    for n, raw in replies:
        shas = {view: add_image(episode, path) for view, path in sorted(images.get(n, {}).items())}
        result: dict[str, Any] = {"vlmout_step": n, "images": shas}
        done = any(s.action_count == n for s in successes)
        if done:
            result["task_success"] = True
        failed = {x.action_it: x.message for x in failures if x.action_count == n}
        kwargs = {
            "failed": failed,
            "ran": _ran(folder, n),
            "have_records": facts["have_records"],
            "pose_order": pose_order,
            "result": result,
            "image_sha256": shas.get("head"),
        }
        step = (
            harness_vla_step(raw, chunk=vla_chunk(task), **kwargs)
            if rows
            else harness_step(raw, task_done=done, **kwargs)
        )
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
