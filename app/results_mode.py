"""Results: what the project's question verification, recorded episodes and HOI labels add
up to."""

from __future__ import annotations

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QStackedWidget, QTabWidget

from app.metrics_jobs import (
    project_episode_metrics,
    project_hoi_metrics,
    project_verification_metrics,
)
from app.session import ProjectSession
from widgets.agreement_view import AgreementView
from widgets.episode_results import EpisodeResultsView
from widgets.hoi_results import HoiResultsView
from widgets.mode import ModeWindow


class ResultsMode(QObject):
    """Tabs Verification, Episodes and HOI labels, refreshed whenever the project's data
    changes."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.agreement = AgreementView()
        self.episode_results = EpisodeResultsView()
        self.hoi_results = HoiResultsView()
        self.tabs = QTabWidget()
        self.tabs.setObjectName("results_tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.agreement, "Verification")
        self.tabs.addTab(self.episode_results, "Episodes")
        self.tabs.addTab(self.hoi_results, "HOI labels")
        pages.addWidget(self.tabs)
        self._had_data = (False, False, False)
        session.project_changed.connect(self.refresh)
        session.data_changed.connect(self.refresh)

    def refresh(self) -> None:
        project = self.session.project
        if project is None:
            self.agreement.set_metrics(None)
            self.episode_results.set_metrics(None)
            self.hoi_results.set_metrics(None)
            self._had_data = (False, False, False)
            self.pages.setCurrentIndex(0)
            return
        metrics = project_verification_metrics(project)
        episodes = project_episode_metrics(project)
        self.agreement.set_metrics(metrics)
        self.episode_results.set_metrics(episodes)
        hoi = project_hoi_metrics(project)
        self.hoi_results.set_metrics(hoi)
        has_labels = hoi["labels"] > 0
        has_questions = sum(metrics["status_counts"].values()) > 0
        has_episodes = episodes["n"] > 0
        if (has_questions, has_episodes, has_labels) != self._had_data:
            # open on the tab that has something to show; keep the user's choice after that
            if has_questions or not (has_episodes or has_labels):
                self.tabs.setCurrentWidget(self.agreement)
            else:
                self.tabs.setCurrentWidget(
                    self.episode_results if has_episodes else self.hoi_results
                )
            self._had_data = (has_questions, has_episodes, has_labels)
        self.pages.setCurrentIndex(1 if has_questions or has_episodes or has_labels else 0)
