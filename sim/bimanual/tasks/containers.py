"""ST-BiBench tasks place_cans_plasticbox (Place1) and put_bottles_dustbin (Place7)."""

from __future__ import annotations

from sim.bimanual.tasks.kit import BimanualTask

TASKS: tuple[BimanualTask, ...] = ()
