"""app/graph."""
