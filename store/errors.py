"""The store's one exception and its clock: shared by every module of the store."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone

#: How far ahead of this machine's clock a given time may be (another machine's clock).
CLOCK_SKEW = timedelta(minutes=5)


class ProjectError(Exception):
    """A project cannot be opened or changed; the message is one line naming the file."""


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


def given_time(value: object, what: str = "time") -> str:
    """A time given from outside (a work package's `created_at`, an audit entry's `at`):
    an ISO 8601 string with a time zone, not in the future. Raises `ValueError` saying
    which rule it breaks; returns it unchanged."""
    if not isinstance(value, str):
        raise ValueError(f"{what} must be an ISO 8601 time, not {value!r}")
    try:
        when = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{what} {value[:40]!r} is not an ISO 8601 time") from None
    if when.tzinfo is None:
        raise ValueError(f"{what} {value!r} has no time zone")
    if when > datetime.now(timezone.utc) + CLOCK_SKEW:
        raise ValueError(f"{what} {value!r} is in the future")
    return value
