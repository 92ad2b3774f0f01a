"""ST-BiBench tasks blocks_cross_shape (Place2) and blocks_tower (Place6)."""

from __future__ import annotations

from sim.bimanual.tasks.kit import BimanualTask

TASKS: tuple[BimanualTask, ...] = ()
