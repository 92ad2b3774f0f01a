"""Perf case of foundational spatial grounding: rendering items, scoring predictions.

Both halves are ratios against a baseline timed in the same process, interleaved:

- rendering: an item's image (objects moved into place, head-camera render, PNG encoded)
  vs a bare `getCameraImage` of the same world at the same size;
- scoring: importing a predictions file of raw replies (read tolerantly, scored, stored)
  vs storing as many items. The goal allows 5x: each reply is repaired and parsed as
  JSON, often several times, and becomes a prediction row plus one row per asked object
  (about 4.7 rows), where an item is one row.
"""

from __future__ import annotations

import io
import json
import statistics
import time

import pybullet
from PIL import Image

from annotation.bimanual.spatial_grounding import SETTINGS, generate_items
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from sim.bimanual.spatial_scene import SpatialSceneRenderer
from sim.camera import projection_matrix, to_bullet, view_matrix
from store import open_project

ORDER = 140  # where these cases run in `reasonscope bench` (see app.perf.harness)

RENDER_ITEMS = {False: 30, True: 6}  # per setting
RENDER_WIDTH = 320
SCORE_ITEMS = {False: 2_000, True: 400}  # per setting
ROUNDS = 5
RENDER_GOAL, SCORE_GOAL = 2.0, 5.0
GOAL = f"render <= {RENDER_GOAL:g}x a bare render; import <= {SCORE_GOAL:g}x storing items"


def _bare_render(renderer: SpatialSceneRenderer) -> None:
    cam = renderer.camera
    renderer.world.client.getCameraImage(
        cam.width,
        cam.height,
        viewMatrix=to_bullet(view_matrix(cam)),
        projectionMatrix=to_bullet(projection_matrix(cam)),
        renderer=pybullet.ER_TINY_RENDERER,
        shadow=0,
    )


def _item_image(renderer: SpatialSceneRenderer, item) -> None:
    buffer = io.BytesIO()
    Image.fromarray(renderer.image(item), "RGB").save(buffer, format="PNG")


def _reply(item, k: int) -> dict:
    """A model's reply of one of the shapes seen in the wild: the paper's unquoted JSON,
    strict JSON in a code fence, prose, or nothing readable."""
    arms = {n: item.answer(n) if (k + i) % 4 else "left" for i, n in enumerate(item.asked)}
    kind = k % 4
    if kind == 0:
        body = ", ".join(f"{{object: {n}, use_arm: {a.upper()}}}" for n, a in arms.items())
        text = f"{{visual_state_description: blocks on the table, results: [{body}]}}"
    elif kind == 1:
        results = [{"object": n, "use_arm": a} for n, a in arms.items()]
        text = "```json\n" + json.dumps({"results": results}) + "\n```"
    elif kind == 2:
        text = " ".join(f"object: {n}, use_arm: {a}." for n, a in arms.items())
    else:
        text = "The image is too dark to tell."
    return {"id": item.id, "reply": text}


def _render_ratio(quick: bool) -> tuple[float, float, int]:
    items = [i for s in SETTINGS for i in generate_items(s, RENDER_ITEMS[quick], 11)]
    subject, baseline = [], []
    with SpatialSceneRenderer(RENDER_WIDTH) as renderer:
        _item_image(renderer, items[0])  # warm up
        for item in items:
            t0 = time.perf_counter()
            _bare_render(renderer)
            baseline.append(time.perf_counter() - t0)
            t0 = time.perf_counter()
            _item_image(renderer, item)
            subject.append(time.perf_counter() - t0)
    item_s, bare_s = statistics.median(subject), statistics.median(baseline)
    return item_s / bare_s, 1 / item_s, len(items)


def _score_ratio(quick: bool) -> tuple[float, float, int]:
    items = [i for s in SETTINGS for i in generate_items(s, SCORE_ITEMS[quick], 5)]
    rows = [_reply(item, k) for k, item in enumerate(items)]
    subject, baseline = [], []
    with scratch_folder() as folder:
        with open_project(folder / "spatial.reasonscope", create=True) as project:
            project.spatial.add_items(items)
            for k in range(ROUNDS):
                report(f"spatial_grounding: scoring round {k + 1} of {ROUNDS}")
                with open_project(folder / f"baseline{k}.reasonscope", create=True) as other:
                    t0 = time.perf_counter()
                    other.spatial.add_items(items)
                    baseline.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                project.spatial.import_predictions("perf", rows)
                subject.append(time.perf_counter() - t0)
    # the median of the rounds' own ratios: each pair ran back to back, under the same load
    ratio = statistics.median(a / b for a, b in zip(subject, baseline, strict=True))
    return ratio, len(rows) / statistics.median(subject), len(rows)


@perf_case("spatial_grounding", goal=GOAL)
def spatial_grounding(quick: bool) -> PerfResult:
    """Spatial grounding items rendered and predictions scored per second, each as a ratio
    to a same-process baseline (bare render; storing as many items)."""
    report("spatial_grounding: rendering items")
    render_ratio, items_per_s, rendered = _render_ratio(quick)
    score_ratio, predictions_per_s, scored = _score_ratio(quick)
    return PerfResult(
        "spatial_grounding",
        render_ratio,
        "x",
        GOAL,
        render_ratio <= RENDER_GOAL and score_ratio <= SCORE_GOAL,
        f"{items_per_s:.1f} items/s rendered at {RENDER_WIDTH} px with PNG encoding "
        f"({render_ratio:.2f}x a bare head-camera render, median of {rendered}); "
        f"{predictions_per_s:,.0f} predictions/s read, scored and stored "
        f"({score_ratio:.2f}x storing as many items, {scored} a round, median of {ROUNDS} "
        "rounds' ratios)",
    )
