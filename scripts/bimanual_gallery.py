"""A contact sheet of every dual-arm task: its seeded start and its final state after the
reference plan, as the head camera (and the third-person camera) sees them, each captioned
with the task's paper id and what its success check says.

    .venv/bin/python scripts/bimanual_gallery.py [--seed S] [--out build/bimanual-tasks.png]

Look at it when a task, an object or the executor changes: a check that passes on a state
that does not look solved is a wrong check.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw

from annotation.bimanual.paper_tables import PAPER_TASKS, paper_ids
from sim.bimanual.cameras import camera
from sim.bimanual.executor import BimanualExecutor
from sim.bimanual.tasks import TASKS
from sim.bimanual.world import DualArmWorld
from sim.render import render

W, H = 320, 240
CAPTION = 34


def _shot(world, view: str) -> Image.Image:
    return Image.fromarray(render(world, camera(view, W, H)).rgb[..., :3])


def task_row(name: str, seed: int) -> tuple[list[Image.Image], str]:
    task = TASKS[name]
    with DualArmWorld() as world:
        task.setup(world, seed)
        start = _shot(world, "head")
        BimanualExecutor(world).execute(task.reference_plan(world))
        world.step(60)
        ok, why = task.check(world)
        return [start, _shot(world, "head"), _shot(world, "third")], (
            f"{'/'.join(paper_ids(name))} {name} (seed {seed}): "
            f"{'SUCCESS' if ok else 'FAILED'} - {why}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("build/bimanual-tasks.png"))
    parser.add_argument("--task", action="append", help="only these tasks (repeatable)")
    args = parser.parse_args()
    names = args.task or list(PAPER_TASKS)
    sheet = Image.new("RGB", (3 * W, len(names) * (H + CAPTION)), "white")
    draw = ImageDraw.Draw(sheet)
    for row, name in enumerate(names):
        shots, caption = task_row(name, args.seed)
        top = row * (H + CAPTION)
        draw.text((6, top + 4), caption[:150], fill="black")
        draw.text(
            (6, top + 18),
            "start (head) | after the reference plan (head) | after (third)",
            fill="grey",
        )
        for col, shot in enumerate(shots):
            sheet.paste(shot, (col * W, top + CAPTION))
        print(caption, flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    sheet.save(args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
