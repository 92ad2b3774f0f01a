"""The object catalog for the tabletop world: what can be placed on the table.

The data lives in ``resources/catalog/objects.json`` (documented in the README next
to it). Each entry is a URDF from ``pybullet_data`` or a procedural primitive, with a
short unique name ("red mug"), a kind ("mug"), a colour word, a category, a physical
description, its volume and mass at ``globalScaling`` 1 and the scale range that
gives it a realistic tabletop size.

Volumes and masses scale with the cube of the scale. PyBullet's ``globalScaling``
scales geometry but not the URDF's mass, so a loader must set
``changeDynamics(body, -1, mass=entry.mass(scale))`` itself.

The measuring helpers (URDF/OBJ parsing, mesh volumes through Open3D) that gave
the numbers in the JSON are in `sim.tabletop.volumes`; the tests run them again.
"""

from __future__ import annotations

import json
import math
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from functools import lru_cache
from pathlib import Path

from sim.assets import is_primitive, parse_ref, primitive_shape, resolve_asset, scheme_root
from sim.tabletop.volumes import VOLUME_METHODS

CATALOG_FORMAT = "reasonscope-catalog/1"
PRIMITIVE_SIZE_LEN = {"box": 3, "cylinder": 2, "sphere": 1}
GRASP_KINDS = ("two-finger", "push")
_OPTIONAL = {"grasp": "two-finger"}  # fields an entry may leave out, with their defaults

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
    # "two-finger": the tabletop gripper takes it from above; "push": no two-finger grasp
    # from above can (too wide in every direction and flat), so it is pushed aside instead
    grasp: str = "two-finger"

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
        if d["grasp"] == _OPTIONAL["grasp"]:
            del d["grasp"]  # written only where it says something
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
    extra = sorted(set(item) - set(_FIELDS) - set(_OPTIONAL))
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
    grasp = item.get("grasp", _OPTIONAL["grasp"])
    if grasp not in GRASP_KINDS:
        raise ValueError(f"grasp must be one of {', '.join(GRASP_KINDS)}, not {grasp!r}")
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
        grasp=grasp,
    )


def _number(value: object, key: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise ValueError(f"{key} must be a finite number, got {value!r}")
    return float(value)


def _floats(value: object, key: str, n: int) -> tuple[float, ...]:
    if not isinstance(value, list) or len(value) != n:
        raise ValueError(f"{key} must be a list of {n} numbers, got {value!r}")
    return tuple(_number(v, key) for v in value)
