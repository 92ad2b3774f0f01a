"""How a model is asked a JRDB-Reasoning question, and how its reply is read.

The default follows JRDB-Reasoning's own evaluation scripts (github:sjahangard/JRDB-Reasoning,
commit c539e9b7, `experiments/`; copied in tests/real_clients/jrdb_reasoning_eval.py):

- VG, `qwen_vg_eval_matched_new_json.py`, `run_inference`: the system message `VG_SYSTEM`,
  then a user message of the question's text followed by the panorama resized by
  `RESIZE_FACTOR` 0.5 (`image.resize((int(w * 0.5), int(h * 0.5)))`), at most 512 new
  tokens, greedy. The reply is read by `parse_model_output`: a ```json fence is stripped
  (`parse_json_from_text`), the JSON is a list of objects (one object is a list of one),
  each box is `bbox_2d` (else `bbox`, else `box`), four numbers x1, y1, x2, y2 in the
  resized image's pixels, divided by the factor and clamped to the panorama
  (`validate_box`, which also truncates to whole pixels).
- VQA, `qwen_vqa_eval_matched_new_json.py`, `VQAEvaluator._generate_prompt`: one user
  message, the images first (as files: the panorama as it is), then the question and,
  with options, "Choose only from these options where possible: ...". At most 50 new
  tokens, greedy. The reply is read by `_extract_prediction`: for a count, every number
  in it; for Wh, the text lowered, stripped of everything but word characters, spaces,
  commas and hyphens, split at commas and matched to the options (exactly, else the
  first option inside a part or holding it).

Where the scripts are silent (a video), `video_track_note` asks a VG question's boxes in
every frame, numbered, and `read_vg_track_reply` reads them as a track. Pure: the images come in as data URLs; nothing here reads a file.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

PROMPT = "jrdb-reasoning"  # the scripts' prompts, as above (the only variant so far)
VG_SYSTEM = (
    "You are a precise visual grounding system. "
    "Return ONLY valid JSON. No markdown, no explanation. "
    'Format: [{"bbox_2d": [x1, y1, x2, y2]}].'
)
VG_IMAGE_SCALE = 0.5  # the VG script's RESIZE_FACTOR
VQA_IMAGE_SCALE = 1.0  # the VQA script hands the model the image file as it is
VG_MAX_TOKENS = 512  # run_inference's max_new_tokens
VQA_MAX_TOKENS = 50  # VQAEvaluator.predict's max_new_tokens
OPTIONS_PROMPT = (
    "\nChoose only from these options where possible: {options}. "
    "Return only a comma-separated list of the selected options."
)


def image_part(url: str) -> dict[str, Any]:
    """An image of a user message (OpenAI chat format)."""
    return {"type": "image_url", "image_url": {"url": url}}


def video_note(frames: int, answer_position: int) -> str:
    """The sentence a video VG question adds after its text: the frames are in time order,
    and which one the boxes are asked in (the question's answer frame)."""
    which = "the last image" if answer_position == frames - 1 else f"image {answer_position + 1}"
    return f"\nThe {frames} images are frames of a video, in time order. Give the boxes in {which}."


VIDEO_VG = "track"  # a video VG question asks for the boxes in every frame (ours: the
# scripts have no video VG); scored as a track (reasoning_eval.TRACK_RULE)


def video_track_note(frames: int) -> str:
    """The sentences a video VG question adds after its text: the frames are in time
    order, and the target's boxes are asked in each of them, numbered from 1."""
    return (
        f"\nThe {frames} images are frames of a video, in time order. Give the boxes in "
        f'every image: [{{"image": 1, "bbox_2d": [x1, y1, x2, y2]}}, ...], numbering the '
        f"images from 1 to {frames}."
    )


def read_vg_track_reply(
    text: str, width: int, height: int, scale: float, image_ids: list[str]
) -> Reading:
    """A video VG reply's boxes per frame, as {"track": {image id: [[x, y, w, h], ...]}}:
    each item's `image` (1 to the number of frames) says its frame; an item without a
    valid image number is left out, as parse_model_output leaves out a malformed one."""
    items = _reply_items(text)
    if isinstance(items, Reading):
        return items
    boxed = [
        (item.get("image"), box) for item in items if (box := _item_box(item, width, height, scale))
    ]
    if not boxed:
        return Reading(None, "no bbox_2d of four numbers")
    track: dict[str, list[list[float]]] = {}
    for number, box in boxed:
        if isinstance(number, int) and 1 <= number <= len(image_ids):
            track.setdefault(image_ids[number - 1], []).append(box)
    if not track:
        return Reading(None, "no bbox_2d with an image number")
    return Reading({"track": track})


def vg_messages(question: str, image_urls: list[str]) -> list[dict[str, Any]]:
    """The VG request: the script's system message, then the question and the image(s)."""
    return [
        {"role": "system", "content": VG_SYSTEM},
        {
            "role": "user",
            "content": [{"type": "text", "text": question}, *map(image_part, image_urls)],
        },
    ]


def vqa_text(question: str, options: list[Any] | None) -> str:
    """The VQA question as the script words it, with its options."""
    if options:
        return question + OPTIONS_PROMPT.format(options=", ".join(map(str, options)))
    return question


def vqa_messages(
    question: str, options: list[Any] | None, image_urls: list[str]
) -> list[dict[str, Any]]:
    """The VQA request: one user message, the images first, then the question."""
    content = [*map(image_part, image_urls), {"type": "text", "text": vqa_text(question, options)}]
    return [{"role": "user", "content": content}]


@dataclass(frozen=True)
class Reading:
    """A reply as the scripts read it: the answer to score (VG: [[x, y, w, h], ...] on the
    panorama; VQA: the count or the words), or None with `problem` saying why not."""

    answer: Any
    problem: str | None = None


def _strip_fence(text: str) -> str:
    """parse_json_from_text: the inside of a leading ```json (or ```) fence."""
    text = text.strip()
    if text.startswith("```json"):
        text = text.split("```json", 1)[1].split("```", 1)[0].strip()
    elif text.startswith("```"):
        text = text.split("```", 1)[1].split("```", 1)[0].strip()
    return text


def _clamp(box: list[float], width: int, height: int) -> list[int]:
    """validate_box: clamped to the image, whole pixels, corners in order."""
    x1, y1, x2, y2 = box
    x1 = int(max(0, min(x1, width)))
    y1 = int(max(0, min(y1, height)))
    x2 = int(max(0, min(x2, width)))
    y2 = int(max(0, min(y2, height)))
    if x2 < x1:
        x1, x2 = x2, x1
    if y2 < y1:
        y1, y2 = y2, y1
    return [x1, y1, x2, y2]


def _reply_items(text: str) -> list[dict] | Reading:
    """parse_model_output's reading of a VG reply: its JSON objects (one object is a list
    of one; anything else in the list is left out), or the Reading that says why none."""
    try:
        data = json.loads(_strip_fence(text))
    except (json.JSONDecodeError, ValueError):
        return Reading(None, "not JSON" if text.strip() else "empty reply")
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        return Reading(None, "JSON that is not a list of boxes")
    return [item for item in data if isinstance(item, dict)]


def _item_box(item: dict, width: int, height: int, scale: float) -> list[float] | None:
    """One object's box as [x, y, w, h] on the panorama: `bbox_2d` (else `bbox`, else
    `box`), four numbers in the scaled image, divided by `scale` and clamped; None if none."""
    coords = item.get("bbox_2d") or item.get("bbox") or item.get("box")
    if not isinstance(coords, list) or len(coords) != 4:
        return None
    if not all(isinstance(c, int | float) for c in coords):
        return None
    x1, y1, x2, y2 = _clamp([c / scale for c in coords], width, height)
    return [float(x1), float(y1), float(x2 - x1), float(y2 - y1)]


def read_vg_reply(text: str, width: int, height: int, scale: float) -> Reading:
    """The boxes of a VG reply as parse_model_output reads them, as [x, y, w, h] on the
    `width` x `height` panorama (the model saw it scaled by `scale`)."""
    items = _reply_items(text)
    if isinstance(items, Reading):
        return items
    boxes = [box for item in items if (box := _item_box(item, width, height, scale))]
    if not boxes:
        return Reading(None, "no bbox_2d of four numbers")
    return Reading(boxes)


def read_vqa_reply(text: str, task: str, options: list[Any] | None) -> Reading:
    """A VQA reply as VQAEvaluator._extract_prediction reads it: a count's numbers (one
    value: that number; several: the list, which no single answer equals), a Wh answer's
    option (several: joined with ", ", likewise wrong)."""
    answer_text = str(text).lower().strip()
    if task == "vqa-count":
        numbers = re.findall(r"-?\d+\.?\d*", answer_text)
        if not numbers:
            return Reading(None, "no number")
        values = [float(n) if "." in n else int(n) for n in numbers]
        distinct = list(dict.fromkeys(values))
        return Reading(distinct[0] if len(distinct) == 1 else distinct)
    cleaned = re.sub(r"[^\w\s,\-]", "", answer_text).strip()
    parts = [p.strip() for p in cleaned.split(",") if p.strip()]
    reading: Any = cleaned
    if options:
        norm = {str(o).lower().strip(): o for o in options}
        matched = []
        for part in parts:
            if part in norm:
                matched.append(part)
            else:
                for opt in norm:
                    if opt in part or part in opt:
                        matched.append(opt)
                        break
        if matched:
            reading = sorted(set(matched))
    if reading == cleaned and len(parts) > 1:
        reading = parts
    if isinstance(reading, list):
        reading = reading[0] if len(set(reading)) == 1 else ", ".join(reading)
    if not reading:
        return Reading(None, "empty reply")
    return Reading(reading)
