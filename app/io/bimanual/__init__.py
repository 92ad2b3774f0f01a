"""app/io/bimanual."""
