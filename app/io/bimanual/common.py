"""What both bimanual log readers share: the read episode, checked file reads, storing.

A reader (`bimanibench`, `embodiedbench`) checks everything first and returns
`ImportedEpisode`s; `store_bimanual` stores them in one transaction, so a
structural problem names the file and stores nothing.
"""

from __future__ import annotations

import hashlib
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.bimanual.pose import ORDERS
from store import ProjectError, open_project


@dataclass
class ImportedEpisode:
    """One episode read from a log, ready to store: header, steps and image bytes."""

    where: str
    header: dict[str, Any]
    steps: list[dict[str, Any]]
    images: dict[str, tuple[bytes, str]] = field(default_factory=dict)  # sha -> (data, mime)


def read_text(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        raise ProjectError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc.strerror})") from None


def add_image(episode: ImportedEpisode, path: Path) -> str:
    """Read an observation image into the episode's images; return its sha256."""
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc.strerror})") from None
    check_image(path, data)
    mime = "image/png" if path.suffix.lower() == ".png" else "image/jpeg"
    sha = hashlib.sha256(data).hexdigest()
    episode.images[sha] = (data, mime)
    return sha


def check_image(path: Path, data: bytes) -> None:
    """Refuse an observation that does not decode (a cut or garbled file)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
    except Exception as exc:  # PIL raises many kinds for broken files
        raise ProjectError(f"{path}: not an image that decodes ({exc})") from None


def check_order(pose_order: str) -> None:
    if pose_order not in ORDERS:
        raise ProjectError(f"--pose-order {pose_order}: known orders are {', '.join(ORDERS)}")


# -- storing ----------------------------------------------------------------------------------
def image_size(data: bytes) -> tuple[int | None, int | None]:
    try:
        from PIL import Image

        with Image.open(io.BytesIO(data)) as image:
            return image.size
    except Exception:  # an unreadable image is still stored; its size is unknown
        return None, None


def store_bimanual(
    db: str | os.PathLike[str], episodes: list[ImportedEpisode], source: str
) -> tuple[int, int]:
    """Store read episodes in one transaction; return (episodes, format-error steps)."""
    format_errors = 0
    seen: set[str] = set()
    with open_project(db) as project, project.write():
        for ep in episodes:
            uid = ep.header["uid"]
            if uid in seen or project.episodes.find(uid) is not None:
                raise ProjectError(f"{ep.where}: episode {uid} is already in {db}")
            seen.add(uid)
            for data, mime in ep.images.values():
                project.images.put(data, mime, *image_size(data))
            project.episodes.add(ep.header, ep.steps, source=source)
            format_errors += sum(1 for s in ep.steps if s["kind"] == "format_error")
    return len(episodes), format_errors
