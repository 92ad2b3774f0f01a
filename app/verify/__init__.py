"""app/verify."""
