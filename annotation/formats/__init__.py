"""annotation/formats."""
