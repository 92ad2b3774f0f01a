"""app/modes/study."""
