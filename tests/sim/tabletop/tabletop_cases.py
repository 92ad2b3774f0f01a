"""Small hand-built tabletop worlds and questions shared by the tool, agent and run-agent tests."""

from __future__ import annotations

from types import SimpleNamespace

from sim.tabletop.world import TABLE_TOP_Z, WORKSPACE_CENTRE, TabletopWorld

X, Y = WORKSPACE_CENTRE


def covered_cube_world() -> TabletopWorld:
    """A small red cube with a flat blue box lying over it, and a loose green box to one side."""
    world = TabletopWorld()
    world.add_primitive(
        "cube",
        "box",
        (0.012, 0.012, 0.012),
        (X, Y, TABLE_TOP_Z + 0.012),
        rgba=(0.9, 0.1, 0.1, 1),
        mass=0.05,
        name="red cube",
    )
    world.add_primitive(
        "cover",
        "box",
        (0.035, 0.03, 0.01),
        (X, Y, TABLE_TOP_Z + 0.036),
        rgba=(0.1, 0.2, 0.9, 1),
        mass=0.1,
        name="blue box",
    )
    world.add_primitive(
        "side",
        "box",
        (0.02, 0.02, 0.02),
        (X + 0.15, Y + 0.1, TABLE_TOP_Z + 0.02),
        rgba=(0.1, 0.7, 0.2, 1),
        mass=0.1,
        name="green box",
    )
    world.step(240)
    return world


def find_question(target: str = "red cube", present: bool = True):
    return SimpleNamespace(
        id=1,
        uid="q1",
        task="find",
        text=f"Is there a {target} on the table? If so, point to it.",
        options=["yes", "no"],
        answer={"answer": "yes" if present else "no"},
        criteria={"measured": {"target": target}},
        scene_id=None,
    )


def scene_record_of(world: TabletopWorld) -> dict:
    from sim.tabletop.world import TOP_DOWN

    return {
        "name": "covered cube",
        "benchmark": "mgvqa",
        "seed": 0,
        "generator": "tests",
        "camera": TOP_DOWN.as_dict(),
        "state": world.capture_state(),
        "bodies": world.body_records(),
    }
