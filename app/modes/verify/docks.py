"""Where the Verify questions docks go: Project behind the model's image, short tab labels."""

from __future__ import annotations

from widgets.dock_tabs import short_tabs
from widgets.mode import DockLayout

LAYOUT = DockLayout(project_behind="image", arrange=short_tabs())
