"""SQLite project store: schema, migrations and repositories returning `annotation` dataclasses."""

from store.db import open_for_reading, open_project
from store.errors import ProjectError
from store.project import Project

__all__ = ["Project", "ProjectError", "open_for_reading", "open_project"]
