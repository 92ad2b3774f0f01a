"""Where the Results docks go: Project hidden (the tables need the width)."""

from __future__ import annotations

from widgets.dock_tabs import short_tabs
from widgets.mode import DockLayout

LAYOUT = DockLayout(project_hidden=True, arrange=short_tabs())  # the tables need the width
