"""widgets/hoi."""
