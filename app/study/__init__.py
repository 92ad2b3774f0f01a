"""app/study."""
