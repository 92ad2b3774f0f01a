"""app/replay."""
