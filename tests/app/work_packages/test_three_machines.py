"""A three-person round as on three machines, all through the `reasonscope` command in
separate folders: two verifiers' packages worked and merged in another order (one twice,
a tampered copy refused), the disagreement sent to a third person, then the project's
agreement and audit trail."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys

from store import open_project


def rs(*args, cwd):
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", *map(str, args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )
    return done.returncode, done.stdout, done.stderr


def test_a_three_person_round(tmp_path):
    owner, ana_pc, ben_pc, cy_pc = (tmp_path / n for n in ("owner", "ana", "ben", "cy"))
    for folder in (owner, ana_pc, ben_pc, cy_pc):
        folder.mkdir()
    db = owner / "team.reasonscope"
    with open_project(db, create=True) as p:
        for i, answer in enumerate((2, 3, 1)):
            p.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"How many mugs? #{i}",
                    "answer": answer,
                    "evidence_ids": [],
                }
            )
    for name in ("ana", "ben"):
        code, out, err = rs(
            "pack",
            "create",
            "--for",
            name,
            "--role",
            "verifier",
            "--questions",
            "pending",
            "--out",
            f"{name}.rspack",
            "--db",
            db,
            cwd=owner,
        )
        assert code == 0, err
        shutil.move(owner / f"{name}.rspack", tmp_path / name / f"{name}.rspack")
    # each works in their own folder, with nothing but the package
    decisions = {"ana": ["approve", "approve", "approve"], "ben": ["approve", "reject", "approve"]}
    for name, folder in (("ana", ana_pc), ("ben", ben_pc)):
        for qid, decision in enumerate(decisions[name], start=1):
            extra = ["--criteria", "1,3", "--reason", "a mug is in plain sight"]
            if decision == "approve":
                extra = ["--criteria", "1,2,3"]
            code, _, err = rs(
                "verify",
                qid,
                "--as",
                name,
                "--decision",
                decision,
                *extra,
                "--db",
                f"{name}.rspack",
                cwd=folder,
            )
            assert code == 0, err
    code, _, err = rs(
        "verify",
        1,
        "--as",
        "ana",
        "--decision",
        "approve",
        "--criteria",
        "1,2,3",
        "--db",
        "ben.rspack",
        cwd=ben_pc,
    )
    assert code == 2 and "ben's; ana cannot work in it" in err
    # a tampered copy of ben's: the answer of question 3 changed in the package
    shutil.copy(ben_pc / "ben.rspack", owner / "ben-edited.rspack")
    with sqlite3.connect(owner / "ben-edited.rspack") as conn:
        conn.execute("UPDATE questions SET answer = '9' WHERE id = 3")
    code, _, err = rs("pack", "merge", "ben-edited.rspack", "--db", db, cwd=owner)
    assert code == 2 and "tampered: its content hash" in err and err.count("\n") == 1
    # merged in the other order, ben's twice
    for folder, name in ((ben_pc, "ben"), (ana_pc, "ana"), (ben_pc, "ben")):
        code, out, err = rs(
            "pack", "merge", folder / f"{name}.rspack", "--db", db, "--json", cwd=owner
        )
        assert code == 0, err
    assert json.loads(out)["merged"]["verdicts"] == 0 and json.loads(out)["already_merged"] > 0
    # the disagreement goes to a third person, who has it in a package of their own
    code, out, err = rs(
        "pack",
        "create",
        "--for",
        "cy",
        "--role",
        "adjudicator",
        "--questions",
        "pending",
        "--out",
        cy_pc / "cy.rspack",
        "--db",
        db,
        "--json",
        cwd=owner,
    )
    assert code == 0, err
    assert [i["id"] for i in json.loads(out)["items"]] == [2]
    code, out, _ = rs("queue", "--as", "cy", "--db", "cy.rspack", "--json", cwd=cy_pc)
    assert [q["question_id"] for q in json.loads(out)["adjudicate"]] == [2]
    code, _, err = rs(
        "verify",
        2,
        "--as",
        "cy",
        "--decision",
        "reject",
        "--criteria",
        "1,3",
        "--reason",
        "the second mug shows",
        "--db",
        "cy.rspack",
        cwd=cy_pc,
    )
    assert code == 0, err
    assert rs("pack", "merge", cy_pc / "cy.rspack", "--db", db, cwd=owner)[0] == 0
    code, out, _ = rs("pack", "list", "--items", "--json", "--db", db, cwd=owner)
    listed = {p["person"]: p for p in json.loads(out)}
    assert [a["done_at"] is not None for a in listed["ana"]["assignments"]] == [True] * 3
    assert [a["item_id"] for a in listed["cy"]["assignments"]] == [2]
    # the project afterwards: statuses, agreement, audit
    code, out, _ = rs("metrics", "--json", "--db", db, cwd=owner)
    verification = json.loads(out)["verification"]
    assert verification["n"] == 3
    assert verification["decision"]["kappa"] == 0.0  # 2/3 observed, 2/3 expected by chance
    with open_project(db) as p:
        assert [p.questions.get(i).status for i in (1, 2, 3)] == [
            "approved",
            "excluded",
            "approved",
        ]
        entries = p.audit.recent(500)
        verdicts = sorted(e.annotator for e in entries if e.action == "verdict")
        assert verdicts == ["ana"] * 3 + ["ben"] * 3 + ["cy"]
        assert sum(e.action == "package_merge" for e in entries) == 3
        derived = [e for e in entries if e.action == "derive_status"]  # what the merges decided
        assert {e.row_id for e in derived} >= {"1", "3"}
        assert sum(e.action == "package_out" for e in entries) == 3
        assert p.integrity_ok()
