"""Undo and redo of HOI labelling and review (`History`) on a real project's HOI store:
steps go back and forth as one, a review can be taken back, and a step someone else has
changed since is refused with nothing written."""

from __future__ import annotations

import pytest
from hoi_fixtures import build_hoi_project, copy_of

from store import ProjectError, open_project
from widgets.hoi.history import LABEL, REVIEW, Change, History, Step, one_line


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi_history"))


@pytest.fixture
def hoi(base, tmp_path):
    hp = copy_of(base, tmp_path)
    with open_project(hp.db) as project:
        yield project, hp


# people of the HOI project (conftest's `alice` and `bob` belong to another, empty project)
@pytest.fixture
def alice(hoi):
    return hoi[0].annotators.sign_in("Alice")


@pytest.fixture
def bob(hoi):
    return hoi[0].annotators.sign_in("Bob")


def _label(project, hp, frame: int, who, predicate="walking"):
    """Save a pose label on pedestrian 1 and return the change that saving it was."""
    repo = project.hoi
    label = repo.add_label(
        frame_id=hp.frame_ids[frame],
        subject_entity_id=hp.persons["pedestrian:1"],
        object_entity_id=None,
        category="pose",
        predicate=predicate,
        difficulty=1,
        annotator=who,
    )
    return Change(LABEL, label.id, None, repo.record(label.id))


def _stored(project) -> list[tuple[int, str]]:
    return [(r.frame_index, r.label.predicate) for r in project.hoi.records()]


def test_a_step_of_several_labels_goes_back_and_forth_as_one(hoi, alice):
    project, hp = hoi
    history = History()
    changes = tuple(_label(project, hp, f, alice) for f in (0, 1, 2))  # copied along the track
    history.push(Step("Copied 'walking' forward", changes))
    assert len(_stored(project)) == 3
    undone = history.replay(project.hoi, alice, forward=False)
    assert undone.description == "Copied 'walking' forward"
    assert _stored(project) == [] and history.undo == [] and len(history.redo) == 1
    history.replay(project.hoi, alice, forward=True)
    assert sorted(_stored(project)) == [(0, "walking"), (1, "walking"), (2, "walking")]
    assert [project.hoi.record(c.label_id) is not None for c in changes] == [True] * 3
    assert len(history.undo) == 1 and history.redo == []
    # and back again: the redo stored what the store now holds, so undo still matches it
    history.replay(project.hoi, alice, forward=False)
    assert _stored(project) == []


def test_a_review_is_taken_back_and_given_again(hoi, alice, bob):
    project, hp = hoi
    label_id = _label(project, hp, 0, alice).label_id
    repo = project.hoi
    repo.review(label_id, reviewer=bob, verdict="reject", comment="standing, not walking")
    record = repo.record(label_id)
    (mine,) = record.current("review")
    history = History()
    history.push(Step("Review: reject", (Change(REVIEW, label_id, None, mine, "review", 1),)))
    history.replay(repo, bob, forward=False)
    assert repo.record(label_id).reviews == ()
    history.replay(repo, bob, forward=True)
    (again,) = repo.record(label_id).reviews
    assert (again.reviewer_id, again.verdict, again.comment) == (
        bob.id,
        "reject",
        "standing, not walking",
    )


def test_a_step_changed_since_is_refused_and_dropped(hoi, alice, bob):
    project, hp = hoi
    history = History()
    change = _label(project, hp, 0, alice)
    history.push(Step("Added 'walking'", (change,)))
    project.hoi.review(change.label_id, reviewer=bob, verdict="accept", difficulty=1)
    with pytest.raises(ProjectError, match="has changed since") as refused:
        history.replay(project.hoi, alice, forward=False)
    assert one_line(refused.value).endswith("has changed since (it has new reviews)")
    assert _stored(project) == [(0, "walking")]  # nothing written
    assert history.undo == [] and history.redo == []  # the refused step is gone


def test_a_new_step_drops_what_could_be_redone(hoi, alice):
    project, hp = hoi
    history = History()
    history.push(Step("Added 'walking'", (_label(project, hp, 0, alice),)))
    history.replay(project.hoi, alice, forward=False)
    assert len(history.redo) == 1
    history.push(Step("Added 'standing'", (_label(project, hp, 0, alice, "standing"),)))
    assert [s.description for s in history.undo] == ["Added 'standing'"]
    assert history.redo == []
    history.clear()
    assert history.undo == [] == history.redo
    assert _stored(project) == [(0, "standing")]  # clearing the history writes nothing
    assert one_line(ValueError("first line\nsecond")) == "first line"
    assert one_line(ProjectError()) == "ProjectError"
