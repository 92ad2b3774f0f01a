"""The episode-error taxonomy: both papers' kinds are there, ids are unique, bad files are refused."""

from __future__ import annotations

import json

import pytest

from annotation.error_taxonomy import load_taxonomy, parse_taxonomy


def test_the_shipped_taxonomy_has_both_papers_kinds():
    t = load_taxonomy()
    assert [c.id for c in t.categories] == [
        "environment",
        "perceptual_reasoning",
        "strategic_planning",
        "format",
        "evidence_gathering",
    ]
    labels = {t.describe(c, s) for c, s in t.pairs()}
    for expected in (
        "Perceptual Reasoning Error › State Estimation Misjudgment",
        "Perceptual Reasoning Error › End-Effector Allocation Error",
        "Perceptual Reasoning Error › Physical Attribute Misreasoning",
        "Strategic Planning Error › Action Sequencing Error",
        "Strategic Planning Error › Bimanual Conflict/Collision",
        "Strategic Planning Error › Action Parameter Inconsistency",
        "Format Error",
    ):
        assert expected in labels
    evidence = t.category("evidence_gathering")
    assert {s.id for s in evidence.subcategories} >= {
        "premature_answer",
        "stale_scene_graph",
        "failed_grasp_recovery",
        "wrong_localisation",
    }
    assert t.category("environment").source.startswith("003")
    assert all(c.description for c in t.categories)
    assert ("format", "") in t.pairs() and len(t.pairs()) == len(set(t.pairs()))
    assert load_taxonomy() is t  # read once


def test_check_names_the_valid_choices():
    t = load_taxonomy()
    t.check("strategic_planning", "action_sequencing")
    t.check("format")
    with pytest.raises(ValueError, match="unknown error category 'nope'; known: environment"):
        t.check("nope")
    with pytest.raises(ValueError, match="known: state_estimation"):
        t.check("perceptual_reasoning", "action_sequencing")
    assert t.describe("gone", "old") == "gone › old"  # labels from an older taxonomy still show


def test_bad_files_are_refused(tmp_path):
    good = {"format": "reasonscope-taxonomy/1", "categories": [{"id": "a", "label": "A"}]}
    path = tmp_path / "t.json"
    path.write_text(json.dumps(good))
    assert load_taxonomy(path).pairs() == [("a", "")]
    for bad, message in (
        ({**good, "format": "x"}, "needs format"),
        ({**good, "categories": []}, "at least one category"),
        ({**good, "categories": [{"id": "a"}]}, "id and a label"),
        ({**good, "categories": [{"id": "a", "label": "A"}] * 2}, "used twice"),
        (
            {
                **good,
                "categories": [
                    {
                        "id": "a",
                        "label": "A",
                        "subcategories": [{"id": "s", "label": "S"}, {"id": "s", "label": "T"}],
                    }
                ],
            },
            "repeats a subcategory",
        ),
    ):
        with pytest.raises(ValueError, match=message):
            parse_taxonomy(bad)
