"""Plain value types shared by every layer.

The store returns these, the simulator builds them, the widgets display them.
They carry no behaviour that needs a database, a physics engine or a screen.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

ENTITY_KINDS = ("human", "object", "robot", "surface")
QUESTION_STATUSES = ("pending", "approved", "corrected", "excluded")
VERIFICATION_DECISIONS = ("approve", "correct", "reject")
HOI_DIFFICULTIES = {1: "easy", 2: "medium", 3: "hard"}
REVIEW_VERDICTS = ("accept", "reject", "fix")
STEP_KINDS = ("tool", "action", "answer", "observation", "format_error")


@dataclass(frozen=True)
class Annotator:
    """A person who labels, reviews or verifies; every write carries one."""

    id: int
    name: str
    created_at: str


@dataclass(frozen=True)
class Difficulty:
    """JRDB-Reasoning difficulty: S entities, R relations, T time slots, D = S + R + T."""

    S: int
    R: int
    T: int

    @property
    def D(self) -> int:  # noqa: N802 - the paper's name
        return self.S + self.R + self.T

    def as_dict(self) -> dict[str, int]:
        return {"S": self.S, "R": self.R, "T": self.T, "D": self.D}


@dataclass(frozen=True)
class Body:
    """One body of a stored scene, enough to rebuild it with plain PyBullet."""

    key: str
    name: str
    category: str
    asset: str
    position: tuple[float, float, float]
    orientation: tuple[float, float, float, float]  # qx, qy, qz, qw
    size: tuple[float, ...] | None = None
    scale: float = 1.0
    rgba: tuple[float, float, float, float] | None = None
    texture: str | None = None
    fixed: bool = False
    joints: dict[str, float] = field(default_factory=dict)
    role: str = "object"  # "object", "fixture" or "robot"
    # A label decal's place (`sim.world.LabelPatch.as_record`); None: the texture, if
    # any, prints on every face
    label_patch: dict[str, Any] | None = None

    def as_record(self) -> dict[str, Any]:
        """The body as one entry of a benchmark scene's `bodies` list."""
        return {
            "id": self.key,
            "name": self.name,
            "category": self.category,
            "role": self.role,
            "asset": self.asset,
            "size": list(self.size) if self.size else None,
            "scale": self.scale,
            "rgba": list(self.rgba) if self.rgba else None,
            "texture": self.texture,
            **({"label_patch": self.label_patch} if self.label_patch else {}),
            "position": list(self.position),
            "orientation": list(self.orientation),
            "fixed": self.fixed,
            "joints": dict(self.joints),
        }


@dataclass(frozen=True)
class Scene:
    """A stored simulator scene: enough to restore it exactly and to rebuild it elsewhere."""

    id: int
    name: str
    benchmark: str
    seed: int | None
    camera: dict[str, Any]
    state: dict[str, Any]
    created_at: str
    bodies: tuple[Body, ...] = ()
    generator: str = ""
    object_count: int = 0

    def export_record(self) -> dict[str, Any]:
        """The self-contained `scene` object of reasonscope-benchmark/1, with an id."""
        return {
            "format": "reasonscope-scene/1",
            "id": f"scene-{self.id}",
            "name": self.name,
            "seed": self.seed,
            "camera": self.camera,
            "table_texture": self.state.get("table_texture"),
            "bodies": [b.as_record() for b in self.bodies],
        }


@dataclass(frozen=True)
class SceneSummary:
    """A row of the scene list."""

    id: int
    name: str
    seed: int | None
    object_count: int
    created_at: str
    gripper_asset: str | None = None  # the URDF of the robot's gripper body, if it has one


@dataclass(frozen=True)
class Sequence:
    id: int
    name: str
    root: str
    calibration: dict[str, Any]
    frame_count: int = 0


@dataclass(frozen=True)
class Frame:
    id: int
    sequence_id: int
    index: int
    image_path: str | None
    pointcloud_paths: tuple[str, ...] = ()


@dataclass(frozen=True)
class Box2D:
    """A panorama box [x, y, w, h] in pixels; may run past the seam."""

    entity_id: int
    frame_id: int
    x: float
    y: float
    w: float
    h: float
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Box3D:
    """A lidar-frame box: centre, extents, yaw about z."""

    entity_id: int
    frame_id: int
    cx: float
    cy: float
    cz: float
    l: float  # noqa: E741 - JRDB's field name
    w: float
    h: float
    rot_z: float
    attributes: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class HoiLabel:
    """A human-object interaction label with the annotator's difficulty (1 easy .. 3 hard)."""

    id: int
    frame_id: int
    subject_entity_id: int
    object_entity_id: int | None
    category: str
    predicate: str
    difficulty: int
    annotator_id: int
    created_at: str
    updated_at: str


@dataclass(frozen=True)
class HoiReview:
    id: int
    label_id: int
    reviewer_id: int
    verdict: str
    difficulty: int | None
    comment: str
    created_at: str


@dataclass(frozen=True)
class Question:
    """One version of a benchmark question. A correction makes a new version."""

    id: int
    uid: str
    version: int
    benchmark: str
    task: str
    text: str
    options: list[Any] | None
    answer: Any
    evidence_ids: list[str]
    steps: list[dict[str, Any]]
    difficulty: Difficulty | None
    criteria: dict[str, Any]
    status: str
    is_current: bool
    scene_id: int | None
    sequence_id: int | None
    seed: int | None
    created_at: str
    created_by: int | None


@dataclass(frozen=True)
class Verification:
    id: int
    question_id: int
    annotator_id: int
    unambiguous: bool
    evidence_withheld: bool
    evidence_recoverable: bool
    decision: str
    reason: str
    corrected_question_id: int | None
    created_at: str


@dataclass(frozen=True)
class Step:
    """One step of an episode: a tool call, an action, an answer or a format error."""

    episode_id: int
    index: int
    kind: str
    name: str
    arguments: dict[str, Any]
    result: Any
    ok: bool | None
    feedback: str
    model_text: dict[str, Any]
    raw_output: str
    state: dict[str, Any] | None
    image_sha256: str | None = None
    latency_s: float | None = None  # the model request behind this step, when there was one
    tokens_in: int | None = None
    tokens_out: int | None = None


@dataclass(frozen=True)
class Episode:
    id: int
    uid: str
    benchmark: str
    model: str
    agent: str
    mode: str
    task: str
    question_id: int | None
    scene_id: int | None
    outcome: str
    success: bool | None
    score: float | None
    header: dict[str, Any]
    created_at: str
    step_count: int = 0


@dataclass(frozen=True)
class ErrorLabel:
    id: int
    episode_id: int
    step_index: int | None
    category: str
    subcategory: str
    note: str
    annotator_id: int
    created_at: str


@dataclass(frozen=True)
class AuditEntry:
    """Who changed what, when."""

    id: int
    at: str
    annotator: str | None
    action: str
    table: str
    row_id: str
    detail: dict[str, Any]


@dataclass(frozen=True)
class ProjectSummary:
    """What a project holds; the payload of `reasonscope info`."""

    path: str
    schema_version: int
    annotators: int
    scenes: int
    sequences: int
    frames: int
    entities: int
    boxes_2d: int
    boxes_3d: int
    hoi_labels: int
    hoi_reviews: int
    questions: dict[str, int]
    verifications: int
    episodes: int
    steps: int
    format_error_steps: int
    error_labels: int
    images: int
    audit_entries: int
    person_labels: int = 0  # imported JRDB-Act/Social labels, per person and frame
    geometric_relations: int = 0
    reasoning_predictions: int = 0  # imported model answers to JRDB-Reasoning questions
    difficulty_ratings: int = 0
    human_answers: int = 0
    spatial_items: int = 0  # ST-BiBench arm-selection items
    spatial_predictions: int = 0  # a model's replies to them, scored

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class Page:
    """One page of a keyset-paginated listing."""

    rows: list[Any]
    next_cursor: tuple[Any, ...] | None
