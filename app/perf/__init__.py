"""app/perf."""
