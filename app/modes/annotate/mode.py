"""Annotate HOI: a JRDB sequence's stitched panorama and lidar cloud, frame by frame, with the
people and objects of the frame and their geometric relations in words.

Layout (made for a 1280 x 860 window): the 3760 x 480 panorama and the frame
slider in a dock across the top (the full width, since the image is wide and
short), the point cloud in the middle, the entity list and the relations on
the right. The labelling panels go on the right too (`app.modes.annotate.docks`).

Selection is one `JrdbViewState` shared by every view. Every key is a
QAction in the mode's toolbar (F1 lists them); frames move with PgUp/PgDown
(or Alt+Left/Alt+Right), Home and End, so that letters, digits and Tab stay
free for labelling. Loading a frame's cloud, and computing its relations the
first time it is shown, run off the GUI thread; relations are stored through
`project.sequences.set_relations`. The frames next to the one shown are prepared
ahead (`app.modes.annotate.prefetch`), and the last few shown or prepared are kept
in a bounded `FrameCache`.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, QTimer
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.geometry import GeometricRelation
from annotation.models import Sequence
from app.modes.annotate.boxes import BoxEditing
from app.modes.annotate.generator import GeneratorDock
from app.modes.annotate.graph import AnnotateGraph
from app.modes.annotate.hoi_panels import install_hoi_panels
from app.modes.annotate.loading import LoadedFrame, list_sequences, load_frame
from app.modes.annotate.prefetch import (
    FrameCache,
    FrameJob,
    FramePrefetcher,
    PreparedFrame,
    cached_frames,
    image_path,
    neighbours,
    read_image,
    release_freed_memory,
)
from app.session import ProjectSession
from widgets.jrdb.cloud_points import PreparedCloud
from widgets.jrdb.cloud_view import CloudView
from widgets.jrdb.entity_list import EntityListPanel
from widgets.jrdb.frame_slider import FrameSlider
from widgets.jrdb.panorama import PanoramaView
from widgets.jrdb.relations_panel import RelationsPanel
from widgets.jrdb.state import JrdbViewState, entity_colour
from widgets.mode import ModeWindow, mode_toolbar
from widgets.tasks import TaskRunner

RIGHT = Qt.DockWidgetArea.RightDockWidgetArea
NEAR_FALLBACK_MS = 120  # ms: neighbours are prepared by then even if the cloud never paints


class AnnotateMode(QObject):
    """Assembles and wires the Annotate HOI views inside a ModeWindow."""

    def __init__(self, mode: ModeWindow, pages: QStackedWidget, session: ProjectSession) -> None:
        super().__init__(mode)
        self.mode, self.pages, self.session = mode, pages, session
        self.state = JrdbViewState(self)
        self.panorama = PanoramaView()
        self.slider = FrameSlider()
        self.cloud = CloudView()
        self.entity_list = EntityListPanel(self.state)
        self.relations = RelationsPanel()
        self.page = self.cloud
        pages.addWidget(self.page)
        self.page.installEventFilter(self)
        self.sequence_box = QComboBox()
        self.sequence_box.setObjectName("sequence_box")
        self.sequence_box.setToolTip("The JRDB sequence to annotate")
        self.sequence_box.setMinimumContentsLength(16)
        top = QWidget()
        column = QVBoxLayout(top)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.panorama, 1)
        row = QHBoxLayout()
        row.setContentsMargins(6, 0, 0, 0)
        row.addWidget(self.sequence_box)
        row.addWidget(self.slider, 1)
        column.addLayout(row)
        mode.setCorner(Qt.Corner.TopLeftCorner, Qt.DockWidgetArea.TopDockWidgetArea)
        mode.setCorner(Qt.Corner.TopRightCorner, Qt.DockWidgetArea.TopDockWidgetArea)
        self.frame_dock = mode.add_dock(
            "frame", "Panorama", top, Qt.DockWidgetArea.TopDockWidgetArea
        )
        mode.add_dock("entities", "People and objects", self.entity_list, RIGHT)
        mode.add_dock("relations", "Relations", self.relations, RIGHT)
        self.sequences: list[Sequence] = []
        self._init_frame_loading()
        self.all_task: TaskRunner | None = None
        self._build_toolbar()
        self.hoi = install_hoi_panels(mode, self.state, session)  # labelling and review
        self.hoi.panel.chooser.changed.connect(self._show_candidate)
        # drawing boxes, the Box dock, calibration
        self.boxes = BoxEditing(
            mode, self.state, session, self.panorama, self.reload_cloud, cloud=self.cloud
        )
        self.graph = AnnotateGraph(
            mode, self.state, session, self.hoi.state.history_changed
        )  # the Scene graph dock, behind Relations
        self.generator = GeneratorDock(
            mode, self.state, session, self.panorama, self.cloud, self.graph.view
        )  # the Question generator dock

        self.sequence_box.currentIndexChanged.connect(self._sequence_chosen)
        self.slider.frame_requested.connect(self.state.set_frame)
        self.slider.frame_scrubbed.connect(self._scrub)
        for view in (self.panorama, self.cloud):
            view.entity_clicked.connect(self.state.pick)
            view.background_clicked.connect(self._background_clicked)
        self.relations.entity_clicked.connect(self.state.pick)
        self.state.sequence_changed.connect(self._sequence_changed)
        self.state.frame_changed.connect(lambda _i: self._frame_changed())
        self.state.boxes_changed.connect(self._show_boxes)
        self.state.selection_changed.connect(self._show_selection)
        session.project_changed.connect(self.reload)
        session.data_changed.connect(self._data_changed)
        if session.project is not None:  # built on first use, with a project open: show it
            self.reload()

    def _init_frame_loading(self) -> None:
        self.task: TaskRunner | None = None  # loading a frame
        self.wanted: int | None = None  # the frame id the cloud should show
        self.shown: int | None = None  # the frame id whose cloud is shown
        self.cache = FrameCache(cached_frames())  # frames shown or prepared ahead
        self.prefetch = FramePrefetcher(self)  # the neighbours of the frame shown
        self.prefetch.prepared.connect(self._prepared)
        # Neighbours are prepared once the frame is painted: a worker started with the step
        # would take the interpreter from the paint (the GIL) and slow the step it serves.
        # The timer covers a cloud view not on screen, which never paints.
        self.near_pending = False
        self.near_timer = QTimer(self, singleShot=True, interval=NEAR_FALLBACK_MS)
        self.near_timer.timeout.connect(self._prefetch_now)
        self.cloud.painted.connect(self._prefetch_now)
        self.direction = 1  # of travel: +1 forward, -1 back
        self.last_index: int | None = None
        self.image_shown: tuple[int | None, object] = (None, None)  # (frame id, its QImage)
        self.reload_after_task = False
        self.stale = True  # the current frame is not shown yet (the mode was hidden)
        self.recompute: int | None = None  # the frame whose stored relations are out of date
        self.task_project = None  # the project the running frame task reads for

    def _build_toolbar(self) -> None:
        s, c, p = self.state, self.cloud, self.panorama
        _bar, self.actions = mode_toolbar(
            self.mode,
            "Annotate",
            (
                ("first", "First", ["Home"], lambda: s.set_frame(0), "First frame"),
                ("previous", "◀ Frame", ["PgUp", "Alt+Left"], lambda: s.step(-1), "Frame back"),
                ("next", "Frame ▶", ["PgDown", "Alt+Right"], lambda: s.step(1), "Next frame"),
                ("last", "Last", ["End"], lambda: s.set_frame(len(s.frames) - 1), "Last frame"),
                ("back10", "−10", ["Shift+PgUp"], lambda: s.step(-10), "Ten frames back"),
                ("forward10", "+10", ["Shift+PgDown"], lambda: s.step(10), "Ten frames on"),
                (None, None, None, None, None),
                ("fit", "Fit image", ["Ctrl+0"], p.fit, "The whole panorama in view"),
                ("zoom_in", "Zoom +", ["Ctrl+=", "Ctrl++"], lambda: p.zoom_by(1.25), "Zoom in"),
                ("zoom_out", "Zoom −", ["Ctrl+-"], lambda: p.zoom_by(0.8), "Zoom out"),
                (None, None, None, None, None),
                (
                    "colour",
                    "Colour: height",
                    ["Alt+C"],
                    self._cycle_colour,
                    "Colour the points by height, by entity (points in a box) or by lidar",
                ),
                ("smaller", "Points −", ["Alt+Down"], lambda: self._point_size(-1), "Smaller"),
                ("larger", "Points +", ["Alt+Up"], lambda: self._point_size(1), "Larger"),
                ("camera", "Reset view", ["Alt+R"], c.reset_camera, "Look from behind the robot"),
                (None, None, None, None, None),
                (
                    "recompute",
                    "Relations ↻",
                    ["Ctrl+R"],
                    self.recompute_relations,
                    "Compute this frame's relations again (after boxes changed)",
                ),
                (
                    "all_relations",
                    "All frames",
                    ["Ctrl+Alt+R"],
                    self.compute_all_relations,
                    "Compute the relations of every frame that has none yet",
                ),
            ),
        )

    # -- the project and its sequences ---------------------------------------------------------
    def reload(self) -> None:
        """Another project: its sequences, the first one open."""
        project = self.session.project
        self._forget_frames()
        self.sequences = list_sequences(project) if project is not None else []
        self.sequence_box.blockSignals(True)
        self.sequence_box.clear()
        for seq in self.sequences:
            self.sequence_box.addItem(f"{seq.name} ({seq.frame_count} frames)", seq.id)
        self.sequence_box.blockSignals(False)
        self.state.load(project, self.sequences[0].id if self.sequences else None)
        self._show_page()

    def _data_changed(self) -> None:
        project = self.session.project
        if project is None:
            return
        if len(list_sequences(project)) != len(self.sequences):
            self.reload()  # a sequence was imported meanwhile
            return
        self.state.refresh()
        missing = self._show_relations() is None  # e.g. the first 3D box was just drawn
        unshown = self.state.frame is not None and self.shown != self.state.frame.id
        if (missing or unshown) and self.task is None and self.page.isVisible():
            self.wanted = self.state.frame.id
            self._load()

    def _sequence_chosen(self, row: int) -> None:
        if 0 <= row < len(self.sequences):
            self._forget_frames()
            self.state.load(self.session.project, self.sequences[row].id)

    def _show_page(self) -> None:
        has = bool(self.sequences)
        self.pages.setCurrentWidget(self.page if has else self.pages.widget(0))
        self.frame_dock.setVisible(has)

    def _sequence_changed(self) -> None:
        """A sequence was loaded (from the chooser, or by a panel jumping to a label)."""
        s = self.state
        times = [s.frame_times.get(f.index) for f in s.frames]
        self.slider.set_frames([f.index for f in s.frames], times)
        self.shown = self.last_index = None
        row = self.sequence_box.findData(s.sequence.id) if s.sequence is not None else -1
        if row >= 0 and row != self.sequence_box.currentIndex():
            self.sequence_box.blockSignals(True)
            self.sequence_box.setCurrentIndex(row)
            self.sequence_box.blockSignals(False)

    # -- frames --------------------------------------------------------------------------------
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        if watched is self.page and event.type() == QEvent.Type.Show and self.stale:
            self._frame_changed()
        return False

    def _frame_changed(self) -> None:
        """Show the state's frame: image and boxes now, the cloud when it is read (at once
        when it was prepared ahead)."""
        s = self.state
        self.slider.set_current(s.frame_index)
        if not self.page.isVisible():
            self.stale = True  # read files and compute only when someone looks
            return
        self.stale = False
        frame = s.frame
        prepared = self.cache.get(frame.id) if frame is not None else None
        image = prepared.image if prepared is not None else read_image(s.image_path())
        self.image_shown = (frame.id if frame is not None else None, image)
        self.panorama.set_image(image)
        self._show_boxes()
        if frame is None:
            self.cloud.clear("No frame.")
            self.relations.set_relations([], status="No sequence open.")
            return
        if self.last_index is not None and s.frame_index != self.last_index:
            self.direction = 1 if s.frame_index > self.last_index else -1
        self.last_index = s.frame_index
        stored = self._show_relations()
        self.wanted = frame.id
        if prepared is not None and stored is not None:
            self._show_cloud(frame.id, prepared.cloud)
            self._prefetch_near()
            return
        self.prefetch.want([], current=frame.id)  # the annotator jumped: stale work goes
        if not self.prefetch.busy_with(frame.id):  # else it is on its way (`_prepared`)
            self._load()

    def _scrub(self, index: int) -> None:
        """The slider's handle is being dragged over frame `index`: only its panorama and
        2D boxes follow (the state, the cloud, the relations and the graph wait for the
        handle to rest); preparing frames the handle has passed stops."""
        s, project = self.state, self.session.project
        if project is None or not 0 <= index < len(s.frames) or not self.page.isVisible():
            return
        self.prefetch.want([], current=self.wanted)
        frame = s.frames[index]
        prepared = self.cache.get(frame.id) if frame.id in self.cache else None
        path = image_path(s.sequence, frame) if s.sequence is not None else None
        image = prepared.image if prepared is not None else read_image(path)
        self.panorama.set_image(image)
        boxes = project.sequences.boxes_2d(frame.id)
        ids = {b.entity_id for b in boxes}
        short = {i: s.label(i).removeprefix("person ") for i in ids}
        self.panorama.set_boxes(boxes, {i: entity_colour(i) for i in ids}, short)
        self.panorama.set_selected(s.selected)

    def _prefetch_near(self) -> None:
        """Prepare the shown frame's neighbours once it is painted (`_prefetch_now`), or
        once the fallback timer runs out (nothing to paint: no repaint is forced)."""
        self.near_pending = True
        self.near_timer.start()

    def preparing_done(self) -> bool:
        """Nothing is being read or prepared, nor waits to be (the frame is on screen and its
        neighbours are ready)."""
        return self.task is None and not self.near_pending and self.prefetch.idle()

    def _prefetch_now(self) -> None:
        """Prepare the shown frame's neighbours in the direction of travel, in the
        background (boxes and whether relations are stored are read here)."""
        if not self.near_pending:
            return
        self.near_pending = False
        self.near_timer.stop()
        release_freed_memory()  # what the step freed, before the next frames are read
        s, project = self.state, self.session.project
        if project is None or s.sequence is None or s.frame is None:
            return
        kinds = {i: e.kind for i, e in s.entities.items()}
        jobs = []
        for index in neighbours(s.frame_index, len(s.frames), self.direction):
            frame = s.frames[index]
            if frame.id in self.cache:
                self.graph.prepare(frame.id)
                continue
            boxes = tuple(project.sequences.boxes_3d(frame.id))
            need = bool(boxes) and not project.sequences.has_relations(frame.id)
            jobs.append(FrameJob(s.sequence, frame, boxes, kinds, need))
        self.prefetch.want(jobs, current=s.frame.id)

    def _prepared(self, prepared: PreparedFrame) -> None:
        """A frame prepared ahead: its relations stored, kept; shown if it is the frame
        the annotator is now waiting for."""
        project, s = self.session.project, self.state
        if project is None or s.sequence is None:
            return
        if prepared.relations is not None:
            try:
                project.sequences.set_relations(prepared.frame_id, prepared.relations)
            except Exception as exc:  # a frame of a project closed meanwhile
                self._message(f"Relations not stored: {exc}")
                return
            prepared.relations = None
        self.cache.put(prepared)
        self.graph.prepare(prepared.frame_id)  # with the graph on screen: its graph too
        if self.prefetch.idle() and self.task is None:
            release_freed_memory()  # the neighbours are ready: the worker's leftovers go
        frame = s.frame
        if frame is not None and frame.id == prepared.frame_id and self.shown != frame.id:
            if prepared.error:
                self._message(prepared.error)
            self._show_cloud(frame.id, prepared.cloud)
            self._show_relations()
            self.graph.schedule()
            self._prefetch_near()

    def _forget_frames(self) -> None:
        """Drop prepared frames and the work on them (another project, sequence or
        calibration)."""
        self.prefetch.reset()
        self.cache.clear()

    def _show_relations(self) -> list[GeometricRelation] | None:
        """The stored relations of the current frame (None: none yet, they are on their way)."""
        frame, project = self.state.frame, self.session.project
        if frame is None or project is None:
            return []
        stored = project.sequences.relations(frame.id)
        if stored:
            self.relations.set_relations(stored, self.state.label)
            return stored
        if not self.state.boxes_3d:
            self.relations.set_relations([], self.state.label, "No 3D boxes here: no relations.")
            return []
        self.relations.set_relations(None, self.state.label, "Computing relations…")
        return None

    def _show_boxes(self) -> None:
        s = self.state
        ids = {b.entity_id for b in s.boxes_2d} | {b.entity_id for b in s.boxes_3d}
        colours = {i: entity_colour(i) for i in ids}
        labels = {i: s.label(i) for i in ids}
        short = {i: text.removeprefix("person ") for i, text in labels.items()}
        self.panorama.set_boxes(s.boxes_2d, colours, short)
        self.cloud.set_boxes(s.boxes_3d, colours, short)
        self.panorama.set_selected(s.selected)
        self.cloud.set_selected(s.selected)

    def _load(self) -> None:
        """Read the wanted frame's cloud off the GUI thread; the newest request wins."""
        if self.task is not None or self.wanted is None:
            return
        s, frame = self.state, self.state.frame
        if frame is None or frame.id != self.wanted:
            return
        kinds = {i: e.kind for i, e in s.entities.items()}
        need = bool(s.boxes_3d) and (self.recompute == frame.id or not self._has_relations())
        self.recompute = None
        sequence, boxes = s.sequence, list(s.boxes_3d)
        self.task_project = self.session.project  # results for another project are dropped
        self.task = TaskRunner(
            f"Reading frame #{frame.index:06d}",
            lambda _p: load_frame(sequence, frame, boxes, kinds, need),
            self.mode,
            show_dialog=False,
        )
        self.task.succeeded.connect(self._loaded)
        self.task.failed.connect(lambda summary, _d: self._message(f"Cannot read frame: {summary}"))
        self.task.finished.connect(self._task_done)
        self.task.start()

    def _has_relations(self) -> bool:
        frame, project = self.state.frame, self.session.project
        return bool(frame and project and project.sequences.has_relations(frame.id))

    def _loaded(self, loaded: LoadedFrame) -> None:
        project = self.session.project
        if project is not self.task_project:
            return  # another project was opened while this frame was read
        if loaded.relations is not None and project is not None:
            try:
                project.sequences.set_relations(loaded.frame_id, loaded.relations)
            except Exception as exc:  # a frame of a project closed meanwhile
                self._message(f"Relations not stored: {exc}")
        if loaded.error:
            self._message(loaded.error)
        shown_id, image = self.image_shown
        if shown_id == loaded.frame_id:  # kept with the image on screen, for coming back
            self.cache.put(PreparedFrame(loaded.frame_id, image, loaded.cloud))
        frame = self.state.frame
        if frame is not None and frame.id == loaded.frame_id:
            self._show_cloud(frame.id, loaded.cloud)
            if loaded.relations is not None:
                self._show_relations()
                self.graph.schedule()  # the frame's geometry edges

    def _show_cloud(self, frame_id: int, cloud: PreparedCloud | None) -> None:
        self.shown = frame_id
        if cloud is None:
            self.cloud.clear("This frame has no point cloud.")
        else:
            self.cloud.set_cloud(cloud)

    def _task_done(self) -> None:
        self.task = None
        if self.reload_after_task:  # the frame just read used the old calibration
            self.reload_after_task = False
            self.reload_cloud()
            return
        frame = self.state.frame
        if frame is not None and frame.id == self.wanted and self.shown != frame.id:
            self._load()
        elif frame is not None and self.shown == frame.id:
            self._prefetch_near()  # the frame is on screen: now its neighbours

    def reload_cloud(self) -> None:
        """Read the current frame's cloud again (a new calibration); a frame being read
        now is read again when it is done."""
        self._forget_frames()
        frame = self.state.frame
        if frame is None:
            return
        if self.task is not None:
            self.reload_after_task = True
            return
        self.wanted, self.shown = frame.id, None
        self._load()

    # -- selection -----------------------------------------------------------------------------
    def _show_selection(self, entity_id: int | None) -> None:
        self.panorama.set_selected(entity_id)
        self.cloud.set_selected(entity_id)
        self.relations.set_selected(entity_id)
        if entity_id is not None:
            entity = self.state.entities.get(entity_id)
            key = f" ({entity.key})" if entity else ""
            self._message(f"Selected {self.state.label(entity_id)}{key}", 4000)

    def _background_clicked(self) -> None:
        if not self.state.picking:
            self.state.select(None)

    # -- actions -------------------------------------------------------------------------------
    def _cycle_colour(self) -> None:
        mode = self.cloud.cycle_colour_mode()
        self.actions["colour"].setText(f"Colour: {mode}")

    def _point_size(self, steps: int) -> None:
        self._message(f"Points {self.cloud.change_point_size(steps):g} px", 2000)

    def recompute_relations(self) -> None:
        """Compute the current frame's relations again (its boxes may have changed)."""
        frame = self.state.frame
        if frame is None:
            return
        self.cache.discard(frame.id)
        self.relations.set_relations(None, self.state.label, "Computing relations…")
        self.wanted, self.shown, self.recompute = frame.id, None, frame.id
        self._load()

    def compute_all_relations(self) -> None:
        """Compute the relations of every frame of the sequence that has none, with progress."""
        project, seq = self.session.project, self.state.sequence
        if project is None or seq is None or self.all_task is not None:
            return
        path, seq_id = project.path, seq.id
        from app.jobs.relations import compute_sequence_relations_at  # Open3D: on first use

        self.all_task = TaskRunner(
            f"Computing the relations of {seq.name}",
            lambda progress: compute_sequence_relations_at(path, seq_id, progress),
            self.mode,
        )
        self.all_task.succeeded.connect(self._all_done)
        self.all_task.failed.connect(lambda summary, _d: self._message(f"Relations: {summary}"))
        self.all_task.finished.connect(self._all_finished)
        self.all_task.start()

    def _all_done(self, count: int) -> None:
        self._message(f"Relations computed for {count} frame{'s' if count != 1 else ''}.", 6000)
        self._show_relations()
        self.session.data_changed.emit()

    def _all_finished(self) -> None:
        self.all_task = None

    def _message(self, text: str, ms: int = 8000) -> None:
        self.mode.statusBar().showMessage(text, ms)

    def _show_candidate(self) -> None:
        """While a label waits for its target: the person and the highlighted object stand
        out in the panorama and the cloud; afterwards nothing is highlighted."""
        chooser = self.hoi.panel.chooser
        person, target = self.hoi.state.person, chooser.current
        lit = [i for i in (person, target) if i is not None] if chooser.candidates else None
        self.panorama.highlight_entities(lit)
        self.cloud.highlight_entities(lit)
        if target is not None:
            self.panorama.centre_on(target)

    def show_page(self, name: str) -> None:
        self.mode.show_dock(name)

    def shutdown(self) -> None:
        self.hoi.shutdown()
        self.generator.shutdown()
        self.near_timer.stop()
        self.prefetch.shutdown()
        self.graph.shutdown()
        self.wanted = None
        for task in (self.task, self.all_task):
            if task is not None:
                task.shutdown()
