"""A project: an open project file with every repository as a typed attribute.

One module per family of tables; the repositories that read questions get the
question repository handed to them, so none reaches into the project.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from store.annotators import AnnotatorRepository, AuditRepository
from store.connection import ProjectFile
from store.episode_queries import EpisodeQueryRepository
from store.episodes import EpisodeRepository, ImageRepository
from store.hoi import HoiRepository
from store.packages import PackageRepository
from store.questions import QuestionRepository
from store.reasoning import ReasoningRepository
from store.rendered_views import RenderedViewRepository
from store.scenes import SceneRepository
from store.sequences import SequenceRepository
from store.spatial import SpatialRepository
from store.states import StateRepository
from store.summary import SummaryRepository
from store.verifications import VerificationRepository


class Project(ProjectFile):
    """An open project (see `store.db.open_project`); repositories are its attributes."""

    annotators: AnnotatorRepository
    audit: AuditRepository
    images: ImageRepository
    episodes: EpisodeRepository
    sequences: SequenceRepository
    hoi: HoiRepository
    packages: PackageRepository
    questions: QuestionRepository
    reasoning: ReasoningRepository
    scenes: SceneRepository
    spatial: SpatialRepository
    states: StateRepository
    summary: SummaryRepository
    verifications: VerificationRepository

    def __init__(self, path: Path, conn: sqlite3.Connection, *, readonly: bool) -> None:
        super().__init__(path, conn, readonly=readonly)
        self.annotators = AnnotatorRepository(self)
        self.audit = AuditRepository(self)
        self.images = ImageRepository(self)
        self.states = StateRepository(self)
        self.episodes = EpisodeRepository(self, states=self.states)
        self.episode_queries = EpisodeQueryRepository(self)
        self.sequences = SequenceRepository(self)
        self.hoi = HoiRepository(self)
        self.packages = PackageRepository(self)
        self.questions = QuestionRepository(self)
        self.reasoning = ReasoningRepository(self, questions=self.questions)
        self.rendered_views = RenderedViewRepository(self, images=self.images, states=self.states)
        self.scenes = SceneRepository(self)
        self.spatial = SpatialRepository(self)
        self.summary = SummaryRepository(self, questions=self.questions)
        self.verifications = VerificationRepository(self, questions=self.questions)

    def __enter__(self) -> Project:
        return self
