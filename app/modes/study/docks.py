"""Where the Human study docks go: Project hidden, short tab labels."""

from __future__ import annotations

from widgets.dock_tabs import short_tabs
from widgets.mode import DockLayout

LAYOUT = DockLayout(project_hidden=True, arrange=short_tabs())
