"""Per-user settings (QSettings in an INI file in the config folder)."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QSettings

from app.paths import config_dir

MAX_RECENT = 8


def settings() -> QSettings:
    return QSettings(str(config_dir() / "reasonscope.ini"), QSettings.Format.IniFormat)


def recent_projects() -> list[str]:
    value = settings().value("recent_projects", [])
    if isinstance(value, str):
        value = [value]
    return [str(v) for v in value or []]


def remember_project(path: Path | str) -> list[str]:
    path = str(Path(path).absolute())
    items = [p for p in recent_projects() if p != path]
    items.insert(0, path)
    items = items[:MAX_RECENT]
    s = settings()
    s.setValue("recent_projects", items)
    s.sync()
    return items


def annotator_name() -> str | None:
    value = settings().value("annotator")
    return str(value) if value else None


def remember_annotator(name: str) -> None:
    s = settings()
    s.setValue("annotator", name)
    s.sync()
