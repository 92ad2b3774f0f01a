"""Episodes as one Rerun recording (`.rrd`), for the Rerun viewer: a `step` timeline (and
`sim_time` where the states record the simulated time), the scene at every step, the
agent's images, the texts, the grasps and the error labels (docs/sharing.md#rerun).

Each episode is its own branch, `episodes/<uid>/...`, of one recording.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from annotation.models import Episode, Step
from annotation.progress import Progress
from app.io.rerun.scene import EpisodeWorld, episode_world, log_poses, log_shapes
from app.io.rerun.steps import clear_grasp, log_grasp, log_image, log_labels, log_texts
from store import Project, ProjectError, open_for_reading

INSTALL_HINT = (
    "Rerun recordings need rerun-sdk, which is not installed: "
    "pip install 'reasonscope[rerun]' (or pip install rerun-sdk)"
)
VIEWER_HINT = (
    "The Rerun viewer is not installed: pip install 'reasonscope[rerun]' (or pip install "
    "rerun-sdk) puts the `rerun` command on the PATH; then run: rerun FILE.rrd"
)
APPLICATION_ID = "reasonscope"


class RerunMissing(Exception):
    """rerun-sdk is not installed: one line saying how to install it."""


def rerun_module():
    """The `rerun` module, or RerunMissing saying how to install it."""
    try:
        import rerun
    except ImportError:
        raise RerunMissing(INSTALL_HINT) from None
    return rerun


def episode_root(rr, episode: Episode) -> str:
    return f"episodes/{rr.escape_entity_path_part(episode.uid)}"


def select_episodes(project: Project, ids: Sequence[str] | None) -> list[Episode]:
    """The episodes named by uid or numeric id (all of them when `ids` is empty)."""
    if not ids:
        return [project.episodes.get(i) for i in project.episodes.ids()]
    known = set(project.episodes.ids())
    out = []
    for name in ids:
        episode = project.episodes.find(name)
        if episode is None and name.isdigit() and int(name) in known:
            episode = project.episodes.get(int(name))
        if episode is None:
            raise ProjectError(f"episode {name}: no such episode (give its uid or number)")
        out.append(episode)
    return out


def export_rerun(
    db: str | os.PathLike[str],
    out: str | os.PathLike[str],
    ids: Sequence[str] | None = None,
    progress: Progress | None = None,
) -> int:
    """Write the episodes (all, or those of `ids`) to a Rerun recording at `out`; return
    how many. The file is written to `OUT.partial` and renamed at the end."""
    rr = rerun_module()
    progress = progress or Progress()
    out = Path(out)
    partial = out.with_name(out.name + ".partial")
    with open_for_reading(db) as project:
        episodes = select_episodes(project, ids)
        rec = rr.RecordingStream(APPLICATION_ID, recording_id=f"reasonscope:{out.stem}")
        rec.save(partial)
        try:
            for n, episode in enumerate(episodes):
                log_episode(rec, rr, project, episode, progress.part(n, len(episodes), episode.uid))
            rec.flush()
        finally:
            rec.disconnect()
    os.replace(partial, out)
    return len(episodes)


def log_episode(rec, rr, project: Project, episode: Episode, progress: Progress) -> None:
    """One episode under `episodes/<uid>`: its header, scene, steps and labels."""
    root = episode_root(rr, episode)
    steps = project.episodes.steps(episode.id)
    scene = project.scenes.get(episode.scene_id) if episode.scene_id else None
    rec.reset_time()
    rec.log(
        f"{root}/episode",
        rr.TextDocument(header_text(episode), media_type="text/markdown"),
        static=True,
    )
    world = episode_world(episode, steps, scene)
    try:
        if world is not None:
            log_shapes(rec, rr, root, world)
        grasp_shown = False
        for i, step in enumerate(steps):
            progress.report(i, len(steps), f"{episode.uid}: step {i + 1} of {len(steps)}")
            set_step_time(rec, step, i)
            if grasp_shown:
                clear_grasp(rec, rr, root)
            grasp_shown = log_step(rec, rr, project, root, world, step, i)
    finally:
        if world is not None:
            world.close()
    log_labels(
        rec,
        rr,
        root,
        project.episodes.labels(episode.id),
        project.episodes.label_authors(episode.id),
    )


def set_step_time(rec, step: Step, index: int) -> None:
    rec.set_time("step", sequence=index)
    time = (step.state or {}).get("time") if isinstance(step.state, dict) else None
    if isinstance(time, int | float):
        rec.set_time("sim_time", duration=float(time))


def log_step(
    rec, rr, project: Project, root: str, world: EpisodeWorld | None, step: Step, index: int
) -> bool:
    """One step's poses, image, texts and grasp; True when a grasp was drawn."""
    log_texts(rec, rr, root, step)
    if world is not None:
        log_poses(rec, rr, root, world, index)
    log_image(rec, rr, root, step_image(project, world, step, index))
    if world is None or world.arms or step.name != "grasp":
        return False
    try:
        inspection = world.replay.inspect(index)
    except ValueError:  # a mask of another size than the camera renders: nothing to lift
        return False
    if inspection is None:
        return False
    log_grasp(rec, rr, root, inspection)
    return True


def step_image(project: Project, world: EpisodeWorld | None, step: Step, index: int) -> Any:
    """The image the agent saw at the step: stored, else rendered from its state."""
    if step.image_sha256 and project.images.has(step.image_sha256):
        return project.images.get(step.image_sha256)
    if world is not None:
        view = world.replay.view(index)
        return view.rgb if view is not None else None
    return None


def header_text(episode: Episode) -> str:
    """The episode's header as a short Markdown table, shown beside the views."""
    rows = [
        ("uid", episode.uid),
        ("benchmark", episode.benchmark),
        ("model", episode.model),
        ("agent", episode.agent),
        ("mode", episode.mode),
        ("task", episode.task),
        ("outcome", episode.outcome),
        ("success", episode.success),
        ("score", episode.score),
    ]
    lines = ["| field | value |", "| --- | --- |"]
    lines += [f"| {k} | {v} |" for k, v in rows if v not in (None, "")]
    return "\n".join(lines)
