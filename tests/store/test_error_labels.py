"""Error labels on episode steps: saved at once with their annotator, audited, filtered listing."""

from __future__ import annotations

import pytest

from store import ProjectError, open_project


def _steps(*calls):
    steps = [{"kind": "observation", "name": "observe", "ok": True}]
    for name, ok in calls:
        steps.append({"kind": "tool", "name": name, "arguments": {}, "ok": ok, "feedback": ""})
    steps.append({"kind": "answer", "name": "answer_question", "ok": True})
    return steps


@pytest.fixture
def episodes(project):
    add = project.episodes.add
    return [
        add(
            {
                "model": "m1",
                "task": "count",
                "mode": "manipulation",
                "outcome": "answered",
                "success": True,
            },
            _steps(("grasp", True), ("push", True)),
        ),
        add(
            {
                "model": "m1",
                "task": "find",
                "mode": "manipulation",
                "outcome": "answered",
                "success": False,
            },
            _steps(("grasp", False), ("grasp", False)),
        ),
        add(
            {
                "model": "m2",
                "task": "count",
                "mode": "perception",
                "outcome": "step limit",
                "success": False,
            },
            _steps(("perceive_scene", True), ("grasp", None)),
        ),
    ]


def test_labels_are_saved_with_the_annotator_and_audited(project, alice, bob, episodes, tmp_path):
    e = episodes[1].id
    label = project.episodes.add_label(
        e, 1, "evidence_gathering", "failed_grasp_recovery", " grasped the same mug again ", alice
    )
    assert label.annotator_id == alice.id and label.step_index == 1
    assert label.note == "grasped the same mug again"
    whole = project.episodes.add_label(e, None, "format", "", "", bob)
    assert [x.id for x in project.episodes.labels(e)] == [whole.id, label.id]
    assert project.episodes.label_authors(e) == {alice.id: "Alice", bob.id: "Bob"}
    entry = project.audit.recent(1)[0]
    assert (entry.action, entry.table, entry.annotator) == ("create", "error_labels", "Bob")
    # on disk at once: another connection sees both
    with open_project(project.path) as other:
        assert len(other.episodes.labels(e)) == 2
        assert other.summary.summary().error_labels == 2
    with pytest.raises(ProjectError, match="another annotator"):
        project.episodes.remove_label(label.id, bob)
    project.episodes.remove_label(label.id, alice)
    assert [x.id for x in project.episodes.labels(e)] == [whole.id]
    assert project.audit.recent(1)[0].action == "delete"


def test_bad_labels_are_refused_and_nothing_is_written(project, alice, episodes):
    e = episodes[0].id
    with pytest.raises(ValueError, match="unknown error category"):
        project.episodes.add_label(e, 1, "made_up", "", "", alice)
    with pytest.raises(ValueError, match="unknown subcategory"):
        project.episodes.add_label(e, 1, "format", "premature_answer", "", alice)
    with pytest.raises(ProjectError, match="has no step 9"):
        project.episodes.add_label(e, 9, "format", "", "", alice)
    with pytest.raises(ProjectError, match="signed-in annotator"):
        project.episodes.add_label(e, 1, "format", "", "", None)
    with pytest.raises(ProjectError, match="no episode"):
        project.episodes.add_label(999, 1, "format", "", "", alice)
    assert project.episodes.labels(e) == []


def test_filters_narrow_the_listing(project, episodes):
    ids = [e.id for e in episodes]
    repo = project.episodes
    assert [e.id for e in repo.list()] == ids
    assert [e.id for e in repo.list(model="m1")] == ids[:2]
    assert [e.id for e in repo.list(task="count")] == [ids[0], ids[2]]
    assert [e.id for e in repo.list(mode="perception")] == [ids[2]]
    assert [e.id for e in repo.list(outcome="step limit")] == [ids[2]]
    assert [e.id for e in repo.list(success=True)] == [ids[0]]
    assert [e.id for e in repo.list(failed_grasp=True)] == [ids[1]]
    assert [e.id for e in repo.list(failed_grasp=False)] == [ids[0], ids[2]]
    assert [e.id for e in repo.list(model="m1", task="count", failed_grasp=False)] == [ids[0]]
    assert repo.list(model="m3") == []
    assert repo.failed_grasps() == {ids[1]: 2}
    assert repo.facets() == {
        "model": ["m1", "m2"],
        "task": ["count", "find"],
        "mode": ["manipulation", "perception"],
        "outcome": ["answered", "step limit"],
    }
