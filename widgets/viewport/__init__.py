"""widgets/viewport."""
