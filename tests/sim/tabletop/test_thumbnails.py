"""Pictures of catalog objects for the catalog panel (sim.tabletop.authoring.thumbnails)."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from sim.camera import corners, project_points
from sim.tabletop.authoring.thumbnails import (
    BACKGROUND,
    fit_to_silhouette,
    iter_thumbnails,
    render_thumbnails,
    thumbnail_cache_key,
    thumbnail_camera,
)
from sim.tabletop.catalog import catalog_by_name, load_catalog

SIZE = 96


def _object_mask(rgb: np.ndarray) -> np.ndarray:
    return np.abs(rgb.astype(int) - np.array(BACKGROUND)).sum(axis=2) > 12


@pytest.fixture(scope="module")
def all_pictures():
    return load_catalog(), render_thumbnails(load_catalog(), SIZE)


def test_every_entry_gets_a_framed_picture_of_its_object(all_pictures):
    entries, pictures = all_pictures
    assert list(pictures) == [e.name for e in entries]
    for name, rgb in pictures.items():
        assert rgb.shape == (SIZE, SIZE, 3) and rgb.dtype == np.uint8, name
        mask = _object_mask(rgb)
        assert mask.mean() > 0.04, f"{name}: almost nothing drawn"
        # a plain background all round: the object is not cut off by the frame
        border = np.concatenate([mask[0], mask[-1], mask[:, 0], mask[:, -1]])
        assert not border.any(), f"{name}: touches the edge"
        assert (rgb[0, 0] == BACKGROUND).all()
        # framed on its silhouette: a ball as big as a box, and in the middle
        rows, cols = np.nonzero(mask)
        span = max(rows.max() - rows.min(), cols.max() - cols.min()) + 1
        assert span > 0.8 * SIZE, f"{name}: only {span} px across"
        middle = np.array([rows.min() + rows.max(), cols.min() + cols.max()]) / 2
        assert np.abs(middle - (SIZE - 1) / 2).max() < 3, f"{name}: off centre"


def test_different_objects_give_different_pictures(all_pictures):
    _, pictures = all_pictures

    def differ(a, b):
        return np.abs(pictures[a].astype(int) - pictures[b].astype(int)).mean()

    assert differ("red mug", "soccer ball") > 10
    assert differ("red mug", "blue mug") > 3  # same mesh, another colour
    assert differ("red cube", "green cube") > 10


def test_pictures_are_repeatable_and_sized():
    entries = [catalog_by_name()[n] for n in ("rubber duck", "red book")]
    first = render_thumbnails(entries, 40)
    again = dict(iter_thumbnails(entries, 40))
    for name in first:
        assert first[name].shape == (40, 40, 3)
        np.testing.assert_array_equal(first[name], again[name])
    with pytest.raises(ValueError):
        render_thumbnails(entries, 0)


def test_the_camera_frames_the_box_with_a_margin():
    lo, hi = np.array([-0.3, 0.1, 0.0]), np.array([0.1, 0.15, 0.02])  # long and flat
    camera = thumbnail_camera(lo, hi, 100)
    uv, depth = project_points(camera, corners(lo, hi))
    assert (depth > camera.near).all() and (depth < camera.far).all()
    assert uv.min() >= 5 and uv.max() <= 95
    assert max(np.ptp(uv[:, 0]), np.ptp(uv[:, 1])) > 70  # fills most of the picture


def test_fitting_to_the_silhouette_zooms_in_on_it():
    camera = thumbnail_camera((-0.05, -0.05, 0.0), (0.05, 0.05, 0.1), 100)
    mask = np.zeros((100, 100), bool)
    mask[30:50, 40:60] = True  # a 20 px blob above the middle
    fitted = fit_to_silhouette(camera, mask, fill=0.8)
    assert fitted.eye == camera.eye and fitted.width == 100
    ratio = math.tan(math.radians(fitted.fov_deg) / 2) / math.tan(math.radians(camera.fov_deg) / 2)
    assert ratio == pytest.approx(10 / 50 / 0.8)
    # the blob's middle is where the new camera looks
    uv, _ = project_points(camera, np.array([fitted.target]))
    np.testing.assert_allclose(uv[0], (50, 40), atol=1e-6)
    assert fit_to_silhouette(camera, np.zeros((100, 100), bool)) == camera
    mask[0:10, 40:60] = True  # cut off by the edge: no telling how big it is
    assert fit_to_silhouette(camera, mask) == camera


def test_cache_key_changes_with_the_entry_and_the_size():
    mug = catalog_by_name()["red mug"]
    key = thumbnail_cache_key(mug)
    assert key == thumbnail_cache_key(catalog_by_name(load_catalog())["red mug"])
    assert key != thumbnail_cache_key(mug, 48)
    assert key != thumbnail_cache_key(dataclasses.replace(mug, rgba=(0.1, 0.2, 0.3, 1.0)))
    assert key != thumbnail_cache_key(dataclasses.replace(mug, scale_range=(0.9, 1.0)))
    assert key != thumbnail_cache_key(catalog_by_name()["blue mug"])
