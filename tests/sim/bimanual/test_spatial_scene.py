"""Spatial grounding scenes: objects where the item says, visible and told apart in the head view."""

from __future__ import annotations

import numpy as np
import pytest

from annotation.bimanual.spatial_grounding import GroundingItem, footprint, generate_items
from sim.bimanual.spatial_scene import (
    DISTRACTOR_SHAPES,
    SpatialSceneRenderer,
    build_scene,
)
from sim.bimanual.tasks import BLOCK_HALF, COLOURS
from sim.bimanual.world import TABLE_TOP_Z
from sim.render import alone_pixel_counts

WIDTH = 128


@pytest.fixture(scope="module")
def renderer():
    with SpatialSceneRenderer(WIDTH) as r:
        yield r


def _item(objects: dict[str, tuple[float, float]], setting: str = "sparse") -> GroundingItem:
    placed = {k: (x, y, 0.76) for k, (x, y) in objects.items()}
    return GroundingItem("t", setting, placed, tuple(k for k in placed if k.endswith("_block")))


def _columns(renderer, view, name) -> np.ndarray:
    return np.nonzero(view.segmentation == renderer.world.bodies[name].uid)[1]


def test_a_block_right_of_the_centreline_is_in_the_right_half(renderer):
    item = _item(
        {"red_block": (0.2, -0.05), "green_block": (-0.2, -0.05), "blue_block": (0.03, 0.08)}
    )
    view = renderer.render(item)
    assert view.rgb.shape == (96, WIDTH, 3)
    red, green, blue = (
        _columns(renderer, view, n) for n in ("red_block", "green_block", "blue_block")
    )
    assert red.size > 20 and green.size > 20 and blue.size > 5
    assert red.min() > WIDTH / 2 and green.max() < WIDTH / 2 and blue.mean() > WIDTH / 2


def test_block_colours_match_their_names(renderer):
    item = generate_items("dense", 1, 2)[0]
    view = renderer.render(item)
    for name in item.asked:
        mask = view.segmentation == renderer.world.bodies[name].uid
        mean = view.rgb[mask].mean(axis=0)
        expected = np.array(COLOURS[name.split("_")[0]][:3]) * 255
        # lit faces are lighter or darker than the base colour, but the hue is the name's
        assert np.argmax(mean) == np.argmax(expected), name
        assert np.corrcoef(mean, expected)[0, 1] > 0.8, name


def test_cluttered_items_show_every_object_and_park_the_rest(renderer):
    cluttered = generate_items("cluttered", 3, 0)
    for item in cluttered:
        view = renderer.render(item)
        pixels = renderer.object_pixels(view, renderer.world.bodies)
        for name in item.objects:
            assert pixels[name] > 10, (item.id, name)
        assert pixels["yellow_block"] == pixels["purple_block"] == 0
    sparse = renderer.render(generate_items("sparse", 1, 0)[0])
    parked = renderer.object_pixels(sparse, ["mug", "bowl", "bread", "tray", "sponge"])
    assert set(parked.values()) == {0}


def test_asked_blocks_are_not_hidden_by_clutter(renderer):
    for item in generate_items("cluttered", 4, 3):
        view = renderer.render(item)
        seen = renderer.object_pixels(view, item.asked)
        alone = alone_pixel_counts(renderer.world, renderer.camera, item.asked)
        for name in item.asked:
            assert seen[name] >= 0.6 * alone[name] > 0, (item.id, name)


def test_objects_stand_on_the_table_within_their_footprints():
    for name, shape in DISTRACTOR_SHAPES.items():
        assert shape.footprint_radius <= footprint(name), name
    assert BLOCK_HALF * 2**0.5 <= footprint("red_block")
    from sim.bimanual.world import DualArmWorld

    item = generate_items("cluttered", 1, 5)[0]
    with DualArmWorld(with_robot=False) as world:
        build_scene(world, item)
        for name, (x, y, _) in item.objects.items():
            lo, hi = world.aabb(name)
            assert lo[2] == pytest.approx(TABLE_TOP_Z, abs=2e-3), name
            assert (lo[0] + hi[0]) / 2 == pytest.approx(x, abs=1e-3)
            assert (lo[1] + hi[1]) / 2 == pytest.approx(y, abs=1e-3)


def test_unknown_objects_are_refused(renderer):
    with pytest.raises(ValueError, match="unknown grounding object 'teapot'"):
        renderer.show(_item({"teapot": (0.1, 0.0)}))
