"""widgets/study."""
