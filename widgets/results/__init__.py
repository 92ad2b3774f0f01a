"""widgets/results."""
