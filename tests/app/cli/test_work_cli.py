"""`reasonscope verify`, `review` and `queue` on real project files: a person's work headless,
under the store's rules (blind pairs, no self-review, two reviewers a round, packages)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hoi_fixtures import build_hoi_project, copy_of

from app.cli import main
from store import open_project

ROOT = Path(__file__).resolve().parents[3]
MUGS = {
    "benchmark": "mgvqa",
    "task": "count",
    "text": "How many mugs?",
    "options": [1, 2, 3],
    "answer": 2,
    "evidence_ids": ["mug_1", "mug_2"],
    "difficulty": {"S": 2, "R": 1, "T": 1},
}


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def refused(capsys, *args: str) -> str:
    """Run a command that must be refused: exit 2, one line on stderr; that line."""
    code, out, err = cli(capsys, *args)
    assert code == 2, out
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def counts(db: Path) -> tuple[int, ...]:
    """What a refused action must leave as it was."""
    with open_project(db) as project:
        return tuple(
            project.db.execute(f"SELECT count(*) FROM {table}").fetchone()[0]
            for table in ("annotators", "verifications", "questions", "hoi_reviews", "audit_log")
        )


@pytest.fixture
def qdb(tmp_path) -> tuple[Path, list[int]]:
    """A project with three pending questions; nobody has signed in yet."""
    db = tmp_path / "q.reasonscope"
    with open_project(db, create=True) as project:
        ids = [project.questions.add({**MUGS, "text": f"How many mugs? {i}"}).id for i in range(3)]
    return db, ids


def verify(capsys, db: Path, qid: int, who: str, decision: str, *extra: str) -> dict:
    criteria = "none" if decision == "reject" else "1,2,3"
    args = ["verify", str(qid), "--as", who, "--decision", decision, "--criteria", criteria]
    if decision == "reject":
        args += ["--reason", "the mug is in plain sight"]
    code, out, err = cli(capsys, *args, *extra, "--db", str(db), "--json")
    assert code == 0, err
    return json.loads(out)


def queue(capsys, db: Path, who: str) -> dict:
    code, out, err = cli(capsys, "queue", "--as", who, "--db", str(db), "--json")
    assert code == 0, err
    return json.loads(out)


def test_two_approvals_approve_the_question(capsys, qdb):
    db, (qid, *_) = qdb
    first = verify(capsys, db, qid, "ana", "approve", "--seconds", "12.5")
    assert first["round"] == "first" and first["decision"] == "approve"
    assert (first["status"], first["needs_adjudication"]) == ("pending", False)
    second = verify(capsys, db, qid, "bob", "approve")
    assert second["question_id"] == qid and second["status"] == "approved"
    assert second["verification_id"] != first["verification_id"]
    with open_project(db) as project:
        assert project.questions.get(qid).status == "approved"
        assert project.verifications.time_on_task()["total_s"] == 12.5


def test_a_disagreement_is_adjudicated_by_a_third_person(capsys, qdb):
    db, (qid, *_) = qdb
    verify(capsys, db, qid, "ana", "approve")
    before_pair = queue(capsys, db, "carol")
    assert qid in [q["question_id"] for q in before_pair["verify"]]
    assert before_pair["adjudicate"] == [] and before_pair["known"] is False
    bob = verify(capsys, db, qid, "bob", "reject")
    assert (bob["status"], bob["needs_adjudication"]) == ("pending", True)
    carol = queue(capsys, db, "carol")
    assert carol["adjudicate"] == [
        {"question_id": qid, "benchmark": "mgvqa", "task": "count", "text": "How many mugs? 0"}
    ]
    assert qid not in [q["question_id"] for q in carol["verify"]]
    for who in ("ana", "Bob"):
        mine = queue(capsys, db, who)
        assert mine["adjudicate"] == [] and mine["known"] is True
        assert qid not in [q["question_id"] for q in mine["verify"]]
    with open_project(db) as project:
        assert project.annotators.find("carol") is None  # queue reads only
    code, out, err = cli(capsys, "queue", "--as", "carol", "--db", str(db))
    assert code == 0 and "1 to adjudicate" in out and "not in the project yet" in out
    decided = verify(capsys, db, qid, "carol", "reject")
    assert decided["round"] == "adjudication" and decided["status"] == "excluded"
    assert queue(capsys, db, "carol")["adjudicate"] == []


def test_the_same_person_twice_is_refused_and_nothing_changes(capsys, qdb):
    db, (qid, *_) = qdb
    verify(capsys, db, qid, "ana", "approve")
    before = counts(db)
    line = refused(
        capsys,
        "verify",
        str(qid),
        "--as",
        " ANA ",
        "--decision",
        "approve",
        "--criteria",
        "1,2,3",
        "--db",
        str(db),
    )
    assert str(db) in line and "one person cannot fill two slots" in line
    verify(capsys, db, qid, "bob", "approve")
    line = refused(
        capsys,
        "verify",
        str(qid),
        "--as",
        "carol",
        "--decision",
        "approve",
        "--criteria",
        "1,2,3",
        "--db",
        str(db),
    )
    assert "there is no third slot" in line
    assert counts(db)[0] == before[0] + 1  # bob only: carol's sign-in went with the refusal


def test_a_correction_proposes_a_version_that_agreement_makes_current(capsys, qdb):
    db, (qid, *_) = qdb
    edit = ("--text", "How many red mugs?", "--answer", "3", "--options", "[1, 2, 3, 4]")
    ana = verify(capsys, db, qid, "ana", "correct", *edit)
    proposed = ana["proposed_question_id"]
    assert proposed is not None and ana["status"] == "pending"
    with open_project(db) as project:
        version = project.questions.get(proposed)
        assert not version.is_current and version.version == 2
        assert (version.text, version.answer, version.options) == (
            "How many red mugs?",
            3,
            [1, 2, 3, 4],
        )
        assert project.questions.get(qid).is_current
    bob = verify(capsys, db, qid, "bob", "correct", *edit)
    assert bob["status"] == "corrected"
    with open_project(db) as project:
        assert project.questions.get(proposed).is_current
        assert project.questions.get(proposed).status == "corrected"


def test_bad_verdicts_exit_2_before_anything_is_written(capsys, qdb, tmp_path):
    db, (qid, *_) = qdb
    before = counts(db)
    base = ["verify", str(qid), "--as", "ana", "--db", str(db)]
    line = refused(capsys, *base, "--decision", "approve", "--criteria", "1,2")
    assert "contradicts the criteria" in line and str(db) in line
    line = refused(capsys, *base, "--decision", "reject", "--criteria", "none")
    assert "a reject needs a reason" in line
    line = refused(capsys, *base, "--decision", "approve", "--criteria", "1,2,3", "--answer", "3")
    assert "only a correction carries edits" in line
    line = refused(capsys, *base, "--decision", "correct", "--criteria", "2,3", "--answer", "2")
    assert "changes nothing" in line  # the store's rule, inside the write: rolled back
    line = refused(capsys, *base, "--decision", "correct", "--criteria", "2,3", "--options", "[")
    assert "--options" in line
    assert "no criterion" in refused(capsys, *base, "--decision", "approve", "--criteria", "1,5")
    line = refused(capsys, *base, "--decision", "approve", "--criteria", "1,2,3,4")
    assert "criterion 4 (volumes distinct) is asked only for a Compare question" in line
    assert "no question with id 99" in refused(
        capsys,
        "verify",
        "99",
        "--as",
        "ana",
        "--decision",
        "approve",
        "--criteria",
        "1,2,3",
        "--db",
        str(db),
    )
    assert counts(db) == before
    missing = tmp_path / "missing.reasonscope"
    line = refused(capsys, "queue", "--as", "ana", "--db", str(missing))
    assert str(missing) in line and "no such project" in line and not missing.exists()


def test_a_compare_question_asks_criterion_4(capsys, tmp_path):
    """MG-VQA C.2: a Compare verdict says whether the three volumes are visibly distinct;
    without 4 it does not hold, so only reject is left; the verdict stores 0 or 1."""
    db = tmp_path / "compare.reasonscope"
    with open_project(db, create=True) as project:
        qid = project.questions.add(
            {**MUGS, "task": "compare", "text": "Which is largest?", "answer": 1}
        ).id
    base = ["verify", str(qid), "--db", str(db)]
    before = counts(db)
    line = refused(capsys, *base, "--as", "ana", "--decision", "approve", "--criteria", "1,2,3")
    assert "'approve' contradicts the criteria; allowed: reject" in line
    assert "criterion 4 (volumes distinct) not met" in line and str(db) in line
    line = refused(
        capsys,
        *base,
        "--as",
        "ana",
        "--decision",
        "correct",
        "--criteria",
        "1,2,3",
        "--answer",
        "2",
    )
    assert "criterion 4 (volumes distinct) not met" in line
    assert counts(db)[1:3] == before[1:3]  # no verdict, no proposed version
    code, out, err = cli(
        capsys, *base, "--as", "ana", "--decision", "approve", "--criteria", "1,2,3,4"
    )
    assert code == 0, err
    assert (
        "criteria met: unambiguous, evidence withheld, evidence recoverable, volumes distinct"
        in out
    )
    code, out, err = cli(
        capsys,
        *base,
        "--as",
        "ben",
        "--decision",
        "reject",
        "--criteria",
        "1,2,3",
        "--reason",
        "the box and the tin are one size",
        "--json",
    )
    assert code == 0, err
    assert json.loads(out)["needs_adjudication"] is True
    with open_project(db) as project:
        rows = project.db.execute(
            "SELECT a.name, v.volumes_distinct FROM verifications v "
            "JOIN annotators a ON a.id = v.annotator_id ORDER BY v.id"
        ).fetchall()
    assert rows == [("ana", 1), ("ben", 0)]


def test_verify_text_output_says_only_what_the_person_may_see(capsys, qdb):
    db, (qid, *_) = qdb
    code, out, _ = cli(
        capsys,
        "verify",
        str(qid),
        "--as",
        "ana",
        "--decision",
        "reject",
        "--criteria",
        "1",
        "--reason",
        "in plain sight",
        "--db",
        str(db),
    )
    assert code == 0
    assert "first-round verdict" in out and "waiting for a second verifier" in out
    code, out, _ = cli(
        capsys,
        "verify",
        str(qid),
        "--as",
        "bob",
        "--decision",
        "approve",
        "--criteria",
        "1,2,3",
        "--db",
        str(db),
    )
    assert code == 0 and "disagree" in out and "adjudicates" in out


# -- HOI reviews ------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def hoi_base(tmp_path_factory):
    return build_hoi_project(tmp_path_factory.mktemp("hoi"))


@pytest.fixture
def hp(hoi_base, tmp_path):
    return copy_of(hoi_base, tmp_path)


def add_label(hp, author: str, frame: int = 0, predicate: str = "holding") -> int:
    with open_project(hp.db) as project:
        return project.hoi.add_label(
            frame_id=hp.frame_ids[frame],
            subject_entity_id=hp.persons["pedestrian:2"],
            object_entity_id=hp.objects["bag:1"],
            category="physical",
            predicate=predicate,
            difficulty=3,
            annotator=project.annotators.sign_in(author),
        ).id


def review(capsys, hp, label_id: int, who: str, *extra: str) -> dict:
    code, out, err = cli(
        capsys, "review", str(label_id), "--as", who, *extra, "--db", str(hp.db), "--json"
    )
    assert code == 0, err
    return json.loads(out)


def test_reviews_follow_the_rules(capsys, hp):
    label = add_label(hp, "ana")
    before = counts(hp.db)
    base = ["review", str(label), "--db", str(hp.db)]
    line = refused(capsys, *base, "--as", "Ana", "--decision", "accept")
    assert str(hp.db) in line and "cannot review their own label" in line
    line = refused(capsys, *base, "--as", "bob", "--decision", "reject")
    assert "needs a comment" in line
    assert counts(hp.db) == before  # not even bob's first sign-in
    bob = review(capsys, hp, label, "bob", "--decision", "accept", "--difficulty", "2")
    assert bob["round"] == 1 and bob["kind"] == "review" and bob["reviews_in_round"] == 1
    assert (bob["decision"], bob["difficulty"]) == ("accept", 2)
    carol = review(capsys, hp, label, "carol", "--decision", "accept", "--difficulty", "3")
    assert carol["reviews_in_round"] == 2
    line = refused(capsys, *base, "--as", "dan", "--decision", "accept")
    assert "already has its two reviews" in line
    again = review(capsys, hp, label, "bob", "--decision", "reject", "--comment", "a phone")
    assert again["review_id"] == bob["review_id"] and again["reviews_in_round"] == 2
    with open_project(hp.db) as project:
        record = project.hoi.record(label)
        assert record.status == "returned"
        assert sorted(r.reviewer_name for r in record.current()) == ["bob", "carol"]


def test_review_queues_are_blind_and_the_author_sees_the_returned_label(capsys, hp):
    label = add_label(hp, "ana")
    bob = queue(capsys, hp.db, "bob")
    (item,) = [i for i in bob["review"] if i["label_id"] == label]
    assert item["predicate"] == "holding" and item["author"] == "ana"
    assert item["frame_id"] == hp.frame_ids[0] and item["reviews_in_round"] == 0
    assert "difficulty" not in item and "reviews" not in item  # the review form is blind
    assert queue(capsys, hp.db, "ana")["review"] == []
    review(capsys, hp, label, "bob", "--decision", "reject", "--comment", "holds a phone")
    assert label not in [i["label_id"] for i in queue(capsys, hp.db, "bob")["review"]]
    (mine,) = queue(capsys, hp.db, "ana")["returned"]
    assert mine["label_id"] == label and mine["difficulty"] == 3
    assert mine["reviews"] == [
        {
            "reviewer": "bob",
            "kind": "review",
            "decision": "reject",
            "difficulty": None,
            "comment": "holds a phone",
        }
    ]


def test_a_third_person_quality_checks_a_sampled_label(capsys, hp):
    with open_project(hp.db) as project, project.write():
        project.db.execute("INSERT INTO project_meta(key, value) VALUES ('hoi_qc_rate', '1.0')")
    label = add_label(hp, "ana")
    review(capsys, hp, label, "bob", "--decision", "accept", "--difficulty", "2")
    assert queue(capsys, hp.db, "dan")["qc"] == []
    review(capsys, hp, label, "carol", "--decision", "accept", "--difficulty", "2")
    assert [i["label_id"] for i in queue(capsys, hp.db, "dan")["qc"]] == [label]
    assert queue(capsys, hp.db, "bob")["qc"] == []
    line = refused(
        capsys,
        "review",
        str(label),
        "--as",
        "bob",
        "--decision",
        "accept",
        "--qc",
        "--db",
        str(hp.db),
    )
    assert "cannot also quality-check" in line
    dan = review(capsys, hp, label, "dan", "--decision", "reject", "--qc", "--comment", "no bag")
    assert dan["kind"] == "qc" and dan["reviews_in_round"] == 1
    assert [i["label_id"] for i in queue(capsys, hp.db, "ana")["returned"]] == [label]


# -- work packages ---------------------------------------------------------------------------
def test_a_work_package_is_only_its_persons(capsys, qdb):
    db, (qid, *_) = qdb
    with open_project(db) as project, project.write():
        project.db.execute(
            "INSERT INTO project_meta(key, value) VALUES ('package', ?)",
            [json.dumps({"person": "ana", "role": "verifier"})],
        )
    before = counts(db)
    for args in (
        ["verify", str(qid), "--decision", "approve", "--criteria", "1,2,3"],
        ["review", "1", "--decision", "accept"],
        ["queue"],
    ):
        line = refused(capsys, *args, "--as", "bob", "--db", str(db))
        assert line.endswith(f"{db}: this work package is ana's; bob cannot work in it")
    assert counts(db) == before
    assert verify(capsys, db, qid, "Ana", "approve")["status"] == "pending"
    assert queue(capsys, db, "ana")["verify"] == [
        {"question_id": i, "benchmark": "mgvqa", "task": "count", "text": f"How many mugs? {n}"}
        for n, i in enumerate(qdb[1])
        if i != qid
    ]


def test_queue_limit_and_the_console_script(qdb):
    db, ids = qdb
    result = subprocess.run(
        [
            sys.executable,
            "-m",
            "app.cli",
            "queue",
            "--as",
            "eve",
            "--limit",
            "2",
            "--db",
            str(db),
            "--json",
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert [q["question_id"] for q in data["verify"]] == ids[:2]
    assert data["truncated"] == ["verify"] and data["person"] == "eve"
    assert set(data) == {
        "person",
        "known",
        "verify",
        "adjudicate",
        "review",
        "returned",
        "qc",
        "truncated",
    }
