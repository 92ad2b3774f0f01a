"""ST-BiBench tasks place_bread_skillet (Place5), place_bread_skillet_vla (Place10) and place_object_scale (Place8)."""

from __future__ import annotations

from sim.bimanual.tasks.kit import BimanualTask

TASKS: tuple[BimanualTask, ...] = ()
