"""annotation/tabletop."""
