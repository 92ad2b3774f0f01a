"""ST-BiBench tasks handover_mic (Handover1) and hanging_mug (Handover3)."""

from __future__ import annotations

from sim.bimanual.tasks.kit import BimanualTask

TASKS: tuple[BimanualTask, ...] = ()
