"""A stored scene restored into a live world, with the model's top-down view rendered and
each body's visibility measured: what Explore and Verify show, restored the same way."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotation.models import Scene
from sim.camera import CameraSpec
from sim.render import RenderedView, Visibility, render, visibility
from sim.tabletop.scenes import world_from_records
from sim.tabletop.world import MODEL_IMAGE_SIZE, TabletopWorld

CHECK_IMAGE_SIZE = 32  # pixels: enough to render and measure every body once


@dataclass
class LoadedScene:
    """A stored scene restored into a live world, with its model-facing view measured."""

    scene: Scene
    world: TabletopWorld
    view: RenderedView
    visibility: dict[str, Visibility]


def load_scene(scene: Scene, *, image_size: int = MODEL_IMAGE_SIZE) -> LoadedScene:
    """Restore a stored scene and measure its top-down view (slow: run it off the GUI thread)."""
    world, view, seen = _restore(
        [b.as_record() for b in scene.bodies], scene.state, scene.camera, image_size
    )
    return LoadedScene(scene, world, view, seen)


def _restore(
    bodies: list[dict[str, Any]], state: dict[str, Any], camera: dict[str, Any], image_size: int
) -> tuple[TabletopWorld, RenderedView, dict[str, Visibility]]:
    world = world_from_records(bodies, state)
    try:
        spec = CameraSpec.from_dict(camera).with_size(image_size, image_size)
        view = render(world, spec)
        return world, view, visibility(world, spec, view=view)
    except BaseException:
        world.close()
        raise


def check_restores(
    bodies: list[dict[str, Any]], state: dict[str, Any], camera: dict[str, Any]
) -> None:
    """Restore a scene record (a benchmark line's) the way `load_scene` will, at a few
    pixels, and close it; raises whatever the restore or the measure raises."""
    world, _view, _seen = _restore(bodies, state, camera, CHECK_IMAGE_SIZE)
    world.close()
