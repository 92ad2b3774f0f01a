"""`project.spatial`: items, predictions scored on import (all or nothing), the summary."""

from __future__ import annotations

import math

import pytest

from annotation.bimanual.spatial_grounding import GroundingItem, generate_items
from store import ProjectError

BLOCKS = ("red_block", "green_block", "blue_block")
SPARSE = GroundingItem(
    "sparse-9-0",
    "sparse",
    {
        "red_block": (-0.2, 0.0, 0.76),
        "green_block": (0.05, -0.1, 0.76),
        "blue_block": (0.3, 0, 0.76),
    },
    BLOCKS,
    9,
)
CLUTTERED = GroundingItem(
    "cluttered-9-0",
    "cluttered",
    {
        "red_block": (0.1, 0.0, 0.76),
        "green_block": (-0.15, -0.1, 0.76),
        "blue_block": (-0.02, 0.05, 0.76),
        "mug": (0.25, -0.2, 0.76),
    },
    BLOCKS,
    9,
)
G = lambda x, sigma=0.1: 100 * math.exp(-x * x / (2 * sigma * sigma))  # noqa: E731


@pytest.fixture
def spatial(project):
    project.spatial.add_items([SPARSE, CLUTTERED])
    return project.spatial


def _state(project):
    return (
        project.spatial.counts(),
        project.db.execute("SELECT count(*) FROM spatial_object_scores").fetchone()[0],
        project.db.execute("SELECT count(*) FROM audit_log").fetchone()[0],
    )


def test_items_round_trip_and_regenerating_is_harmless(project):
    items = generate_items("cluttered", 3, 4)
    assert project.spatial.add_items(items) == 3
    assert project.spatial.add_items(items[:2]) == 0
    assert project.spatial.items("cluttered") == items
    assert project.spatial.items("sparse") == []
    moved = GroundingItem(items[0].id, "cluttered", {"red_block": (0.1, 0, 0.76)}, ("red_block",))
    with pytest.raises(ProjectError, match="already stored with other objects"):
        project.spatial.add_items([generate_items("sparse", 1, 0)[0], moved])
    assert len(project.spatial.items()) == 3  # nothing of the failed call stored


def test_import_scores_each_object_by_hand(spatial, project):
    rows = [
        {
            "id": "sparse-9-0",
            "reply": "{visual_state_description: three blocks, results: ["
            "{object: red_block, use_arm: LEFT}, {object: green_block, use_arm: LEFT}, "
            "{object: blue_block, use_arm: LEFT}]}",
        },
        {
            "id": "cluttered-9-0",
            "results": [
                {"object": "red_block", "use_arm": "right"},
                {"object": "green_block", "use_arm": "left"},
                {"object": "blue_block", "use_arm": "right"},
            ],
        },
    ]
    report = spatial.import_predictions("gpt", rows, source="gpt.jsonl")
    assert (report.imported, report.unreadable, report.replaced) == (2, 0, 0)
    sparse, cluttered = sorted(spatial.predictions("gpt"), key=lambda p: p.setting, reverse=True)
    assert {o.object: o.score for o in sparse.objects} == pytest.approx(
        {"red_block": 100.0, "green_block": G(0.05), "blue_block": G(0.3)}
    )
    assert {o.object: o.predicted for o in sparse.objects} == dict.fromkeys(BLOCKS, "left")
    assert sparse.reply.startswith("{visual_state") and sparse.source == "gpt.jsonl"
    assert cluttered.reply is None and cluttered.score == pytest.approx((200 + G(0.02)) / 3)
    summary = spatial.summary()
    row = summary["by_model"]["gpt"]
    assert summary["sigma"] == 0.1 and set(row) == {"sparse", "cluttered", "average", "missing"}
    assert row["sparse"] == {"score": pytest.approx((100 + G(0.05) + G(0.3)) / 3), "items": 1}
    assert row["average"] is None and row["missing"] == ["dense"]  # Avg. needs all three
    # another sigma rescores from the stored arms and distances
    wide = spatial.summary(0.2)["by_model"]["gpt"]["sparse"]["score"]
    assert wide == pytest.approx((100 + G(0.05, 0.2) + G(0.3, 0.2)) / 3)


def test_broken_replies_are_recorded_with_notes_and_score_zero(spatial):
    rows = [
        {"id": "sparse-9-0", "reply": '```json\n{"results": [{"object": "red_blo'},
        {"id": "cluttered-9-0", "reply": None},
    ]
    report = spatial.import_predictions("broken", rows)
    assert report.unreadable == 2 and report.imported == 2
    for p in spatial.predictions("broken"):
        assert p.score == 0.0 and not p.readable and p.choices == {}
        assert "no object/use_arm pairs found" in p.notes
        assert [o.predicted for o in p.objects] == [None, None, None]
    assert spatial.counts()["unreadable"] == 2
    assert spatial.summary()["by_model"]["broken"]["average"] is None  # sparse, cluttered only


@pytest.mark.parametrize(
    ("rows", "problem"),
    [
        ([{"id": "sparse-9-0", "reply": ""}, ["not", "an", "object"]], "line 2: not a JSON object"),
        ([{"reply": "x"}], "line 1: 'id' must be"),
        ([{"id": "sparse-9-0"}], "line 1: needs a 'reply'"),
        ([{"id": "sparse-9-0", "reply": ""}, {"id": "nope", "reply": ""}], "line 2: no spatial"),
        ([{"id": "sparse-9-0", "reply": ""}, {"id": "sparse-9-0", "reply": ""}], "already pre"),
    ],
)
def test_a_malformed_row_stores_nothing(spatial, project, rows, problem):
    spatial.import_predictions("m", [{"id": "sparse-9-0", "reply": "{results: []}"}])
    before = _state(project)
    with pytest.raises(ValueError, match=problem):
        spatial.import_predictions("m", rows)
    assert _state(project) == before


def test_reimport_replaces_that_models_items_only(spatial):
    spatial.import_predictions("m", [{"id": "sparse-9-0", "reply": ""}])
    spatial.import_predictions("m", [{"id": "cluttered-9-0", "reply": ""}])
    right = [{"object": "red_block", "use_arm": "left"}]
    report = spatial.import_predictions("m", [{"id": "sparse-9-0", "results": right}])
    assert report.replaced == 1
    assert {p.item_id for p in spatial.predictions("m")} == {"sparse-9-0", "cluttered-9-0"}
    assert spatial.models() == ["m"]
    assert spatial.delete_predictions("m") == 2 and spatial.summary()["by_model"] == {}


def test_summary_sigma_follows_the_import(spatial):
    empty = spatial.summary()
    assert (empty["sigma"], empty["by_model"]) == (0.1, {}) and "0.1 m" in empty["settings"][
        "sigma"
    ]
    spatial.import_predictions("m", [{"id": "sparse-9-0", "reply": ""}], sigma=0.2)
    assert spatial.summary()["sigma"] == 0.2
    spatial.import_predictions("n", [{"id": "sparse-9-0", "reply": ""}], sigma=0.05)
    assert spatial.summary()["sigma"] == 0.1  # mixed: the default
    with pytest.raises(ValueError, match="sigma"):
        spatial.summary(0)
