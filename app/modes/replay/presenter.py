"""Showing the current step of a replayed episode in every view at once.

On a seek the viewport's world is restored to the step's stored state (no
physics), the bodies that moved are highlighted (the one the tool acted on
selected, collateral motion glowing) with their paths drawn, and the step
panel shows the model's text, the call, its result and what moved. The
agent's image (re-rendered from the state) and, for a grasp, its points and
plan arrive from the renderer a moment later.
"""

from __future__ import annotations

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QLabel

from app.modes.replay.loading import LoadedEpisode
from sim.tabletop.replay import BodyMotion, GraspInspection, acted_body, step_mask
from sim.tabletop.resim import ResimReport
from widgets.replay.overlay import MaskImagePanel, ViewportLines
from widgets.replay.render import RenderedStep, StepRenderer
from widgets.replay.state import ReplayState
from widgets.replay.step_panel import StepPanel, step_html, step_title
from widgets.replay.timeline import Tick, Timeline
from widgets.viewport.point_cloud import PointCloudView
from widgets.viewport.view import SceneViewport

ACTED = (1.0, 0.55, 0.0, 1.0)  # the viewport's selection orange
COLLATERAL = (0.15, 0.75, 1.0, 1.0)  # its highlight cyan
PLANNED = (0.12, 0.85, 0.35, 1.0)
ACTUAL = (0.95, 0.2, 0.85, 1.0)
MISS = (1.0, 0.9, 0.1, 1.0)
CANDIDATE = (0.42, 0.47, 0.55, 1.0)  # the planner's other candidates, slate grey


class StepPresenter:
    """Puts the state's current step into the viewport, timeline, panels and image."""

    def __init__(
        self,
        state: ReplayState,
        viewport: SceneViewport,
        timeline: Timeline,
        panel: StepPanel,
        image: MaskImagePanel,
        cloud: PointCloudView,
        renderer: StepRenderer,
        tool_view: QAction,
        legend: QLabel | None = None,
    ) -> None:
        self.state, self.viewport, self.timeline = state, viewport, timeline
        self.panel, self.image, self.cloud = panel, image, cloud
        self.renderer, self.tool_view = renderer, tool_view
        self.legend = legend or QLabel()  # says which grippers the viewport shows
        self.lines = ViewportLines(viewport)
        self.loaded: LoadedEpisode | None = None
        self.loading = False
        self.report: ResimReport | None = None
        self.motion: list[BodyMotion] = []
        self.inspection: GraspInspection | None = None
        self.delegate = None  # shows the steps of the episodes it is `active` for instead
        renderer.rendered.connect(self.rendered)

    # -- episodes ----------------------------------------------------------------------
    def episode_opened(self, loading: bool) -> None:
        """A new episode (or none): clear what belonged to the last one."""
        self.report, self.loading = None, loading
        self.timeline.set_ticks([Tick.of(i, s) for i, s in enumerate(self.state.step_dicts)])
        self.image.set_image(None, None)
        self.image.set_mask(None)
        self.cloud.clear()
        self.lines.set(())
        self.legend.hide()
        if self.state.episode is None:
            self.panel.clear()

    def set_loaded(self, loaded: LoadedEpisode | None) -> None:
        previous, self.loaded = self.loaded, loaded
        self.loading = False
        self.viewport.set_world(loaded.view.world if loaded and loaded.view else None)
        self.renderer.set_replay(loaded.render if loaded else None)
        if previous is not None and previous.view is not None:
            previous.view.world.close()  # the renderer closes its own world
        if loaded is not None and loaded.view is not None:
            self.viewport.set_camera_preset("oblique")

    def set_report(self, report: ResimReport | None) -> None:
        self.report = report
        self.show()

    # -- the current step --------------------------------------------------------------
    @property
    def tool_view_on(self) -> bool:
        step = self.state.step_dicts[self.state.index] if self.state.step_dicts else {}
        return self.tool_view.isChecked() and step.get("name") in ("grasp", "push")

    def show(self) -> None:
        s = self.state
        if not s.step_dicts:
            return
        if self.delegate is not None and self.delegate.active:
            self.delegate.show()
            return
        i, step = s.index, s.step_dicts[s.index]
        self.timeline.set_current(i)
        self.motion, self.inspection, note = [], None, ""
        replay = self.loaded.view if self.loaded else None
        if replay is not None:
            if not replay.seek(i):
                note = "No stored state at this step: the scene is shown as it was before."
            self.viewport.sync()
            self.motion = replay.motion(i)
            try:
                self.viewport.select(acted_body(s.step_dicts, i))
            except KeyError:  # a body the viewport does not draw
                self.viewport.select(None)
            self.viewport.set_highlight([m.key for m in self.motion if not m.acted_on])
            self._draw()
            self.renderer.request(i, before=self.tool_view_on)
            self.image.set_caption(f"Rendering step {i}…")
        elif self.loading:
            note = "Restoring the episode's scene…"
        elif self.loaded is not None:
            note = "This episode has no stored scene: only its steps can be shown."
        if step.get("name") == "grasp" and replay is not None:
            self.cloud.clear("Lifting what the grasp saw to 3D…")
        elif replay is not None:
            self.cloud.clear("No grasp at this step.")
        self._panel(note)

    def _panel(self, note: str = "") -> None:
        s = self.state
        step = s.step_dicts[s.index]
        names = self.loaded.names if self.loaded else {}
        resim = None
        if self.report is not None:
            resim = next((r for r in self.report.steps if r.index == s.index), None)
        failed = s.index in s.bookmarks
        self.panel.show_step(
            step_title(s.index, s.last_index, step),
            step_html(step, self.motion, names, self.inspection, resim, note),
            failed,
        )

    def _draw(self) -> None:
        """Motion paths, and for a grasp the planned and the actual gripper, in the viewport."""
        sketches = []
        for m in self.motion:
            colour = ACTED if m.acted_on else COLLATERAL
            sketches.append((f"moved:{m.key}", [m.before, m.after], colour, 3.0))
        g = self.inspection
        if g is not None:
            for i, glyph in enumerate(g.candidate_glyphs()):
                sketches.append((f"candidate:{i}", glyph, CANDIDATE, 2.0))
            # the plan drawn wider: where the two nearly coincide it still shows round the other
            sketches.append(("planned", g.planned_glyph(), PLANNED, 6.0))
            actual = g.actual_glyph()
            if actual is not None:
                sketches.append(("actual", actual, ACTUAL, 2.5))
                sketches.append(("miss", [g.planned_tool, g.actual_tool], MISS, 2.0))
            self.legend.setText(legend_html(g))
        self.legend.setVisible(g is not None)
        self.lines.set(sketches)

    def rendered(self, result: RenderedStep) -> None:
        """The agent's image (and a grasp's points) for a step: show them if still current."""
        s, r = self.state, result.request
        if not s.step_dicts or r.index != s.index or r.before != self.tool_view_on:
            return
        view = result.view
        if view is None:
            self.image.set_image(None, None)
            self.image.set_caption("No stored state to render")
            return
        objects = [b.uid for b in self.loaded.view.world.objects()] if self.loaded else None
        self.image.set_image(view.rgb, view.segmentation, objects)
        mask = step_mask(s.step_dicts, s.index)
        if mask is not None and mask.shape != view.rgb.shape[:2]:
            mask = None  # recorded at another image size than the header says
        self.image.set_mask(mask)
        name = s.step_dicts[s.index].get("name", "")
        when = (
            f"Before step {s.index}: what the {name} saw" if r.before else f"After step {s.index}"
        )
        self.image.set_caption(when + (", mask outlined" if mask is not None else ""))
        self.inspection = result.inspection
        g = self.inspection
        if g is not None:
            lines = [(glyph, CANDIDATE) for glyph in g.candidate_glyphs()]
            lines.append((g.planned_glyph(), PLANNED))
            if g.actual_glyph() is not None:
                lines.append((g.actual_glyph(), ACTUAL))
            self.cloud.set_cloud(g.points, g.colours, lines, cloud_caption(g))
            self._draw()
            self._panel()


def cloud_caption(g: GraspInspection) -> str:
    """What the Grasp points view shows: both grippers, or the plan only when the fingers
    never closed (no feasible grasp, unreachable, collided)."""
    text = f"{len(g.points)} points of the mask, lifted from the depth before step {g.index}; "
    if g.candidates or g.attempts:
        text += f"the planner's candidates in grey ({len(g.attempts)} tried); "
    if g.actual_tool is None:
        why = f" ({g.reason})" if g.reason else ""
        return text + f"planned only, in green: the fingers never closed{why}."
    return (
        text + f"the plan in green, the fingers at close in magenta, {1000 * g.offset_m:.0f} mm "
        f"apart{f' ({g.reason})' if g.reason else ''}."
    )


def _swatch(rgba: tuple[float, ...]) -> str:
    r, g, b = (int(255 * v) for v in rgba[:3])
    return f"<span style='color: #{r:02x}{g:02x}{b:02x}'>■</span>"


def legend_html(g: GraspInspection) -> str:
    """The line over the viewport naming the grippers drawn on the scene."""
    outcome = f"grasp failed ({g.reason})" if g.reason else "grasp succeeded"
    if g.actual_tool is None:
        return (
            f"Step {g.index}, {outcome}: {_swatch(PLANNED)} <b>planned only</b>, the fingers "
            "never closed, so there is no actual gripper to compare."
        )
    others = f" · {_swatch(CANDIDATE)} other candidates" if g.candidates else ""
    return (
        f"Step {g.index}, {outcome}: {_swatch(PLANNED)} planned gripper · {_swatch(ACTUAL)} "
        f"actual, where the fingers closed · {_swatch(MISS)} {1000 * g.offset_m:.0f} mm "
        f"apart{others}."
    )
