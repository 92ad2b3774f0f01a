"""The demo's spatial-grounding part: items of every setting stored, both rule baselines
scored, the always-left baseline exactly as the Gaussian-weighted score says it should be."""

from __future__ import annotations

import math

import pytest

from annotation.progress import Progress
from app.demo.spatial import ALWAYS_LEFT, NOISY, add_spatial_demo
from store import open_project


def test_demo_spatial_part_scores_both_baselines(tmp_path):
    with open_project(tmp_path / "demo.reasonscope", create=True) as project:
        add_spatial_demo(project, Progress(), n=2, seed=3)
        items = project.spatial.items()
        summary = project.spatial.summary()
    assert sorted({i.setting for i in items}) == ["cluttered", "dense", "sparse"]
    assert len(items) == 6 and set(summary["by_model"]) == {NOISY, ALWAYS_LEFT}
    for setting in ("sparse", "dense", "cluttered"):
        expected = []
        for item in (i for i in items if i.setting == setting):
            xs = [item.objects[name][0] for name in item.asked]
            expected.append(
                sum(100 if x < 0 else 100 * math.exp(-x * x / 0.02) for x in xs) / len(xs)
            )
        row = summary["by_model"][ALWAYS_LEFT][setting]
        assert row == {"score": pytest.approx(sum(expected) / 2), "items": 2}
    noisy = summary["by_model"][NOISY]["average"]
    assert summary["by_model"][ALWAYS_LEFT]["average"] < noisy <= 100
