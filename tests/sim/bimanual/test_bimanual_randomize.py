"""Seeded domain randomization of the dual-arm world: the same seed gives the same table
texture, floor tint, light and images; different seeds differ; the header records it."""

from __future__ import annotations

from sim.bimanual.env import BimanualEnv
from sim.bimanual.randomize import draw_look, table_textures

SIZE = (64, 48)


def first_view(randomization_seed):
    with BimanualEnv(
        "stack_blocks_two",
        0,
        image_size=SIZE,
        cameras=("head", "third"),
        randomization_seed=randomization_seed,
    ) as env:
        floor = env.world.bodies["floor"].uid
        floor_rgba = env.world.client.getVisualShapeData(floor)[0][7]
        return (
            env.steps[0]["result"]["images"],
            env.world.table_texture,
            tuple(round(v, 3) for v in floor_rgba),
            env.header(agent="reference")["bimanual"],
        )


def test_the_same_seed_gives_the_same_look_and_images():
    a, b = first_view(7), first_view(7)
    assert a[:3] == b[:3] and a[3]["look"] == b[3]["look"]
    look = draw_look(7)
    assert a[1] == look.table_texture and a[1] in table_textures()
    assert a[2] == tuple(round(v, 3) for v in look.floor_rgba)
    assert a[3]["randomization"] is True and a[3]["look"] == look.as_header()


def test_different_seeds_differ_and_no_randomization_is_the_plain_look():
    seeds = [draw_look(s) for s in range(8)]
    assert len({look.table_texture for look in seeds}) > 1
    assert len({look.light_direction for look in seeds}) == 8
    a, c, plain = first_view(1), first_view(2), first_view(None)
    assert a[0]["head"] != c[0]["head"] and a[0]["third"] != c[0]["third"]
    assert plain[0]["head"] not in (a[0]["head"], c[0]["head"])
    assert plain[1] is None and plain[3]["randomization"] is False and plain[3]["look"] is None
