"""The object catalog for the tabletop world: what can be placed on the table.

The data lives in ``resources/catalog/objects.json`` (documented in the README next
to it). Each entry is a URDF from ``pybullet_data`` or a procedural primitive, with a
short unique name ("red mug"), a kind ("mug"), a colour word, a category, a physical
description, its volume and mass at ``globalScaling`` 1 and the scale range that
gives it a realistic tabletop size.

Volumes and masses scale with the cube of the scale. PyBullet's ``globalScaling``
scales geometry but not the URDF's mass, so a loader must set
``changeDynamics(body, -1, mass=entry.mass(scale))`` itself.

The measuring helpers at the bottom (URDF/OBJ parsing, mesh volumes through Open3D)
are how the numbers in the JSON were obtained; the tests run them again.
"""

from __future__ import annotations

import json
import math
import xml.etree.ElementTree as ET
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from sim.assets import is_primitive, parse_ref, primitive_shape, resolve_asset, scheme_root

CATALOG_FORMAT = "reasonscope-catalog/1"
VOLUME_METHODS = ("analytic", "mesh", "convex_hull", "convex_pieces")
PRIMITIVE_SIZE_LEN = {"box": 3, "cylinder": 2, "sphere": 1}

_FIELDS = (
    "name",
    "kind",
    "colour",
    "rgba",
    "category",
    "description",
    "asset",
    "size",
    "scale_range",
    "extent_m",
    "volume_m3",
    "volume_method",
    "mass_kg",
    "texturable",
)

__all__ = [
    "CATALOG_FORMAT",
    "CatalogEntry",
    "catalog_by_name",
    "categories",
    "default_catalog_path",
    "entries_by_category",
    "entries_by_kind",
    "load_catalog",
    "measure_urdf_volume",
    "primitive_extent",
    "primitive_volume",
]


@dataclass(frozen=True)
class CatalogEntry:
    name: str
    kind: str
    colour: str
    rgba: tuple[float, float, float, float] | None
    category: str
    description: str
    asset: str
    size: tuple[float, ...] | None
    scale_range: tuple[float, float]
    extent_m: tuple[float, float, float]
    volume_m3: float
    volume_method: str
    mass_kg: float
    texturable: bool

    @property
    def is_primitive(self) -> bool:
        return is_primitive(self.asset)

    @property
    def shape(self) -> str | None:
        """``box`` / ``cylinder`` / ``sphere`` for primitives, else None."""
        return primitive_shape(self.asset) if self.is_primitive else None

    @property
    def source(self) -> str:
        """``procedural`` for primitives, else the reference scheme (``pybullet_data``)."""
        return "procedural" if self.is_primitive else parse_ref(self.asset)[0]

    def path(self) -> Path:
        """The URDF file (ValueError for primitives)."""
        return resolve_asset(self.asset)

    def volume(self, scale: float = 1.0) -> float:
        return self.volume_m3 * scale**3

    def mass(self, scale: float = 1.0) -> float:
        return self.mass_kg * scale**3

    def extent(self, scale: float = 1.0) -> tuple[float, float, float]:
        """Axis-aligned size (x, y, z) in metres at rest orientation."""
        return tuple(e * scale for e in self.extent_m)

    def to_dict(self) -> dict:
        d = asdict(self)
        for key in ("rgba", "size", "scale_range", "extent_m"):
            if d[key] is not None:
                d[key] = list(d[key])
        return d


def default_catalog_path() -> Path:
    return scheme_root("resources") / "catalog" / "objects.json"


def load_catalog(path: str | Path | None = None) -> list[CatalogEntry]:
    """Read and validate the catalog; ValueError names the file and the entry."""
    path = Path(path) if path is not None else default_catalog_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise ValueError(f"{path}: cannot read catalog: {exc}") from exc
    if isinstance(data, dict):
        if data.get("format") != CATALOG_FORMAT:
            raise ValueError(f"{path}: format must be {CATALOG_FORMAT!r}")
        items = data.get("objects")
    else:
        items = data
    if not isinstance(items, list) or not items:
        raise ValueError(f"{path}: expected a non-empty list of objects")
    entries: list[CatalogEntry] = []
    seen: set[str] = set()
    for i, item in enumerate(items):
        label = f"entry {i}" + (f" ({item.get('name')!r})" if isinstance(item, dict) else "")
        try:
            entry = _entry_from_dict(item)
        except (ValueError, TypeError) as exc:
            raise ValueError(f"{path}: {label}: {exc}") from exc
        if entry.name in seen:
            raise ValueError(f"{path}: {label}: duplicate name {entry.name!r}")
        seen.add(entry.name)
        entries.append(entry)
    return entries


@lru_cache(maxsize=1)
def _default_catalog() -> tuple[CatalogEntry, ...]:
    return tuple(load_catalog())


def catalog_by_name(entries: Iterable[CatalogEntry] | None = None) -> dict[str, CatalogEntry]:
    """Entries keyed by name (the shipped catalog unless ``entries`` is given)."""
    return {e.name: e for e in (_default_catalog() if entries is None else entries)}


def entries_by_category(
    entries: Iterable[CatalogEntry] | None = None,
) -> dict[str, list[CatalogEntry]]:
    out: dict[str, list[CatalogEntry]] = defaultdict(list)
    for e in _default_catalog() if entries is None else entries:
        out[e.category].append(e)
    return dict(out)


def entries_by_kind(entries: Iterable[CatalogEntry] | None = None) -> dict[str, list[CatalogEntry]]:
    out: dict[str, list[CatalogEntry]] = defaultdict(list)
    for e in _default_catalog() if entries is None else entries:
        out[e.kind].append(e)
    return dict(out)


def categories(entries: Iterable[CatalogEntry] | None = None) -> list[str]:
    return sorted(entries_by_category(entries))


# -- validation ---------------------------------------------------------------------


def _entry_from_dict(item: object) -> CatalogEntry:
    if not isinstance(item, dict):
        raise ValueError("must be an object")
    missing = [f for f in _FIELDS if f not in item]
    if missing:
        raise ValueError(f"missing field(s): {', '.join(missing)}")
    extra = sorted(set(item) - set(_FIELDS))
    if extra:
        raise ValueError(f"unknown field(s): {', '.join(extra)}")
    for key in ("name", "kind", "colour", "category", "description", "asset"):
        if not isinstance(item[key], str) or not item[key].strip():
            raise ValueError(f"{key} must be a non-empty string")
    asset = item["asset"]
    rgba = _floats(item["rgba"], "rgba", 4) if item["rgba"] is not None else None
    if rgba is not None and not all(0.0 <= c <= 1.0 for c in rgba):
        raise ValueError(f"rgba values must lie in [0, 1], got {list(rgba)}")
    size = None
    if is_primitive(asset):  # raises ValueError on a malformed reference
        shape = primitive_shape(asset)
        if item["size"] is None:
            raise ValueError(f"primitive {asset!r} needs a size")
        size = _floats(item["size"], "size", PRIMITIVE_SIZE_LEN[shape])
        if not all(s > 0 for s in size):
            raise ValueError(f"size values must be positive, got {list(size)}")
    else:
        if item["size"] is not None:
            raise ValueError(f"size must be null for the file asset {asset!r}")
        resolve_asset(asset)  # raises ValueError if missing
    lo, hi = _floats(item["scale_range"], "scale_range", 2)
    if not 0 < lo <= hi:
        raise ValueError(f"scale_range must satisfy 0 < lo <= hi, got [{lo}, {hi}]")
    extent = _floats(item["extent_m"], "extent_m", 3)
    if not all(e > 0 for e in extent):
        raise ValueError(f"extent_m values must be positive, got {list(extent)}")
    volume = _number(item["volume_m3"], "volume_m3")
    if not volume > 0:
        raise ValueError(f"volume_m3 must be positive, got {volume}")
    if item["volume_method"] not in VOLUME_METHODS:
        raise ValueError(f"volume_method must be one of {', '.join(VOLUME_METHODS)}")
    mass = _number(item["mass_kg"], "mass_kg")
    if not mass > 0:
        raise ValueError(f"mass_kg must be positive, got {mass}")
    if not isinstance(item["texturable"], bool):
        raise ValueError("texturable must be true or false")
    return CatalogEntry(
        name=item["name"],
        kind=item["kind"],
        colour=item["colour"],
        rgba=rgba,
        category=item["category"],
        description=item["description"],
        asset=asset,
        size=size,
        scale_range=(lo, hi),
        extent_m=extent,
        volume_m3=volume,
        volume_method=item["volume_method"],
        mass_kg=mass,
        texturable=item["texturable"],
    )


def _number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{key} must be a finite number, got {value!r}")
    return float(value)


def _floats(value: object, key: str, n: int) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n:
        raise ValueError(f"{key} must be a list of {n} numbers, got {value!r}")
    return tuple(_number(v, key) for v in value)


# -- measuring ----------------------------------------------------------------------


def primitive_volume(shape: str, size: Iterable[float]) -> float:
    """Volume of a primitive at scale 1 (box half extents, cylinder r/h, sphere r)."""
    s = [float(v) for v in size]
    if shape == "box":
        return 8.0 * s[0] * s[1] * s[2]
    if shape == "cylinder":
        return math.pi * s[0] ** 2 * s[1]
    if shape == "sphere":
        return 4.0 / 3.0 * math.pi * s[0] ** 3
    raise ValueError(f"unknown primitive shape {shape!r}")


def primitive_extent(shape: str, size: Iterable[float]) -> tuple[float, float, float]:
    """Axis-aligned size of a primitive (cylinder axis along z)."""
    s = [float(v) for v in size]
    if shape == "box":
        return (2 * s[0], 2 * s[1], 2 * s[2])
    if shape == "cylinder":
        return (2 * s[0], 2 * s[0], s[1])
    if shape == "sphere":
        return (2 * s[0],) * 3
    raise ValueError(f"unknown primitive shape {shape!r}")


def measure_urdf_volume(path: str | Path, method: str | None = None) -> tuple[float, str]:
    """Volume of a URDF's visual geometry at scale 1, and the method used.

    Primitive geometry is ``analytic``. Meshes (OBJ) use ``mesh`` when the welded
    mesh is watertight (Open3D's signed volume), ``convex_pieces`` when it is a set of
    closed convex parts such as a V-HACD decomposition (the filled fraction of a grid
    over its bounding box that lies inside any part's hull), otherwise
    ``convex_hull``. Pass ``method`` to force one. Volumes of several visuals add up.
    """
    path = Path(path)
    total, methods = 0.0, []
    for kind, params, mesh_file in _urdf_visual_geometry(path):
        if kind == "mesh":
            vertices, triangles = _read_obj(mesh_file)
            vol, used = _mesh_volume(vertices * params, triangles, method)
        else:
            vol, used = primitive_volume(kind, params), "analytic"
        total += vol
        methods.append(used)
    if not methods:
        raise ValueError(f"{path}: no visual geometry")
    return total, max(methods, key=VOLUME_METHODS.index)


def _urdf_visual_geometry(path: Path) -> list[tuple[str, object, Path | None]]:
    root = ET.parse(path).getroot()
    out: list[tuple[str, object, Path | None]] = []
    for geom in root.findall("./link/visual/geometry"):
        child = next(iter(geom), None)
        if child is None:
            continue
        if child.tag == "mesh":
            scale = np.array([float(v) for v in child.get("scale", "1 1 1").split()])
            mesh_file = path.parent / child.get("filename", "")
            out.append(("mesh", scale, mesh_file))
        elif child.tag == "box":
            half = [float(v) / 2 for v in child.get("size", "").split()]
            out.append(("box", half, None))
        elif child.tag == "cylinder":
            out.append(("cylinder", [float(child.get("radius")), float(child.get("length"))], None))
        elif child.tag == "sphere":
            out.append(("sphere", [float(child.get("radius"))], None))
    return out


def _read_obj(path: Path) -> tuple[np.ndarray, np.ndarray]:
    """Vertices and fan-triangulated faces of a Wavefront OBJ (all groups)."""
    vertices: list[list[float]] = []
    triangles: list[tuple[int, int, int]] = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        parts = line.split()
        if not parts:
            continue
        if parts[0] == "v":
            vertices.append([float(v) for v in parts[1:4]])
        elif parts[0] == "f":
            idx = []
            for tok in parts[1:]:
                i = int(tok.split("/")[0])
                idx.append(i - 1 if i > 0 else len(vertices) + i)
            triangles.extend((idx[0], idx[k], idx[k + 1]) for k in range(1, len(idx) - 1))
    if not triangles:
        raise ValueError(f"{path}: no faces")
    return np.asarray(vertices, dtype=float), np.asarray(triangles, dtype=np.int64)


def _mesh_volume(vertices: np.ndarray, triangles: np.ndarray, method: str | None):
    import open3d as o3d
    from scipy.spatial import ConvexHull

    mesh = o3d.geometry.TriangleMesh(
        o3d.utility.Vector3dVector(vertices), o3d.utility.Vector3iVector(triangles)
    )
    mesh.remove_duplicated_vertices()
    mesh.remove_degenerate_triangles()
    if method is None:
        if mesh.is_watertight():
            method = "mesh"
        else:
            pieces = _closed_convex_pieces(mesh)
            method = "convex_pieces" if pieces is not None and len(pieces) > 1 else "convex_hull"
    if method == "mesh":
        if not mesh.is_watertight():
            raise ValueError("volume method 'mesh' needs a watertight mesh")
        return abs(mesh.get_volume()), method
    if method == "convex_hull":
        return ConvexHull(np.asarray(mesh.vertices)).volume, method
    if method == "convex_pieces":
        pieces = _closed_convex_pieces(mesh, require_closed=False)
        if not pieces:
            raise ValueError("volume method 'convex_pieces' found no solid parts")
        return _union_of_hulls_volume(pieces), method
    raise ValueError(f"volume method {method!r} does not apply to meshes")


def _closed_convex_pieces(mesh, require_closed: bool = True) -> list[np.ndarray] | None:
    """Vertex arrays of the mesh's connected parts.

    With ``require_closed``, None unless every part is closed and convex (its signed
    volume matches its hull's); without, flat or tiny parts are skipped.
    """
    from scipy.spatial import ConvexHull, QhullError

    labels, _, _ = mesh.cluster_connected_triangles()
    labels = np.asarray(labels)
    tris = np.asarray(mesh.triangles)
    verts = np.asarray(mesh.vertices)
    pieces = []
    for label in np.unique(labels):
        sub = tris[labels == label]
        pts = verts[np.unique(sub)]
        try:
            hull = ConvexHull(pts).volume if len(pts) >= 4 else 0.0
        except QhullError:  # flat part
            hull = 0.0
        if hull <= 0.0:
            if require_closed:
                return None
            continue
        if require_closed:
            a, b, c = verts[sub[:, 0]], verts[sub[:, 1]], verts[sub[:, 2]]
            vol = abs(np.einsum("ij,ij->i", a, np.cross(b, c)).sum()) / 6.0
            edges = np.sort(np.concatenate([sub[:, [0, 1]], sub[:, [1, 2]], sub[:, [2, 0]]]), 1)
            _, counts = np.unique(edges, axis=0, return_counts=True)
            if not (counts == 2).all() or abs(vol - hull) > 0.02 * hull:
                return None
        pieces.append(pts)
    return pieces


def _union_of_hulls_volume(pieces: list[np.ndarray], cells: int = 96) -> float:
    """Volume of the union of convex hulls: grid cell centres inside any hull."""
    from scipy.spatial import ConvexHull

    lo = np.min([p.min(0) for p in pieces], axis=0)
    hi = np.max([p.max(0) for p in pieces], axis=0)
    step = (hi - lo).max() / cells
    axes = [np.arange(lo[k] + step / 2, hi[k], step) for k in range(3)]
    inside = np.zeros([len(a) for a in axes], dtype=bool)
    for pts in pieces:
        hull = ConvexHull(pts)
        span = [
            slice(np.searchsorted(a, pts[:, k].min()), np.searchsorted(a, pts[:, k].max(), "right"))
            for k, a in enumerate(axes)
        ]
        sub = np.stack(
            np.meshgrid(*[a[s] for a, s in zip(axes, span, strict=True)], indexing="ij"), -1
        )
        ok = np.ones(sub.shape[:3], dtype=bool)
        for eq in hull.equations:
            ok &= sub @ eq[:3] + eq[3] <= 1e-12
        inside[tuple(span)] |= ok
    return float(inside.sum()) * step**3
