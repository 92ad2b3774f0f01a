"""Repositories against real SQLite files: what each promises, checked on disk."""

from __future__ import annotations

import re

import pytest
from sqlite_utils import Database

from store import ProjectError, open_project, schema
from store.project import Project

STATUSES = ("pending", "approved", "corrected", "excluded")


def _question(i: int, **extra) -> dict:
    q = {
        "benchmark": "mgvqa",
        "task": ("count", "find", "beneath", "compare")[i % 4],
        "text": f"How many mugs are in scene {i}?",
        "options": None,
        "answer": i,
        "evidence_ids": [f"mug_{i}"],
        "steps": [{"description": "look", "entity_ids": [f"mug_{i}"]}],
        "difficulty": {"S": 1, "R": 1, "T": 1},
    }
    q.update(extra)
    return q


def _count(project: Project, table: str) -> int:
    return project.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]


@pytest.fixture
def carol(project):
    return project.annotators.sign_in("Carol")


@pytest.fixture
def frame_and_entities(project):
    seq = project.sequences.add("bytes-cafe-2019-02-07_0", "/data/jrdb/bytes-cafe")
    frame = project.sequences.add_frame(seq.id, 0, "images/000000.jpg")
    person = project.sequences.add_entity(seq.id, "pedestrian:1", "human", "pedestrian")
    cup = project.sequences.add_entity(seq.id, "cup:7", "object", "cup")
    return frame, person, cup


def _label(project, frame_and_entities, annotator, difficulty=2, predicate="holding"):
    frame, person, cup = frame_and_entities
    return project.hoi.add_label(
        frame_id=frame.id,
        subject_entity_id=person,
        object_entity_id=cup,
        category="object",
        predicate=predicate,
        difficulty=difficulty,
        annotator=annotator,
    )


# -- annotators ---------------------------------------------------------------


def test_sign_in_is_idempotent_and_case_insensitive(project):
    first = project.annotators.sign_in("Alice Smith")
    again = project.annotators.sign_in("Alice Smith")
    shouted = project.annotators.sign_in("  ALICE   smith ")
    assert first == again == shouted
    assert first.name == "Alice Smith"
    assert [a.name for a in project.annotators.list()] == ["Alice Smith"]
    assert _count(project, "annotators") == 1
    # Only the first sign-in is a change worth auditing.
    creates = [e for e in project.audit.recent() if e.table == "annotators"]
    assert len(creates) == 1


def test_sign_in_survives_reopening(tmp_path):
    path = tmp_path / "p.reasonscope"
    with open_project(path, create=True) as p:
        alice = p.annotators.sign_in("Alice")
    with open_project(path) as p:
        assert p.annotators.sign_in("alice") == alice


def test_sign_in_rejects_empty_and_long_names(project):
    with pytest.raises(ProjectError):
        project.annotators.sign_in("   ")
    with pytest.raises(ProjectError):
        project.annotators.sign_in("x" * 81)
    assert _count(project, "annotators") == 0


# -- questions ----------------------------------------------------------------


def test_question_add_and_get_round_trip(project, alice):
    q = project.questions.add(_question(3, options=["1", "2", "3"]), annotator=alice)
    got = project.questions.get(q.id)
    assert got == q
    assert got.version == 1 and got.is_current and got.status == "pending"
    assert got.options == ["1", "2", "3"] and got.answer == 3
    assert got.evidence_ids == ["mug_3"]
    assert got.difficulty.as_dict() == {"S": 1, "R": 1, "T": 1, "D": 3}
    assert got.created_by == alice.id
    with pytest.raises(ProjectError, match="no question"):
        project.questions.get(q.id + 1000)


@pytest.fixture
def many_questions(project):
    """57 questions with mixed statuses and deliberately tied created_at values."""
    qs = [
        _question(i, status=STATUSES[i % 4], created_at=f"2024-01-01T00:00:{i // 3:02d}")
        for i in range(57)
    ]
    assert project.questions.add_many(qs) == 57
    rows = project.db.execute("SELECT id, created_at, status FROM questions ORDER BY id").fetchall()
    return rows


def _walk(project, **kwargs) -> list[list]:
    pages, cursor = [], None
    while True:
        page = project.questions.page(after=cursor, **kwargs)
        pages.append(page.rows)
        cursor = page.next_cursor
        if cursor is None:
            return pages
        assert len(pages) < 100, "paging does not terminate"


@pytest.mark.parametrize("limit", [1, 7, 10, 19, 57, 100])
def test_paging_walks_every_question_once_in_created_order(project, many_questions, limit):
    expected = [r[0] for r in sorted(many_questions, key=lambda r: (r[1], r[0]))]
    pages = _walk(project, sort="created", limit=limit)
    ids = [q.id for page in pages for q in page]
    assert ids == expected
    assert len(set(ids)) == len(ids) == 57
    assert all(len(page) <= limit for page in pages)
    assert all(len(page) == limit for page in pages[:-1])


@pytest.mark.parametrize("limit", [1, 10, 19])
def test_paging_descending(project, many_questions, limit):
    expected = [r[0] for r in sorted(many_questions, key=lambda r: (r[1], r[0]), reverse=True)]
    ids = [q.id for page in _walk(project, sort="-created", limit=limit) for q in page]
    assert ids == expected


@pytest.mark.parametrize("sort", ["created", "-created"])
def test_paging_filters_by_status(project, many_questions, sort):
    for status in STATUSES:
        rows = [r for r in many_questions if r[2] == status]
        expected = sorted(rows, key=lambda r: (r[1], r[0]), reverse=sort == "-created")
        got = [q for page in _walk(project, status=status, sort=sort, limit=4) for q in page]
        assert [q.id for q in got] == [r[0] for r in expected]
        assert {q.status for q in got} == {status}


def test_paging_rejects_unknown_sort(project):
    with pytest.raises(ValueError, match="sort"):
        project.questions.page(sort="text")


def test_add_many_is_all_or_nothing(project):
    bad = [_question(0), _question(1), {"benchmark": "mgvqa", "task": "count"}]
    with pytest.raises(ValueError):
        project.questions.add_many(bad)
    assert _count(project, "questions") == 0


def test_correct_makes_a_new_version_and_keeps_the_old(project, alice, bob):
    q1 = project.questions.add(_question(1))
    q2 = project.questions.correct(q1.id, {"text": "How many red mugs?", "answer": 2}, bob)
    assert q2.version == 2 and q2.uid == q1.uid and q2.id != q1.id
    assert q2.is_current and q2.status == "corrected"
    assert q2.text == "How many red mugs?" and q2.answer == 2
    assert q2.evidence_ids == q1.evidence_ids and q2.difficulty == q1.difficulty
    old = project.questions.get(q1.id)
    assert old.version == 1 and not old.is_current
    assert old.text == q1.text and old.answer == q1.answer
    assert [v.version for v in project.questions.versions(q1.uid)] == [1, 2]
    # Listings show the current version only.
    assert [q.id for q in project.questions.page().rows] == [q2.id]
    with pytest.raises(ProjectError, match="newer version"):
        project.questions.correct(q1.id, {"text": "again"}, alice)
    with pytest.raises(ValueError, match="cannot correct"):
        project.questions.correct(q2.id, {"status": "approved"}, alice)
    q3 = project.questions.correct(q2.id, {"answer": 3}, alice)
    assert q3.version == 3
    assert [v.is_current for v in project.questions.versions(q1.uid)] == [False, False, True]


def test_counts_by_status_counts_current_versions(project, bob):
    project.questions.add_many([_question(i, status=STATUSES[i % 4]) for i in range(10)])
    assert project.questions.counts_by_status() == {
        "pending": 3,
        "approved": 3,
        "corrected": 2,
        "excluded": 2,
    }
    pending = project.questions.page(status="pending").rows[0]
    project.questions.correct(pending.id, {"text": "fixed"}, bob)
    assert project.questions.counts_by_status() == {
        "pending": 2,
        "approved": 3,
        "corrected": 3,
        "excluded": 2,
    }
    assert _count(project, "questions") == 11


def test_empty_project_counts_every_status(project):
    assert project.questions.counts_by_status() == dict.fromkeys(STATUSES, 0)
    page = project.questions.page(status="pending")
    assert page.rows == [] and page.next_cursor is None


# -- HOI labels and reviews ---------------------------------------------------


@pytest.mark.parametrize("difficulty", [1, 2, 3])
def test_hoi_label_is_saved_with_its_annotator(project, alice, frame_and_entities, difficulty):
    label = _label(project, frame_and_entities, alice, difficulty=difficulty)
    assert project.hoi.get_label(label.id) == label
    assert label.difficulty == difficulty and label.annotator_id == alice.id
    assert project.hoi.labels_for_frame(frame_and_entities[0].id) == [label]


@pytest.mark.parametrize("difficulty", [0, 4, -1, "2", None])
def test_hoi_label_rejects_bad_difficulty_and_writes_nothing(
    project, alice, frame_and_entities, difficulty
):
    before = (_count(project, "hoi_labels"), _count(project, "audit_log"))
    with pytest.raises(ValueError, match="difficulty"):
        _label(project, frame_and_entities, alice, difficulty=difficulty)
    assert (_count(project, "hoi_labels"), _count(project, "audit_log")) == before
    assert not project.db.conn.in_transaction


def test_hoi_label_needs_an_annotator(project, frame_and_entities):
    with pytest.raises(ProjectError, match="annotator"):
        _label(project, frame_and_entities, None)
    assert _count(project, "hoi_labels") == 0


def test_set_difficulty_validates(project, alice, bob, frame_and_entities):
    label = _label(project, frame_and_entities, alice, difficulty=1)
    assert project.hoi.set_difficulty(label.id, 3, alice).difficulty == 3
    with pytest.raises(ValueError):
        project.hoi.set_difficulty(label.id, 4, alice)
    assert project.hoi.get_label(label.id).difficulty == 3


def test_only_the_author_changes_or_deletes_a_label(project, alice, bob, frame_and_entities):
    """The rule lives in the store, so the CLI, the panels and package merges all meet it."""
    label = _label(project, frame_and_entities, alice, difficulty=1)
    audit_before = _count(project, "audit_log")
    with pytest.raises(ProjectError, match="only its author changes it"):
        project.hoi.set_difficulty(label.id, 3, bob)
    with pytest.raises(ProjectError, match="only its author deletes it"):
        project.hoi.delete_label(label.id, bob)
    assert project.hoi.get_label(label.id).difficulty == 1
    assert _count(project, "audit_log") == audit_before


def test_author_cannot_review_own_label(project, alice, frame_and_entities):
    label = _label(project, frame_and_entities, alice)
    audit_before = _count(project, "audit_log")
    with pytest.raises(ProjectError, match="own label"):
        project.hoi.review(label.id, reviewer=alice, verdict="accept")
    assert _count(project, "hoi_reviews") == 0
    assert _count(project, "audit_log") == audit_before


def test_two_other_annotators_review(project, alice, bob, carol, frame_and_entities):
    label = _label(project, frame_and_entities, alice)
    r1 = project.hoi.review(label.id, reviewer=bob, verdict="accept")
    r2 = project.hoi.review(label.id, reviewer=carol, verdict="fix", difficulty=3, comment="hard")
    assert (r1.reviewer_id, r1.verdict) == (bob.id, "accept")
    assert (r2.reviewer_id, r2.verdict, r2.difficulty) == (carol.id, "fix", 3)
    assert _count(project, "hoi_reviews") == 2
    # A reviewer changing their mind replaces their review.
    again = project.hoi.review(label.id, reviewer=bob, verdict="reject", comment="not holding")
    assert again.id == r1.id and again.verdict == "reject"
    assert _count(project, "hoi_reviews") == 2
    with pytest.raises(ValueError, match="verdict"):
        project.hoi.review(label.id, reviewer=bob, verdict="maybe")
    with pytest.raises(ValueError, match="difficulty"):
        project.hoi.review(label.id, reviewer=bob, verdict="fix", difficulty=0)


# -- episodes and images ------------------------------------------------------


def _steps(image_sha=None) -> list[dict]:
    return [
        {
            "kind": "tool",
            "name": "detect",
            "arguments": {"query": "mug"},
            "result": [1],
            "ok": True,
        },
        {"kind": "format_error", "raw_output": "{'answer': 3", "feedback": "unparseable"},
        {
            "kind": "action",
            "name": "grasp",
            "arguments": {"object": "mug_1"},
            "ok": False,
            "state": {"bodies": {"mug_1": [0, 0, 0.8]}},
            "image_sha256": image_sha,
        },
        {"kind": "answer", "name": "answer", "result": 3, "ok": True},
    ]


def test_episode_with_steps_including_format_error(project):
    sha = project.images.put(b"\x89PNG fake observation", "image/png", 4, 3)
    ep = project.episodes.add(
        {"benchmark": "st-bibench", "model": "gpt-4o", "task": "stack", "success": False},
        _steps(sha),
        source="vlmout.txt",
    )
    assert ep.step_count == 4 and ep.success is False and ep.model == "gpt-4o"
    steps = project.episodes.steps(ep.id)
    assert [s.kind for s in steps] == ["tool", "format_error", "action", "answer"]
    assert [s.index for s in steps] == [0, 1, 2, 3]
    assert steps[1].raw_output == "{'answer': 3" and steps[1].ok is None
    assert steps[2].state == {"bodies": {"mug_1": [0, 0, 0.8]}} and steps[2].ok is False
    assert steps[2].image_sha256 == sha
    assert project.images.get(sha) == ("image/png", b"\x89PNG fake observation")


def test_invalid_step_kind_rolls_back_the_whole_episode(project):
    before = {t: _count(project, t) for t in ("episodes", "steps", "audit_log")}
    steps = _steps()
    steps.insert(3, {"kind": "thought", "name": "ponder"})
    with pytest.raises(ValueError, match="step 3"):
        project.episodes.add({"benchmark": "embodiedbench", "model": "m"}, steps)
    assert {t: _count(project, t) for t in before} == before
    assert not project.db.conn.in_transaction
    # The project is still writable afterwards.
    assert project.episodes.add({"benchmark": "embodiedbench"}, _steps()).step_count == 4


def test_images_are_stored_once_by_content_hash(project):
    a = project.images.put(b"same bytes", "image/jpeg")
    b = project.images.put(b"same bytes", "image/jpeg")
    c = project.images.put(b"other bytes", "image/jpeg")
    assert a == b != c
    assert re.fullmatch(r"[0-9a-f]{64}", a)
    assert _count(project, "images") == 2
    with pytest.raises(ProjectError, match="no image"):
        project.images.get("0" * 64)


# -- audit log and summary ----------------------------------------------------


def test_audit_log_records_annotator_names(project, alice, bob, frame_and_entities):
    label = _label(project, frame_and_entities, alice)
    project.hoi.review(label.id, reviewer=bob, verdict="accept")
    q = project.questions.add(_question(1))
    project.questions.correct(q.id, {"text": "better"}, bob)
    entries = project.audit.recent()
    assert entries == sorted(entries, key=lambda e: e.id, reverse=True)
    by_action = {(e.action, e.table): e for e in entries}
    assert by_action[("create", "hoi_labels")].annotator == "Alice"
    assert by_action[("create", "hoi_labels")].row_id == str(label.id)
    assert by_action[("create", "hoi_labels")].detail == {"predicate": "holding", "difficulty": 2}
    assert by_action[("review", "hoi_labels")].annotator == "Bob"
    assert by_action[("correct", "questions")].annotator == "Bob"
    assert by_action[("create", "questions")].annotator is None  # generated, nobody's
    assert {e.annotator for e in entries if e.table == "annotators"} == {"Alice", "Bob"}
    assert project.audit.count() == len(entries)
    assert [e.id for e in project.audit.recent(limit=2)] == [e.id for e in entries[:2]]


def test_summary_counts(project, alice, bob, frame_and_entities):
    _label(project, frame_and_entities, alice)
    label = _label(project, frame_and_entities, alice, predicate="drinking")
    project.hoi.review(label.id, reviewer=bob, verdict="accept")
    project.questions.add_many([_question(i, status=STATUSES[i % 4]) for i in range(6)])
    sha = project.images.put(b"img", "image/png")
    project.episodes.add({"benchmark": "b"}, _steps(sha))
    s = project.summary.summary()
    assert s.path == str(project.path)
    assert s.schema_version == schema.SCHEMA_VERSION
    assert (s.annotators, s.sequences, s.frames, s.entities) == (2, 1, 1, 2)
    assert (s.hoi_labels, s.hoi_reviews) == (2, 1)
    assert s.questions == {"pending": 2, "approved": 2, "corrected": 1, "excluded": 1}
    assert (s.episodes, s.steps, s.format_error_steps, s.images) == (1, 4, 1, 1)
    assert (s.scenes, s.boxes_2d, s.boxes_3d, s.verifications, s.error_labels) == (0,) * 5
    assert s.audit_entries == project.audit.count() > 0
    assert s.as_dict()["questions"] == s.questions


# -- schema and migrations ----------------------------------------------------


def _schema(db: Database) -> list[tuple[str, str, str]]:
    rows = db.execute(
        "SELECT type, name, sql FROM sqlite_master "
        "WHERE type IN ('table', 'index', 'trigger', 'view') AND sql IS NOT NULL "
        "AND name NOT LIKE 'sqlite_%' ORDER BY type, name"
    ).fetchall()
    return [(t, n, " ".join(sql.replace("[", '"').replace("]", '"').split())) for t, n, sql in rows]


def test_step_by_step_migration_matches_a_fresh_project(tmp_path):
    names = schema.known_migration_names()
    assert names and len(names) == schema.SCHEMA_VERSION
    db = Database(tmp_path / "stepwise.db")
    for i, name in enumerate(names):
        schema.migrations.apply(db, stop_before=names[i + 1 :])
        applied = [m.name for m in schema.migrations.applied(db)]
        assert applied == names[: i + 1], f"after step {name}"
    schema.migrations.apply(db)  # nothing left: a no-op
    assert [m.name for m in schema.migrations.applied(db)] == names
    with open_project(tmp_path / "fresh.reasonscope", create=True) as fresh:
        assert _schema(db) == _schema(fresh.db)
        assert fresh.schema_version == len(names)
    db.close()
    # A file migrated outside the app opens as a project, at the current version.
    with open_project(tmp_path / "stepwise.db") as p:
        assert p.schema_version == schema.SCHEMA_VERSION
        assert p.annotators.sign_in("Alice").name == "Alice"


def test_reopening_does_not_migrate_again(tmp_path):
    path = tmp_path / "p.reasonscope"
    with open_project(path, create=True) as p:
        first = [(m.name, m.applied_at) for m in schema.migrations.applied(p.db)]
        before = _schema(p.db)
    with open_project(path) as p:
        assert [(m.name, m.applied_at) for m in schema.migrations.applied(p.db)] == first
        assert _schema(p.db) == before
        assert p.integrity_ok()


@pytest.fixture
def memory_db():
    db = Database(memory=True)
    db.execute("PRAGMA foreign_keys = ON")
    schema.migrations.apply(db)
    yield db
    db.close()


def test_memory_database_fixture_works_with_migrations(memory_db, tmp_path):
    assert [m.name for m in schema.migrations.applied(memory_db)] == schema.known_migration_names()
    assert {"questions", "hoi_labels", "episodes", "steps", "project_meta"} <= set(
        memory_db.table_names()
    )
    assert memory_db["project_meta"].get("application")["value"] == "reasonscope"
    with open_project(tmp_path / "fresh.reasonscope", create=True) as fresh:
        assert _schema(memory_db) == _schema(fresh.db)
    # Repositories work over it too, for tests that need no file.
    p = Project(tmp_path / "in-memory", memory_db.conn, readonly=False)
    alice = p.annotators.sign_in("Alice")
    q = p.questions.add(_question(1), annotator=alice)
    assert p.questions.get(q.id).created_by == alice.id
    assert p.schema_version == schema.SCHEMA_VERSION
