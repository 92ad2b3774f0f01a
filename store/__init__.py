"""SQLite project store: schema, migrations and repositories returning `annotation` dataclasses."""

from store.db import Project, ProjectError, open_for_reading, open_project

__all__ = ["Project", "ProjectError", "open_for_reading", "open_project"]
