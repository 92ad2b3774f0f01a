"""widgets/graph."""
