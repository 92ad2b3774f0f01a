"""Metrics shared by `reasonscope metrics` and the Results mode."""

from __future__ import annotations

import os
from typing import Any

from annotation.episode_metrics import episode_metrics
from store import open_for_reading


def verification_metrics(db_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Verification agreement and progress of a project, as the `verification` JSON key.

    Opens the project read-only when the file (or its folder) is not writable.
    Raises `ProjectError` with a one-line reason for a missing or bad file.

    Shape: {"verification": {"n", "criteria", "decision", "decision_labels",
    "status_counts", "adjudication_pending", "time_on_task"}}; see docs/verification.md.
    """
    with open_for_reading(db_path) as project:
        return {"verification": project_verification_metrics(project)}


def project_metrics(db_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Everything `reasonscope metrics` reports: {"verification": {...}, "episodes": {...}}.

    Read-only where needed, and one-line `ProjectError`s, as `verification_metrics`.
    The `episodes` shape is documented in `annotation.episode_metrics.episode_metrics`.
    """
    with open_for_reading(db_path) as project:
        return {
            "verification": project_verification_metrics(project),
            "episodes": project_episode_metrics(project),
        }


def project_episode_metrics(project) -> dict[str, Any]:
    """The `episodes` metrics of an open project: success, manipulation, recovery, errors."""
    repo = project.episodes
    return episode_metrics((repo.get(i), repo.steps(i)) for i in repo.ids())


def project_verification_metrics(project) -> dict[str, Any]:
    """The `verification` metrics of an open project (the GUI's own connection)."""
    repo = project.verifications
    metrics = repo.agreement()
    metrics["status_counts"] = project.questions.counts_by_status()
    metrics["adjudication_pending"] = repo.adjudication_pending()
    metrics["time_on_task"] = repo.time_on_task()
    return metrics
