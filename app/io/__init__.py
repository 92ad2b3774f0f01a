"""app/io."""
