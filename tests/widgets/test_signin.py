"""Who is working: pick a known annotator of the project or type a new name."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from widgets.signin import SignInDialog


@pytest.fixture
def dialog(qtbot, project):
    for name in ("Bob", "Carol", "Alice"):
        project.annotators.sign_in(name)
    d = SignInDialog([a.name for a in project.annotators.list()], "Bob")
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    return d


def sign_in_button(dialog: SignInDialog):
    return dialog.buttons.button(QDialogButtonBox.StandardButton.Ok)


def type_name(qtbot, dialog: SignInDialog, text: str) -> None:
    line = dialog.combo.lineEdit()
    line.selectAll()
    qtbot.keyClick(line, Qt.Key.Key_Backspace)
    qtbot.keyClicks(line, text)


def test_the_known_annotators_are_offered_with_the_current_one_chosen(dialog):
    combo = dialog.combo
    assert [combo.itemText(i) for i in range(combo.count())] == ["Alice", "Bob", "Carol"]
    assert dialog.name() == "Bob"
    assert sign_in_button(dialog).text() == "Sign in" and sign_in_button(dialog).isEnabled()


def test_a_typed_name_is_cleaned_and_signing_in_accepts(qtbot, dialog, project):
    type_name(qtbot, dialog, "  Ada   Lovelace ")
    assert dialog.name() == "Ada Lovelace"
    with qtbot.waitSignal(dialog.accepted, timeout=2000):
        qtbot.mouseClick(sign_in_button(dialog), Qt.MouseButton.LeftButton)
    ada = project.annotators.sign_in(dialog.name())
    assert ada.name == "Ada Lovelace"
    assert [a.name for a in project.annotators.list()] == ["Ada Lovelace", "Alice", "Bob", "Carol"]


def test_a_blank_or_too_long_name_cannot_sign_in(qtbot, dialog):
    type_name(qtbot, dialog, "   ")
    assert dialog.name() == "" and not sign_in_button(dialog).isEnabled()
    type_name(qtbot, dialog, "x" * 81)
    assert not sign_in_button(dialog).isEnabled()
    qtbot.keyClick(dialog.combo.lineEdit(), Qt.Key.Key_Backspace)  # 80 characters: allowed
    assert sign_in_button(dialog).isEnabled()


def test_picking_from_the_list_and_cancel(qtbot, dialog):
    dialog.combo.setFocus()
    picked = []
    for key in (Qt.Key.Key_Down, Qt.Key.Key_Down, Qt.Key.Key_Up):  # through the list
        qtbot.keyClick(dialog.combo, key)
        picked.append(dialog.name())
    assert picked == ["Bob", "Carol", "Bob"]
    with qtbot.waitSignal(dialog.rejected, timeout=2000):
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
    assert dialog.result() == SignInDialog.DialogCode.Rejected
