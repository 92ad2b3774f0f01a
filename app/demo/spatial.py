"""The demo's spatial-grounding part: rendered arm-selection items and two rule baselines.

The baselines are named for what they are, not dressed up as models: one reads each
block's true x with Gaussian noise (a planner that roughly knows where things are but
is unsure near the centreline), the other always answers "left". Their replies are
written in the unquoted style of the paper's prompt, so import reads them through the
same tolerant parser as a real model's.
"""

from __future__ import annotations

import random
import tempfile

from annotation.bimanual.spatial_grounding import SETTINGS
from annotation.progress import Progress
from store import Project

NOISY = "noisy-position baseline (15 cm)"
ALWAYS_LEFT = "always-left baseline"


def _reply(choices: dict[str, str]) -> str:
    pairs = ", ".join(
        f"{{object: {name}, use_arm: {arm.upper()}}}" for name, arm in choices.items()
    )
    return f"{{results: [{pairs}]}}"


def add_spatial_demo(project: Project, progress: Progress, *, n: int, seed: int = 0) -> None:
    """`n` items per setting rendered to a scratch folder and stored, then both baselines'
    replies imported and scored."""
    from app.jobs.spatial import generate_spatial_items

    if n < 1:
        return
    with tempfile.TemporaryDirectory(prefix="reasonscope-spatial-") as scratch:
        generate_spatial_items(
            project, SETTINGS, n, seed, scratch, image_width=320, progress=progress
        )
    items = [i for s in SETTINGS for i in project.spatial.items(s)]
    rng = random.Random(seed)
    noisy, left = [], []
    for item in items:
        guess = {}
        for name in item.asked:
            x = item.objects[name][0] + rng.gauss(0.0, 0.15)
            guess[name] = "left" if x < 0 else "right"
        noisy.append({"id": item.id, "reply": _reply(guess)})
        left.append({"id": item.id, "reply": _reply({name: "left" for name in item.asked})})
    project.spatial.import_predictions(NOISY, noisy, source="demo")
    project.spatial.import_predictions(ALWAYS_LEFT, left, source="demo")
