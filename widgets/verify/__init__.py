"""widgets/verify."""
