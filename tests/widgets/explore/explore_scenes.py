"""Scenes for the Explore widget tests: hand-written records (listed, never restored) and
the settled three-box scene of `episode_fixtures.small_scene`, restored small."""

from __future__ import annotations

from functools import cache

from episode_fixtures import small_scene

from sim.tabletop.restore import LoadedScene, load_scene
from sim.tabletop.world import TOP_DOWN


def mug(i: int) -> dict:
    """A body record of a mug; role "object" by default."""
    return {
        "id": f"mug_{i}",
        "name": f"mug {i}",
        "asset": "mug.urdf",
        "position": [0.05 * i, 0.0, 0.66],
        "orientation": [0, 0, 0, 1],
    }


def add_listed_scene(project, *, seed: int | None, objects: int) -> int:
    """A stored scene of `objects` mugs and the table (a fixture): for the scene list."""
    table = {**mug(0), "id": "table", "name": "table", "role": "fixture"}
    bodies = [table, *(mug(i) for i in range(1, objects + 1))]
    return project.scenes.add({"name": f"{objects} mugs", "seed": seed, "bodies": bodies})


@cache
def _settled():
    return small_scene()  # settling takes a moment: once per test run


def add_three_boxes(project) -> int:
    """The settled three-box scene (red, blue and wide box), seen from the top-down camera."""
    records, state = _settled()
    scene = {"name": "three boxes", "seed": 3, "camera": TOP_DOWN.as_dict(), "state": state}
    return project.scenes.add({**scene, "bodies": records})


def restored(project, scene_id: int) -> LoadedScene:
    """The stored scene restored into a live world, its view rendered at 64 px (quick)."""
    return load_scene(project.scenes.get(scene_id), image_size=64)
