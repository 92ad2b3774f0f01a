"""Results: what the project's question verification and recorded episodes add up to."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStackedWidget, QTabWidget

from app.metrics_jobs import project_episode_metrics, project_verification_metrics
from app.session import ProjectSession
from widgets.agreement_view import AgreementView
from widgets.episode_results import EpisodeResultsView
from widgets.mode import ModeWindow


class ResultsMode(QObject):
    """Two tabs, Verification and Episodes, refreshed whenever the project's data changes."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.agreement = AgreementView()
        self.episode_results = EpisodeResultsView()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("results_tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.agreement, "Verification")
        self.tabs.addTab(self.episode_results, "Episodes")
        pages.addWidget(self.tabs)
        self._had_data = (False, False)
        session.project_changed.connect(self.refresh)
        session.data_changed.connect(self.refresh)

    def refresh(self) -> None:
        project = self.session.project
        if project is None:
            self.agreement.set_metrics(None)
            self.episode_results.set_metrics(None)
            self._had_data = (False, False)
            self.pages.setCurrentIndex(0)
            return
        metrics = project_verification_metrics(project)
        episodes = project_episode_metrics(project)
        self.agreement.set_metrics(metrics)
        self.episode_results.set_metrics(episodes)
        has_questions = sum(metrics["status_counts"].values()) > 0
        has_episodes = episodes["n"] > 0
        if (has_questions, has_episodes) != self._had_data:
            # open on the tab that has something to show; keep the user's choice after that
            self.tabs.setCurrentWidget(
                self.episode_results if has_episodes and not has_questions else self.agreement
            )
            self._had_data = (has_questions, has_episodes)
        self.pages.setCurrentIndex(1 if has_questions or has_episodes else 0)
