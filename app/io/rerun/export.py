"""Episodes as one Rerun recording (`.rrd`), for the Rerun viewer: a `step` timeline (and
`sim_time` where the states record the simulated time), the scene at every step, the
agent's images, the texts, the grasps and the error labels (docs/sharing.md#rerun).

Each episode is its own branch, `episodes/<uid>/...`, of one recording.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from annotation.models import Episode, Step
from annotation.progress import Progress
from app.io.rerun.scene import EpisodeWorld, episode_world, log_poses, log_shapes
from app.io.rerun.steps import clear_grasp, log_grasp, log_image, log_labels, log_texts
from sim.tabletop.replay import inspect_grasp
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
        logger = StepLogger(rec, rr, project, root, world)
        for i, step in enumerate(steps):
            progress.report(i, len(steps), f"{episode.uid}: step {i + 1} of {len(steps)}")
            logger.log(step, i)
    finally:
        if world is not None:
            world.close()
    labels = project.episodes.labels(episode.id)
    log_labels(rec, rr, root, labels, project.episodes.label_authors(episode.id))


def set_step_time(rec, step: Step, index: int) -> None:
    rec.set_time("step", sequence=index)
    time = (step.state or {}).get("time") if isinstance(step.state, dict) else None
    if isinstance(time, int | float):
        rec.set_time("sim_time", duration=float(time))


class StepLogger:
    """Logs an episode's steps in turn. An image is logged when it changes (Rerun shows the
    latest one at every step): a stored image when the step names another, a rendered one
    when the step's state differs from the one before, so a run of looks and finds that
    move nothing is rendered once."""

    def __init__(self, rec, rr, project: Project, root: str, world: EpisodeWorld | None) -> None:
        self.rec, self.rr, self.project, self.root, self.world = rec, rr, project, root, world
        self.shown: object = None  # what the last logged image was: a sha256 or a view index
        self.grasp_shown = False

    def log(self, step: Step, index: int) -> None:
        """One step's time, texts, poses, image and grasp."""
        rec, rr, root = self.rec, self.rr, self.root
        set_step_time(rec, step, index)
        if self.grasp_shown:
            clear_grasp(rec, rr, root)
        log_texts(rec, rr, root, step)
        if self.world is not None:
            log_poses(rec, rr, root, self.world, index)
        self.log_image(step, index)
        self.grasp_shown = self.log_grasp(step, index)

    def view_index(self, index: int) -> int:
        """The first step of the run of steps that end in the same state as `index`."""
        replay = self.world.replay
        state = replay.state(index)
        while index > 0 and replay.state(index - 1) == state:
            index -= 1
        return index

    def log_image(self, step: Step, index: int) -> None:
        if step.image_sha256 and self.project.images.has(step.image_sha256):
            if self.shown != step.image_sha256:
                self.shown = step.image_sha256
                log_image(self.rec, self.rr, self.root, self.project.images.get(step.image_sha256))
            return
        if self.world is None:
            return
        at = self.view_index(index)
        if self.shown != ("view", at):
            view = self.world.replay.view(at)
            if view is not None:
                self.shown = ("view", at)
                log_image(self.rec, self.rr, self.root, view.rgb)

    def log_grasp(self, step: Step, index: int) -> bool:
        """What a tabletop grasp saw and planned; True when it was drawn."""
        world = self.world
        if world is None or world.arms or step.name != "grasp" or index == 0:
            return False
        before = world.replay.view(self.view_index(index - 1))  # rendered already, cached
        if before is None:
            return False
        try:
            inspection = inspect_grasp(world.replay.steps, index, world.camera, before)
        except ValueError:  # a mask of another size than the camera renders: nothing to lift
            return False
        if inspection is None:
            return False
        log_grasp(self.rec, self.rr, self.root, inspection)
        return True


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
