"""widgets/explore."""
