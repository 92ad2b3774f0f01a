"""app/results."""
