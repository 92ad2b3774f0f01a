"""sim/bimanual."""
