"""Results: what the project's verification (and, later, episodes) add up to."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStackedWidget

from app.metrics_jobs import project_verification_metrics
from app.session import ProjectSession
from widgets.agreement_view import AgreementView
from widgets.mode import ModeWindow


class ResultsMode(QObject):
    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.agreement = AgreementView()
        pages.addWidget(self.agreement)
        session.project_changed.connect(self.refresh)
        session.data_changed.connect(self.refresh)

    def refresh(self) -> None:
        project = self.session.project
        if project is None:
            self.agreement.set_metrics(None)
            self.pages.setCurrentIndex(0)
            return
        metrics = project_verification_metrics(project)
        self.agreement.set_metrics(metrics)
        has_questions = sum(metrics["status_counts"].values()) > 0
        self.pages.setCurrentIndex(1 if has_questions else 0)
