"""app/modes/replay."""
