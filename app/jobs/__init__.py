"""app/jobs."""
