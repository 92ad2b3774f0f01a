"""Measuring the catalog's objects: volumes and extents of primitives and URDF assets.

How the volumes in ``resources/catalog/objects.json`` were obtained (the tests run
them again): primitives analytically; a URDF's visual meshes (OBJ) through Open3D,
as a watertight mesh, a set of closed convex pieces, or a convex hull.
"""

from __future__ import annotations

import math
import xml.etree.ElementTree as ET
from collections.abc import Iterable
from pathlib import Path

import numpy as np

VOLUME_METHODS = ("analytic", "mesh", "convex_hull", "convex_pieces")


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
