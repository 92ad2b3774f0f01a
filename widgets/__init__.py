"""Qt widgets and panels. No SQL; models come in as plain-Python objects."""
