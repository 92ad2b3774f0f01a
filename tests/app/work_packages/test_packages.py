"""Work packages end to end on real project files: created under the project's rules,
worked in as projects, merged back all or nothing and idempotently."""

from __future__ import annotations

import sqlite3

import pytest
from question_fixtures import add_mug_questions

from annotation.verification import Verdict
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import apply_conflict, merge_package
from store import ProjectError, open_project

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="the mug is visible from the start")


@pytest.fixture
def main(tmp_path):
    path = tmp_path / "project.rsproj"
    with open_project(path, create=True) as p:
        add_mug_questions(p, 4)
    return path


def _pack(main, tmp_path, person, role="verifier", **kw):
    out = tmp_path / f"{person}-{role}.rspack"
    kw.setdefault("questions", "pending")
    return out, create_package(main, PackageRequest(person, role, **kw), out)


def _state(path):
    with open_project(path) as p:
        rows = lambda sql: p.db.execute(sql).fetchall()  # noqa: E731
        return (
            rows(
                "SELECT question_id, annotator_id, round, decision FROM verifications ORDER BY id"
            ),
            rows("SELECT id, status, is_current FROM questions ORDER BY id"),
            rows("SELECT count(*) FROM audit_log"),
            rows("SELECT * FROM package_work ORDER BY package_id, kind, source_id"),
        )


def test_two_verifiers_packages_merge_into_agreement_and_adjudication(main, tmp_path):
    pack_a, manifest = _pack(main, tmp_path, "ana")
    assert [i["id"] for i in manifest["items"]] == [1, 2, 3, 4]
    pack_b, _ = _pack(main, tmp_path, "ben")
    with pytest.raises(ProjectError, match="nothing to hand to cy"):
        _pack(main, tmp_path, "cy")  # every question has its two verifiers out
    for pack, verdicts in ((pack_a, [APPROVE] * 4), (pack_b, [APPROVE, REJECT, APPROVE, APPROVE])):
        with open_project(pack) as p:
            person = p.annotators.sign_in(p.packages.manifest()["person"])
            assert [q.id for q in p.verifications.queue(person)] == [1, 2, 3, 4]
            assert p.db.execute("SELECT count(*) FROM verifications").fetchone()[0] == 0
            for qid, verdict in zip([1, 2, 3, 4], verdicts, strict=True):
                p.verifications.submit(qid, person, verdict, 3.0)
    report = merge_package(main, pack_b)
    assert report.merged["verdicts"] == 4 and not report.conflicts
    report = merge_package(main, pack_a)
    assert report.merged["verdicts"] == 4
    with open_project(main) as p:
        statuses = {q: s for q, s, cur in _state(main)[1] if cur}
        assert statuses == {1: "approved", 2: "pending", 3: "approved", 4: "approved"}
        cy = p.annotators.sign_in("cy")
        assert [q.id for q in p.verifications.adjudication_queue(cy)] == [2]
        agreement = p.verifications.agreement()
        assert agreement["n"] == 4 and agreement["decision"]["kappa"] is not None
    before = _state(main)
    again = merge_package(main, pack_a)
    assert not again.changed and again.already > 0
    assert _state(main) == before
    # the adjudication goes out to a third person, with both verdicts, and comes back
    pack_c, manifest = _pack(main, tmp_path, "cy", role="adjudicator")
    assert [i["id"] for i in manifest["items"]] == [2]
    with pytest.raises(ProjectError, match="ana verified it already"):
        _pack(main, tmp_path, "ana", role="adjudicator", questions=[2])
    with open_project(pack_c) as p:
        cy = p.annotators.sign_in("cy")
        assert [q.id for q in p.verifications.adjudication_queue(cy)] == [2]
        assert len(p.verifications.visible_verdicts(2, cy)) == 2
        p.verifications.submit(2, cy, APPROVE, 5.0)
    merge_package(main, pack_c)
    with open_project(main) as p:
        assert p.questions.get(2).status == "approved"


def test_refusals_change_nothing(main, tmp_path):
    pack, _ = _pack(main, tmp_path, "ana", limit=2)
    with open_project(pack) as p:
        ana = p.annotators.sign_in("ana")
        p.verifications.submit(1, ana, APPROVE, 1.0)
    before = _state(main)
    # work signed by someone else
    signed = tmp_path / "signed.rspack"
    signed.write_bytes(pack.read_bytes())
    with open_project(signed) as p:
        p.verifications.submit(2, p.annotators.sign_in("mallory"), APPROVE, 1.0)
    with pytest.raises(ProjectError, match="signed by mallory, not by ana"):
        merge_package(main, signed)
    # tampered content
    tampered = tmp_path / "tampered.rspack"
    tampered.write_bytes(pack.read_bytes())
    with open_project(tampered) as p, p.write():
        p.db.execute("UPDATE questions SET answer = '7' WHERE id = 2")
    with pytest.raises(ProjectError, match="tampered: its content hash"):
        merge_package(main, tampered)
    # a package of another project
    other = tmp_path / "other.rsproj"
    open_project(other, create=True).close()
    with pytest.raises(ProjectError, match="a package of another project"):
        merge_package(other, pack)
    # not a package
    with pytest.raises(ProjectError, match="not a work package"):
        merge_package(main, other)
    assert _state(main) == before
    assert merge_package(main, pack, dry_run=True).merged["verdicts"] == 1
    assert _state(main) == before


def test_work_on_a_question_corrected_meanwhile_is_kept_aside(main, tmp_path):
    pack, _ = _pack(main, tmp_path, "ana", limit=2)
    with open_project(pack) as p:
        ana = p.annotators.sign_in("ana")
        p.verifications.submit(1, ana, APPROVE, 1.0)
        p.verifications.submit(2, ana, APPROVE, 1.0)
    with open_project(main) as p:
        owner = p.annotators.sign_in("olga")
        p.questions.correct(2, {"text": "How many red mugs?"}, owner)
    report = merge_package(main, pack)
    assert report.merged["verdicts"] == 1
    assert [(c["kind"], c["item_id"]) for c in report.conflicts] == [("question", 2)]
    with open_project(main) as p:
        kept = p.packages.conflicts()
        assert kept[0]["work"]["decision"] == "approve" and "corrected" in kept[0]["reason"]
    assert not merge_package(main, pack).changed
    # the corrected version is final (the owner's correction): applying is refused
    with pytest.raises(ProjectError, match="is corrected already; nothing to verify"):
        apply_conflict(main, kept[0]["id"])
    with open_project(main) as p:
        assert len(p.packages.conflicts()) == 1
        p.packages.resolve(kept[0]["id"], "discarded")
        assert p.packages.conflicts() == []
    with pytest.raises(ProjectError, match="no open conflict"):
        apply_conflict(main, kept[0]["id"])


def test_the_package_file_is_a_project_with_only_the_assignment(main, tmp_path):
    with open_project(main) as p:
        p.verifications.submit(3, p.annotators.sign_in("zoe"), APPROVE, 1.0)
    pack, manifest = _pack(main, tmp_path, "ana", questions=[3])
    conn = sqlite3.connect(pack)
    assert conn.execute("SELECT count(*) FROM verifications").fetchone()[0] == 0  # blind
    assert conn.execute("SELECT id FROM questions").fetchall() == [(3,)]
    assert conn.execute("SELECT count(*) FROM scene_bodies").fetchone()[0] == 1
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file to send
    conn.close()
    assert manifest["person"] == "ana" and manifest["items"][0]["version"] == "1"
    with pytest.raises(ProjectError, match="already handed to ana"):
        create_package(
            main, PackageRequest("ana", "verifier", questions=[3]), tmp_path / "b.rspack"
        )
    assert not (tmp_path / "b.rspack").exists()


def test_kill_9_during_a_merge_leaves_nothing_partial(tmp_path):
    import signal
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "big.rsproj"
    with open_project(path, create=True) as p:
        for i in range(60):
            p.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many? {i}",
                    "answer": 1,
                    "evidence_ids": [],
                }
            )
    pack, _ = _pack(path, tmp_path, "ana")
    with open_project(pack) as p:
        ana = p.annotators.sign_in("ana")
        for q in p.verifications.queue(ana, limit=100):
            p.verifications.submit(q.id, ana, APPROVE, 1.0)
    before = _state(path)
    script = Path(__file__).with_name("merge_process.py")
    proc = subprocess.Popen(
        [sys.executable, str(script), str(path), str(pack), "40"], stdout=subprocess.PIPE, text=True
    )
    try:
        assert proc.stdout.readline().strip() == "paused"  # 40 of 60 verdicts in, uncommitted
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=30)
    assert proc.returncode == -signal.SIGKILL
    with open_project(path) as p:
        assert p.integrity_ok()
    assert _state(path) == before  # nothing of the merge
    assert merge_package(path, pack).merged["verdicts"] == 60  # and it merges whole after


def _steps(*calls):
    steps = [{"kind": "observation", "name": "observe", "ok": True, "state": {"t": 0}}]
    for name, ok in calls:
        steps.append(
            {
                "kind": "tool",
                "name": name,
                "arguments": {},
                "ok": ok,
                "feedback": "",
                "state": {"t": len(steps)},
            }
        )
    return steps


def test_error_labels_come_back_from_an_episode_package(main, tmp_path):
    with open_project(main) as p:
        ok = p.episodes.add(
            {"model": "m1", "task": "count", "success": True, "scene_id": 1},
            _steps(("grasp", True)),
        )
        bad = p.episodes.add(
            {"model": "m1", "task": "find", "success": False, "scene_id": 1},
            _steps(("grasp", False), ("grasp", False)),
        )
    out = tmp_path / "eve.rspack"
    manifest = create_package(main, PackageRequest("eve", "annotator", episodes="failed"), out)
    assert [(i["kind"], i["id"]) for i in manifest["items"]] == [("episode", bad.id)]
    with pytest.raises(ProjectError, match=f"episode {bad.id} is out with eve"):
        create_package(
            main, PackageRequest("fox", "annotator", episodes=[bad.id]), tmp_path / "fox.rspack"
        )
    with open_project(out) as p:
        assert p.episodes.ids() == [bad.id] and len(p.episodes.steps(bad.id)) == 3
        assert p.episodes.steps(bad.id)[2].state == {"t": 2}  # the states came along
        eve = p.annotators.sign_in("eve")
        p.episodes.add_label(
            bad.id,
            2,
            "evidence_gathering",
            "failed_grasp_recovery",
            "grasped the same mug again",
            eve,
        )
    report = merge_package(main, out)
    assert report.merged["error labels"] == 1
    with open_project(main) as p:
        [label] = p.episodes.labels(bad.id)
        assert (label.step_index, label.category) == (2, "evidence_gathering")
        assert p.episodes.label_authors(bad.id) == {label.annotator_id: "eve"}
        assert p.episodes.labels(ok.id) == []


def test_slots_out_in_packages_are_not_offered_in_the_project(main, tmp_path):
    _pack(main, tmp_path, "ana", questions=[1, 2])
    _pack(main, tmp_path, "ben", questions=[1])
    with open_project(main) as p:
        ana, ben, cy = (p.annotators.sign_in(n) for n in ("ana", "ben", "cy"))
        assert [q.id for q in p.verifications.queue(cy)] == [2, 3, 4]  # 1 is out with two
        assert [q.id for q in p.verifications.queue(ana)] == [3, 4]  # hers are in her package
        assert [q.id for q in p.verifications.queue(ben)] == [2, 3, 4]
        sent = p.packages.list()[1]["package_id"]
        assert p.packages.recall(sent) == 1  # ben's comes back: the slot is free again
        assert [q.id for q in p.verifications.queue(cy)] == [1, 2, 3, 4]


def test_merging_leaves_nothing_beside_the_returned_package(main, tmp_path):
    pack, _ = _pack(main, tmp_path, "ana", limit=1)
    with open_project(pack) as p:  # worked in: the package is in WAL mode now
        p.verifications.submit(1, p.annotators.sign_in("ana"), APPROVE, 1.0)
    merge_package(main, pack)
    assert sorted(f.name for f in tmp_path.iterdir() if f.name.startswith("ana")) == [
        "ana-verifier.rspack"
    ]


def test_work_on_a_recalled_package_and_work_changed_after_a_merge_are_kept_aside(main, tmp_path):
    pack, manifest = _pack(main, tmp_path, "ana", limit=2)
    with open_project(pack) as p:
        assert p.db.execute("PRAGMA journal_mode").fetchone()[0] == "delete"  # one file
        ana = p.annotators.sign_in("ana")
        p.verifications.submit(1, ana, APPROVE, 1.0)
    assert merge_package(main, pack).merged["verdicts"] == 1
    with open_project(main) as p:
        p.packages.recall(manifest["package_id"])  # question 2 goes back
    with open_project(pack) as p:
        ana = p.annotators.sign_in("ana")
        p.verifications.undo_last(ana)  # she changes her mind on 1 after it was merged
        p.verifications.submit(1, ana, REJECT, 2.0)
        p.verifications.submit(2, ana, APPROVE, 1.0)
    report = merge_package(main, pack)
    reasons = sorted(c["reason"] for c in report.conflicts)
    assert report.merged["verdicts"] == 0
    assert [r.split(": ", 1)[1] for r in reasons] == [
        "question 1: ana has already given a verdict on it; one person cannot fill two slots",
        "question 2 was recalled from this package",
    ]
    assert all(r.startswith("verifications row ") for r in reasons)  # the table and row
    with open_project(main) as p:  # her first verdict on 1 stands as merged
        assert [
            r.decision for r in p.verifications.visible_verdicts(1, p.annotators.find("ana"))
        ] == ["approve"]


def test_a_package_cannot_unpack_outside_its_folder(main, tmp_path):
    from app.work_packages.files import unpack_files

    pack, _ = _pack(main, tmp_path, "ana", limit=1)
    with open_project(pack) as p, p.write():
        sid = p.db.execute(
            "INSERT INTO sequences(name, root, imported_at) VALUES ('../../escape', '', 'x')"
        ).lastrowid
        p.db.execute("INSERT INTO package_files VALUES (?, 'evil.txt', 'x', x'00')", [sid])
    with open_project(pack) as p, pytest.raises(ProjectError, match="is not a folder name"):
        unpack_files(p)
    assert not (tmp_path.parent / "escape").exists()


def test_a_verdict_given_in_the_project_cannot_take_a_slot_out_in_a_package(main, tmp_path):
    _pack(main, tmp_path, "ana", questions=[1])
    _pack(main, tmp_path, "ben", questions=[1])
    with open_project(main) as p:
        cy, ana = p.annotators.sign_in("cy"), p.annotators.find("ana")
        with pytest.raises(ProjectError, match="first-round slots are out in work packages"):
            p.verifications.submit(1, cy, APPROVE, 1.0)
        with pytest.raises(ProjectError, match="is out with ana in a work package"):
            p.verifications.submit(1, ana, APPROVE, 1.0)
        p.verifications.submit(2, cy, APPROVE, 1.0)  # not out: as ever


def test_a_refused_request_creates_nobody_and_an_id_given_twice_goes_once(main, tmp_path):
    from app.work_packages.create import package_request

    with open_project(main) as p:
        p.verifications.submit(1, p.annotators.sign_in("x1"), APPROVE, 1.0)
        p.verifications.submit(1, p.annotators.sign_in("x2"), APPROVE, 1.0)
    with pytest.raises(ProjectError, match="question 1: is approved"):
        create_package(
            main, package_request("zed", "verifier", questions="1"), tmp_path / "z.rspack"
        )
    with open_project(main) as p:
        assert p.annotators.find("zed") is None
    request = package_request("zed", "verifier", questions="2,2")
    manifest = create_package(main, request, tmp_path / "z.rspack")
    assert [i["id"] for i in manifest["items"]] == [2]
