"""Replay in sim for Replay episodes: run a dual-arm episode's plans in our world (in a
worker), find the stored runs of an episode, and line a run's steps up with the record.

A replay in sim (`app.jobs.bimanual.replay_in_sim`) is stored as an episode of agent
"replay-in-sim" whose header names its source (`bimanual.source_episode`). Its step 0 is
the first observation; every later step re-runs one reply of the source, in order (the
source's own observation step, if any, has no counterpart) and keeps the recorded
index, ok and feedback in `result.recorded`.
"""

from __future__ import annotations

import html
import os
from typing import Any

from annotation.bimanual.metrics import REPLAY_IN_SIM_AGENT
from annotation.models import Episode
from annotation.progress import Progress
from sim.tabletop.replay import as_step
from store import open_project

OK_COLOUR, FAIL_COLOUR = "#1e7b3a", "#c0392b"


def run_replay_in_sim(path: str | os.PathLike[str], episode_id: int, progress: Progress) -> int:
    """Replay one episode in sim and store the run (the worker's own connection); return
    the stored run's episode id."""
    from app.jobs.bimanual import replay_in_sim

    with open_project(path) as project:
        report = replay_in_sim(project, episode_id, save=True, progress=progress)
        run_id = _run_id(report)
        if run_id is None:
            run = latest_sim_run(project, episode_id)
            run_id = run.id if run is not None else None
    if run_id is None:
        raise RuntimeError("the replay in sim was not stored")
    return int(run_id)


def _run_id(report: Any) -> int | None:
    for name in ("episode_id", "run_id", "saved_episode"):
        value = report.get(name) if isinstance(report, dict) else getattr(report, name, None)
        if isinstance(value, int):
            return value
    return None


def sim_runs(project, episode_id: int) -> list[Episode]:
    """The stored replays in sim of an episode, oldest first."""
    return [
        e
        for e in project.episodes.list()
        if e.agent == REPLAY_IN_SIM_AGENT
        and (e.header.get("bimanual") or {}).get("source_episode") == episode_id
    ]


def latest_sim_run(project, episode_id: int) -> Episode | None:
    runs = sim_runs(project, episode_id)
    return runs[-1] if runs else None


def comparisons_from_run(run_steps: list[Any], *, on_run: bool = False) -> dict[int, dict]:
    """Each replayed step next to the recorded one (the run keeps the record's index, ok and
    feedback in `result.recorded`), keyed by the source's step index or, `on_run`, by the
    run's: {"source_step", "run_step", "recorded_ok", "recorded_feedback", "our_ok",
    "our_feedback", "task_success", "same"}; "same" compares the outcomes (ok), as the
    feedback texts of other harnesses differ in wording."""
    out = {}
    for ri, ours in enumerate(map(as_step, run_steps)):
        result = ours.get("result") if isinstance(ours.get("result"), dict) else {}
        recorded = result.get("recorded")
        if ours.get("kind") == "observation" or not isinstance(recorded, dict):
            continue
        c = {
            "source_step": recorded.get("index"),
            "run_step": ri,
            "recorded_ok": recorded.get("ok"),
            "recorded_feedback": recorded.get("feedback") or "",
            "our_ok": ours.get("ok"),
            "our_feedback": ours.get("feedback") or "",
            "task_success": result.get("task_success"),
        }
        c["same"] = c["recorded_ok"] == c["our_ok"]
        out[ri if on_run else c["source_step"]] = c
    return out


def _verdict(ok: Any) -> str:
    if ok is None:
        return "–"
    colour = OK_COLOUR if ok else FAIL_COLOUR
    return f"<span style='color: {colour}'>{'✓' if ok else '✗'}</span>"


def replay_report_html(source: Episode, run: Episode, comparisons: dict[int, dict]) -> str:
    """The Re-simulation tab after a replay in sim: the run's outcome and link, then one row
    per step: recorded and our outcome and feedback."""
    same = sum(1 for c in comparisons.values() if c["same"])
    outcome = {True: "the task succeeded", False: "the task did not succeed"}.get(
        run.success, "no outcome"
    )
    recorded = {True: "succeeded", False: "failed"}.get(source.success, "has no recorded outcome")
    rows = []
    for index, c in sorted(comparisons.items()):
        colour = OK_COLOUR if c["same"] else FAIL_COLOUR
        rows.append(
            f"<tr><td align='right' valign='top'>{index}</td>"
            f"<td valign='top'>{_verdict(c['recorded_ok'])}</td>"
            f"<td valign='top'>{html.escape(c['recorded_feedback'])}</td>"
            f"<td valign='top'>{_verdict(c['our_ok'])}</td>"
            f"<td valign='top' style='color: {colour}'>{html.escape(c['our_feedback'])}</td></tr>"
        )
    head = (
        "<tr><th>Step</th><th colspan='2' align='left'>Recorded</th>"
        "<th colspan='2' align='left'>Our world</th></tr>"
    )
    return (
        f"<p>Replayed in sim as <a href='episode:{run.id}'>episode #{run.id}</a> "
        f"(seed {(run.header.get('bimanual') or {}).get('seed', 0)}): {outcome}; the record "
        f"{recorded}. {same} of {len(comparisons)} steps had the recorded outcome.</p>"
        f"<table cellspacing='0' cellpadding='2'>{head}{''.join(rows)}</table>"
        "<p style='color: #666'>Our world is not the logging harness's: positions come "
        "from the task's seed, and objects, grasps and reach differ, so a different outcome "
        "says where the plan depends on the world, not that either record is wrong.</p>"
    )
