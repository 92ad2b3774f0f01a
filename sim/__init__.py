"""PyBullet worlds, robots, rendering and tools (no Qt, no SQL)."""
