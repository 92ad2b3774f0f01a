"""annotation/query."""
