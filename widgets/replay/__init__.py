"""widgets/replay."""
