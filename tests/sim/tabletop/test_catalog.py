"""The object catalog (resources/catalog/objects.json) and asset references (sim.assets)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pybullet as p
import pybullet_data
import pytest

from sim.assets import is_primitive, primitive_shape, resolve_asset, to_ref
from sim.tabletop.catalog import (
    CatalogEntry,
    catalog_by_name,
    categories,
    default_catalog_path,
    entries_by_category,
    entries_by_kind,
    load_catalog,
)
from sim.tabletop.volumes import measure_urdf_volume, primitive_extent, primitive_volume

ROOT = Path(__file__).resolve().parents[3]
MIN_EXTENT, MAX_EXTENT = 0.01, 0.25  # metres: largest side at either end of the scale range


@pytest.fixture(scope="module")
def catalog() -> list[CatalogEntry]:
    return load_catalog()


@pytest.fixture(scope="module")
def client():
    cid = p.connect(p.DIRECT)
    yield cid
    p.disconnect(cid)


def _spawn(entry: CatalogEntry, scale: float, cid: int) -> int:
    """Create the body the way a scene loader would (rgba, mass scaled with volume)."""
    if entry.is_primitive:
        s = [v * scale for v in entry.size]
        if entry.shape == "box":
            col = p.createCollisionShape(p.GEOM_BOX, halfExtents=s, physicsClientId=cid)
            vis = p.createVisualShape(
                p.GEOM_BOX, halfExtents=s, rgbaColor=entry.rgba, physicsClientId=cid
            )
        elif entry.shape == "cylinder":
            col = p.createCollisionShape(
                p.GEOM_CYLINDER, radius=s[0], height=s[1], physicsClientId=cid
            )
            vis = p.createVisualShape(
                p.GEOM_CYLINDER, radius=s[0], length=s[1], rgbaColor=entry.rgba, physicsClientId=cid
            )
        else:
            col = p.createCollisionShape(p.GEOM_SPHERE, radius=s[0], physicsClientId=cid)
            vis = p.createVisualShape(
                p.GEOM_SPHERE, radius=s[0], rgbaColor=entry.rgba, physicsClientId=cid
            )
        body = p.createMultiBody(entry.mass(scale), col, vis, physicsClientId=cid)
    else:
        body = p.loadURDF(str(entry.path()), globalScaling=scale, physicsClientId=cid)
        p.changeDynamics(body, -1, mass=entry.mass(scale), physicsClientId=cid)
        if entry.rgba is not None:
            p.changeVisualShape(body, -1, rgbaColor=entry.rgba, physicsClientId=cid)
    return body


# -- catalog contents ---------------------------------------------------------------


def test_catalog_is_big_unique_and_positive(catalog):
    assert len(catalog) >= 40
    names = [e.name for e in catalog]
    assert len(names) == len(set(names))
    assert all(e.volume_m3 > 0 and e.mass_kg > 0 for e in catalog)
    assert all(0 < e.scale_range[0] <= e.scale_range[1] for e in catalog)


def test_catalog_mixes_urdf_meshes_and_primitives(catalog):
    urdf = [e for e in catalog if not e.is_primitive]
    assert len(urdf) >= 10
    assert len({e.asset for e in urdf}) >= 12
    # pybullet_data meshes, and the mug with a collision of its own (resources/objects/mug)
    assert all(e.asset.split(":")[0] in ("pybullet_data", "resources") for e in urdf)
    assert all(e.size is None for e in urdf)
    prims = [e for e in catalog if e.is_primitive]
    assert {e.shape for e in prims} == {"box", "cylinder", "sphere"}
    assert len({e.colour for e in prims}) >= 8
    assert len(categories(catalog)) >= 6


def test_texturable_entries_are_those_with_a_face_for_a_label(catalog):
    """The flag marks exactly the primitives whose largest flat face holds Compare's
    smallest label at the entry's smallest scale (sim/tabletop/labels.py)."""
    from sim.tabletop.labels import LABEL_MIN_SIDE, LABEL_SHAPES, largest_label

    tex = [e for e in catalog if e.texturable]
    assert len(tex) >= 10
    for e in catalog:
        fits = (
            e.is_primitive
            and e.shape in LABEL_SHAPES
            and largest_label(e.shape, e.size, e.scale_range[0]) >= LABEL_MIN_SIDE
        )
        assert e.texturable == fits, e.name


def test_every_entry_loads_at_both_ends_of_its_scale_range(catalog, client):
    for e in catalog:
        for scale in e.scale_range:
            body = _spawn(e, scale, client)
            lo, hi = p.getAABB(body, physicsClientId=client)
            size = [b - a for a, b in zip(lo, hi, strict=True)]
            assert MIN_EXTENT <= max(size) <= MAX_EXTENT, (e.name, scale, size)
            # getAABB adds a collision margin that does not scale (up to 4 mm a side
            # for convex meshes); extent_m is the geometry itself
            slack = [a - b for a, b in zip(size, e.extent(scale), strict=True)]
            assert all(-0.001 <= d <= 0.01 for d in slack), (e.name, scale, size)
            mass = p.getDynamicsInfo(body, -1, physicsClientId=client)[0]
            assert mass == pytest.approx(e.mass(scale), rel=1e-6), e.name
            p.removeBody(body, physicsClientId=client)


def test_masses_are_plausible_at_mid_scale(catalog):
    for e in catalog:
        mid = sum(e.scale_range) / 2
        assert 0.002 <= e.mass(mid) <= 0.5, (e.name, e.mass(mid))
        density = e.mass(mid) / e.volume(mid)
        assert 10 <= density <= 4000, (e.name, density)


def test_primitive_volumes_and_extents_are_analytic(catalog):
    for e in catalog:
        if e.is_primitive:
            assert e.volume_method == "analytic"
            assert e.volume_m3 == pytest.approx(primitive_volume(e.shape, e.size), rel=1e-3)
            assert e.extent_m == pytest.approx(primitive_extent(e.shape, e.size), abs=1e-5)


def test_mesh_volumes_match_a_fresh_measurement(catalog):
    done = {}
    for e in catalog:
        if e.is_primitive:
            continue
        key = (e.asset, e.volume_method)
        if key not in done:
            done[key] = measure_urdf_volume(e.path(), e.volume_method)
        vol, method = done[key]
        assert method == e.volume_method, e.name
        assert e.volume_m3 == pytest.approx(vol, rel=0.01), e.name
        box = math.prod(e.extent_m)
        assert 0.02 * box <= e.volume_m3 <= 1.01 * box, e.name


def test_volume_and_mass_scale_with_the_cube(catalog):
    e = catalog[0]
    assert e.volume(2.0) == pytest.approx(8 * e.volume_m3)
    assert e.mass(0.5) == pytest.approx(e.mass_kg / 8)
    assert e.extent(2.0) == pytest.approx(tuple(2 * v for v in e.extent_m))


def test_lookups(catalog):
    by_name = catalog_by_name()
    assert set(by_name) == {e.name for e in catalog}
    assert by_name["red mug"].kind == "mug"
    kinds = entries_by_kind()
    assert len(kinds["mug"]) >= 2 and len(kinds["ball"]) >= 3
    assert {e.name for e in entries_by_category()["food"]} >= {"red apple", "orange"}
    d = by_name["red cube"].to_dict()
    assert d["size"] == [0.025, 0.025, 0.025] and d["rgba"][3] == 1


def test_shipped_catalog_is_the_default_path():
    assert default_catalog_path() == ROOT / "resources" / "catalog" / "objects.json"


# -- validation ---------------------------------------------------------------------


def _write(tmp_path: Path, objects) -> Path:
    path = tmp_path / "objects.json"
    path.write_text(json.dumps({"format": "reasonscope-catalog/1", "objects": objects}))
    return path


def _good() -> list[dict]:
    data = json.loads(default_catalog_path().read_text())
    return [data["objects"][0], next(o for o in data["objects"] if o["size"])]


@pytest.mark.parametrize(
    "index, change, message",
    [
        (1, {"name": "red mug"}, "duplicate name"),
        (0, {"volume_m3": 0}, "volume_m3 must be positive"),
        (0, {"volume_m3": -1e-4}, "volume_m3 must be positive"),
        (0, {"scale_range": [1.2, 0.8]}, "scale_range"),
        (0, {"scale_range": [0, 1]}, "scale_range"),
        (0, {"asset": "pybullet_data:objects/nope.urdf"}, "missing file"),
        (0, {"asset": "nowhere:objects/mug.urdf"}, "unknown scheme"),
        (0, {"size": [0.1]}, "size must be null"),
        (1, {"size": None}, "needs a size"),
        (1, {"size": [0.1, 0.1]}, "size must be a list of 3"),
        (1, {"asset": "primitive:cone"}, "primitive shape"),
        (0, {"rgba": [1, 0, 0]}, "rgba"),
        (0, {"volume_method": "guess"}, "volume_method"),
        (0, {"texturable": "yes"}, "texturable"),
        (0, {"colour": ""}, "colour"),
    ],
)
def test_bad_entries_are_rejected_naming_file_and_entry(tmp_path, index, change, message):
    objects = _good()
    objects[index] = {**objects[index], **change}
    path = _write(tmp_path, objects)
    with pytest.raises(ValueError) as err:
        load_catalog(path)
    text = str(err.value)
    assert str(path) in text and message in text
    assert f"entry {index}" in text and repr(objects[index]["name"]) in text


def test_missing_and_unknown_fields_and_bad_files(tmp_path):
    objects = _good()
    del objects[0]["mass_kg"]
    with pytest.raises(ValueError, match="missing field"):
        load_catalog(_write(tmp_path, objects))
    objects = _good()
    objects[0]["weight"] = 1
    with pytest.raises(ValueError, match="unknown field"):
        load_catalog(_write(tmp_path, objects))
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(ValueError, match="bad.json"):
        load_catalog(bad)
    bad.write_text(json.dumps({"format": "other/1", "objects": _good()}))
    with pytest.raises(ValueError, match="format"):
        load_catalog(bad)
    assert len(load_catalog(_write(tmp_path, _good()))) == 2


# -- asset references ---------------------------------------------------------------


def test_resolve_asset_schemes():
    data = Path(pybullet_data.getDataPath()).resolve()
    assert resolve_asset("pybullet_data:objects/mug.urdf") == data / "objects" / "mug.urdf"
    idx = resolve_asset("resources:textures/table/index.json")
    assert idx == ROOT / "resources" / "textures" / "table" / "index.json"
    ur5e = resolve_asset("airo_models:arms/ur5e/ur5e.urdf")
    assert ur5e.is_file() and ur5e.parent.parent.parent.name == "airo_models"
    assert to_ref(idx) == "resources:textures/table/index.json"
    assert to_ref(data / "duck_vhacd.urdf") == "pybullet_data:duck_vhacd.urdf"
    assert to_ref("/") is None


def test_primitive_refs():
    assert is_primitive("primitive:box") and not is_primitive("pybullet_data:cube.urdf")
    assert primitive_shape("primitive:cylinder") == "cylinder"
    with pytest.raises(ValueError, match="has no file"):
        resolve_asset("primitive:sphere")
    with pytest.raises(ValueError, match="not a primitive"):
        primitive_shape("pybullet_data:cube.urdf")


@pytest.mark.parametrize(
    "ref",
    [
        "mug.urdf",
        "",
        "http:example.com/a.urdf",
        "pybullet_data:",
        "pybullet_data:../setup.py",
        "pybullet_data:/etc/passwd",
        "resources:..\\x",
        "primitive:cone",
        "pybullet_data:objects/missing.urdf",
    ],
)
def test_bad_refs_raise_value_error_naming_the_ref(ref):
    with pytest.raises(ValueError) as err:
        resolve_asset(ref)
    assert repr(ref) in str(err.value)
