"""annotation/bimanual."""
