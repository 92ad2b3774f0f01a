"""app/explore."""
