"""Results: what the project's question verification, recorded episodes, HOI labels,
JRDB-Reasoning evaluation and dual-arm episodes add up to, and who in the team has done
what."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QObject
from PySide6.QtWidgets import (
    QFileDialog,
    QGroupBox,
    QMenu,
    QStackedWidget,
    QTabWidget,
    QToolButton,
    QVBoxLayout,
)

from app.jobs.metrics import (
    project_bimanual_metrics,
    project_episode_metrics,
    project_hoi_metrics,
    project_reasoning_metrics,
    project_verification_metrics,
)
from app.jobs.tables import metric_table, to_csv, to_latex
from app.modes.results.benchmark_export import BenchmarkExport
from app.modes.results.team import team_rows
from app.session import ProjectSession
from widgets.mode import ModeWindow
from widgets.results.agreement import AgreementView
from widgets.results.bimanual import BimanualResultsView
from widgets.results.episodes import EpisodeResultsView
from widgets.results.hoi import HoiResultsView
from widgets.results.paper_tables import PaperTablesView
from widgets.results.reasoning import ReasoningResultsView
from widgets.results.spatial import SpatialResultsTable
from widgets.results.team import TeamResultsView

EXPORTS = (
    ("verification", "Verification agreement"),
    ("episodes", "Episode success"),
    ("hoi", "HOI agreement"),
    ("reasoning", "Reasoning accuracy by level"),
    ("bimanual", "Dual-arm success"),
    ("bimanual_planning", "Dual-arm planning tier (ST-BiBench Table 1)"),
    ("bimanual_fine", "Dual-arm fine control (ST-BiBench Table 3)"),
    ("bimanual_views", "Dual-arm third-view ablation (ST-BiBench Table 4)"),
    ("bimanual_errors", "Dual-arm error breakdown (ST-BiBench Figure 3)"),
    ("mgvqa_ablations", "Prompt ablations (MG-VQA Table 2)"),
    ("mgvqa_turns", "Turns and manipulation calls (MG-VQA Table 3)"),
    ("mgvqa_recovery", "After a failed grasp (MG-VQA Table 4)"),
    ("spatial", "Spatial grounding"),
)


#: The tables Results > Paper tables shows, in this order: the papers' own first.
PAPER_TABLES = (
    ("mgvqa_ablations", "MG-VQA Table 2: prompt ablations"),
    ("mgvqa_turns", "MG-VQA Table 3: turns and manipulation calls"),
    ("mgvqa_recovery", "MG-VQA Table 4: after a failed grasp"),
    ("episodes", "MG-VQA Tables 1 and 5: success per task and mode (tag: Episodes tab)"),
    ("bimanual_planning", "ST-BiBench Table 1: planning tier"),
    ("bimanual_fine", "ST-BiBench Table 3: fine control"),
    ("bimanual_views", "ST-BiBench Table 4: third-person view"),
    ("bimanual_errors", "ST-BiBench Figure 3: error breakdown"),
    ("jrdb_vqa_images", "JRDB-Reasoning Table 2: VQA on images"),
    ("jrdb_vqa_videos", "JRDB-Reasoning Table 3: VQA on videos"),
    ("jrdb_vg_images", "JRDB-Reasoning Table 4: VG on images"),
    ("reasoning", "JRDB-Reasoning: accuracy by difficulty level, every task and modality"),
)


class ResultsMode(QObject):
    """Tabs Verification, Episodes, HOI labels, Reasoning, Bimanual and Team, refreshed
    whenever the project's data changes."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.agreement = AgreementView()
        self.episode_results = EpisodeResultsView()
        self.hoi_results = HoiResultsView()
        self.reasoning_results = ReasoningResultsView()
        self.bimanual_results = BimanualResultsView()
        self.spatial_results = SpatialResultsTable()
        self.team_results = TeamResultsView()
        spatial_box = QGroupBox("Foundational spatial grounding: Gaussian-weighted spatial score")
        QVBoxLayout(spatial_box).addWidget(self.spatial_results)
        self.bimanual_results.set_spatial_widget(spatial_box)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("results_tabs")
        self.tabs.setDocumentMode(True)
        self.tabs.addTab(self.agreement, "Verification")
        self.tabs.addTab(self.episode_results, "Episodes")
        self.tabs.addTab(self.hoi_results, "HOI labels")
        self.tabs.addTab(self.reasoning_results, "Reasoning")
        self.tabs.addTab(self.bimanual_results, "Bimanual")
        self.tabs.addTab(self.team_results, "Team")
        self.paper_tables = PaperTablesView(PAPER_TABLES)
        self.tabs.addTab(self.paper_tables, "Paper tables")
        self.paper_tables.chosen.connect(lambda _name: self._show_paper_table())
        self.metrics: dict | None = None  # what the tables show, as `reasonscope metrics`
        self.benchmark_export = BenchmarkExport(
            mode, session, lambda text, ms: mode.statusBar().showMessage(text, ms)
        )
        self.export_button = self._export_button()
        self.tabs.setCornerWidget(self.export_button)
        pages.addWidget(self.tabs)
        self.chosen = False  # the person picked a tab since the project opened: keep it
        self._choosing = False  # the mode itself is switching tabs
        self.tabs.currentChanged.connect(self._tab_changed)
        session.project_changed.connect(self._project_opened)
        session.data_changed.connect(self.refresh)
        self.episode_results.tag_changed.connect(lambda _tag: self.refresh())
        if session.project is not None:  # built on first use, with a project open: show it
            self._project_opened()

    def _project_opened(self) -> None:
        self.chosen = False
        self.refresh(opened=True)

    def _tab_changed(self, _index: int) -> None:
        if not self._choosing:
            self.chosen = True

    def _show_tab(self, index: int) -> None:
        self._choosing = True
        try:
            self.tabs.setCurrentIndex(index)
        finally:
            self._choosing = False

    def refresh(self, opened: bool = False) -> None:
        """Re-read the metrics. A project opens on its first tab with something to show
        (Verification when there are verdicts); later the tab changes by itself only while
        the person has not picked one and the shown tab has nothing to show."""
        project = self.session.project
        if project is None:
            self.agreement.set_metrics(None)
            self.episode_results.set_metrics(None)
            self.hoi_results.set_metrics(None)
            self.reasoning_results.set_metrics(None)
            self.bimanual_results.set_metrics(None)
            self.spatial_results.set_summary(None)
            self.team_results.set_rows(None)
            self.metrics = None
            self._show_paper_table()
            self.pages.setCurrentIndex(0)
            return
        metrics = project_verification_metrics(project)
        tags = project.episode_queries.episode_tags()
        tag = self.episode_results.selected_tag
        tag = tag if tag in tags else None
        self.episode_results.set_tags(tags, tag)
        episodes = project_episode_metrics(project, tag)
        self.agreement.set_metrics(metrics)
        self.episode_results.set_metrics(episodes)
        hoi = project_hoi_metrics(project)
        self.hoi_results.set_metrics(hoi)
        reasoning = project_reasoning_metrics(project)
        self.reasoning_results.set_metrics(reasoning)
        bimanual = project_bimanual_metrics(project)
        self.bimanual_results.set_metrics(bimanual)
        self.spatial_results.set_summary(bimanual["spatial"])
        team = team_rows(project)
        self.team_results.set_rows(team)
        self.metrics = {
            "verification": metrics,
            "episodes": episodes,
            "hoi": hoi,
            "reasoning": reasoning,
            "bimanual": bimanual,
        }
        self._show_paper_table()
        has_questions = sum(metrics["status_counts"].values()) > 0
        has_data = [  # in the order of the tabs
            metrics.get("n", 0) > 0 or metrics["time_on_task"]["verdicts"] > 0,
            episodes["n"] > 0,
            hoi["labels"] > 0,
            any(reasoning["counts"].values()),
            bimanual["episodes"] > 0 or bool(bimanual["spatial"]["by_model"]),
            bool(team["people"]),
            episodes["n"] > 0 or bimanual["episodes"] > 0,  # the papers' tables
        ]
        if opened or not (self.chosen or has_data[self.tabs.currentIndex()]):
            self._show_tab(has_data.index(True) if any(has_data) else 0)
        self.pages.setCurrentIndex(1 if has_questions or any(has_data) else 0)

    def _show_paper_table(self) -> None:
        """The chosen paper table, from the shown metrics (as `metrics --table` writes it)."""
        if self.metrics is None:
            self.paper_tables.show_table("", [], [], ["No project open."])
            return
        table = metric_table(self.metrics, self.paper_tables.name)
        self.paper_tables.show_table(table.title, table.columns, table.rows, table.notes)

    # -- export ------------------------------------------------------------------------------
    def _export_button(self) -> QToolButton:
        button = QToolButton()
        button.setObjectName("results_export")
        button.setText("Export")
        button.setToolTip(
            "Save a results table as CSV or LaTeX, with how it was computed; or the benchmark "
            "as JSON Lines or a Hugging Face dataset"
        )
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        menu = QMenu(button)
        for name, title in EXPORTS:
            for fmt, suffix in (("csv", "CSV"), ("latex", "LaTeX")):
                action = menu.addAction(f"{title} as {suffix}…")
                action.setObjectName(f"export_{name}_{fmt}")
                action.triggered.connect(lambda _=False, n=name, f=fmt: self._ask_export(n, f))
        menu.addSeparator()
        menu.addActions(self.benchmark_export.actions)
        button.setMenu(menu)
        return button

    def _ask_export(self, name: str, fmt: str) -> None:
        extension = "tex" if fmt == "latex" else "csv"
        path, _ = QFileDialog.getSaveFileName(
            self.mode,
            f"Export the {name} table",
            f"{name}.{extension}",
            "LaTeX (*.tex)" if fmt == "latex" else "CSV (*.csv)",
        )
        if path:
            self.export_table(name, fmt, Path(path))

    def export_table(self, name: str, fmt: str, path: Path) -> bool:
        """Write the shown metrics' `name` table (app.jobs.tables) to `path`; says how it went
        in the status bar. False when there is nothing to export or the file cannot be
        written."""
        if self.metrics is None:
            self.mode.statusBar().showMessage("No project open: nothing to export.", 6000)
            return False
        table = metric_table(self.metrics, name)
        text = to_latex(table) if fmt == "latex" else to_csv(table)
        try:
            path.write_text(text, encoding="utf-8")
        except OSError as exc:
            self.mode.statusBar().showMessage(
                f"{path}: cannot write the table ({exc.strerror or exc})", 10000
            )
            return False
        self.mode.statusBar().showMessage(
            f"Saved the {name} table ({len(table.rows)} rows, {fmt}) to {path}", 8000
        )
        return True

    def show_page(self, name: str) -> None:
        """A tab by its name ("verification", "episodes", "hoi", "reasoning", "bimanual",
        "team"), else a dock."""
        tabs = {
            "verification": self.agreement,
            "episodes": self.episode_results,
            "hoi": self.hoi_results,
            "reasoning": self.reasoning_results,
            "bimanual": self.bimanual_results,
            "team": self.team_results,
            "paper": self.paper_tables,
        }
        if name in tabs:
            self.tabs.setCurrentWidget(tabs[name])
        else:
            self.mode.show_dock(name)

    def shutdown(self) -> None:
        """Results are read on the GUI thread; only a benchmark export may be under way."""
        self.benchmark_export.shutdown()
