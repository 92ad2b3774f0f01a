"""Triangle geometry for the 3D viewport: generated primitives and meshes read once.

Everything here is plain numpy (Open3D reads the files); nothing knows about Qt
or OpenGL. Primitives are unit shapes that the viewport scales with the item
transform, so every box in a scene shares one `Geometry`; mesh files are read
once per path and process (several viewports share them) and kept unscaled,
since PyBullet reports each shape's mesh scale separately.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import math
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from sim.assets import box_texture_file
from sim.visuals import VisualShape

log = logging.getLogger(__name__)

_DEFAULT_GREY = (0.6, 0.6, 0.6, 1.0)
# Mesh parts with more triangles than this are welded and decimated to DECIMATE_KEEP
# of their triangles (never below DECIMATE_ABOVE) for drawing.
DECIMATE_ABOVE = 600
DECIMATE_KEEP = 0.03


@dataclass(frozen=True, eq=False)
class Geometry:
    """An indexed triangle mesh with per-vertex normals and optional colours and UVs."""

    vertices: np.ndarray  # (N, 3) float32
    normals: np.ndarray  # (N, 3) float32, unit length
    faces: np.ndarray  # (M, 3) uint32
    colors: np.ndarray | None = None  # (N, 4) float32 in 0..1, from the file's materials
    uv: np.ndarray | None = None  # (N, 2) float32
    textured: bool = False  # some colour comes from a texture image
    texture: np.ndarray | None = None  # (H, W, 4) uint8, sampled at `uv` (v = 0: top row)
    two_sided: bool = False  # an open surface (the floor): never cull its back faces

    @property
    def triangle_count(self) -> int:
        return len(self.faces)

    def bounds(self) -> tuple[np.ndarray, np.ndarray]:
        return self.vertices.min(axis=0), self.vertices.max(axis=0)


def _geometry(
    vertices, normals, faces, colors=None, uv=None, textured=False, texture=None
) -> Geometry:
    vertices, normals, faces, colors, uv = _welded(vertices, normals, faces, colors, uv)
    return Geometry(
        np.ascontiguousarray(vertices, dtype=np.float32),
        np.ascontiguousarray(normals, dtype=np.float32),
        np.ascontiguousarray(faces, dtype=np.uint32),
        None if colors is None else np.ascontiguousarray(colors, dtype=np.float32),
        None if uv is None else np.ascontiguousarray(uv, dtype=np.float32),
        textured,
        texture,
    )


def _welded(vertices, normals, faces, colors, uv):
    """Merge vertices identical in every attribute (mesh readers give each corner its own),
    so indexed drawing can reuse them: the same picture for about a third of the work."""
    columns = [np.asarray(vertices, np.float32), np.asarray(normals, np.float32)]
    columns += [np.asarray(a, np.float32) for a in (colors, uv) if a is not None]
    rows = np.ascontiguousarray(np.concatenate(columns, axis=1))
    keys = rows.view(np.dtype((np.void, rows.dtype.itemsize * rows.shape[1]))).ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    if len(first) == len(rows):
        return vertices, normals, faces, colors, uv
    faces = inverse.reshape(-1)[np.asarray(faces, dtype=np.int64)]

    def pick(a):
        return None if a is None else np.asarray(a)[first]

    return pick(vertices), pick(normals), faces, pick(colors), pick(uv)


# -- primitives ---------------------------------------------------------------------


@functools.cache
def unit_box() -> Geometry:
    """Cube from -0.5 to 0.5 on every axis, flat normals."""
    vertices, normals, faces = [], [], []
    for axis in range(3):
        for sign in (1.0, -1.0):
            n = np.zeros(3)
            n[axis] = sign
            # Two in-face axes (u, v) with u x v = n, so triangles wind counter-clockwise.
            u = np.zeros(3)
            u[(axis + 1) % 3] = 1.0
            v = np.cross(n, u)
            base = len(vertices)
            for du, dv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
                vertices.append(0.5 * (n + du * u + dv * v))
                normals.append(n)
            faces += [(base, base + 1, base + 2), (base, base + 2, base + 3)]
    return _geometry(vertices, normals, faces)


# PyBullet's TinyRenderer box puts only the texture's last quarter on the top face:
# columns 0.75..1 run along +x and rows 0.75..1 (counted from the image's top) along +y,
# measured by rendering a gradient texture. Copy it, so the viewport shows the table
# the way the model-facing images do.
PYBULLET_BOX_TOP_UV = (0.75, 1.0)


@functools.cache
def unit_textured_box() -> Geometry:
    """`unit_box` with UVs laid out in x/y the way PyBullet textures a box's top face."""
    box = unit_box()
    lo, hi = PYBULLET_BOX_TOP_UV
    uv = lo + (hi - lo) * (box.vertices[:, :2] + 0.5)
    return _geometry(box.vertices, box.normals, box.faces, uv=uv)


@functools.cache
def unit_cylinder(segments: int = 28) -> Geometry:
    """Radius 1, length 1 along z, centred on the origin (PyBullet's cylinder frame)."""
    angles = np.linspace(0.0, 2 * math.pi, segments, endpoint=False)
    ring = np.c_[np.cos(angles), np.sin(angles)]
    vertices, normals, faces = [], [], []
    # Side: two rings with radial normals.
    for z in (-0.5, 0.5):
        vertices += [(x, y, z) for x, y in ring]
        normals += [(x, y, 0.0) for x, y in ring]
    for i in range(segments):
        j = (i + 1) % segments
        faces += [(i, j, segments + j), (i, segments + j, segments + i)]
    # Caps: a centre vertex and a ring each, flat normals.
    for z, nz in ((-0.5, -1.0), (0.5, 1.0)):
        centre = len(vertices)
        vertices.append((0.0, 0.0, z))
        normals.append((0.0, 0.0, nz))
        vertices += [(x, y, z) for x, y in ring]
        normals += [(0.0, 0.0, nz)] * segments
        for i in range(segments):
            a, b = centre + 1 + i, centre + 1 + (i + 1) % segments
            faces.append((centre, a, b) if nz > 0 else (centre, b, a))
    return _geometry(vertices, normals, faces)


def _sphere_rings(rows: int, cols: int, z_offset_top: float = 0.0, z_offset_bottom: float = 0.0):
    """Vertices and faces of a unit UV sphere; the two halves may be pushed apart in z."""
    vertices, normals, faces = [], [], []
    for r in range(rows + 1):
        theta = math.pi * r / rows  # 0 at the north pole
        z, rad = math.cos(theta), math.sin(theta)
        shift = z_offset_top if z >= 0 else z_offset_bottom
        for c in range(cols + 1):
            phi = 2 * math.pi * c / cols
            n = (rad * math.cos(phi), rad * math.sin(phi), z)
            normals.append(n)
            vertices.append((n[0], n[1], n[2] + shift))
    for r in range(rows):
        for c in range(cols):
            a = r * (cols + 1) + c
            b = a + cols + 1
            faces += [(a, b, a + 1), (a + 1, b, b + 1)]
    return vertices, normals, faces


@functools.cache
def unit_sphere(rows: int = 12, cols: int = 24) -> Geometry:
    """Radius 1, centred on the origin."""
    return _geometry(*_sphere_rings(rows, cols))


@functools.lru_cache(maxsize=64)
def capsule(length: float, radius: float, rows: int = 18, cols: int = 32) -> Geometry:
    """A capsule along z: a cylinder of `length` capped by hemispheres of `radius`."""
    vertices, normals, faces = _sphere_rings(rows, cols, length / 2 / radius, -length / 2 / radius)
    return _geometry(np.asarray(vertices) * radius, normals, faces)


@functools.cache
def plane_quad(half_size: float = 10.0) -> Geometry:
    """A square in the xy plane facing +z (PyBullet's GEOM_PLANE)."""
    h = half_size
    vertices = [(-h, -h, 0), (h, -h, 0), (h, h, 0), (-h, h, 0)]
    return dataclasses.replace(
        _geometry(vertices, [(0, 0, 1)] * 4, [(0, 1, 2), (0, 2, 3)]), two_sided=True
    )


# -- mesh files ----------------------------------------------------------------------

_mesh_cache: dict[str, Geometry | None] = {}
_mesh_lock = threading.Lock()


def mesh_cache_size() -> int:
    """How many mesh files have been read so far (for tests and the bench)."""
    return len(_mesh_cache)


def load_mesh(path: str | Path) -> Geometry | None:
    """The mesh file at `path`, read once per process; None if it cannot be read.

    OBJ, STL, PLY and glTF go through Open3D's model reader, which keeps each
    material apart. A mesh with one textured material keeps its texture and
    UVs (`Geometry.texture`); otherwise every material becomes a per-vertex
    colour: its base colour, or its texture's average colour. A COLLADA file
    is read from the OBJ beside it (Open3D cannot read COLLADA, nor can PyBullet).
    """
    key = str(Path(path))
    with _mesh_lock:
        if key in _mesh_cache:
            return _mesh_cache[key]
        geometry = _read_mesh(key)
        _mesh_cache[key] = geometry
        return geometry


def _rgba_pixels(image) -> np.ndarray | None:
    """An Open3D image as (H, W, 4) uint8, or None if it is empty."""
    pixels = np.asarray(image) if image is not None else np.zeros(0)
    if not pixels.size:
        return None
    if pixels.dtype != np.uint8:
        pixels = np.clip(pixels * (255.0 if pixels.max() <= 1.0 else 1.0), 0, 255).astype(np.uint8)
    if pixels.ndim == 2:
        pixels = pixels[:, :, None]
    if pixels.shape[2] == 1:
        pixels = np.repeat(pixels, 3, axis=2)
    if pixels.shape[2] == 3:
        pixels = np.concatenate([pixels, np.full(pixels.shape[:2] + (1,), 255, np.uint8)], axis=2)
    return np.ascontiguousarray(pixels[:, :, :4])


def _material(material) -> tuple[np.ndarray, np.ndarray | None]:
    """A material's colour (its texture's average if it has one, as PyBullet ignores
    the diffuse colour of textured materials) and its texture pixels."""
    image = _rgba_pixels(getattr(material, "albedo_img", None))
    if image is None:
        return np.asarray(material.base_color, dtype=float), None
    colour = image.reshape(-1, 4).mean(axis=0) / 255.0
    colour[3] = 1.0
    return colour, image


def _read_mesh(path: str) -> Geometry | None:
    import open3d as o3d

    file = Path(path)
    if file.suffix.lower() == ".dae" and file.with_suffix(".obj").is_file():
        file = file.with_suffix(".obj")
    if not file.is_file():
        log.info("mesh file %s does not exist; drawn as nothing", path)
        return None
    with o3d.utility.VerbosityContextManager(o3d.utility.VerbosityLevel.Error):
        parts = _read_parts(o3d, str(file))
    if not parts:
        log.info("no triangles in %s", path)
        return None
    if len(parts) == 1 and parts[0][2] is not None:
        textured = _textured_geometry(*parts[0])
        if textured is not None:
            return textured
    return _coloured_geometry(parts)


def _read_parts(o3d, path: str) -> list:
    """[(Open3D mesh, rgba colour, texture pixels or None)] for each material of the file."""
    parts = []
    try:
        model = o3d.io.read_triangle_model(path)
        for info in model.meshes:
            colour, image = np.asarray(_DEFAULT_GREY), None
            if 0 <= info.material_idx < len(model.materials):
                colour, image = _material(model.materials[info.material_idx])
            if len(info.mesh.triangles):
                parts.append((info.mesh, colour, image))
    except Exception:  # noqa: BLE001 - Open3D raises plain RuntimeErrors
        log.info("Open3D's model reader failed on %s", path, exc_info=True)
    if not parts:
        mesh = o3d.io.read_triangle_mesh(path)
        if len(mesh.triangles):
            parts.append((mesh, np.asarray(_DEFAULT_GREY), None))
    return parts


def _normals(mesh) -> np.ndarray:
    if not mesh.has_vertex_normals() or len(mesh.vertex_normals) != len(mesh.vertices):
        mesh.compute_vertex_normals()
    n = np.asarray(mesh.vertex_normals, dtype=np.float64)
    lengths = np.linalg.norm(n, axis=1, keepdims=True)
    return np.where(lengths > 1e-12, n / np.maximum(lengths, 1e-12), (0.0, 0.0, 1.0))


def _textured_geometry(mesh, colour, image) -> Geometry | None:
    """One vertex per triangle corner, since UVs are given per corner."""
    tris = np.asarray(mesh.triangles, dtype=np.int64)
    uv = np.asarray(mesh.triangle_uvs, dtype=np.float32)
    if len(uv) != 3 * len(tris):
        return None
    corners = tris.reshape(-1)
    # File UVs count v from the image's bottom row; our textures start at the top row.
    uv = np.c_[uv[:, 0], 1.0 - uv[:, 1]]
    return _geometry(
        np.asarray(mesh.vertices)[corners],
        _normals(mesh)[corners],
        np.arange(len(corners)).reshape(-1, 3),
        uv=uv,
        textured=True,
        texture=image,
    )


def _lighter(mesh):
    """The mesh with shared vertices welded and, if it is large, fewer triangles.

    Robot CAD meshes carry 20-40k triangles a link, each with its own three
    vertices; a software rasteriser spends most of a frame on them. Welding
    lets the GPU reuse vertices, and quadric decimation keeps the silhouette.
    """
    import open3d as o3d

    if len(mesh.triangles) <= DECIMATE_ABOVE:
        return mesh
    welded = o3d.geometry.TriangleMesh(mesh.vertices, mesh.triangles)
    if mesh.has_vertex_colors():
        welded.vertex_colors = mesh.vertex_colors
    welded.merge_close_vertices(1e-7)
    target = max(DECIMATE_ABOVE, int(len(mesh.triangles) * DECIMATE_KEEP))
    lighter = welded.simplify_quadric_decimation(target)
    lighter.compute_vertex_normals()
    return lighter


def _coloured_geometry(parts) -> Geometry:
    vertices, normals, faces, colours = [], [], [], []
    offset = 0
    textured = False
    for original, colour, image in parts:
        mesh = _lighter(original)
        v = np.asarray(mesh.vertices, dtype=np.float32)
        if mesh.has_vertex_colors() and len(mesh.vertex_colors) == len(v):
            c = np.c_[np.asarray(mesh.vertex_colors), np.full(len(v), colour[3])]
        else:
            c = np.tile(np.asarray(colour, dtype=np.float32), (len(v), 1))
        vertices.append(v)
        normals.append(_normals(mesh))
        faces.append(np.asarray(mesh.triangles, dtype=np.int64) + offset)
        colours.append(c)
        offset += len(v)
        textured |= image is not None
    return _geometry(
        np.concatenate(vertices),
        np.concatenate(normals),
        np.concatenate(faces),
        np.concatenate(colours),
        textured=textured,
    )


# -- what to draw for a visual shape ---------------------------------------------------


@functools.lru_cache(maxsize=16)
def load_texture_image(ref: str) -> np.ndarray | None:
    """RGBA pixels (H, W, 4) of a `resources:` texture reference, or None if it is missing.

    The table is a box, so this is the same atlas PyBullet is given
    (`sim.assets.box_texture_file`), mapped the way PyBullet maps it.
    """
    from PIL import Image

    try:
        path = box_texture_file(ref)
        with Image.open(path) as image:
            return np.asarray(image.convert("RGBA"), dtype=np.uint8)
    except (ValueError, OSError):
        log.info("texture %s not available; drawing the plain colour", ref, exc_info=True)
        return None


def is_white(rgba) -> bool:
    return all(c >= 0.999 for c in rgba[:3])


def shape_geometry(shape: VisualShape, *, textured: bool = False):
    """The geometry an item draws for `shape`, and the scale its transform applies."""
    d = shape.dimensions
    if shape.geometry == "box":
        unit = unit_textured_box() if textured else unit_box()
        return unit, (d[0], d[1], d[2])
    if shape.geometry == "sphere":
        return unit_sphere(), (d[0], d[0], d[0])
    if shape.geometry == "cylinder":
        return unit_cylinder(), (d[1], d[1], d[0])
    if shape.geometry == "capsule":
        return capsule(round(d[0], 6), round(d[1], 6)), (1.0, 1.0, 1.0)
    if shape.geometry == "plane":
        return plane_quad(), (1.0, 1.0, 1.0)
    if shape.geometry == "mesh" and shape.mesh_path:
        return load_mesh(shape.mesh_path), (d[0], d[1], d[2])
    return None, (1.0, 1.0, 1.0)
