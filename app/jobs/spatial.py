"""Foundational spatial grounding jobs: generate items with their images, import predictions,
report results (docs/spatial-grounding.md).

`generate_spatial_items` samples items (`annotation.bimanual.spatial_grounding.generate_items`),
renders each from the dual-arm world's head camera (`sim.bimanual.spatial_scene`), writes the
folder a model is run on (items.jsonl and one PNG per item) and stores the items in the
project, all or nothing. `import_spatial_predictions` reads a model's replies (JSON Lines)
and scores them into the project; `spatial_metrics` is the Results table's input and the
``bimanual`` → ``spatial`` part of ``reasonscope metrics --json``.
"""

from __future__ import annotations

import io
import json
import os
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from PIL import Image

from annotation.bimanual.spatial_grounding import (
    DEFAULT_SIGMA,
    SETTINGS,
    GroundingItem,
    SpatialImportReport,
    generate_items,
    prompt_text,
)
from annotation.progress import Progress
from app.io.jsonl import json_lines, line_error
from app.jobs.batch import run_batch
from sim.bimanual.spatial_scene import (
    CAMERA_NAME,
    DEFAULT_IMAGE_WIDTH,
    SpatialSceneRenderer,
    resting_position,
)
from store import Project, ProjectError

ITEM_FORMAT = "reasonscope-spatial/1"
ITEMS_FILE = "items.jsonl"


def item_record(item: GroundingItem, *, image: str, width: int, height: int) -> dict[str, Any]:
    """One line of items.jsonl: the item, its answers, its image and the prompt text.
    Positions are the objects' centres as they stand on the table (RoboTwin frame)."""
    return {
        "format": ITEM_FORMAT,
        "id": item.id,
        "setting": item.setting,
        "seed": item.seed,
        "objects": [
            {
                "name": name,
                "position": [round(v, 4) for v in resting_position(name, pos[:2])],
                "asked": name in item.asked,
            }
            for name, pos in item.objects.items()
        ],
        "asked": list(item.asked),
        "answers": {name: item.answer(name) for name in item.asked},
        "image": image,
        "image_size": [width, height],
        "camera": CAMERA_NAME,
        "prompt": prompt_text(item),
    }


def _check_out(out: Path) -> None:
    """A folder we may write into (made when its parent exists), else ProjectError."""
    if out.exists() and not out.is_dir():
        raise ProjectError(f"{out}: exists and is not a folder")
    folder = out if out.exists() else out.parent
    if not folder.is_dir():
        raise ProjectError(f"{out}: the folder {out.parent} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ProjectError(f"{out}: cannot write into {folder} (read-only)")


def generate_spatial_items(
    project: Project,
    settings: Sequence[str],
    n: int,
    seed: int,
    out: str | os.PathLike[str],
    *,
    image_width: int = DEFAULT_IMAGE_WIDTH,
    progress: Progress | None = None,
    workers: int = 1,
    ray_address: str | None = None,
) -> dict[str, Any]:
    """`n` items per setting from `seed`: rendered to `out`/<id>.png, listed in
    `out`/items.jsonl and stored in `project`. Transactional: the images are rendered to
    a staging folder first, and the files appear in `out` only when the items are stored;
    a failure leaves the project and `out` as they were. Rendering runs on Ray with
    `workers` > 1 or `ray_address` (app.jobs.batch); an item that fails to render is
    reported in "failed" and left out. Returns a report dict."""
    out = Path(out)
    unknown = [s for s in settings if s not in SETTINGS]
    if unknown:
        raise ValueError(f"setting must be one of {', '.join(SETTINGS)}, not {unknown[0]!r}")
    if n < 1:
        raise ValueError(f"--n {n}: need at least one item per setting")
    _check_out(out)
    items = [item for s in settings for item in generate_items(s, n, seed)]
    staging = Path(tempfile.mkdtemp(prefix=".spatial-", dir=out if out.exists() else out.parent))
    rendered: list[GroundingItem] = []
    records: list[dict[str, Any]] = []
    size = [image_width, 0]

    def keep(item: GroundingItem, result: tuple[bytes, int, int]) -> None:
        png, width, height = result
        (staging / f"{item.id}.png").write_bytes(png)
        records.append(item_record(item, image=f"{item.id}.png", width=width, height=height))
        rendered.append(item)
        size[:] = [width, height]

    try:
        batch = run_batch(
            [(item, image_width) for item in items],
            render_spatial_item,
            lambda job, result: keep(job[0], result),
            workers=workers,
            ray_address=ray_address,
            progress=progress,
            describe=lambda job: f"item {job[0].id}",
            noun="image",
        )
        if not rendered:
            why = batch.failed[0][1] if batch.failed else "no items"
            raise ProjectError(f"{out}: no item could be rendered ({why})")
        text = "".join(json.dumps(r) + "\n" for r in records)
        (staging / ITEMS_FILE).write_text(text, encoding="utf-8")
        with project.write():
            added = project.spatial.add_items(rendered)
            _publish(staging, out)
    finally:
        close_renderers()
        shutil.rmtree(staging, ignore_errors=True)
    by_setting = {s: sum(i.setting == s for i in rendered) for s in settings}
    return {
        "out": str(out),
        "items": len(rendered),
        "new_in_project": added,
        "by_setting": by_setting,
        "image_size": size,
        "items_file": str(out / ITEMS_FILE),
        "failed": batch.failed,
        "backend": batch.backend,
    }


# One renderer per process and image width: a Ray worker builds its dual-arm world once
# and shows item after item in it, as the in-process loop always did.
_RENDERERS: dict[int, SpatialSceneRenderer] = {}


def render_spatial_item(job: tuple[GroundingItem, int]) -> tuple[bytes, int, int]:
    """The PNG of one item from the head camera, and its size: a batch worker's task."""
    item, width = job
    renderer = _RENDERERS.get(width)
    if renderer is None:
        renderer = _RENDERERS[width] = SpatialSceneRenderer(width)
    buffer = io.BytesIO()
    Image.fromarray(renderer.image(item), "RGB").save(buffer, format="PNG")
    return buffer.getvalue(), renderer.camera.width, renderer.camera.height


def close_renderers() -> None:
    """Close this process's renderers (their PyBullet worlds)."""
    while _RENDERERS:
        _RENDERERS.popitem()[1].close()


def _publish(staging: Path, out: Path) -> None:
    """Move the staged files into `out` (made if needed), items.jsonl last."""
    out.mkdir(exist_ok=True)
    names = sorted(p.name for p in staging.iterdir() if p.name != ITEMS_FILE)
    for name in [*names, ITEMS_FILE]:
        os.replace(staging / name, out / name)


def read_spatial_prediction_lines(path: Path) -> tuple[list[Any], list[int]]:
    """The file's parsed lines and their numbers; ProjectError `FILE:LINE: problem`."""
    rows, lines = [], []
    for number, row in json_lines(path, "a spatial predictions file"):
        rows.append(row)
        lines.append(number)
    if not rows:
        raise ProjectError(f"{path}: no predictions in the file")
    return rows, lines


def import_spatial_predictions(
    project: Project, path: str | os.PathLike[str], model: str, *, sigma: float = DEFAULT_SIGMA
) -> SpatialImportReport:
    """Read a predictions file (JSON Lines, {"id", "reply"} or {"id", "results"} a line),
    score it and store it in one transaction. A malformed line raises ProjectError
    `FILE:LINE: problem` and nothing is stored; unreadable replies are stored, scoring 0."""
    path = Path(path)
    rows, lines = read_spatial_prediction_lines(path)
    try:
        return project.spatial.import_predictions(
            model, rows, sigma=sigma, source=path.name, lines=lines
        )
    except ValueError as exc:  # "line N: problem"
        raise line_error(path, exc) from None


def spatial_metrics(project: Project, sigma: float | None = None) -> dict[str, Any]:
    """Spatial grounding results per model: `project.spatial.summary(sigma)`,
    ``{"sigma": s, "settings": {..}, "by_model": {model: {"sparse": {"score", "items"}, ...,
    "average", "missing"}}}``."""
    return project.spatial.summary(sigma)
