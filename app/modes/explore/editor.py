"""Explore scenes > Edit scene: build hard scenes by hand (docs/scene-authoring.md#in-the-app).

The Edit toggle turns the open scene into an editable one: add objects from the catalog
dock, drag them in the 3D view (onto the table, or onto the object under the cursor),
rotate ([ ]), delete, duplicate, choose the table texture, park the robot, settle, undo
and redo every edit, and save the result as a new scene derived from the open one. Each
object's visibility in the model's top-down view is measured again for the moved object's
window on every drag step (`LiveVisibility`), shown in the Objects list and the model
view's overlay. The unsaved state is kept in the project after every edit (a draft), so
nothing is lost; opening the scene's editor again offers it back.
"""

from __future__ import annotations

from datetime import datetime, timezone

from PySide6.QtCore import QObject, Qt
from PySide6.QtWidgets import QComboBox, QLabel, QMessageBox

from app.modes.explore.authoring import QuestionAuthoring
from sim.render import render
from sim.tabletop.authoring.editor import SceneEditor, Snapshot
from sim.tabletop.authoring.live import LiveVisibility
from sim.tabletop.catalog import load_catalog
from sim.tabletop.scenes import table_textures
from sim.tabletop.world import MODEL_IMAGE_SIZE, TOP_DOWN
from widgets.explore.catalog_panel import CatalogPanel
from widgets.explore.object_table import ObjectRow
from widgets.mode import mode_toolbar
from widgets.tasks import TaskRunner
from widgets.viewport.drag import BodyDrag

IMAGE_SIZE = MODEL_IMAGE_SIZE  # the model's view, as generation measures it
HIDDEN = 0.10  # MG-VQA's hidden-evidence threshold, marked in the Objects list


class SceneEditing(QObject):
    """The Edit toggle and its tools in Explore scenes (`ExploreMode.editing`)."""

    def __init__(self, explore) -> None:
        super().__init__(explore.mode)
        self.explore = explore
        self.mode, self.state, self.viewport = explore.mode, explore.state, explore.viewport
        self.editor: SceneEditor | None = None
        self._editors: dict[int, SceneEditor] = {}  # by the world it edits
        self.source_id: int | None = None  # the stored scene opened for editing
        self.live: LiveVisibility | None = None
        self._rgb = None
        self.camera = TOP_DOWN.with_size(IMAGE_SIZE, IMAGE_SIZE)
        self.drag = BodyDrag(self.viewport, self._movable)
        self.drag.started.connect(self._drag_started)
        self.drag.moved.connect(self._drag_moved)
        self.drag.finished.connect(self._drag_finished)
        self._build_toolbar()
        self.catalog = CatalogPanel(load_catalog())
        self.catalog.add_requested.connect(self.add)
        self.catalog_dock = self.mode.add_dock(
            "catalog", "Catalog", self.catalog, Qt.DockWidgetArea.LeftDockWidgetArea
        )
        self.catalog_dock.hide()  # shown while editing
        self.thumbnails: TaskRunner | None = None
        self.authoring = QuestionAuthoring(explore, self)
        self._thumbnails_done = False
        self.state.scene_opened.connect(self._scene_changed)
        self._enable(False)

    # -- toolbar ------------------------------------------------------------------------
    def _build_toolbar(self) -> None:
        specs = [
            ("edit", "Edit scene", ["Ctrl+E"], self.toggle, "Edit the open scene"),
            (None, "", [], None, ""),
            ("undo", "Undo", ["Ctrl+Z"], self.undo, "Undo the last edit"),
            ("redo", "Redo", ["Ctrl+Shift+Z", "Ctrl+Y"], self.redo, "Redo"),
            ("left", "⟲ 15°", ["["], lambda: self._rotate(15), "Turn the selected object left"),
            ("right", "⟳ 15°", ["]"], lambda: self._rotate(-15), "Turn it right"),
            ("duplicate", "Duplicate", ["Ctrl+D"], self._duplicate, "A copy beside it"),
            ("delete", "Delete", ["Del", "Backspace"], self._delete, "Delete the selected object"),
            ("settle", "Settle", ["Ctrl+L"], self.settle, "Physics until everything rests"),
            ("park", "Park robot", ["Ctrl+R"], self._park, "Fold the arm up, out of the way"),
            ("save", "Save as new scene", ["Ctrl+S"], self.save, "Store it, derived from this one"),
        ]
        checkable = {"edit", "park"}
        # while the mouse holds an object, no other edit (it would fold into the drag)
        specs = [
            (k, t, keys, self._not_dragging(f) if f else f, tip) for k, t, keys, f, tip in specs
        ]
        self.bar, self.actions = mode_toolbar(
            self.mode, "Edit", specs, checkable=checkable.__contains__
        )
        self.mode.insertToolBarBreak(self.bar)  # a row of its own: every tool in sight
        self.texture = QComboBox()
        self.texture.setObjectName("table_texture")
        self.texture.setToolTip("The table's texture")
        self.texture.addItem("plain table", None)
        for ref in table_textures():
            self.texture.addItem(ref.rsplit("/", 1)[-1].rsplit(".", 1)[0].replace("_", " "), ref)
        self.texture.activated.connect(self._texture_chosen)
        self.bar.addWidget(self.texture)
        self.status = QLabel()
        self.bar.addWidget(self.status)

    def _not_dragging(self, slot):
        def guarded() -> None:
            if not self.drag.key:
                slot()

        return guarded

    def _enable(self, editing: bool) -> None:
        for key, action in self.actions.items():
            if key != "edit":
                action.setEnabled(editing)
        self.actions["edit"].setChecked(editing)
        self.texture.setEnabled(editing)
        self.drag.set_enabled(editing)
        self.explore.live_action.setEnabled(not editing)  # edits and free physics do not mix
        self.catalog.set_editing(editing)
        self.authoring.set_editing(editing)
        if editing:
            self.catalog_dock.show()
            self.catalog_dock.raise_()
            self._load_thumbnails()
        if editing:
            self._update_undo()

    def _update_undo(self) -> None:
        editor = self.editor
        self.actions["undo"].setEnabled(bool(editor and editor.can_undo))
        self.actions["redo"].setEnabled(bool(editor and editor.can_redo))
        self.actions["park"].setChecked(bool(editor and editor.robot_parked))
        if editor is not None:
            ref = editor.world.table_texture
            self.texture.setCurrentIndex(max(0, self.texture.findData(ref)))
            unsaved = " · unsaved edits (kept as a draft)" if editor.dirty else ""
            self.status.setText(f"  Editing scene #{editor.derived_from}{unsaved}")

    def _load_thumbnails(self) -> None:
        """The catalog's pictures, rendered off the GUI thread once (half a second)."""
        if self._thumbnails_done or self.thumbnails is not None:
            return
        from sim.tabletop.authoring.thumbnails import render_thumbnails

        entries = load_catalog()
        self.thumbnails = TaskRunner(
            "Catalog pictures", lambda _p: render_thumbnails(entries), self.mode, show_dialog=False
        )
        self.thumbnails.succeeded.connect(self._thumbnails_ready)
        self.thumbnails.finished.connect(self._thumbnails_finished)
        self.thumbnails.start()

    def _thumbnails_ready(self, pictures: dict) -> None:
        for name, rgb in pictures.items():
            self.catalog.set_thumbnail(name, rgb)
        self._thumbnails_done = True

    def _thumbnails_finished(self) -> None:
        self.thumbnails = None

    def shutdown(self) -> None:
        self.authoring.shutdown()
        if self.thumbnails is not None:
            self.thumbnails.shutdown()

    # -- entering and leaving ---------------------------------------------------------------
    @property
    def editing(self) -> bool:
        return self.editor is not None

    def toggle(self) -> None:
        if self.editor is not None:
            self.stop()
        else:
            self.start()

    def start(self) -> bool:
        loaded = self.state.loaded
        if loaded is None:
            self.mode.statusBar().showMessage("Open a scene to edit it (double-click one).", 6000)
            self._enable(False)
            return False
        self.explore.live_action.setChecked(False)  # no free-running physics while editing
        editor = self._editors.get(id(loaded.world))
        resume = False
        if editor is None:  # the scene as stored: a draft of it may wait
            draft = self._project().scenes.draft(loaded.scene.id) if self._project() else None
            resume = bool(draft) and self._resume(draft)  # asked before anything changes
            if draft and not resume:
                self._project().scenes.clear_draft(loaded.scene.id)  # "No": let them go
            if self.state.loaded is not loaded:  # another scene opened meanwhile
                return False
            editor = SceneEditor(loaded.world, derived_from=loaded.scene.id)
            self._editors = {id(loaded.world): editor}  # one world open at a time
        self.editor, self.source_id = editor, loaded.scene.id
        self.live = LiveVisibility(loaded.world, self.camera)
        if resume:
            with editor.edit("resume unsaved edits"):
                editor.restore(Snapshot(tuple(draft["objects"]), draft["state"]))
            editor.derived_from = draft.get("derived_from", loaded.scene.id)
            self._bodies_changed()
        self._enable(True)
        self._show()
        return True

    def stop(self) -> None:
        """Leave editing; the world stays as edited (and its editor, undo and all, for when
        editing starts again on it)."""
        if self.drag.key:
            self.drag.set_enabled(False)  # ends the drag as one edit
        self.editor = self.live = None
        self._enable(False)
        self.status.setText("")

    def _resume(self, draft: dict) -> bool:
        box = QMessageBox(
            QMessageBox.Icon.Question,
            "Unsaved edits",
            f"Scene #{draft['derived_from']} has unsaved edits from "
            f"{draft.get('at', 'earlier')[:16]}. Bring them back?",
            QMessageBox.StandardButton.Yes | QMessageBox.StandardButton.No,
            self.mode,
        )
        box.setObjectName("resume_draft")
        return self.resume_answer(box) == QMessageBox.StandardButton.Yes

    def resume_answer(self, box: QMessageBox):
        """Ask (tests answer for the person by replacing this)."""
        return box.exec()

    def _scene_changed(self) -> None:
        loaded = self.state.loaded
        if loaded is None or id(loaded.world) not in self._editors:
            self._editors = {}  # its world is closed
        if self.editor is not None and (
            self.state.loaded is None or self.state.loaded.world is not self.editor.world
        ):
            self.stop()

    # -- edits ---------------------------------------------------------------------------------
    def add(self, name: str, xy: tuple[float, float] | None = None) -> str | None:
        """Add a catalog object at world (x, y) (the workspace centre by default)."""
        if self.editor is None:
            return None
        key = self.editor.add(name, xy)
        self._bodies_changed()
        self.state.select(key)
        where = "" if xy is not None else " at the centre: drag it where it belongs"
        self._edited(f"Added {name}{where}.")
        return key

    def _selected(self) -> str:
        key = self.state.selected
        if not key or self.editor is None or not self._movable(key):
            self.mode.statusBar().showMessage("Select an object first (click it).", 4000)
            return ""
        return key

    def _rotate(self, degrees: float) -> None:
        if key := self._selected():
            self.editor.rotate(key, degrees)
            self._moved(key)
            self._edited(f"Turned {key} by {degrees:+g}°")

    def _duplicate(self) -> None:
        if key := self._selected():
            new = self.editor.duplicate(key)
            self._bodies_changed()
            self.state.select(new)
            self._edited(f"Duplicated {key} as {new}")

    def _delete(self) -> None:
        if key := self._selected():
            self.state.select("")
            self.editor.delete(key)
            self._bodies_changed()
            self._edited(f"Deleted {key}")

    def settle(self) -> None:
        if self.editor is not None:
            report = self.editor.settle()
            self.live.refresh()
            self.viewport.sync()
            rest = "at rest" if report.at_rest else "not yet at rest"
            self._edited(f"Settled: {report.simulated_s:.1f} s of physics, {rest}")

    def _park(self) -> None:
        if self.editor is not None:
            self.editor.park_robot(not self.editor.robot_parked)
            self.viewport.sync()
            self.live.refresh()
            self._edited("Robot parked" if self.editor.robot_parked else "Robot home")

    def _texture_chosen(self, index: int) -> None:
        if self.editor is not None:
            self.editor.set_table_texture(self.texture.itemData(index))
            self.viewport.set_world(self.editor.world)
            self._edited("Table texture changed")

    def undo(self) -> None:
        if self.editor is not None and (label := self.editor.undo()):
            self._bodies_changed()
            self._edited(f"Undone: {label}")

    def redo(self) -> None:
        if self.editor is not None and (label := self.editor.redo()):
            self._bodies_changed()
            self._edited(f"Redone: {label}")

    # -- dragging ----------------------------------------------------------------------------
    def _movable(self, key: str) -> bool:
        body = self.editor.world.bodies.get(key) if self.editor else None
        return body is not None and body.role == "object"

    def _drag_started(self, key: str) -> None:
        self.state.select(key)
        self.editor.begin(f"drag {key}")

    def _drag_moved(self, key: str, origin, direction) -> None:
        if self.editor is not None and self.editor.drag_to(key, origin, direction):
            self._moved(key)

    def _drag_finished(self, key: str) -> None:
        if self.editor is not None and self.editor.commit():
            self._edited(f"Moved {key}")

    # -- display -----------------------------------------------------------------------------
    def _moved(self, key: str) -> None:
        """One object moved: the viewport and that object's visibility window."""
        self.viewport.sync()
        self.live.moved(key)
        self._show_visibility()

    def _bodies_changed(self) -> None:
        """Objects came or went: the viewport's items and every visibility again."""
        self.viewport.set_world(self.editor.world)
        if self.state.selected and self.state.selected not in self.editor.world.bodies:
            self.state.select("")
        self.viewport.select(self.state.selected or None)
        self.live.refresh()

    def _edited(self, message: str) -> None:
        """After a whole edit: the model's image again, the draft kept, the tools updated."""
        self._show()
        self._keep_draft()
        self._update_undo()
        self.mode.statusBar().showMessage(message, 6000)

    def _show(self) -> None:
        """The model's image rendered again (after a whole edit; a drag updates only the
        segmentation, through `LiveVisibility`)."""
        self._rgb = render(self.editor.world, self.camera).rgb
        self._show_visibility()

    def _show_visibility(self) -> None:
        world, fractions = self.editor.world, self.live.fractions()
        rows = [ObjectRow(b.key, b.name, b.category, fractions.get(b.key)) for b in world.objects()]
        self.explore.objects.set_rows(rows)
        self.explore.objects.select_key(self.state.selected)
        uids = [b.uid for b in world.objects()]
        self.explore.image.set_image(self._rgb, self.live.segmentation, uids)
        selected = world.bodies.get(self.state.selected)
        self.explore.image.set_selected_uid(selected.uid if selected else None)
        hidden = sorted(k for k, f in fractions.items() if f <= HIDDEN)
        self.explore.objects.setToolTip(
            f"At most {HIDDEN:.0%} visible (hidden for MG-VQA): {', '.join(hidden) or 'none'}"
        )

    def _keep_draft(self) -> None:
        project, editor = self._project(), self.editor
        if project is None or editor is None:
            return
        if not editor.dirty:
            project.scenes.clear_draft(self.source_id)
            return
        snap = editor.snapshot()
        project.scenes.save_draft(
            self.source_id,
            {
                "derived_from": editor.derived_from,
                "at": datetime.now(timezone.utc).isoformat(),
                "objects": list(snap.records),
                "state": snap.state,
            },
        )

    # -- saving -----------------------------------------------------------------------------------
    def save(self) -> int | None:
        """Store the scene as a new one derived from the open one; its id (None: refused)."""
        editor, project = self.editor, self._project()
        if editor is None or project is None:
            return None
        problems = editor.problems()
        if problems:
            self.mode.statusBar().showMessage(
                f"Not saved: {problems[0]} (settle, or move it)", 8000
            )
            return None
        source = editor.derived_from
        name = f"edited from scene #{source}" if source is not None else "authored scene"
        scene_id = project.scenes.add(editor.record(name))
        project.scenes.clear_draft(self.source_id)
        editor.saved()
        editor.derived_from = scene_id
        self.state.refresh()
        self._update_undo()
        self.mode.statusBar().showMessage(f"Saved as scene #{scene_id} (from #{source})", 8000)
        return scene_id

    def _project(self):
        return self.explore.session.project
