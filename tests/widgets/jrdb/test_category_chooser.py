"""The category chooser: a key picks a category of the object category file."""

from __future__ import annotations

import json

import pytest
from PySide6.QtCore import Qt, QTimer

from annotation.jrdb.object_categories import (
    FORMAT,
    load_object_categories,
    parse_object_categories,
)
from widgets.jrdb.category_chooser import CategoryChooser, ask_category


def test_the_shipped_categories_have_unique_keys_and_a_person():
    categories = load_object_categories()
    assert len({c.key for c in categories}) == len(categories)
    person = next(c for c in categories if c.id == "person")
    assert person.kind == "human" and {"bag", "chair", "other"} <= {c.id for c in categories}


@pytest.mark.parametrize(
    ("entry", "rule"),
    [
        ({"id": "Bag", "key": "B"}, "lower-case"),
        ({"id": "bag", "key": "BB"}, "one letter or digit"),
        ({"id": "bag", "key": "B", "size": [0.1, 0, 1]}, "three positive numbers"),
        ({"id": "bag", "key": "B", "kind": "robot"}, "one of object, human"),
    ],
)
def test_a_bad_category_file_is_refused_naming_the_rule(entry, rule, tmp_path):
    path = tmp_path / "cats.json"
    path.write_text(json.dumps({"format": FORMAT, "categories": [entry]}))
    with pytest.raises(ValueError, match=rule):
        load_object_categories(path)
    with pytest.raises(ValueError, match="twice"):
        parse_object_categories(
            {"format": FORMAT, "categories": [{"id": "a", "key": "A"}, {"id": "b", "key": "a"}]}
        )


def test_a_key_picks_the_category(qtbot):
    chooser = CategoryChooser(load_object_categories())
    qtbot.addWidget(chooser)
    chooser.show()
    with qtbot.waitSignal(chooser.category_chosen) as signal:
        qtbot.keyClick(chooser, Qt.Key.Key_B)
    assert signal.args == ["bag"] and chooser.chosen == "bag"


def test_ask_category_waits_for_a_click_or_esc(qtbot):
    categories = load_object_categories()

    def click_chair():
        chooser = next(w for w in _dialogs() if isinstance(w, CategoryChooser))
        qtbot.mouseClick(chooser.buttons["chair"], Qt.MouseButton.LeftButton)

    QTimer.singleShot(50, click_chair)
    assert ask_category(categories, None) == "chair"

    def escape():
        chooser = next(w for w in _dialogs() if isinstance(w, CategoryChooser))
        qtbot.keyClick(chooser, Qt.Key.Key_Escape)

    QTimer.singleShot(50, escape)
    assert ask_category(categories, None) is None


def _dialogs():
    from PySide6.QtWidgets import QApplication

    return [w for w in QApplication.topLevelWidgets() if w.isVisible()]
