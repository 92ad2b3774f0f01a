"""What the grasp planner answers: candidates, the plan, and why candidates are rejected.

Plain values shared by the planner (`sim.tabletop.grasp.plan`), its refusal
text (`sim.tabletop.grasp.text`), the execution (`sim.tabletop.grasp.execute`) and
Replay; nothing here computes a grasp.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field

import numpy as np

# Why a candidate is rejected; the counts go into the refusal text.
TOO_WIDE = "too wide even open"
TOO_THIN = "too thin to hold"  # flat on the table: the pads cannot get below its top
NOT_ANTIPODAL = "surfaces not antipodal"
FINGERS_HIT = "fingers would hit"
KNUCKLES_HIT = "knuckles would hit"
# the object's own top rises under the linkage higher than the pads' depth allows (a slab
# leaning across the strip: the knuckles press on its higher side and the fingers stop open)
OWN_TOP = "knuckles would press on the object"
OUT_OF_VIEW = "contact out of view"  # the object runs off the image there: no edge is seen


@dataclass(frozen=True)
class GraspCandidate:
    """One two-finger grasp from above: where the pads close and how well it should hold."""

    centre: tuple[float, float]  # x, y midway between the contacts
    yaw: float  # world angle of the closing line
    width: float  # the object's extent between the contacts (m)
    top_z: float  # the object's highest point in the grasp strip
    pads_z: float  # the pads' lowest point at closing
    normal_deg: float  # worst angle between an outline normal and the closing line
    offset_m: float  # distance of the centre from the mask's centre
    score: float
    rejected: str = ""  # "" when feasible, else one of the reasons above
    blocker: int | None = None  # the body (segmentation id) in the way, when one is
    detail: str = ""  # numbers behind the rejection
    tilt: float = 0.0  # the tool leans this far (rad) about the closing line, its top to +normal

    @property
    def feasible(self) -> bool:
        return not self.rejected

    def tool_position(self, pad_depth: float) -> tuple[float, float, float]:
        """Where tool0 is when the pads, `pad_depth` below it along the tool's axis, close
        with their lowest point at (centre, pads_z)."""
        axis = tool_axis(self.yaw, self.tilt)
        x, y = self.centre
        return (x - pad_depth * axis[0], y - pad_depth * axis[1], self.pads_z - pad_depth * axis[2])

    def as_record(self) -> dict:
        """Plain JSON for the step record (rounded: millimetres and tenths of a degree)."""
        d = asdict(self)
        for key in ("width", "top_z", "pads_z", "offset_m", "score"):
            d[key] = round(float(d[key]), 4)
        d["centre"] = [round(float(v), 4) for v in self.centre]
        d["yaw"] = round(float(self.yaw), 4)
        d["normal_deg"] = round(float(self.normal_deg), 1)
        d["tilt"] = round(float(self.tilt), 4)
        return d


def tool_axis(yaw: float, tilt: float) -> np.ndarray:
    """The tool's axis (from tool0 towards the pads) for a grasp closing along world angle
    `yaw`, leaning `tilt` about the closing line: straight down when upright, its top
    towards +normal (the normal being the closing line turned a quarter left) when tilted."""
    n = np.array([-math.sin(yaw), math.cos(yaw), 0.0])
    return np.array([0.0, 0.0, -math.cos(tilt)]) - math.sin(tilt) * n


@dataclass(frozen=True)
class GraspPlan:
    """The planner's answer: the best candidate (if any) and what else it considered."""

    centre: tuple[float, float, float]
    top_z: float
    yaw: float  # rotation of the tool about the vertical; the fingers close along this world angle
    width: float  # object extent across the closing axis (m)
    feasible: bool
    reason: str
    flat_top: float = (
        1.0  # share of the visible surface within 1 cm of the top (a ball: about half)
    )
    pads_z: float | None = None  # the pads' lowest point at closing (None: older records)
    candidates: tuple[GraspCandidate, ...] = ()  # feasible ones, best first
    rejected: dict[str, int] = field(default_factory=dict)  # rejection reason -> count
    considered: int = 0

    def with_candidate(self, cand: GraspCandidate) -> GraspPlan:
        """This plan aimed at another of its candidates."""
        return GraspPlan(
            (cand.centre[0], cand.centre[1], self.centre[2]),
            cand.top_z,
            cand.yaw,
            cand.width,
            True,
            "",
            self.flat_top,
            cand.pads_z,
            self.candidates,
            self.rejected,
            self.considered,
        )
