"""Seeded domain randomization of the dual-arm world's look: table, background, light.

ST-BiBench varies "background textures, lighting conditions, and initial poses"
across episodes (its General Settings). Initial poses are the tasks' seeded
set-ups; this module does the rest, modestly: the table board gets one of the
shipped table textures (resources/textures/table), the floor (everything behind
and below the table) a tint, and the renderer's light a direction, all drawn
from the episode's randomization seed, so the same seed gives the same look.
Objects and arms keep their colours: the tasks name objects by colour.
"""

from __future__ import annotations

import json
import math
import random
from dataclasses import asdict, dataclass
from functools import cache
from pathlib import Path

TEXTURE_INDEX = (
    Path(__file__).resolve().parents[2] / "resources" / "textures" / "table" / ("index.json")
)
FLOOR_KEY = "floor"


@dataclass(frozen=True)
class Look:
    """One episode's randomized appearance (what the header records)."""

    seed: int
    table_texture: str  # a resources: reference
    floor_rgba: tuple[float, float, float, float]
    light_direction: tuple[float, float, float]

    def as_header(self) -> dict:
        return {
            "seed": self.seed,
            **{
                k: list(v) if isinstance(v, tuple) else v
                for k, v in asdict(self).items()
                if k != "seed"
            },
        }


@cache
def table_textures() -> tuple[str, ...]:
    """The shipped table textures (resources: references), in the index's order."""
    entries = json.loads(TEXTURE_INDEX.read_text(encoding="utf-8"))
    return tuple(e["file"] for e in entries)


def draw_look(seed: int) -> Look:
    """The look of randomization seed `seed` (pure: same seed, same look)."""
    rng = random.Random(f"bimanual-look-{int(seed)}")
    texture = rng.choice(table_textures())
    grey = rng.uniform(0.35, 0.95)
    tint = [min(1.0, max(0.0, grey + rng.uniform(-0.12, 0.12))) for _ in range(3)]
    # light from above, from any side, 35-75 degrees above the horizon
    azimuth = rng.uniform(0.0, 2.0 * math.pi)
    elevation = math.radians(rng.uniform(35.0, 75.0))
    light = (
        math.cos(elevation) * math.cos(azimuth),
        math.cos(elevation) * math.sin(azimuth),
        math.sin(elevation),
    )
    return Look(
        seed=int(seed),
        table_texture=texture,
        floor_rgba=(round(tint[0], 4), round(tint[1], 4), round(tint[2], 4), 1.0),
        light_direction=tuple(round(v, 4) for v in light),
    )


def apply_look(world, look: Look) -> None:
    """Give `world` the look's table texture and floor tint (PyBullet changeVisualShape);
    the light direction is the renderer's and goes to `sim.render.render` per image."""
    world.set_table_texture(look.table_texture)
    floor = world.bodies.get(FLOOR_KEY)
    if floor is not None:
        world.client.changeVisualShape(floor.uid, -1, rgbaColor=list(look.floor_rgba))
