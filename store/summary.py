"""What a project holds, for `reasonscope info` and the Results mode."""

from __future__ import annotations

from annotation.models import ProjectSummary
from store.base import Repository
from store.connection import ProjectFile
from store.questions import QuestionRepository

_COUNTS = {
    "annotators": "SELECT count(*) FROM annotators",
    "scenes": "SELECT count(*) FROM scenes",
    "sequences": "SELECT count(*) FROM sequences",
    "frames": "SELECT count(*) FROM frames",
    "entities": "SELECT count(*) FROM entities",
    "boxes_2d": "SELECT count(*) FROM boxes_2d",
    "boxes_3d": "SELECT count(*) FROM boxes_3d",
    "hoi_labels": "SELECT count(*) FROM hoi_labels",
    "hoi_reviews": "SELECT count(*) FROM hoi_reviews",
    "person_labels": "SELECT count(*) FROM person_labels",
    "geometric_relations": "SELECT count(*) FROM geometric_relations",
    "verifications": "SELECT count(*) FROM verifications WHERE retracted_at IS NULL",
    "episodes": "SELECT count(*) FROM episodes",
    "steps": "SELECT count(*) FROM steps",
    "format_error_steps": "SELECT count(*) FROM steps WHERE kind = 'format_error'",
    "error_labels": "SELECT count(*) FROM error_labels",
    "images": "SELECT count(*) FROM images",
    "audit_entries": "SELECT count(*) FROM audit_log",
    "reasoning_predictions": "SELECT count(*) FROM reasoning_predictions",
    "difficulty_ratings": "SELECT count(*) FROM difficulty_ratings",
    "human_answers": "SELECT count(*) FROM human_answers",
    "spatial_items": "SELECT count(*) FROM spatial_items",
    "spatial_predictions": "SELECT count(*) FROM spatial_predictions",
}


class SummaryRepository(Repository):
    def __init__(self, project: ProjectFile, *, questions: QuestionRepository) -> None:
        super().__init__(project)
        self.questions = questions

    def summary(self) -> ProjectSummary:
        counts = {key: self.db.execute(sql).fetchone()[0] for key, sql in _COUNTS.items()}
        return ProjectSummary(
            path=str(self.project.path),
            schema_version=self.project.schema_version,
            questions=self.questions.counts_by_status(),
            **counts,
        )
