"""The question generator panel: choose preferences, preview a question, step through its
reasoning, save it as a candidate.

The panel holds no project and runs no engine: it emits `generate_requested`
(preferences and seed), `step_selected` (the step's graph entity ids and its
time slot) and `save_requested`, and shows what it is handed (`show_question`,
`show_message`). `app/modes/annotate/generator.py` connects it to a frame's scene graph.

Keys inside the panel: Up / Down (in the step list) or `[` / `]` (anywhere in
it) move through the steps, Ctrl+Return generates, Ctrl+S saves the shown
question. `[` and `]` are taken from the window's own keys only while the
focus is in the panel. The steps are a list view of `StepListModel`, which holds
the shown question.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6.QtCore import QEvent, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QAction, QKeySequence, QShortcut
from PySide6.QtWidgets import (
    QComboBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListView,
    QMenu,
    QPushButton,
    QSizePolicy,
    QSpinBox,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from annotation.jrdb.reasoning_eval import difficulty_level
from annotation.query.model import GeneratedQuestion, Preferences
from widgets.table_model import RowListModel

#: (value, words) of each choice, in the order the combo boxes list them.
TASK_CHOICES = (("vg", "VG (find)"), ("vqa-wh", "VQA-Wh"), ("vqa-count", "VQA-Count"))
MODALITY_CHOICES = (("image", "Image"), ("video", "Video"))
SUBJECT_CHOICES = (("human", "Humans"), ("object", "Objects"), ("both", "Both"))
SCOPE_CHOICES = (("single", "Single"), ("pair", "Pair"), ("clique", "Clique"))
MESSAGE_STYLE = "padding: 6px 8px; background: #fff4d6; color: #5a4300;"
QUESTION_STYLE = "font-size: 13pt; font-weight: bold; padding: 2px 0;"
STEP_KEYS = {Qt.Key.Key_BracketLeft: -1, Qt.Key.Key_BracketRight: 1}
#: Sub-question keys a question can be required to use (JRDB-Reasoning's names), with what
#: each stands for; JRDB frames offer the first set, simulator scenes the second.
KEY_WORDS = {
    "gender": "a person's gender",
    "age": "a person's age group",
    "race": "a person's race (JRDB-Social's label)",
    "action": "what a person is doing",
    "hoi": "a human-object interaction",
    "hhi": "a human-human interaction (JRDB-Social: chatting, walking together, ...)",
    "hhg": "where a person is from another person",
    "hoG": "where an object is from a person",
    "SR_Robot_Ref": "the direction from the robot",
    "distance": "the distance from the robot",
    "social_group": "being in the same JRDB-Social group",
    "category": "what an object is",
    "colour": "an object's colour",
    "support": "on / under",
    "spatial": "left of, behind, near, in the basket",
    "state": "held by the gripper",
}
JRDB_KEYS = (
    "gender",
    "age",
    "race",
    "action",
    "hoi",
    "hhi",
    "hhg",
    "hoG",
    "SR_Robot_Ref",
    "distance",
    "social_group",
)
SIMULATOR_KEYS = ("category", "colour", "support", "spatial", "state")


def difficulty_text(question: GeneratedQuestion) -> str:
    """The difficulty in a line, e.g. "S 2 · R 1 · T 1 · D 4 (level D2)"."""
    level = difficulty_level(question.S, question.R, question.T)
    return (
        f"S {question.S} · R {question.R} · T {question.T} · D {question.D} "
        f"(level {level if level != 'other' else 'other: reported apart'})"
    )


def answer_text(question: GeneratedQuestion, names: dict[str, str] | None = None) -> str:
    """The answer in words: the entity (VG), the number (Count) or the value (Wh)."""
    names = names or {}
    if question.preferences.task == "vg":
        return ", ".join(names.get(i, i) for i in question.target_ids)
    if question.preferences.task == "vqa-count":
        return str(question.answer)
    return str(question.answer).replace("_", " ")


def step_text(index: int, description: str, count: int) -> str:
    return f"{index + 1}. {description} — {count} {'entity' if count == 1 else 'entities'}"


class StepListModel(RowListModel):
    """The shown question (None: none) and its reasoning steps, a row a step: "2. female —
    2 entities", the step's own question in the tooltip."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.question: GeneratedQuestion | None = None

    def set_question(self, question: GeneratedQuestion | None) -> None:
        self.beginResetModel()
        self.question = question
        self.endResetModel()

    def row_list(self) -> Sequence[Any]:
        return () if self.question is None else self.question.steps

    def row_data(self, r: int, step: Any, role: int) -> Any:
        if role == Qt.ItemDataRole.DisplayRole:
            return step_text(r, step.description, len(step.entity_ids))
        if role == Qt.ItemDataRole.ToolTipRole:
            return step.question
        return None


class GeneratorPanel(QWidget):
    """Preferences, seed, the previewed question with its answer, difficulty and steps."""

    generate_requested = Signal(object, int)  # Preferences, seed
    step_selected = Signal(list, int)  # graph entity ids, time slot
    save_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("generator_panel")
        self.step_model = StepListModel(self)
        self.saving = True
        self.task = self._combo(
            "generator_task",
            TASK_CHOICES,
            "VG: find one entity (answer: its box); VQA-Wh: what, who, how old (answer: a "
            "word); VQA-Count: how many (answer: a number)",
        )
        self.modality = self._combo(
            "generator_modality",
            MODALITY_CHOICES,
            "Image: this frame; video: the frames up to this one (a window of up to 5)",
        )
        self.subject = self._combo(
            "generator_subject", SUBJECT_CHOICES, "Who the question is about"
        )
        self.spatial = self._combo(
            "generator_spatial", SCOPE_CHOICES, "How many entities: 1, 2 (one relation), 3 (two)"
        )
        self.temporal = self._combo(
            "generator_temporal", SCOPE_CHOICES, "How many time slots a video question uses"
        )
        self.require = self._require_button()
        self.require_actions: dict[str, QAction] = {}
        self.offer_keys(JRDB_KEYS)
        self.seed = QSpinBox(minimum=0, maximum=2_000_000_000, value=0)
        self.seed.setObjectName("generator_seed")
        self.seed.setToolTip("The same preferences, frame and seed give the same question")
        self.seed.setFocusPolicy(Qt.FocusPolicy.ClickFocus)  # digits are difficulty keys
        self.generate_button = QPushButton("Generate")
        self.generate_button.setToolTip("Preview a question for this frame (Ctrl+Return)")
        self.next_button = QPushButton("Next ▶")
        self.next_button.setToolTip("The next seed: another question")
        self.save_button = QPushButton("Save as candidate (Ctrl+S)")
        self.save_button.setToolTip(
            "Store the question; it goes to Verify questions for two verifiers (Ctrl+S)"
        )
        self.save_button.setEnabled(False)
        for button in (self.generate_button, self.next_button, self.save_button):
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.hint = QLabel(wordWrap=True)
        self.hint.setObjectName("generator_hint")
        self.hint.setStyleSheet("color: #777;")
        self.context = QLabel()
        self.context.setObjectName("generator_context")
        self.context.setStyleSheet("color: #777;")
        self.text = QLabel(wordWrap=True)
        self.text.setObjectName("generator_question")
        self.text.setStyleSheet(QUESTION_STYLE)
        self.text.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.message = QLabel(wordWrap=True)
        self.message.setObjectName("generator_message")
        self.message.setStyleSheet(MESSAGE_STYLE)
        self.message.hide()
        self.answer = QLabel(wordWrap=True)
        self.answer.setObjectName("generator_answer")
        self.difficulty = QLabel()
        self.difficulty.setObjectName("generator_difficulty")
        self.steps = QListView()
        self.steps.setObjectName("generator_steps")
        self.steps.setModel(self.step_model)
        self.steps.setWordWrap(True)
        self.steps.setToolTip(
            "The reasoning, step by step: select one to see its entities (Up / Down, [ / ])"
        )
        self._layout()

        self._connect()
        self._sync_choices()
        self.show_message("Choose the preferences and press Generate.", warn=False)

    def _combo(self, name: str, choices, tip: str) -> QComboBox:
        combo = QComboBox()
        combo.setObjectName(name)
        combo.setToolTip(tip)
        combo.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        for value, words in choices:
            combo.addItem(words, value)
        return combo

    def _connect(self) -> None:
        for combo in (self.task, self.modality, self.subject, self.spatial, self.temporal):
            combo.currentIndexChanged.connect(self._sync_choices)
        self.generate_button.clicked.connect(self.request_generate)
        self.next_button.clicked.connect(self.next_seed)
        self.save_button.clicked.connect(self._request_save)
        self.steps.selectionModel().currentRowChanged.connect(self._step_changed)
        for keys, slot in (("Ctrl+S", self._request_save), ("Ctrl+Return", self.request_generate)):
            shortcut = QShortcut(QKeySequence(keys), self)
            shortcut.setContext(Qt.ShortcutContext.WidgetWithChildrenShortcut)
            shortcut.activated.connect(slot)
        for widget in (self, *self.findChildren(QWidget)):
            widget.installEventFilter(self)  # [ and ] while the focus is in the panel

    def _require_button(self) -> QToolButton:
        button = QToolButton()
        button.setObjectName("generator_require")
        button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        button.setToolTip(
            "Keep only questions that use all the checked keys (JRDB-Reasoning's sub-question "
            "keys), e.g. race and hhi"
        )
        button.setFocusPolicy(Qt.FocusPolicy.ClickFocus)
        button.setMenu(QMenu(button))
        button.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        return button

    def _layout(self) -> None:
        grid = QGridLayout()
        grid.setContentsMargins(0, 0, 0, 0)
        rows = (
            (("Task", self.task, 3), ("Modality", self.modality, 1)),
            (("Subject", self.subject, 1), ("Spatial", self.spatial, 1)),
            (("Seed", self.seed, 1), ("Temporal", self.temporal, 1)),
        )
        for r, row in enumerate(rows):
            for c, (words, widget, stretch) in enumerate(row):
                label = QLabel(words)
                label.setBuddy(widget)
                grid.addWidget(label, r, 2 * c)
                grid.addWidget(widget, r, 2 * c + 1)
                grid.setColumnStretch(2 * c + 1, stretch)
        label = QLabel("Require")
        label.setBuddy(self.require)
        grid.addWidget(label, len(rows), 0)
        grid.addWidget(self.require, len(rows), 1, 1, 3)
        buttons = QHBoxLayout()
        buttons.addWidget(self.generate_button, 1)
        buttons.addWidget(self.next_button, 1)
        buttons.addWidget(self.save_button, 2)
        layout = QVBoxLayout(self)
        layout.addLayout(grid)
        layout.addLayout(buttons)
        facts = QHBoxLayout()
        facts.addWidget(self.difficulty)
        facts.addStretch(1)
        facts.addWidget(self.context)
        layout.addWidget(self.hint)
        layout.addWidget(self.text)
        layout.addWidget(self.message)
        layout.addWidget(self.answer)
        layout.addLayout(facts)
        layout.addWidget(self.steps, 1)

    @property
    def question(self) -> GeneratedQuestion | None:
        """The question shown (None: a message instead)."""
        return self.step_model.question

    # -- preferences -----------------------------------------------------------------------------
    def preferences(self) -> Preferences:
        """The chosen preferences (always a valid combination: see `_sync_choices`)."""
        return Preferences(
            task=self.task.currentData(),
            modality=self.modality.currentData(),
            subject=self.subject.currentData(),
            spatial=self.spatial.currentData(),
            temporal=self.temporal.currentData(),
            require=self.required_keys(),
        )

    # -- required keys -----------------------------------------------------------------------------
    def offer_keys(self, keys: Sequence[str]) -> None:
        """The keys the Require menu offers (`JRDB_KEYS` for JRDB frames, `SIMULATOR_KEYS` for
        a simulator scene), none checked."""
        menu = self.require.menu()
        menu.clear()
        self.require_actions = {}
        for key in keys:
            action = QAction(key, menu, checkable=True)
            action.setToolTip(KEY_WORDS.get(key, key))
            action.setStatusTip(KEY_WORDS.get(key, key))
            action.toggled.connect(self._show_required)
            menu.addAction(action)
            self.require_actions[key] = action
        menu.setToolTipsVisible(True)
        self._show_required()

    def required_keys(self) -> tuple[str, ...]:
        """The checked keys, in the menu's order."""
        return tuple(k for k, a in self.require_actions.items() if a.isChecked())

    def set_required_keys(self, keys: Sequence[str]) -> None:
        """Check exactly these keys (those the menu offers)."""
        for key, action in self.require_actions.items():
            action.setChecked(key in keys)

    def _show_required(self) -> None:
        keys = self.required_keys()
        self.require.setText(", ".join(keys) if keys else "any")

    def set_preferences(self, prefs: Preferences, seed: int | None = None) -> None:
        """Show these preferences (and seed) in the controls, as if chosen by hand."""
        for combo, value in (
            (self.task, prefs.task),
            (self.modality, prefs.modality),
            (self.subject, prefs.subject),
            (self.spatial, prefs.spatial),
            (self.temporal, prefs.temporal),
        ):
            combo.setCurrentIndex(combo.findData(value))
        self.set_required_keys(prefs.require)
        if seed is not None:
            self.seed.setValue(seed)

    def offer(self, field: str, value: str, enabled: bool, why: str = "") -> None:
        """Offer one choice of a field ("modality", "subject", ...) or not; a refused one says
        why in its tooltip (e.g. a simulator scene is one moment: no video)."""
        combo: QComboBox = getattr(self, field)
        _enable_item(combo, value, enabled, why)
        if not enabled and combo.currentData() == value:
            allowed = [i for i in range(combo.count()) if combo.model().item(i).isEnabled()]
            combo.setCurrentIndex(allowed[0] if allowed else 0)

    def set_saving(self, allowed: bool) -> None:
        """Offer saving questions (Save, Ctrl+S) or only previews."""
        self.saving = allowed
        self.save_button.setVisible(allowed)

    def _sync_choices(self) -> None:
        """Keep the combination valid: an image has one time slot; 'both' needs two entities."""
        hints = []
        image = self.modality.currentData() == "image"
        if image and self.temporal.currentData() != "single":
            self.temporal.setCurrentIndex(0)
            hints.append("An image has one time slot: temporal single.")
        self.temporal.setEnabled(not image)
        both = self.subject.currentData() == "both"
        _enable_item(self.spatial, "single", not both, "Subject both needs two entities at least")
        if both and self.spatial.currentData() == "single":
            self.spatial.setCurrentIndex(self.spatial.findData("pair"))
            hints.append("Subject both relates a person and an object: spatial pair or clique.")
        self.hint.setText(" ".join(hints))  # why a choice changed, until the next choice
        self.hint.setVisible(bool(hints))

    # -- requests ------------------------------------------------------------------------------
    def request_generate(self) -> None:
        self.generate_requested.emit(self.preferences(), self.seed.value())

    def next_seed(self) -> None:
        """The next seed, and generate with it."""
        self.seed.setValue(self.seed.value() + 1)
        self.request_generate()

    def _request_save(self) -> None:
        if self.question is not None and self.saving and self.save_button.isEnabled():
            self.save_requested.emit()

    # -- what is shown ---------------------------------------------------------------------------
    def show_busy(self, text: str) -> None:
        self.generate_button.setEnabled(False)
        self.next_button.setEnabled(False)
        self.show_message(text, warn=False)

    def show_message(self, text: str, *, warn: bool = True, context: str = "") -> None:
        """No question to show: say why (e.g. the engine's NoQuestion) in the panel."""
        self.generate_button.setEnabled(True)
        self.next_button.setEnabled(True)
        self.save_button.setEnabled(False)
        self.context.setText(context)
        self.text.clear()
        self.text.hide()
        self.message.setText(text)
        self.message.setStyleSheet(MESSAGE_STYLE if warn else "padding: 6px 0; color: #777;")
        self.message.show()
        self.answer.clear()
        self.difficulty.clear()
        self._show_steps(None)

    def show_question(
        self,
        question: GeneratedQuestion,
        *,
        context: str = "",
        names: dict[str, str] | None = None,
        select_first: bool = True,
    ) -> None:
        """Show a generated question; `names` words graph entity ids ("pedestrian:3" -> "person
        3") in the answer; the first step is selected (and announced) unless told otherwise."""
        self.show_message("")
        self.message.hide()
        self.context.setText(context)
        self.text.setText(question.text)
        self.text.show()
        self.answer.setText(f"Answer: {answer_text(question, names)}")
        self.difficulty.setText(difficulty_text(question))
        self._show_steps(question)
        self.save_button.setEnabled(True)
        if select_first and question.steps:
            self.select_step(0)

    def mark_saved(self, text: str) -> None:
        """The shown question is stored: say so, and do not offer to store it twice."""
        self.save_button.setEnabled(False)
        self.context.setText(text)

    # -- steps -----------------------------------------------------------------------------------
    def _show_steps(self, question: GeneratedQuestion | None) -> None:
        """List the question's steps, none selected (and `step_selected` not emitted)."""
        selection = self.steps.selectionModel()
        selection.blockSignals(True)
        self.step_model.set_question(question)
        selection.blockSignals(False)

    @property
    def step_index(self) -> int | None:
        row = self.steps.currentIndex().row()
        return row if row >= 0 else None

    def select_step(self, index: int) -> None:
        """Select step `index` (clamped); emits `step_selected` when it changes."""
        count = self.step_model.rowCount()
        if count:
            self.steps.setCurrentIndex(self.step_model.index(max(0, min(index, count - 1))))

    def move_step(self, delta: int) -> None:
        current = self.step_index
        self.select_step(0 if current is None else current + delta)

    def _step_changed(self, current: QModelIndex, _previous: QModelIndex | None = None) -> None:
        row = current.row()
        if self.question is not None and 0 <= row < len(self.question.steps):
            step = self.question.steps[row]
            self.step_selected.emit(list(step.entity_ids), step.slot)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802
        kind = event.type()
        if kind in (QEvent.Type.ShortcutOverride, QEvent.Type.KeyPress):
            key = event.key()
            if key in STEP_KEYS and not event.modifiers() & ~Qt.KeyboardModifier.KeypadModifier:
                event.accept()  # the panel's, not the window's [ and ]
                if kind == QEvent.Type.KeyPress:
                    self.move_step(STEP_KEYS[key])
                return True
        return False


def _enable_item(combo: QComboBox, value: str, enabled: bool, why: str) -> None:
    """Offer a choice of a combo box or not; a disabled one says why in its tooltip."""
    item = combo.model().item(combo.findData(value))
    if item is not None:
        item.setEnabled(enabled)
        item.setToolTip("" if enabled else why)
