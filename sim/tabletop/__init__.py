"""sim/tabletop."""
