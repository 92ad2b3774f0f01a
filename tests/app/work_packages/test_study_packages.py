"""Human-study work packages end to end on real project files: a rater's and a
human-baseline answerer's packages chosen by the study queues, blind (no D, no answer, no
one's ratings or answers), worked in as projects and merged back through the same
repository calls as the Human study mode, idempotently, the answers scored here."""

from __future__ import annotations

import json
import shutil
import sqlite3

import pytest
from question_fixtures import WH_ANSWER, build_study_project
from scipy.stats import spearmanr

from annotation.jrdb.reasoning_eval import NO_GOLD
from app.cli import main
from app.jobs.metrics import project_reasoning_metrics
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import apply_conflict, merge_package
from store import ProjectError, open_project
from store.package_io import content_hash

DIFFICULTY_COLUMNS = ("difficulty_s", "difficulty_r", "difficulty_t", "difficulty_d")
# `build_study_project`: questions 1-3 JRDB (vg, vqa-count, vqa-wh), 4-5 tabletop counts
JRDB, TABLETOP = [1, 2, 3], [4, 5]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    return build_study_project(tmp_path_factory.mktemp("study_packages"))


@pytest.fixture
def db(built, tmp_path):
    path = tmp_path / "project.reasonscope"
    shutil.copyfile(built, path)
    return path


def _pack(db, person, role, **kw):
    n = len(list(db.parent.glob(f"{person}-{role}*.rspack")))
    out = db.parent / f"{person}-{role}{f'-{n + 1}' if n else ''}.rspack"
    kw.setdefault("questions", "pending")
    return out, create_package(db, PackageRequest(person, role, **kw), out)


def _rows(path, sql):
    conn = sqlite3.connect(path)
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def _state(db):
    with open_project(db) as p:
        rows = lambda sql: p.db.execute(sql).fetchall()  # noqa: E731
        return (
            rows("SELECT * FROM difficulty_ratings ORDER BY id"),
            rows("SELECT * FROM human_answers ORDER BY id"),
            rows("SELECT count(*) FROM audit_log"),
            rows("SELECT * FROM package_work ORDER BY package_id, kind, source_id"),
            rows("SELECT * FROM assignments ORDER BY id"),
        )


def test_a_rater_package_holds_its_questions_blind_and_nobodys_ratings(db):
    pack, manifest = _pack(db, "Ada", "rater")
    assert manifest["role"] == "rater"
    assert sorted(i["id"] for i in manifest["items"]) == JRDB + TABLETOP
    assert {(i["kind"], i["version"]) for i in manifest["items"]} == {("rating", "1")}
    # the file, read with sqlite3 alone: no S, R, T or D, no answer, evidence or steps
    questions = _rows(pack, f"SELECT {', '.join(DIFFICULTY_COLUMNS)} FROM questions")
    assert len(questions) == 5 and set(questions) == {(None, None, None, None)}
    blanks = _rows(pack, "SELECT DISTINCT answer, evidence_ids, steps FROM questions")
    assert blanks == [("null", "[]", "[]")]
    for (criteria,) in _rows(pack, "SELECT criteria FROM questions"):
        assert set(json.loads(criteria)) <= {"frame_ids", "image_ids"}
    everything = " ".join(str(v) for row in _rows(pack, "SELECT * FROM questions") for v in row)
    assert WH_ANSWER not in everything and "preferences" not in everything
    # nobody's ratings or answers, Zoe's included
    assert _rows(pack, "SELECT count(*) FROM difficulty_ratings") == [(0,)]
    assert _rows(pack, "SELECT count(*) FROM human_answers") == [(0,)]
    # the panorama travels (the study shows it), the point clouds do not
    files = [path for (path,) in _rows(pack, "SELECT path FROM package_files")]
    assert files and all(path.endswith(".jpg") for path in files)
    # the hash is over what the package holds; the project keeps its D
    hashed = {t: ids for t, ids in manifest["copied"].items() if t in manifest["hashed"]}
    assert content_hash(pack, hashed) == manifest["content_sha256"]
    with open_project(db) as p:
        assert p.questions.get(3).difficulty.D == 6 and p.questions.get(3).answer == WH_ANSWER


def test_pending_takes_the_study_queues_and_nothing_goes_to_a_person_twice(db):
    with open_project(db) as p:
        zoe = p.annotators.sign_in("Zoe")
        queue = p.reasoning.rating_queue(zoe)
    assert 1 not in queue  # she rated it in the project
    _, manifest = _pack(db, "Zoe", "rater")
    assert [i["id"] for i in manifest["items"]] == queue
    with open_project(db) as p:  # out with her: the project's study queue leaves them out
        assert p.reasoning.next_to_rate(p.annotators.sign_in("Zoe")) is None
    with pytest.raises(ProjectError, match="nothing to hand to Zoe as rater"):
        _pack(db, "Zoe", "rater")
    with pytest.raises(ProjectError, match="question 1: Zoe rated it already"):
        _pack(db, "Zoe", "rater", questions=[1])
    _pack(db, "Ada", "rater", questions=[2], benchmark="jrdb")
    with pytest.raises(ProjectError, match="question 2: already handed to Ada"):
        _pack(db, "Ada", "rater", questions=[2])
    _, manifest = _pack(db, "Ada", "rater", benchmark="mgvqa", limit=1)
    assert [i["id"] for i in manifest["items"]] in ([4], [5])
    # the human baseline: JRDB questions only, not answered by the person
    _, manifest = _pack(db, "Zoe", "human-baseline")
    assert sorted(i["id"] for i in manifest["items"]) == [2, 3]
    assert {i["kind"] for i in manifest["items"]} == {"answer"}
    with pytest.raises(ProjectError, match="the human baseline answers jrdb questions only"):
        _pack(db, "Ben", "human-baseline", benchmark="mgvqa")
    with pytest.raises(ProjectError, match="question 4: is a mgvqa question; the human base"):
        _pack(db, "Ben", "human-baseline", questions=[4])


def test_a_refused_request_exits_2_with_one_line_and_writes_nothing(db, capsys):
    before = _state(db)

    def create(out, questions, *more):
        return main(
            ["pack", "create", "--for", "Cy", "--role", "rater", "--questions", questions]
            + ["--out", str(db.parent / out), "--db", str(db), *more]
        )

    assert create("cy.rspack", "1,99") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and str(db) in err and "no question with id 99" in err
    assert _state(db) == before and not (db.parent / "cy.rspack").exists()
    assert create("cy.rspack", "pending", "--json") == 0
    shown = json.loads(capsys.readouterr().out)
    assert (shown["role"], len(shown["items"])) == ("rater", 5)
    after = _state(db)
    assert create("again.rspack", "3") == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "question 3: already handed to Cy" in err
    assert _state(db) == after and not (db.parent / "again.rspack").exists()


def test_ratings_and_answers_merge_back_scored_here_and_once(db):
    with open_project(db) as p:
        gold = {q: p.questions.get(q).answer for q in JRDB}
    rater, _ = _pack(db, "Ada", "rater", benchmark="jrdb")
    answerer, _ = _pack(db, "Ben", "human-baseline")
    with open_project(rater) as p:
        with pytest.raises(ProjectError, match="this work package is Ada's; Ben cannot"):
            p.packages.check_person("Ben")
        p.packages.check_person("Ada")
        ada = p.annotators.sign_in("Ada")
        given = {}
        while (q := p.reasoning.next_to_rate(ada)) is not None:
            assert q.difficulty is None and q.answer is None  # blind
            given[q.id] = {1: 5, 2: 1, 3: 3}[q.id]
            p.reasoning.rate(q.id, ada, given[q.id])
        assert p.reasoning.rating_progress(ada) == (3, 3)
    with open_project(answerer) as p:
        ben = p.annotators.sign_in("Ben")
        answers = {1: gold[1]["boxes"][0], 2: gold[2], 3: "childhood"}  # the Wh one wrong
        while (q := p.reasoning.next_to_answer(ben)) is not None:
            score = p.reasoning.answer(q.id, ben, answers[q.id])
            assert score.reason == NO_GOLD and not score.correct  # no gold here to score with
        # a package that says its wrong answer was right is not believed
        p.db.execute("UPDATE human_answers SET correct = 1, iou = 1.0")
    before = _state(db)
    report = merge_package(db, rater)
    assert report.merged["ratings"] == 3 and report.merged["audit entries"] == 3
    assert not report.conflicts and "3 ratings" in report.lines()[0]
    after = _state(db)
    assert after != before
    again = merge_package(db, rater)
    assert not again.changed and again.already == 6 and _state(db) == after
    report = merge_package(db, answerer)
    assert report.merged["answers"] == 3 and report.lines()[0].endswith(
        "3 answers, 3 audit entries"
    )
    with open_project(db) as p:
        ada, ben = p.annotators.find("Ada"), p.annotators.find("Ben")
        mine = {r.question_id: r.rating for r in p.reasoning.ratings(annotator=ada)}
        assert mine == given
        scored = {a.question_id: a for a in p.reasoning.human_answers(annotator=ben)}
        assert scored[1].correct and scored[1].iou == pytest.approx(1.0)
        assert scored[2].correct and scored[2].answer == gold[2]
        assert not scored[3].correct and scored[3].iou is None
        # each merged audit entry names the row it became here
        rows = p.db.execute(
            "SELECT row_id FROM audit_log WHERE action = 'rate' AND annotator_id = ?", [ada.id]
        ).fetchall()
        assert sorted(int(r[0]) for r in rows) == sorted(
            r.id for r in p.reasoning.ratings(annotator=ada)
        )
        team = {t["person"]: t for t in p.packages.team()}
        assert (team["Ada"]["merged"], team["Ada"]["work"]["ratings"]) == (3, 3)
        assert (team["Ben"]["merged"], team["Ben"]["work"]["answers"]) == (3, 3)
    # rated again in the package after the merge: a changed row, kept aside for a decision
    with open_project(rater) as p:
        p.reasoning.rate(2, p.annotators.sign_in("Ada"), 2)
    report = merge_package(db, rater)
    assert [(c["kind"], c["item_id"]) for c in report.conflicts] == [("rating", 2)]
    assert "changed in the package after a merge" in report.conflicts[0]["reason"]
    with open_project(db) as p:
        (conflict,) = p.packages.conflicts()
    apply_conflict(db, conflict["id"])  # the owner takes the new rating: it replaces the old
    with open_project(db) as p:
        latest = p.reasoning.ratings(2, annotator=p.annotators.find("Ada"))
        assert [r.rating for r in latest] == [2]


def test_a_rating_signed_by_someone_else_refuses_the_whole_package(db):
    pack, _ = _pack(db, "Ada", "rater", questions=[1, 2])
    with open_project(pack) as p:
        p.reasoning.rate(1, p.annotators.sign_in("Ada"), 2)
        p.reasoning.rate(2, p.annotators.sign_in("Mallory"), 5)  # signed in under her name
    before = _state(db)
    with pytest.raises(ProjectError, match=r"rating 2 is signed by Mallory, not by Ada"):
        merge_package(db, pack)
    assert _state(db) == before


def test_work_on_a_question_corrected_meanwhile_is_kept_aside(db):
    rater, _ = _pack(db, "Ada", "rater", questions=[2, 3])
    answerer, _ = _pack(db, "Ben", "human-baseline", questions=[2])
    with open_project(rater) as p:
        ada = p.annotators.sign_in("Ada")
        p.reasoning.rate(2, ada, 4)
        p.reasoning.rate(3, ada, 2)
    with open_project(answerer) as p:
        p.reasoning.answer(2, p.annotators.sign_in("Ben"), 3)
    with open_project(db) as p:
        p.questions.correct(
            2, {"text": "How many people are standing?"}, p.annotators.sign_in("Olga")
        )
    report = merge_package(db, rater)
    assert report.merged["ratings"] == 1
    assert [(c["kind"], c["item_id"]) for c in report.conflicts] == [("rating", 2)]
    assert "corrected here since" in report.conflicts[0]["reason"]
    report = merge_package(db, answerer)
    assert report.merged["answers"] == 0
    assert [(c["kind"], c["item_id"]) for c in report.conflicts] == [("answer", 2)]
    assert not merge_package(db, rater).changed  # kept aside once
    with open_project(db) as p:
        kept = {c["kind"]: c for c in p.packages.conflicts()}
        assert kept["rating"]["work"]["rating"] == 4
        current = [q for q in p.questions.versions(p.questions.get(2).uid) if q.is_current][0]
    # the owner decides: the rating applies to the corrected version (D cannot change)
    target = apply_conflict(db, kept["rating"]["id"])
    with open_project(db) as p:
        (rating,) = p.reasoning.ratings(current.id, annotator=p.annotators.find("Ada"))
        assert (rating.id, rating.rating) == (target, 4)
        assert [c["kind"] for c in p.packages.conflicts()] == ["answer"]
        assert p.reasoning.human_answers(annotator=p.annotators.find("Ben")) == []


def _reasoning_lines(db, capsys) -> list[str]:
    assert main(["metrics", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    return [line.strip() for line in out.splitlines() if "vs D" in line or "human" in line]


def test_merged_ratings_and_answers_count_in_the_results(db, capsys):
    before = _reasoning_lines(db, capsys)
    assert not any("jrdb all" in line for line in before)  # Zoe rated one question only
    rater, _ = _pack(db, "Ada", "rater", benchmark="jrdb")
    tabletop, _ = _pack(db, "Cy", "rater", benchmark="mgvqa")
    answerer, _ = _pack(db, "Ben", "human-baseline")
    with open_project(db) as p:
        gold = p.questions.get(1).answer["boxes"][0]
        wh = p.questions.get(3).answer
    for pack, person, ratings in (
        (rater, "Ada", {1: 5, 2: 1, 3: 3}),
        (tabletop, "Cy", {4: 2, 5: 4}),
    ):
        with open_project(pack) as p:
            me = p.annotators.sign_in(person)
            for question_id, rating in ratings.items():
                p.reasoning.rate(question_id, me, rating)
    with open_project(answerer) as p:
        ben = p.annotators.sign_in("Ben")
        for question_id, answer in ((1, gold), (2, 0), (3, wh)):  # the count wrong
            p.reasoning.answer(question_id, ben, answer)
    for pack in (rater, tabletop, answerer):
        assert merge_package(db, pack).changed
    with open_project(db) as p:
        metrics = project_reasoning_metrics(p)
        d = {q: p.questions.get(q).difficulty.D for q in JRDB + TABLETOP}
    # each question once, with the mean of its ratings (Zoe's 4 and Ada's 5 for question 1)
    means = {1: 4.5, 2: 1, 3: 3}
    jrdb = spearmanr([means[q] for q in JRDB], [d[q] for q in JRDB]).statistic
    tabletop_rho = spearmanr([2, 4], [d[4], d[5]]).statistic
    rows = {(s["benchmark"], s["task"]): s for s in metrics["spearman"]}
    assert rows[("jrdb", "all")]["rho"] == pytest.approx(jrdb, abs=1e-4)
    assert (rows[("jrdb", "all")]["n"], rows[("jrdb", "all")]["ratings"]) == (3, 4)
    assert rows[("mgvqa", "count")]["rho"] == pytest.approx(tabletop_rho)
    human = {r["task"]: r["all"] for r in metrics["human"]}
    assert human["vg"]["accuracy_pct"] == pytest.approx(50.0)  # Zoe wrong, Ben right
    assert (human["vg"]["annotators"], human["vqa-count"]["accuracy_pct"]) == (2, 0.0)
    assert human["vqa-wh"]["accuracy_pct"] == pytest.approx(100.0)
    after = _reasoning_lines(db, capsys)
    assert f"difficulty ratings vs D, jrdb all: rho {jrdb:.2f} over 3 questions" in " ".join(after)
    assert f"mgvqa count: rho {tabletop_rho:.2f} over 2 questions" in " ".join(after)
    human_vg = [line for line in after if line.startswith("human") and " vg " in line]
    assert human_vg and "50.0 %" in human_vg[0]
