"""Where the Replay episodes docks go: Project hidden behind the error labels, short tab
labels."""

from __future__ import annotations

from widgets.dock_tabs import short_tabs
from widgets.mode import DockLayout

LAYOUT = DockLayout(project_behind="labels", project_hidden=True, arrange=short_tabs())
