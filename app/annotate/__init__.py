"""app/annotate."""
