"""app/modes/explore."""
