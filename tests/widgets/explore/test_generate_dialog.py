"""Explore scenes > Generate scenes…: the batch filled in from the keyboard, the object range
kept in order, and the same batch as a command line the real `reasonscope` parser reads."""

from __future__ import annotations

import shlex

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QDialogButtonBox

from app.cli import build_parser
from sim.robotiq import DEFAULT_GRIPPER, GRIPPERS
from widgets.explore.generate_dialog import GenerateScenesDialog, SceneBatch

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def dialog(qtbot):
    d = GenerateScenesDialog(next_seed=7)
    qtbot.addWidget(d)
    d.show()
    qtbot.waitExposed(d)
    return d


def type_into(qtbot, spin, text: str) -> None:
    line = spin.lineEdit()
    line.selectAll()
    qtbot.keyClicks(line, text)
    qtbot.keyClick(line, Qt.Key.Key_Tab)


def parsed(batch: SceneBatch):
    """The batch's command line as the CLI reads it."""
    words = shlex.split(batch.command())
    assert words[0] == "reasonscope"
    return build_parser().parse_args([*words[1:], "--db", "project.reasonscope"])


def test_the_defaults_start_at_the_next_free_seed(dialog):
    batch = dialog.batch()
    assert batch == SceneBatch(20, 7, (8, 15), DEFAULT_GRIPPER, 1, None, False)
    assert batch.command() == (
        f"reasonscope scenes generate --n 20 --seed 7 --objects 8-15 --gripper {DEFAULT_GRIPPER}"
    )
    grippers = [dialog.gripper.itemData(i) for i in range(dialog.gripper.count())]
    assert grippers == list(GRIPPERS)


def test_a_batch_filled_in_from_the_keyboard_is_the_command_the_cli_reads(qtbot, dialog):
    type_into(qtbot, dialog.n, "3")
    type_into(qtbot, dialog.seed, "40")
    type_into(qtbot, dialog.low, "3")
    type_into(qtbot, dialog.high, "4")
    type_into(qtbot, dialog.workers, "2")
    qtbot.keyClicks(dialog.address, "  auto ")
    qtbot.mouseClick(dialog.resume, LEFT)
    other = next(k for k in GRIPPERS if k != DEFAULT_GRIPPER)
    dialog.gripper.setCurrentIndex(dialog.gripper.findData(other))
    batch = dialog.batch()
    assert batch == SceneBatch(3, 40, (3, 4), other, 2, "auto", True)
    args = parsed(batch)
    assert (args.scenes_command, args.n, args.seed, args.objects) == ("generate", 3, 40, "3-4")
    assert (args.gripper, args.workers, args.ray_address, args.resume) == (other, 2, "auto", True)
    # one worker on this machine: neither --workers nor a cluster is named
    lone = SceneBatch(3, 40, (3, 4), other, 1, None, False)
    assert "--workers" not in lone.command() and "--ray-address" not in lone.command()
    assert (parsed(lone).workers, parsed(lone).ray_address) == (1, None)


def test_the_object_range_stays_in_order(qtbot, dialog):
    type_into(qtbot, dialog.low, "12")
    assert dialog.batch().objects == (12, 15)
    type_into(qtbot, dialog.high, "5")  # below the low end: it follows down
    assert dialog.batch().objects == (5, 5)
    type_into(qtbot, dialog.low, "9")  # above the high end: it follows up
    assert dialog.batch().objects == (9, 9)


def test_generate_accepts_and_cancel_rejects(qtbot, dialog):
    buttons = dialog.findChild(QDialogButtonBox)
    generate = buttons.button(QDialogButtonBox.StandardButton.Ok)
    assert generate.text() == "Generate"
    with qtbot.waitSignal(dialog.accepted, timeout=1000):
        qtbot.mouseClick(generate, LEFT)
    dialog.show()
    with qtbot.waitSignal(dialog.rejected, timeout=1000):
        qtbot.keyClick(dialog, Qt.Key.Key_Escape)
