"""Asset references: short, portable strings that name a file (or a primitive shape).

Scenes, the catalog and exports never store absolute paths; they store references:

- ``pybullet_data:<path>``  relative to ``pybullet_data.getDataPath()``
- ``airo_models:<path>``    relative to the ``airo_models`` package directory
- ``resources:<path>``      relative to this repository's ``resources/`` package
- ``primitive:box`` | ``primitive:cylinder`` | ``primitive:sphere``  (no file; the
  body's ``size`` gives box half extents, cylinder ``[radius, height]`` or sphere
  ``[radius]``)

Paths use ``/`` and may not be absolute or climb out of their root with ``..``.
A malformed or unresolvable reference raises :class:`ValueError` naming it.
"""

from __future__ import annotations

import importlib
import os
from pathlib import Path, PurePosixPath

from annotation.formats.asset_refs import (
    FILE_SCHEMES,
    PRIMITIVE_SCHEME,
    PRIMITIVE_SHAPES,
    parse_ref,
)

__all__ = [
    "FILE_SCHEMES",
    "PRIMITIVE_SCHEME",
    "PRIMITIVE_SHAPES",
    "is_primitive",
    "parse_ref",
    "primitive_shape",
    "resolve_asset",
    "scheme_root",
    "to_ref",
]


def is_primitive(ref: str) -> bool:
    """True for ``primitive:<shape>`` references (raises ValueError on malformed refs)."""
    return parse_ref(ref)[0] == PRIMITIVE_SCHEME


def primitive_shape(ref: str) -> str:
    """``"box"``, ``"cylinder"`` or ``"sphere"`` for a primitive reference."""
    scheme, rest = parse_ref(ref)
    if scheme != PRIMITIVE_SCHEME:
        raise ValueError(f"asset reference {ref!r} is not a primitive")
    return rest


def scheme_root(scheme: str) -> Path:
    """The directory a file scheme's paths are relative to."""
    if scheme == "pybullet_data":
        import pybullet_data

        return Path(pybullet_data.getDataPath()).resolve()
    if scheme in ("airo_models", "resources"):
        module = importlib.import_module(scheme)
        return Path(module.__file__).resolve().parent
    raise ValueError(f"unknown asset scheme {scheme!r}")


def resolve_asset(ref: str, *, must_exist: bool = True) -> Path:
    """The absolute path a file reference names.

    Raises ValueError for malformed references, primitives (they have no file) and,
    when ``must_exist``, references whose file is missing.
    """
    scheme, rest = parse_ref(ref)
    if scheme == PRIMITIVE_SCHEME:
        raise ValueError(f"asset reference {ref!r} is a primitive and has no file")
    try:
        root = scheme_root(scheme)
    except ImportError as exc:
        raise ValueError(f"cannot resolve {ref!r}: package {scheme!r} is not installed") from exc
    path = root.joinpath(*PurePosixPath(rest).parts)
    if must_exist and not path.is_file():
        raise ValueError(f"asset reference {ref!r} names a missing file: {path}")
    return path


def to_ref(path: str | Path) -> str | None:
    """The reference for a file under one of the scheme roots, or None."""
    target = Path(path).resolve()
    for scheme in FILE_SCHEMES:
        try:
            root = scheme_root(scheme)
        except ImportError:
            continue
        try:
            rel = target.relative_to(root)
        except ValueError:
            continue
        return f"{scheme}:{rel.as_posix()}"
    return None


#: PyBullet's box maps only the last quarter of the texture's u and v (0.75 to 1)
#: onto its top face, mirrored top to bottom. A table texture is therefore
#: loaded as a 4 x 4 atlas of its image flipped vertically, so the table top
#: shows the whole image, upright in the top-down view (image top = +y).
BOX_TEXTURE_TILES = 4


def box_texture_file(ref: str) -> Path:
    """The atlas PyBullet loads for texturing a box with `ref` (made once, cached)."""
    import hashlib
    import tempfile

    from PIL import Image

    source = resolve_asset(ref)
    digest = hashlib.sha256(source.read_bytes()).hexdigest()[:16]
    cache = Path(tempfile.gettempdir()) / "reasonscope-textures"
    cache.mkdir(parents=True, exist_ok=True)
    atlas_path = cache / f"{source.stem}-{digest}-x{BOX_TEXTURE_TILES}.png"
    if not atlas_path.exists():
        with Image.open(source) as image:
            tile = image.convert("RGB").transpose(Image.Transpose.FLIP_TOP_BOTTOM)
        w, h = tile.size
        atlas = Image.new("RGB", (w * BOX_TEXTURE_TILES, h * BOX_TEXTURE_TILES))
        for i in range(BOX_TEXTURE_TILES):
            for j in range(BOX_TEXTURE_TILES):
                atlas.paste(tile, (i * w, j * h))
        partial = atlas_path.with_suffix(f".{os.getpid()}.partial.png")
        atlas.save(partial, compress_level=1)
        os.replace(partial, atlas_path)  # concurrent makers never see half a file
    return atlas_path
