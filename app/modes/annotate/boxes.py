"""Drawing and adjusting boxes, and the lidar calibration, in the Annotate HOI mode.

`BoxEditing` wires it all into the Annotate HOI mode, from the parts it is handed:

- Ctrl+drag on the panorama draws someone or something the labels missed: "person"
  or an object category is asked for (the object category file,
  `resources/taxonomies/object_categories.json`, each picked by its key), then `add_drawn_entity` (the
  store gives the new label_id) and `set_box_2d` for the current frame;
- dragging the selected entity's 2D box (its body or a corner handle) moves or
  resizes it; the box is saved on release (`set_box_2d`);
- the "Box" dock (Ctrl+B) edits the selected entity's 3D box in the frame
  (`set_box_3d`, saved at every change; the cloud's wireframe follows);
- the "Cuboid views" dock (shown by Ctrl+B too, under the cloud) shows the points around
  that box from the top, the side and the front (`widgets.jrdb.cuboid_views`): dragging an
  edge resizes the box, dragging inside moves it, Top's round handle turns it; the spin
  boxes follow the drag, and the box is saved once, on release, by the same path as the
  Box dock (one undo step; a drag on an interpolated box keys it);
- Remove from frame (Ctrl+Delete) takes the selected entity out of this frame
  (`remove_entity`: its boxes here; refused while it has labels here), and Put back
  (Ctrl+Shift+Delete) restores the last one removed (`restore_entity`);
- Calibration… (Ctrl+Shift+L) adjusts both lidars' poses (`set_calibration`)
  and reads the frame's merged cloud again;
- tracks: every box set by hand is a keyframe of its entity's track; an object's boxes
  between keyframes are interpolated and drawn dashed (the store derives them), and
  dragging one keys it. Keyframe here (Ctrl+K) keeps the selected entity's interpolated
  boxes in this frame as keyframes, End track (Ctrl+Shift+E) ends the selected track
  in this frame (`end_track`), and Undo box edit (Ctrl+Alt+Z) takes the last box edit,
  keyframe or track end back, one step per edit;
- Fit to points (Ctrl+Alt+F) makes the selected entity's 3D box the tightest one, with
  its yaw, around the cloud's points in its 2D box's column (`annotation.jrdb.box_fit`).

Every change is saved when made, as the signed-in annotator; with nobody signed
in nothing is saved and the status bar says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, QRectF, Qt

from annotation.jrdb.box_fit import fit_box
from annotation.jrdb.object_categories import load_object_categories
from annotation.jrdb.panorama import PANORAMA_FOCAL_PX, PANORAMA_HORIZON_ROW
from annotation.jrdb.tracks import has_left_view
from annotation.models import Annotator, Box3D
from app.io.jrdb import stored_calibration
from app.session import ProjectSession
from store import ProjectError
from store.tracks import INTERPOLATED
from widgets.jrdb.box_editor import Box3DPanel, PanoramaBoxGestures
from widgets.jrdb.calibration_dialog import CalibrationDialog, Poses
from widgets.jrdb.category_chooser import ask_category
from widgets.jrdb.cloud_view import CloudView
from widgets.jrdb.cuboid_views import CuboidViews
from widgets.jrdb.panorama import PanoramaView
from widgets.jrdb.state import JrdbViewState
from widgets.mode import ModeWindow, mode_toolbar

DEFAULT_DISTANCE = 2.5  # metres: where a new 3D box is put along its 2D box's bearing


class BoxEditing(QObject):
    """The box and calibration editing of one Annotate HOI mode."""

    def __init__(
        self,
        mode: ModeWindow,
        state: JrdbViewState,
        session: ProjectSession,
        panorama: PanoramaView,
        reload_cloud: Callable[[], None],
        cloud: CloudView | None = None,
    ) -> None:
        super().__init__(mode)
        self.mode, self.state, self.session, self.panorama = mode, state, session, panorama
        self.reload_cloud = reload_cloud  # read the frame's cloud again (new calibration)
        self.cloud = cloud  # its points are what Fit to points fits
        self.gestures = PanoramaBoxGestures(panorama)
        self.panel = Box3DPanel()
        self.dock = mode.add_dock("box", "Box", self.panel, Qt.DockWidgetArea.RightDockWidgetArea)
        self.views = CuboidViews()  # top, side and front of the box, to drag
        self.views_dock = mode.add_dock(
            "cuboid", "Cuboid views", self.views, Qt.DockWidgetArea.BottomDockWidgetArea
        )
        self.views_dock.hide()  # the cloud keeps the room until someone edits a box (Ctrl+B)
        self.calibration: CalibrationDialog | None = None
        self.ask_category = self._ask_category  # tests put an answer here
        self.removed: list[tuple[int, int]] = []  # (entity, frame) taken out, last at the end
        self.history = BoxHistory()
        self.categories = load_object_categories()
        _bar, self.actions = mode_toolbar(
            mode,
            "Boxes",
            (
                (
                    "box_panel",
                    "Box",
                    ["Ctrl+B"],
                    self.show_panel,
                    "The selected entity's 3D box in this frame (Ctrl+drag in the image: new object)",
                ),
                (
                    "remove_entity",
                    "Remove from frame",
                    ["Ctrl+Del"],
                    self.remove_selected,
                    "Take the selected entity out of this frame (a box the labels should not "
                    "have; its labels here go first)",
                ),
                (
                    "restore_entity",
                    "Put back",
                    ["Ctrl+Shift+Del"],
                    self.restore_removed,
                    "Put back the entity last taken out of a frame, with its boxes",
                ),
                (
                    "keyframe_here",
                    "Keyframe here",
                    ["Ctrl+K"],
                    self.keyframe_here,
                    "Keep the selected object's interpolated boxes in this frame as keyframes",
                ),
                (
                    "end_track",
                    "End track",
                    ["Ctrl+Shift+E"],
                    self.end_track,
                    "The selected object is gone from this frame on: its track ends here",
                ),
                (
                    "fit_points",
                    "Fit to points",
                    ["Ctrl+Alt+F"],
                    self.fit_to_points,
                    "The tightest 3D box, with its yaw, around the points in the selected "
                    "object's 2D box",
                ),
                (
                    "undo_box",
                    "Undo box edit",
                    ["Ctrl+Alt+Z"],
                    self.undo,
                    "Take the last box edit, keyframe or track end back",
                ),
                (
                    "calibration",
                    "Calibration…",
                    ["Ctrl+Shift+L"],
                    self.show_calibration,
                    "Adjust where the upper and lower lidars sit (the merged cloud is read again)",
                ),
            ),
        )
        panorama.box_drawn.connect(self.draw_object)
        panorama.box_edited.connect(self.move_box_2d)
        self.panel.box_edited.connect(self.save_box_3d)
        self.panel.create_requested.connect(self.create_box_3d)
        self.views.box_edited.connect(self.save_box_3d)
        self.views.box_changing.connect(self._box_changing)
        self.views.drag_cancelled.connect(lambda _entity: self.state.refresh())  # put back
        if cloud is not None:
            cloud.cloud_changed.connect(self._cloud_changed)
            self._cloud_changed()
        for signal in (self.state.selection_changed, self.state.frame_changed):
            signal.connect(lambda _value: self._show_box())
        self.state.boxes_changed.connect(self._show_box)
        self.state.sequence_changed.connect(self._sequence_changed)

    # -- who saves -----------------------------------------------------------------------------
    def _annotator(self, doing: str) -> Annotator | None:
        s = self.state
        if self.session.project is None or s.sequence is None or s.frame is None:
            self._message("No sequence open.")
            return None
        if self.session.annotator is None:
            self._message(f"Sign in to {doing}: nothing was saved.")
            return None
        return self.session.annotator

    def _saved(self, text: str) -> None:
        self.session.data_changed.emit()  # the mode reads the frame's boxes again
        self._message(text, 5000)

    def _message(self, text: str, ms: int = 8000) -> None:
        self.mode.statusBar().showMessage(text, ms)

    # -- 2D boxes ------------------------------------------------------------------------------
    def _ask_category(self) -> str | None:
        return ask_category(self.categories, self.mode)

    def next_key(self, category: str) -> str:
        """The label_id a new entity of this category gets ("chair:4" after "chair:3")."""
        return self.session.project.sequences.next_key(self.state.sequence.id, category)

    def draw_object(self, rect: QRectF) -> None:
        """A new person or object entity with this 2D box in the current frame."""
        annotator = self._annotator("draw boxes")
        if annotator is None:
            return
        category = self.ask_category()
        if not category:
            return
        repo, s = self.session.project.sequences, self.state
        known = {c.id: c for c in self.categories}
        kind = known[category].kind if category in known else "object"
        try:
            with self.session.project.write():  # the entity and its box, or neither
                entity_id = repo.add_drawn_entity(s.sequence.id, kind, category, annotator)
                self._set_box(entity_id, "2d", _xywh(rect), annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Box not saved: {exc}")
            return
        key = next(k for k, i in repo.entity_ids(s.sequence.id).items() if i == entity_id)
        self._saved(
            f"New {'person' if kind == 'human' else 'object'} {key} saved by {annotator.name}."
        )
        s.select(entity_id)

    def remove_selected(self) -> None:
        """Take the selected entity out of the current frame."""
        annotator = self._annotator("remove boxes")
        chosen = self.state.selected
        if annotator is None or chosen is None:
            if annotator is not None:
                self._message("Select the entity to take out of this frame first.")
            return
        label, frame = self.state.label(chosen), self.state.frame
        try:
            self.session.project.sequences.remove_entity(chosen, frame.id, annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Not removed: {_rule(exc)}")
            return
        self.removed.append((chosen, frame.id))
        self.state.select(None)
        self._saved(
            f"{label} taken out of frame {frame.index} by {annotator.name} "
            "(Ctrl+Shift+Delete puts it back)."
        )

    def restore_removed(self) -> None:
        """Put back the entity last taken out of a frame in this session."""
        annotator = self._annotator("put boxes back")
        if annotator is None:
            return
        if not self.removed:
            self._message("Nothing taken out of a frame to put back.")
            return
        entity_id, frame_id = self.removed[-1]
        try:
            self.session.project.sequences.restore_entity(entity_id, frame_id, annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Not put back: {_rule(exc)}")
            return
        self.removed.pop()
        self._saved(f"{self.state.label(entity_id)} put back by {annotator.name}.")
        if self.state.frame is not None and self.state.frame.id == frame_id:
            self.state.select(entity_id)

    def move_box_2d(self, entity_id: int, rect: QRectF) -> None:
        annotator = self._annotator("move boxes")
        if annotator is None:
            self.state.boxes_changed.emit()  # the box goes back where it was
            return
        try:
            self._set_box(entity_id, "2d", _xywh(rect), annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Box not saved: {_rule(exc)}")
            self.state.boxes_changed.emit()  # the box goes back where it was
            return
        self._saved(f"2D box of {self.state.label(entity_id)} saved by {annotator.name}.")

    # -- tracks: keyframes, track ends, undo --------------------------------------------------
    def _set_box(self, entity_id: int, dims: str, values: Any, annotator: Annotator) -> None:
        """Set a keyframe in the current frame, remembering what it replaces (one undo step)."""
        repo, frame = self.session.project.sequences, self.state.frame
        before = repo.keyframes(entity_id, dims).get(frame.index)
        setter = repo.set_box_2d if dims == "2d" else repo.set_box_3d
        setter(entity_id, frame.id, values, annotator)
        self.history.push(("box", entity_id, frame.id, dims, before))

    def keyframe_here(self) -> None:
        """The selected entity's interpolated boxes in this frame become keyframes as they are."""
        annotator, chosen = self._annotator("set keyframes"), self.state.selected
        if annotator is None or chosen is None:
            if annotator is not None:
                self._message("Select the object to keyframe first.")
            return
        repo, frame = self.session.project.sequences, self.state.frame
        keyed = []
        for dims in ("2d", "3d"):
            record = repo.box_record(chosen, frame.id, dims)
            if record is not None and record.source == INTERPOLATED:
                self._set_box(chosen, dims, box_values(record.box), annotator)
                keyed.append(dims.upper())
        if not keyed:
            self._message(f"{self.state.label(chosen)} has no interpolated box here.")
            return
        self._saved(f"{' and '.join(keyed)} keyframe of {self.state.label(chosen)} saved.")

    def end_track(self) -> None:
        """The selected object's track ends in this frame (it left the view)."""
        annotator, chosen = self._annotator("end tracks"), self.state.selected
        if annotator is None or chosen is None:
            if annotator is not None:
                self._message("Select the object whose track ends here first.")
            return
        repo, frame = self.session.project.sequences, self.state.frame
        try:
            before = repo.end_track(chosen, frame.id, annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Track not ended: {_rule(exc)}")
            return
        self.history.push(("end", chosen, frame.id, "", before))
        self._saved(
            f"Track of {self.state.label(chosen)} ended at frame {frame.index} "
            "(Ctrl+Alt+Z takes it back)."
        )

    def end_tracks_left_view(self) -> None:
        """The frame's cloud is on screen: a track whose 3D box is carried forward here
        (after its last keyframe) and holds no lidar point has left the view, and ends
        in this frame (one undo step each; with nobody signed in, it is only said)."""
        project, s, cloud = self.session.project, self.state, self.cloud
        frame = s.frame
        if project is None or frame is None or cloud is None or cloud.cloud is None:
            return
        repo = project.sequences
        carried = [  # derived boxes after their last keyframe (most frames have none)
            r.box.entity_id
            for r in repo.derived_records(frame.id, "3d")
            if max(repo.keyframes(r.box.entity_id, "3d"), default=frame.index) < frame.index
        ]
        gone = [e for e in carried if has_left_view(int(np.count_nonzero(cloud.entities == e)))]
        if not gone:
            return
        names = ", ".join(s.label(e) for e in gone)
        annotator = self.session.annotator
        if annotator is None:
            self._message(f"{names}: no lidar point in the carried box; sign in to end the track.")
            return
        ended = []
        for entity_id in gone:
            try:
                before = repo.end_track(entity_id, frame.id, annotator)
            except (ProjectError, ValueError):
                continue  # a 2D keyframe here or later: the track goes on
            self.history.push(("end", entity_id, frame.id, "", before))
            ended.append(s.label(entity_id))
        if ended:
            s.refresh()  # the ended boxes go
            self._saved(
                f"{', '.join(ended)} left the view (no lidar point in the carried box): "
                f"track ended at frame {frame.index} (Ctrl+Alt+Z takes it back)."
            )

    def fit_to_points(self) -> None:
        """The selected entity's 3D box here: the tightest one with its yaw around the
        cloud's points in its 2D box's column (annotation.jrdb.box_fit); with too few
        points it says so and changes nothing."""
        annotator, chosen = self._annotator("fit boxes"), self.state.selected
        if annotator is None or chosen is None:
            if annotator is not None:
                self._message("Select the object to fit first.")
            return
        flat = self.state.box_2d(chosen)
        prepared = self.cloud.cloud if self.cloud is not None else None
        if flat is None or prepared is None or not len(prepared.points):
            what = "a 2D box here" if flat is None else "the frame's point cloud"
            self._message(f"Not fitted: {self.state.label(chosen)} needs {what}.")
            return
        solid = self.state.box_3d(chosen)
        current = box_values(solid) if solid is not None else None
        width = self.panorama.width_px
        yaw = current[6] if current else default_box_3d(flat, width)[6]
        try:
            values = fit_box(prepared.points, box_values(flat), yaw, current=current, width=width)
            self._set_box(chosen, "3d", values, annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Not fitted: {_rule(exc)}")
            return
        self._saved(f"3D box of {self.state.label(chosen)} fitted to its points.")

    def undo(self) -> None:
        """Take the last box edit, keyframe or track end of this session back."""
        annotator = self._annotator("undo box edits")
        if annotator is None:
            return
        step = self.history.pop()
        if step is None:
            self._message("No box edit to undo.")
            return
        kind, entity_id, frame_id, dims, before = step
        repo = self.session.project.sequences
        try:
            if kind == "end":
                repo.set_track_end(entity_id, before, annotator)
            elif before is None:
                repo.delete_keyframe(entity_id, frame_id, dims, annotator)
            else:
                setter = repo.set_box_2d if dims == "2d" else repo.set_box_3d
                setter(entity_id, frame_id, before, annotator)
        except (ProjectError, ValueError) as exc:
            self.history.push(step)
            self._message(f"Not undone: {_rule(exc)}")
            return
        self._saved(f"Undone: the last {'track end' if kind == 'end' else 'box edit'}.")

    # -- 3D boxes ------------------------------------------------------------------------------
    def show_panel(self) -> None:
        self.dock.show()
        self.dock.raise_()
        self.views_dock.show()
        self.panel.spins["cx"].setFocus()

    def _show_box(self) -> None:
        s, chosen = self.state, self.state.selected
        box = s.box_3d(chosen) if chosen is not None else None
        label = s.label(chosen) if chosen is not None else ""
        self.panel.show_box(chosen, label, box)
        self.views.show_box(chosen, label, box)

    def _cloud_changed(self) -> None:
        prepared = self.cloud.cloud if self.cloud is not None else None
        self.views.set_points(prepared.points if prepared is not None else None)
        self.end_tracks_left_view()

    def _box_changing(self, entity_id: int, values: tuple[float, ...]) -> None:
        """A drag in the cuboid views goes on: the spin boxes and the cloud's wireframe
        follow (nothing is saved)."""
        frame = self.state.frame
        if frame is not None:
            box = Box3D(entity_id, frame.id, *values)
            self.panel.show_box(entity_id, self.state.label(entity_id), box)
            if self.cloud is not None:
                self.cloud.preview_box(box)  # the cloud's wireframe follows the drag

    def save_box_3d(self, entity_id: int, values: tuple[float, ...]) -> None:
        annotator = self._annotator("edit boxes")
        if annotator is None:
            self._show_box()  # the stored values again
            return
        try:
            self._set_box(entity_id, "3d", values, annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"3D box not saved: {_rule(exc)}")
            self._show_box()  # the stored values again
            return
        self._saved(
            f"3D box of {self.state.label(entity_id)} saved by {annotator.name} "
            "(Relations ↻, Ctrl+R, computes the relations again)."
        )

    def create_box_3d(self, entity_id: int) -> None:
        """A first 3D box, along the bearing of the entity's 2D box (or ahead of the robot)."""
        entity = self.state.entities.get(entity_id)
        sizes = {c.id: c.size for c in self.categories}
        size = sizes.get(entity.category if entity else "", sizes.get("other"))
        box = default_box_3d(self.state.box_2d(entity_id), self.panorama.width_px, size)
        self.save_box_3d(entity_id, box)

    # -- calibration ---------------------------------------------------------------------------
    def show_calibration(self) -> None:
        seq = self.state.sequence
        if seq is None:
            self._message("No sequence open.")
            return
        if self.calibration is None:
            self.calibration = CalibrationDialog(self.mode)
            self.calibration.applied.connect(self.apply_calibration)
        self._fill_calibration()
        self.calibration.show()
        self.calibration.raise_()

    def _fill_calibration(self) -> None:
        if self.calibration is None or self.state.sequence is None:
            return
        try:
            calibration = stored_calibration(self.state.sequence)
        except ProjectError as exc:
            self._message(str(exc))
            return
        poses = {s: calibration.pose(s) for s in ("upper", "lower")}
        self.calibration.set_values({s: (p.translation, p.rotation) for s, p in poses.items()})
        self.calibration.setWindowTitle(f"Lidar calibration: {self.state.sequence.name}")

    def apply_calibration(self, poses: Poses) -> None:
        annotator = self._annotator("adjust the calibration")
        seq = self.state.sequence
        if annotator is None or seq is None:
            return
        repo = self.session.project.sequences
        try:
            calibration = stored_calibration(seq)
            for sensor, (translation, rotation) in poses.items():
                calibration = calibration.with_pose(
                    sensor,
                    translation=translation,
                    rotation=rotation,
                    source=f"adjusted by {annotator.name}",
                )
            repo.set_calibration(seq.id, calibration.as_dict(), annotator)
        except (ProjectError, ValueError) as exc:
            self._message(f"Calibration not saved: {exc}")
            return
        self.state.sequence = repo.get(seq.id)  # the cloud is read with the new calibration
        self._fill_calibration()
        if self.calibration is not None:
            self.calibration.status.setText(f"Saved by {annotator.name}.")
        self.reload_cloud()
        self._saved(f"Calibration of {seq.name} saved by {annotator.name}.")

    def _sequence_changed(self) -> None:
        if self.calibration is not None and self.calibration.isVisible():
            self._fill_calibration()


class BoxHistory:
    """The session's box edits, newest last: (kind 'box' or 'end', entity id, frame id,
    dims, what was there before: a keyframe's values, a track end, or None)."""

    def __init__(self) -> None:
        self.steps: list[tuple[str, int, int, str, Any]] = []

    def push(self, step: tuple[str, int, int, str, Any]) -> None:
        self.steps.append(step)

    def pop(self) -> tuple[str, int, int, str, Any] | None:
        return self.steps.pop() if self.steps else None


def box_values(box: Any) -> tuple[float, ...]:
    """A Box2D's x, y, w, h or a Box3D's cx, cy, cz, l, w, h, rot_z."""
    if hasattr(box, "rot_z"):
        return (box.cx, box.cy, box.cz, box.l, box.w, box.h, box.rot_z)
    return (box.x, box.y, box.w, box.h)


def _rule(exc: Exception) -> str:
    """A store refusal without the project's path (the status bar has no room for it)."""
    text = str(exc)
    return text.split(": ", 1)[1] if text.startswith("/") and ": " in text else text


def _xywh(rect: QRectF) -> list[float]:
    return [rect.x(), rect.y(), rect.width(), rect.height()]


def default_box_3d(
    box_2d: Any, width: int, size: tuple[float, float, float] | None = None
) -> tuple[float, ...]:
    """A box DEFAULT_DISTANCE away along the 2D box's column (its rows give z and h), in a
    panorama `width` pixels wide; its length and width the category's `size` (0.5 m)."""
    length, breadth = (size[0], size[1]) if size else (0.5, 0.5)
    if box_2d is None:
        return (DEFAULT_DISTANCE, 0.0, 0.0, length, breadth, size[2] if size else 0.5, 0.0)
    u = box_2d.x + box_2d.w / 2
    azimuth = (width / 2 - u) * 2 * math.pi / width
    top = (PANORAMA_HORIZON_ROW - box_2d.y) * DEFAULT_DISTANCE / PANORAMA_FOCAL_PX
    bottom = (PANORAMA_HORIZON_ROW - box_2d.y - box_2d.h) * DEFAULT_DISTANCE / PANORAMA_FOCAL_PX
    cx, cy = DEFAULT_DISTANCE * math.cos(azimuth), DEFAULT_DISTANCE * math.sin(azimuth)
    return (cx, cy, (top + bottom) / 2, length, breadth, max(top - bottom, 0.1), azimuth)
