"""app/modes/verify."""
