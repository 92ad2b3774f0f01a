"""`answer_question`: score an agent's answer against a question and the world as it is now.

Count, Beneath and Compare compare the answer with the stored one. Find needs
more than "yes": the point must land on an instance of the queried object in
the current top-down view (after whatever the agent uncovered), as MG-VQA asks.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sim.camera import CameraSpec
from sim.render import render
from sim.tabletop.world import TabletopWorld

if TYPE_CHECKING:
    from sim.tabletop.first_view import FirstView


@dataclass(frozen=True)
class Score:
    correct: bool
    reason: str


def _norm(value: Any) -> str:
    return " ".join(str(value).strip().lower().split())


def score_answer(
    question,
    answer: Any,
    point: tuple[float, float] | None = None,
    *,
    world: TabletopWorld | None = None,
    camera: CameraSpec | None = None,
    first_view: FirstView | None = None,
) -> Score:
    """Score `answer` (and `point`, for Find) for a stored `Question` (annotation.models):
    a Find point on the world as `camera` sees it now, or on `first_view` while nothing
    has moved since it was rendered."""
    task, truth = question.task, question.answer
    if task == "count":
        try:
            given = int(str(answer).strip())
        except ValueError:
            return Score(False, f"not a number: {answer!r}")
        return Score(given == truth, f"answered {given}, the count is {truth}")
    if task in ("beneath", "compare"):
        ok = _norm(answer) == _norm(truth)
        return Score(ok, f"answered {answer!r}, the answer is {truth!r}")
    if task == "find":
        expected = truth["answer"]
        if _norm(answer) not in ("yes", "no"):
            return Score(False, f"answer yes or no, not {answer!r}")
        if _norm(answer) != expected:
            return Score(
                False,
                f"answered {answer!r}, the object is {'present' if expected == 'yes' else 'absent'}",
            )
        if expected == "no":
            return Score(True, "correctly absent")
        if point is None or (first_view is None and (world is None or camera is None)):
            return Score(False, "a yes needs a point on the object")
        u, v = int(round(point[0])), int(round(point[1]))
        if first_view is not None:  # nothing has moved: the first view's segmentation
            seg, name_of = first_view.segmentation, first_view.names.get
        else:
            seg = render(world, camera).segmentation
            name_of = lambda uid: getattr(world.info(uid), "name", None)  # noqa: E731
        if not (0 <= v < seg.shape[0] and 0 <= u < seg.shape[1]):
            return Score(False, f"point ({u}, {v}) is outside the image")
        name = name_of(int(seg[v, u]))
        target = question.criteria.get("measured", {}).get("target")
        if name is not None and name == target:
            return Score(True, f"the point is on a {target}")
        return Score(
            False, f"the point is on {'the ' + name if name else 'nothing'}, not a {target}"
        )
    raise ValueError(f"cannot score task {task!r}")
