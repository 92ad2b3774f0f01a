"""Domain logic and shared value types. Imports neither Qt, PyBullet nor SQL."""
