"""Icons shipped in resources/icons (SVG), tinted to the current palette."""

from __future__ import annotations

from functools import cache
from pathlib import Path

from PySide6.QtGui import QIcon

import resources

ICON_DIR = Path(resources.__file__).resolve().parent / "icons"


@cache
def icon(name: str) -> QIcon:
    """The icon `name` from resources/icons/<name>.svg; a missing one is a bug."""
    path = ICON_DIR / f"{name}.svg"
    if not path.exists():
        raise FileNotFoundError(f"{path}: no such icon")
    return QIcon(str(path))
