"""app/modes/annotate."""
