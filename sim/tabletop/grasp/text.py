"""What a refused grasp says: how wide the object is and what the gripper takes, or how
many candidates were rejected for what, naming the neighbour most often in the way."""

from __future__ import annotations

from collections import Counter

from sim.robotiq import ROBOTIQ_2F85, GripperModel
from sim.tabletop.grasp.candidates import (
    FINGERS_HIT,
    KNUCKLES_HIT,
    NOT_ANTIPODAL,
    TOO_WIDE,
    GraspCandidate,
)


def too_wide_reason(width: float, model: GripperModel = ROBOTIQ_2F85) -> str:
    """Why an object `width` metres across cannot be grasped: the limit the planner applies
    and the stroke it comes from. A width that would print as the limit itself gets a
    second (or third) decimal ("7.92 cm across, more than the 7.9 cm")."""
    limit = round(100 * model.max_grasp_width, 1)
    shown = next(
        (t for d in (1, 2, 3) if float(t := f"{100 * width:.{d}f}") > limit),
        f"{100 * width:.4f}",
    )
    return (
        f"no feasible grasp: {shown} cm across, more than the {limit:.1f} cm the gripper "
        f"can take (it opens {100 * model.stroke_m:.1f} cm)"
    )


# Footprint lattices in unit coordinates: along the closing line 0..1 (inner to outer
# edge of a finger's swept band), across it -1..1 (the pad's half width).


def across_middle(candidates: list[GraspCandidate]) -> float:
    """The object's narrowest width through (within a centimetre of) its middle, as far as
    the too-wide candidates measured it; any candidate's narrowest width otherwise."""
    wide = [c for c in candidates if c.rejected == TOO_WIDE]
    central = [c.width for c in wide if c.offset_m <= 0.01] or [c.width for c in wide]
    return min(central or [c.width for c in candidates] or [0.0])


def refusal(
    candidates: list[GraspCandidate], model: GripperModel, names: dict[int, str] | None = None
) -> str:
    """The "no feasible grasp" text: how many candidates were rejected for what, naming
    what is most often in the way."""
    names = names or {}
    if not candidates:
        return "no feasible grasp: no two opposite contacts found on the object"
    counts = Counter(c.rejected for c in candidates)
    if set(counts) <= {TOO_WIDE, NOT_ANTIPODAL} and counts[TOO_WIDE] >= counts[NOT_ANTIPODAL]:
        # wide everywhere but at its corners: say how wide it is across its middle
        return too_wide_reason(across_middle(candidates), model)
    parts = []
    for why, count in counts.most_common():
        example = next(c for c in candidates if c.rejected == why)
        if why == TOO_WIDE:
            parts.append(
                f"{count} too wide even open ({100 * across_middle(candidates):.1f} cm across "
                f"its middle; the gripper takes {100 * model.max_grasp_width:.1f} cm)"
            )
        elif why in (FINGERS_HIT, KNUCKLES_HIT):
            blockers = Counter(c.blocker for c in candidates if c.rejected == why)
            uid = blockers.most_common(1)[0][0]
            what = f"the {names[uid]}" if uid in names else "a neighbour"
            parts.append(f"{count} {why} {what} ({example.detail})")
        else:
            parts.append(f"{count} {why} ({example.detail})")
    return f"no feasible grasp: of {len(candidates)} candidates, " + "; ".join(parts)
