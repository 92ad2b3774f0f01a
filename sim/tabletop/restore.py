"""A stored scene restored into a live world, with the model's top-down view rendered and
each body's visibility measured: what Explore and Verify show, restored the same way."""

from __future__ import annotations

from dataclasses import dataclass

from annotation.models import Scene
from sim.camera import CameraSpec
from sim.render import RenderedView, Visibility, render, visibility
from sim.tabletop.scenes import world_from_records
from sim.tabletop.world import MODEL_IMAGE_SIZE, TabletopWorld


@dataclass
class LoadedScene:
    """A stored scene restored into a live world, with its model-facing view measured."""

    scene: Scene
    world: TabletopWorld
    view: RenderedView
    visibility: dict[str, Visibility]


def load_scene(scene: Scene, *, image_size: int = MODEL_IMAGE_SIZE) -> LoadedScene:
    """Restore a stored scene and measure its top-down view (slow: run it off the GUI thread)."""
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    camera = CameraSpec.from_dict(scene.camera).with_size(image_size, image_size)
    view = render(world, camera)
    return LoadedScene(scene, world, view, visibility(world, camera, view=view))
