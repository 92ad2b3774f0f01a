"""app/modes/results."""
