"""The slow parts of Replay episodes, run off the GUI thread: restoring an episode's scene
(twice: one world for the viewport, one for rendering), re-simulating from a step, and
building the dual-arm world of a bimanual episode."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from annotation.models import Episode, Question, Scene
from annotation.progress import Progress
from sim.camera import CameraSpec
from sim.tabletop.replay import EpisodeReplay, as_step, episode_camera, restorable, state_at
from sim.tabletop.resim import ResimReport, resimulate
from sim.tabletop.scenes import world_from_records
from widgets.viewport.view import preload_meshes


@dataclass
class LoadedEpisode:
    """An episode's scene restored twice: `view` for the viewport, `render` for the renderer."""

    episode: Episode
    camera: CameraSpec
    view: EpisodeReplay | None = None  # None: the episode has no stored scene
    render: EpisodeReplay | None = None
    names: dict[str, str] = field(default_factory=dict)  # body key -> its name

    def close(self) -> None:
        for replay in (self.view, self.render):
            if replay is not None:
                replay.world.close()


def load_episode(
    episode: Episode, steps: list[dict[str, Any]], scene: Scene | None
) -> LoadedEpisode:
    """Build the episode's worlds from its stored scene (slow: run it in a worker)."""
    if episode.benchmark == "bimanual":
        return load_bimanual(episode, steps)
    camera = episode_camera(scene.camera if scene else None, episode.header)
    if scene is None:
        return LoadedEpisode(episode, camera)
    records = [b.as_record() for b in scene.bodies]
    view_world = world_from_records(records, scene.state)
    try:
        render_world = world_from_records(records, scene.state)
    except BaseException:
        view_world.close()
        raise
    preload_meshes(view_world)
    view = EpisodeReplay(view_world, steps, camera, initial=scene.state)
    render = EpisodeReplay(render_world, steps, camera, initial=scene.state)
    names = {key: b.name for key, b in view_world.bodies.items()}
    return LoadedEpisode(episode, camera, view, render, names)


def run_resimulation(
    episode: Episode,
    scene: Scene,
    question: Question | None,
    steps: list[dict[str, Any]],
    from_index: int,
    progress: Progress,
) -> ResimReport:
    """Re-simulate from `from_index` on a fresh world of the episode's scene."""
    progress.report(0, 1, "Restoring the scene")
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    try:
        return resimulate(
            world,
            question,
            episode.mode or "manipulation",
            episode_camera(scene.camera, episode.header),
            steps,
            from_index,
            initial=scene.state,
            progress=progress,
        )
    finally:
        world.close()


def bimanual_camera(episode: Episode) -> CameraSpec:
    """The head camera at the size the episode's images were recorded at."""
    from sim.bimanual.cameras import camera

    size = (episode.header.get("bimanual") or {}).get("image_size") or [640, 480]
    return camera("head", int(size[0]), int(size[1]))


def load_bimanual(episode: Episode, steps: list[dict[str, Any]]) -> LoadedEpisode:
    """A dual-arm episode's world for the viewport: the task's seeded set-up in
    `DualArmWorld`, to be restored to each step's stored state. Episodes without stored
    states (imported logs) get no world: their steps and images are all there is."""
    from sim.bimanual.tasks import TASKS
    from sim.bimanual.world import DualArmWorld

    camera = bimanual_camera(episode)
    dicts = [as_step(s) for s in steps]
    task = TASKS.get(episode.task)
    if task is None or not any(restorable(s.get("state")) for s in dicts):
        return LoadedEpisode(episode, camera)
    seed = (episode.header.get("bimanual") or {}).get("seed") or 0
    world = DualArmWorld()
    try:
        task.setup(world, int(seed))
        preload_meshes(world)
        initial = state_at(dicts, 0) or world.capture_state()
        view = EpisodeReplay(world, dicts, camera, initial=initial)
    except BaseException:
        world.close()
        raise
    names = {key: b.name for key, b in world.bodies.items()}
    return LoadedEpisode(episode, camera, view, None, names)
