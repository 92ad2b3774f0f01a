"""Reference plans for the 16-number tier, traced from the primitive reference plans.

`row_reference(task, seed)` runs the task's primitive reference plan in a scratch world
and writes down, after every straight-line move, homing move and gripper change of either
arm, the row both end effectors are then commanded to: the finished move's goal pose
for the arm that moved, the other arm's last one, and each gripper as open (1) or
closed on something (0). Executed with `BimanualExecutor.execute_ee` from the same
seeded start, the rows redo the plan one motion at a time, so a row plan is known to be
able to solve the task in this world (the bench measures how often it does).
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.frames import to_wire
from sim.bimanual.tasks import TASKS
from sim.bimanual.world import ARMS, DualArmWorld


class _Tracer(BimanualExecutor):
    """An executor that records the commanded row after every motion it finishes."""

    def __init__(self, world: DualArmWorld) -> None:
        super().__init__(world)
        self.poses = {arm: world.ee_wire_pose(arm) for arm in ARMS}
        self.home = dict(self.poses)  # a fresh world's arms are at their origin poses
        self.grips = {arm: 1.0 for arm in ARMS}
        self.rows: list[list[float]] = []
        self.gripped: set[str] = set()  # arms whose grip alone the last row changed

    def _note(self, grip_of: str | None = None) -> None:
        row: list[float] = []
        for arm in ARMS:
            row += [round(float(v), 5) for v in self.poses[arm]] + [self.grips[arm]]
        if self.rows and self.rows[-1] == row:
            return
        closing = grip_of is not None and self.grips[grip_of] == 0.0
        if (
            closing
            and self.gripped
            and grip_of not in self.gripped
            and all(self.grips[a] == 0.0 for a in self.gripped)
        ):
            # the other hand closed just before, with nothing moving in between (a
            # two-handed grasp): one row closes both, as the primitives do; a hand-over
            # (one closes, then the other opens) stays two rows
            self.rows[-1] = row
            self.gripped.add(grip_of)
            return
        self.rows.append(row)
        self.gripped = {grip_of} if grip_of is not None else set()

    def _line(self, arm, position, orientation, *args, **kwargs) -> Generator:
        yield from super()._line(arm, position, orientation, *args, **kwargs)
        orn = self.world.ee_pose(arm)[1] if orientation is None else orientation
        self.poses[arm] = to_wire(position, orn)
        self._note()

    def _origin(self, arm) -> Generator:
        yield from super()._origin(arm)
        self.poses[arm] = list(self.home[arm])
        self._note()

    def _fingers(self, arm, angle, *args, **kwargs) -> Generator:
        yield from super()._fingers(arm, angle, *args, **kwargs)
        self.grips[arm] = 1.0 if angle < 0.05 else 0.0
        self._note(grip_of=arm)


def row_reference(task: str, seed: int) -> tuple[list[list[float]], bool]:
    """(the rows, whether the traced primitive plan itself solved the task)."""
    world = DualArmWorld()
    try:
        spec = TASKS[task]
        spec.setup(world, seed)
        tracer = _Tracer(world)
        tracer.execute(spec.reference_plan(world))
        return tracer.rows, bool(spec.check(world)[0])
    finally:
        world.close()


def run_rows(task: str, seed: int, rows: list[Any]) -> tuple[bool, str, int]:
    """Execute rows from the task's seeded start: (success, the check's reason, rows run)."""
    world = DualArmWorld()
    try:
        spec = TASKS[task]
        spec.setup(world, seed)
        results = BimanualExecutor(world).execute_ee(rows)
        ok, why = spec.check(world)
        failed = next((r for r in results if not r.ok), None)
        return ok, (failed.feedback if failed and not ok else why), len(results)
    finally:
        world.close()
