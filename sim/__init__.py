"""PyBullet worlds, robots, rendering and tools (no Qt, no SQL)."""

from sim.quiet import quiet_c_output

# PyBullet prints its build time when first imported, past sys.stdout; load it
# here, quietly, before any sim module imports it.
with quiet_c_output():
    import pybullet  # noqa: F401
