"""What a tool-calling model is told in an MG-VQA episode: pure text builders, no I/O.

Four prompt variants (after the paper's ablations):

* ``plain``: role, tools, answer format, the question; a top-down image every turn.
* ``search``: ``plain`` plus task-specific advice, in the first user message, to look
  for hidden evidence and move objects that may cover it.
* ``search-persistent``: ``search`` with that advice repeated in every later user turn.
* ``multiview``: ``plain`` plus a fixed oblique view next to the top-down one every turn.

Nothing here sees the answer, the criteria or the simulator's hidden state: builders
take only the task, the question text and its options.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sim.tabletop.toolenv import MODES, TOOL_SPECS
from sim.tabletop.world import MODEL_IMAGE_SIZE, OBLIQUE_VIEW, TOP_DOWN_VIEW

PROMPT_VARIANTS = ("plain", "search", "search-persistent", "multiview")

_ANSWER_FORMAT = {
    "count": "a whole number written in digits.",
    "find": '"yes" or "no"; with "yes", also give "point": [u, v], a pixel on the object '
    "in the current top-down image.",
    "beneath": "exactly one of the options, copied word for word.",
    "compare": "exactly one of the options (a label such as A, B or C), copied word for word.",
}

# Advice for the search variants: what to do when the evidence may be out of sight.
_SEARCH_ACT = {
    "count": "Some of the objects you are counting may be buried under or tucked behind "
    "other items. Before settling on a number, clear away the things that could be "
    "covering more of them (grasp lifts an object into the basket, push slides it aside), "
    "look at the new image, and count every instance you have seen.",
    "find": "If the object is not in view, it may still be on the table, under or behind "
    "something else. Move the items that could hide it (grasp or push), check the new "
    'image, and answer "no" only once the likely hiding places have been cleared. For '
    '"yes", point at the object in the latest image.',
    "beneath": "The item named in the question is covering something. Take it away with "
    "grasp (or push it aside if it will not lift), then look at what it revealed and pick "
    "the matching option.",
    "compare": "The labelled objects may be partly covered, which makes their sizes hard "
    "to judge. Remove or push away the things lying on or against them until each one is "
    "clearly visible, keeping the labels in view, then compare.",
}
_SEARCH_LOOK = {
    "count": "Some of the objects you are counting may be only partly visible between or "
    "under other items. Inspect the whole table closely before settling on a number.",
    "find": "The object may be only partly visible under or behind other items. Check the "
    'whole table closely before answering "no".',
    "beneath": "The item named in the question is covering something. Look closely at its "
    "edges for any visible part of what lies beneath before choosing an option.",
    "compare": "The labelled objects may be partly covered. Look closely at how much of "
    "each one shows before comparing their sizes.",
}


def check_variant(variant: str) -> str:
    """The variant itself, or a ValueError naming the allowed ones."""
    if variant not in PROMPT_VARIANTS:
        raise ValueError(
            f"prompt variant must be one of {', '.join(PROMPT_VARIANTS)}, not {variant!r}"
        )
    return variant


def views(variant: str) -> tuple[str, ...]:
    """The camera views shown in every user turn."""
    check_variant(variant)
    return (TOP_DOWN_VIEW, OBLIQUE_VIEW) if variant == "multiview" else (TOP_DOWN_VIEW,)


def answer_format(task: str) -> str:
    """How `answer_question`'s "answer" should look for a task."""
    return _ANSWER_FORMAT.get(task, "the answer as a string.")


def search_guidance(task: str, mode: str = "manipulation") -> str:
    """Task-specific advice to look for hidden evidence (and to uncover it, if the mode can)."""
    can_act = "grasp" in MODES.get(mode, ()) or "push" in MODES.get(mode, ())
    table = _SEARCH_ACT if can_act else _SEARCH_LOOK
    return table.get(task, table["count"])


def system_prompt(
    mode: str,
    *,
    image_size: tuple[int, int] = (MODEL_IMAGE_SIZE, MODEL_IMAGE_SIZE),
    variant: str = "plain",
) -> str:
    """The role, the tools of the mode, the image coordinates and how to answer each task."""
    check_variant(variant)
    tools = MODES[mode]
    width, height = image_size
    lines = [
        "You are a robot assistant answering a question about objects on a cluttered "
        "tabletop. A camera looks straight down at the table; a UR5 arm and a basket "
        "for cleared objects stand beside it.",
        "",
        f"Every turn you receive the current top-down image ({width} x {height} pixels).",
    ]
    if OBLIQUE_VIEW in views(variant):
        lines.append(
            "You also receive a second, oblique image from a fixed camera looking at the table "
            "at an angle. It is for reference only: all points refer to the top-down image."
        )
    lines += [
        "Image points are [u, v] in pixels of the top-down image: u from the left edge, "
        "v from the top edge. The top of the image is the side away from the robot.",
        "",
        "Tools available to you:",
    ]
    lines += [f"- {name}: {TOOL_SPECS[name].description}" for name in tools]
    lines.append("")
    if "grasp" in tools or "push" in tools:
        lines.append(
            "grasp and push move real objects with physics: they can fail, or move other "
            "objects too. Look at the new image after each action before deciding what to do."
        )
    elif len(tools) > 1:
        lines.append("You cannot move anything in this mode; you can only look and query.")
    else:
        lines.append("You cannot move or query anything in this mode: answer from the image.")
    lines += [
        "",
        "Act only by calling tools. Call answer_question exactly once, when you are ready; "
        'it ends the episode. Its "answer" depends on the task:',
        "- Count: " + _ANSWER_FORMAT["count"],
        "- Find: " + _ANSWER_FORMAT["find"],
        "- Beneath: " + _ANSWER_FORMAT["beneath"],
        "- Compare: " + _ANSWER_FORMAT["compare"],
        "",
        "If you cannot use the tool-calling interface, write one JSON object instead: "
        '{"tool": "<tool name>", "arguments": {...}}.',
    ]
    return "\n".join(lines)


def question_block(question: Any) -> str:
    """The question text, its options (if any) and the expected answer format."""
    task = str(question.task)
    lines = [f"Task: {task.capitalize()}", f"Question: {question.text}"]
    options: Sequence[str] | None = getattr(question, "options", None)
    if options:
        lines.append("Options:")
        lines += [f"- {option}" for option in options]
    lines.append(f"Answer with {answer_format(task)}")
    return "\n".join(lines)


def first_user_text(question: Any, variant: str = "plain", mode: str = "manipulation") -> str:
    """The opening user message: the question, plus the search advice for the search variants."""
    check_variant(variant)
    parts = [question_block(question)]
    if variant in ("search", "search-persistent"):
        parts.append("Advice: " + search_guidance(str(question.task), mode))
    parts.append(_views_caption(variant, "The current"))
    return "\n\n".join(parts)


def turn_text(
    question: Any, variant: str = "plain", mode: str = "manipulation", *, after: str = "tool"
) -> str:
    """A later user turn: a caption for the fresh image(s), plus the advice if persistent.

    ``after`` is "tool" after tool results (the scene may have changed) or "correction"
    after a reply that held no usable tool call.
    """
    check_variant(variant)
    if after == "correction":
        tools = MODES.get(mode, ("answer_question",))
        ask = (
            "Call answer_question."
            if len(tools) == 1
            else f"Call one of the tools ({', '.join(tools)}); call answer_question when ready."
        )
        parts = [
            "Your last reply did not contain a usable tool call. " + ask,
            _views_caption(variant, "The current"),
        ]
    else:
        parts = [_views_caption(variant, "After your last tool call, the current")]
    if variant == "search-persistent":
        parts.append("Reminder: " + search_guidance(str(question.task), mode))
    return "\n\n".join(parts)


def _views_caption(variant: str, lead: str) -> str:
    if OBLIQUE_VIEW in views(variant):
        return f"{lead} top-down view comes first, then the oblique view."
    return f"{lead} top-down view is attached."
