"""Compare's labels: one decal on the face turned up, printed nowhere else, upright in the
top-down image, with the body's physics untouched and its record rebuilt exactly."""

from __future__ import annotations

import math

import numpy as np
import pytest

from sim.camera import project_points
from sim.render import label_pixels, render
from sim.tabletop.labels import (
    LABEL_FILL,
    LABEL_MAX_SIDE,
    LABEL_TEXTURES,
    attach_labels,
    label_letter,
    upward_patch,
)
from sim.tabletop.scenes import world_from_records
from sim.tabletop.world import TABLE_TOP_Z, TOP_DOWN, WORKSPACE_CENTRE, TabletopWorld
from sim.world import LabelPatch

CAM = TOP_DOWN.with_size(384, 384)
X, Y = WORKSPACE_CENTRE[0], WORKSPACE_CENTRE[1]
BOOK = (0.09, 0.065, 0.015)  # half extents: 18 x 13 x 3 cm


def _world() -> TabletopWorld:
    return TabletopWorld(with_robot=False)


def _box(world, key, half, position, euler=(0, 0, 0), rgba=(0.9, 0.8, 0.2, 1)):
    orientation = world.client.getQuaternionFromEuler(euler)
    world.add_primitive(key, "box", half, position, orientation, rgba=rgba, mass=0.3)


def _normal(world, key) -> np.ndarray:
    a, b, _, d = world.decal_corners(key)
    n = np.cross(b - a, d - a)
    return n / np.linalg.norm(n)


@pytest.mark.parametrize(
    "euler, up_half",
    [
        ((0, 0, 0.4), 0.015),  # lying flat: the big face is up
        ((math.pi / 2, 0, 0), 0.065),  # on its long edge: a 18 x 3 cm face is up
        ((0, math.pi / 2, 0.2), 0.09),  # on its end: a 13 x 3 cm face is up
        ((math.pi, 0, 0), 0.015),  # upside down: the bottom face is up
    ],
)
def test_the_patch_is_the_face_turned_up_whatever_the_pose(euler, up_half):
    with _world() as world:
        _box(world, "book", BOOK, (X, Y, TABLE_TOP_Z + 0.12), euler)
        patch = upward_patch(world, "book")
        assert isinstance(patch, LabelPatch)
        world.attach_label("book", patch, f"{LABEL_TEXTURES}A.png")
        assert _normal(world, "book")[2] == pytest.approx(1.0, abs=1e-6)
        centre = world.decal_corners("book").mean(axis=0)
        top = world.aabb("book")[1][2]
        assert centre[2] == pytest.approx(top + 0.002, abs=1e-4)  # on the top, 1 mm lifted
        faces = sorted(2 * v for v in BOOK if v != up_half)
        assert patch.side == pytest.approx(min(LABEL_FILL * faces[0], LABEL_MAX_SIDE))


def test_no_patch_on_a_sphere_a_lying_can_or_a_tilted_box():
    with _world() as world:
        world.add_primitive("ball", "sphere", (0.03,), (X, Y, 0.9), mass=0.1)
        lying = world.client.getQuaternionFromEuler((math.pi / 2, 0, 0))
        world.add_primitive("can", "cylinder", (0.033, 0.12), (X + 0.1, Y, 0.9), lying, mass=0.1)
        _box(world, "tilted", BOOK, (X - 0.1, Y, 0.9), (math.radians(50), 0, 0))
        assert "no flat face" in upward_patch(world, "ball")
        assert "no face turned up (tilted 90 deg)" in upward_patch(world, "can")
        assert "no face turned up (tilted 40 deg)" in upward_patch(world, "tilted")
        standing = world.client.getQuaternionFromEuler((0, 0, 0))
        world.add_primitive("up", "cylinder", (0.033, 0.12), (X, Y + 0.1, 0.9), standing, mass=0.1)
        patch = upward_patch(world, "up")
        assert patch.side == pytest.approx(LABEL_FILL * 0.033 * math.sqrt(2))
        world.add_primitive("pen", "cylinder", (0.009, 0.13), (X, Y - 0.1, 0.9), mass=0.02)
        assert "holds only a 1.0 cm label" in upward_patch(world, "pen")


def test_the_decal_changes_no_physics():
    """Two worlds drop the same boxes; one labels a box mid-fall: every pose stays equal."""
    poses = []
    for label in (False, True):
        with _world() as world:
            _box(world, "low", BOOK, (X, Y, TABLE_TOP_Z + 0.03))
            _box(
                world, "high", (0.03, 0.03, 0.03), (X + 0.02, Y, TABLE_TOP_Z + 0.15), (0.3, 0.2, 0)
            )
            world.step(40)
            if label:
                before = list(world.bodies)
                patch = LabelPatch((0.0, 0.0, 0.03), (0.0, 0.0, 0.0, 1.0), 0.04)
                world.attach_label("high", patch, f"{LABEL_TEXTURES}B.png")
                assert list(world.bodies) == before  # same key, same place among the bodies
            world.step(400)
            state = world.capture_state()["bodies"]
            poses.append({k: state[k]["com_position"] + state[k]["com_orientation"] for k in state})
    for key in poses[0]:
        assert poses[1][key] == pytest.approx(poses[0][key], abs=1e-6), key


def test_the_letter_prints_on_the_decal_alone():
    with _world() as world:
        # a black box: dark body pixels are never taken for the letter
        _box(world, "dark", BOOK, (X, Y, TABLE_TOP_Z + 0.015), (0, 0, 0.5), rgba=(0.1, 0.1, 0.1, 1))
        _box(world, "light", BOOK, (X + 0.2, Y, TABLE_TOP_Z + 0.015), (0, 0, -0.7))
        assert attach_labels(world, {"dark": "C", "light": "C"}, CAM) is None
        view = render(world, CAM)
        counts = label_pixels(world, CAM, ["dark", "light"], view=view)
        assert counts["dark"][0] == pytest.approx(counts["light"][0], rel=0.3)
        for key in ("dark", "light"):
            alone, seen = counts[key]
            assert alone > 30 and seen == alone  # nothing covers them
        assert label_letter(world.bodies["light"].texture) == "C"


@pytest.mark.parametrize("letter", ["A", "C"])
@pytest.mark.parametrize(
    "up, shows",
    [((0, 1, 0), "upright"), ((0, -1, 0), "upside down"), ((1, 0, 0), "clockwise")],
)
def test_the_letter_reads_as_the_image_up_asks_whatever_the_yaw(letter, up, shows):
    """At the model's 1024 px: the label's picture, neither mirrored nor turned, unless
    the decal is asked to put the letter's up elsewhere (the check's own control)."""
    with _world() as world:
        for i, yaw in enumerate((0.3, -1.1, 2.6)):
            key = f"box{i}"
            _box(world, key, BOOK, (X - 0.2 + 0.2 * i, Y, TABLE_TOP_Z + 0.015), (0, 0, yaw))
            world.attach_label(key, upward_patch(world, key, up), f"{LABEL_TEXTURES}{letter}.png")
        rgb = render(world, TOP_DOWN).rgb
        for i in range(3):
            scores = _orientation(rgb, world, f"box{i}", letter)
            assert scores[shows] >= max(scores.values()) - 0.05  # ties: a symmetric letter
            if shows != "upright":
                assert scores["upright"] < scores[shows] - 0.05


def _orientation(rgb: np.ndarray, world, key: str, letter: str) -> dict[str, float]:
    """How well each turn or mirror of the label's own picture matches the ink inside
    the decal: the correlation of their 8 x 8 ink densities (coarse, so that a pixel's
    shift in the rendering does not count)."""
    from PIL import Image

    from sim.assets import resolve_asset

    def density(image: Image.Image) -> np.ndarray:
        return np.asarray(image.convert("L").resize((8, 8), Image.Resampling.BOX), dtype=float)

    pixels = project_points(TOP_DOWN, world.decal_corners(key))[0]
    (u0, v0), (u1, v1) = pixels.min(axis=0), pixels.max(axis=0)
    inset = 0.15 * (u1 - u0)
    crop = rgb[int(v0 + inset) : int(v1 - inset), int(u0 + inset) : int(u1 - inset)]
    seen = density(Image.fromarray(crop))
    with Image.open(resolve_asset(f"{LABEL_TEXTURES}{letter}.png")) as picture:
        w, h = picture.size
        drawn = density(picture.crop((0.15 * w, 0.15 * h, 0.85 * w, 0.85 * h)))
    turns = {
        "upright": drawn,
        "mirrored": drawn[:, ::-1],
        "upside down": drawn[::-1, ::-1],
        "flipped": drawn[::-1, :],
        "anticlockwise": np.rot90(drawn),
        "clockwise": np.rot90(drawn, 3),
    }
    return {name: float(np.corrcoef(t.ravel(), seen.ravel())[0, 1]) for name, t in turns.items()}


def test_a_labelled_scene_rebuilds_from_its_records_exactly():
    with _world() as world:
        _box(world, "book", BOOK, (X, Y, TABLE_TOP_Z + 0.015), (0, 0, 0.3))
        up = world.client.getQuaternionFromEuler((0, 0, 0))
        world.add_primitive(
            "can",
            "cylinder",
            (0.033, 0.12),
            (X + 0.12, Y, TABLE_TOP_Z + 0.06),
            up,
            mass=0.1,
            rgba=(0.2, 0.6, 0.2, 1),
        )
        assert attach_labels(world, {"book": "A", "can": "B"}, CAM) is None
        records = world.body_records()
        state = world.capture_state()
        image = render(world, CAM).rgb
    by_id = {r["id"]: r for r in records}
    assert by_id["can"]["label_patch"]["side"] == pytest.approx(
        LABEL_FILL * 0.033 * math.sqrt(2), abs=1e-6
    )
    with world_from_records(records, state) as again:
        assert again.bodies["can"].label_patch == LabelPatch.from_record(
            by_id["can"]["label_patch"]
        )
        assert np.array_equal(render(again, CAM).rgb, image)
