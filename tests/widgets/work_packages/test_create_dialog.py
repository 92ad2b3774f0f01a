"""File > Work packages > Create… filled in as the project owner does: type the person,
choose the role, and the form shows the rows that role needs and the same `pack create`
command; the order it gives makes a real package."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.work_packages.create import create_package, package_request
from store import open_project
from widgets.work_packages.create_dialog import WHAT, CreatePackageDialog, PackageOrder

LEFT = Qt.MouseButton.LeftButton
OK = QDialogButtonBox.StandardButton.Ok


@pytest.fixture
def dialog(qtbot, tmp_path):
    d = CreatePackageDialog(["Ada", "Ben"], ["cafe_0", "lab_1"], tmp_path)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    return d


def _choose_role(qtbot, dialog, role):
    """Pick `role` with the arrow keys on the role box."""
    combo = dialog.role
    target = combo.findText(role)
    for _ in range(combo.count()):
        if combo.currentIndex() == target:
            return
        key = Qt.Key.Key_Down if target > combo.currentIndex() else Qt.Key.Key_Up
        qtbot.keyClick(combo, key)
    assert combo.currentText() == role


def _type_limit(qtbot, dialog, text):
    """Select what "At most" says ("no limit") and type over it."""
    qtbot.keyClick(dialog.limit, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(dialog.limit, text)


def _visible(dialog, widget) -> bool:
    return widget.isVisibleTo(dialog)


def test_the_command_appears_once_a_person_is_typed(qtbot, dialog, tmp_path):
    ok = dialog.buttons.button(OK)
    assert ok.text() == "Create package" and not ok.isEnabled()
    assert dialog.command.text() == "" and dialog.what.text() == WHAT["verifier"]
    qtbot.keyClicks(dialog.person.lineEdit(), "Ada Lovelace")
    assert ok.isEnabled()
    out = tmp_path / "ada-lovelace-verifier.rspack"
    assert dialog.command.text() == (
        f"Same as: reasonscope pack create --for 'Ada Lovelace' --role verifier "
        f"--questions pending --out {out}"
    )
    _type_limit(qtbot, dialog, "5")
    qtbot.keyClicks(dialog.out, str(tmp_path / "ada.rspack"))
    assert dialog.order() == PackageOrder(
        "Ada Lovelace", "verifier", "pending", None, None, None, 5, tmp_path / "ada.rspack"
    )
    assert dialog.command.text().endswith(f"--limit 5 --out {tmp_path / 'ada.rspack'}")


def test_each_role_asks_for_what_it_needs(qtbot, dialog):
    qtbot.keyClicks(dialog.person.lineEdit(), "Ben")
    _choose_role(qtbot, dialog, "reviewer")
    assert dialog.items.text() == "all" and dialog.what.text() == WHAT["reviewer"]
    assert dialog.order().labels == "all" and dialog.order().questions is None
    _choose_role(qtbot, dialog, "annotator")
    assert _visible(dialog, dialog.sequence) and _visible(dialog, dialog.frames)
    assert not _visible(dialog, dialog.items)
    qtbot.keyClicks(dialog.frames, "10-20")
    order = dialog.order()
    assert (order.sequence, order.frames, order.questions, order.labels) == (
        "cafe_0",
        "10-20",
        None,
        None,
    )
    assert "--sequence cafe_0 --frames 10-20" in dialog.command.text()
    _choose_role(qtbot, dialog, "verifier")  # back: "all" was the reviewer's word
    assert dialog.items.text() == "pending" and not _visible(dialog, dialog.sequence)
    dialog.items.clear()  # nothing to hand out: no package
    assert not dialog.buttons.button(OK).isEnabled() and dialog.command.text() == ""


def test_an_annotator_package_needs_a_sequence(qtbot, tmp_path):
    empty = CreatePackageDialog([], [], tmp_path)
    qtbot.addWidget(empty)
    qtbot.keyClicks(empty.person.lineEdit(), "Cy")
    assert empty.buttons.button(OK).isEnabled()
    empty.role.setCurrentText("annotator")
    assert empty.order().sequence is None and not empty.buttons.button(OK).isEnabled()


def test_the_order_makes_a_real_package(qtbot, dialog, tmp_path):
    db = tmp_path / "owner.reasonscope"
    with open_project(db, create=True) as project:
        for n in (1, 2, 3):
            project.questions.add(
                {"benchmark": "mgvqa", "task": "count", "text": f"How many? {n}", "answer": n}
            )
    qtbot.keyClicks(dialog.person.lineEdit(), "Ada")
    _type_limit(qtbot, dialog, "2")
    with qtbot.waitSignal(dialog.accepted):
        qtbot.mouseClick(dialog.buttons.button(OK), LEFT)
    order = dialog.order()
    request = package_request(
        order.person, order.role, questions=order.questions, limit=order.limit
    )
    manifest = create_package(db, request, order.out)
    assert Path(order.out) == tmp_path / "ada-verifier.rspack" and order.out.exists()
    assert (manifest["person"], manifest["role"], len(manifest["items"])) == ("Ada", "verifier", 2)


def test_the_study_roles_ask_for_questions_and_a_benchmark(qtbot, dialog, tmp_path):
    qtbot.keyClicks(dialog.person.lineEdit(), "Ada")
    assert _visible(dialog, dialog.benchmark)  # a verifier's questions may keep to one too
    assert dialog.benchmark.currentText() == "any benchmark" and dialog.order().benchmark is None
    _choose_role(qtbot, dialog, "rater")
    assert dialog.what.text() == WHAT["rater"] and "blind" in WHAT["rater"]
    assert _visible(dialog, dialog.items) and _visible(dialog, dialog.benchmark)
    assert not _visible(dialog, dialog.sequence)
    order = dialog.order()
    assert (order.questions, order.benchmark, order.labels) == ("pending", None, None)
    dialog.benchmark.setCurrentText("mgvqa")
    assert dialog.order().benchmark == "mgvqa"
    out = tmp_path / "ada-rater.rspack"
    assert dialog.command.text() == (
        "Same as: reasonscope pack create --for 'Ada' --role rater --questions pending "
        f"--benchmark mgvqa --out {out}"
    )
    # the human baseline answers JRDB questions only: the box says so and cannot change
    _choose_role(qtbot, dialog, "human-baseline")
    assert dialog.benchmark.currentText() == "jrdb" and not dialog.benchmark.isEnabled()
    assert "--role human-baseline --questions pending --benchmark jrdb" in dialog.command.text()
    _choose_role(qtbot, dialog, "rater")  # back: any benchmark again
    assert dialog.benchmark.isEnabled() and dialog.order().benchmark is None
    _choose_role(qtbot, dialog, "reviewer")
    assert not _visible(dialog, dialog.benchmark) and dialog.order().benchmark is None
