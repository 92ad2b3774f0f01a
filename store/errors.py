"""The store's one exception and its clock: shared by every module of the store."""

from __future__ import annotations

from datetime import datetime, timezone


class ProjectError(Exception):
    """A project cannot be opened or changed; the message is one line naming the file."""


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")
