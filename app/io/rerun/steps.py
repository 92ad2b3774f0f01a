"""An episode's steps in a Rerun recording: the agent's image, the call and its feedback,
the model's reply, what a grasp saw and planned, and the error labels given.

Entities (under the episode's root): `camera/image` the image the agent saw (stored, or
rendered from the step's state as Replay renders it); `log/calls`, `log/feedback`,
`log/replies`, `log/model_text` text logs; `grasp/mask`, `world/grasp/points`,
`world/grasp/candidates`, `world/grasp/planned` and `world/grasp/actual` for a grasp step
(cleared at the next step); `log/labels` the error labels.
"""

from __future__ import annotations

import io
import json
from collections.abc import Sequence
from typing import Any

import numpy as np

from annotation.models import ErrorLabel, Step

TEXT_LIMIT = 4000  # characters of one text log line; a longer reply is cut, with a note


def _short(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    return text[:TEXT_LIMIT] + f" … ({len(text) - TEXT_LIMIT} more characters)"


def call_text(step: Step) -> str:
    """`#3 grasp {"mask_id": "mask_2"} · failed`: the call as one line."""
    verdict = {True: "ok", False: "failed", None: ""}[step.ok]
    arguments = json.dumps(step.arguments, sort_keys=True) if step.arguments else ""
    return " ".join(p for p in (f"#{step.index}", step.kind, step.name, arguments) if p) + (
        f" · {verdict}" if verdict else ""
    )


def log_texts(rec, rr, root: str, step: Step) -> None:
    """The call, its feedback, the reply and the model's text fields as text logs."""
    level = "WARN" if step.ok is False or step.kind == "format_error" else "INFO"
    rec.log(f"{root}/log/calls", rr.TextLog(call_text(step), level=level))
    if step.feedback:
        rec.log(f"{root}/log/feedback", rr.TextLog(_short(step.feedback), level=level))
    if step.raw_output:
        rec.log(f"{root}/log/replies", rr.TextLog(_short(step.raw_output)))
    for name, value in (step.model_text or {}).items():
        if value not in (None, "", [], {}):
            text = value if isinstance(value, str) else json.dumps(value)
            rec.log(f"{root}/log/model_text", rr.TextLog(_short(f"{name}: {text}")))


def log_labels(rec, rr, root: str, labels: Sequence[ErrorLabel], authors: dict[int, str]) -> None:
    """Each error label at its step (an episode-wide label at the first step)."""
    for label in labels:
        rec.set_time("step", sequence=max(label.step_index or 0, 0))
        kind = "/".join(p for p in (label.category, label.subcategory) if p)
        who = authors.get(label.annotator_id, "")
        text = " · ".join(p for p in (kind, label.note, f"by {who}" if who else "") if p)
        where = "episode" if label.step_index is None else f"step {label.step_index}"
        rec.log(f"{root}/log/labels", rr.TextLog(f"{where}: {text}", level="ERROR"))


def png_bytes(rgb: np.ndarray) -> bytes:
    """An RGB array as PNG bytes (quick compression: the pixels are what matters)."""
    from PIL import Image

    out = io.BytesIO()
    Image.fromarray(rgb).save(out, format="PNG", compress_level=1)
    return out.getvalue()


def log_image(rec, rr, root: str, image: tuple[str, bytes] | np.ndarray | None) -> None:
    """The agent's image: stored bytes (mime, data) as they are, or rendered pixels as PNG."""
    if image is None:
        return
    if isinstance(image, np.ndarray):
        image = ("image/png", png_bytes(image))
    mime, data = image
    rec.log(f"{root}/camera/image", rr.EncodedImage(contents=data, media_type=mime))


def _strips(glyph: np.ndarray) -> np.ndarray:
    """A gripper glyph's point pairs as two-point line strips."""
    return np.asarray(glyph, float).reshape(-1, 2, 3)


def log_grasp(rec, rr, root: str, inspection: Any) -> None:
    """What a grasp step saw and planned (`sim.tabletop.replay.GraspInspection`): the mask,
    the object's points, the planner's candidates, and the planned vs actual gripper."""
    rec.log(f"{root}/grasp/mask", rr.SegmentationImage(inspection.mask.astype(np.uint8)))
    g = f"{root}/world/grasp"
    rec.log(f"{g}/points", rr.Points3D(inspection.points, colors=inspection.colours, radii=0.002))
    glyphs = inspection.candidate_glyphs()
    if glyphs:
        strips = np.concatenate([_strips(x) for x in glyphs])
        rec.log(f"{g}/candidates", rr.LineStrips3D(strips, colors=[[0.6, 0.6, 0.6]], radii=0.001))
    planned = _strips(inspection.planned_glyph())
    rec.log(f"{g}/planned", rr.LineStrips3D(planned, colors=[[0.1, 0.8, 0.2]], radii=0.002))
    actual = inspection.actual_glyph()
    if actual is not None:
        colour = [0.1, 0.8, 0.2] if not inspection.reason else [0.9, 0.2, 0.1]
        rec.log(f"{g}/actual", rr.LineStrips3D(_strips(actual), colors=[colour], radii=0.002))
    if inspection.reason:
        rec.log(f"{root}/log/feedback", rr.TextLog(f"grasp: {inspection.reason}", level="WARN"))


def clear_grasp(rec, rr, root: str) -> None:
    """A grasp's overlays belong to its step only."""
    rec.log(f"{root}/world/grasp", rr.Clear(recursive=True))
    rec.log(f"{root}/grasp", rr.Clear(recursive=True))
