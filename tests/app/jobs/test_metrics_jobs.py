"""Verification metrics as `reasonscope metrics --json` reports them."""

from __future__ import annotations

import json

import pytest

from annotation.verification import Verdict
from app.jobs import metrics as metrics_jobs
from store import ProjectError, open_project

APPROVE = Verdict(True, True, True, "approve")
REJECT = Verdict(True, False, True, "reject", reason="visible from the start")


@pytest.fixture
def project_path(tmp_path):
    path = tmp_path / "metrics.reasonscope"
    with open_project(path, create=True) as p:
        alice, bob = p.annotators.sign_in("Alice"), p.annotators.sign_in("Bob")
        for i, second in enumerate((APPROVE, REJECT, None)):
            q = p.questions.add(
                {"benchmark": "mgvqa", "task": "count", "text": f"Q{i}", "answer": i}
            )
            p.verifications.submit(q.id, alice, APPROVE, seconds_on_task=10)
            if second is not None:
                p.verifications.submit(q.id, bob, second, seconds_on_task=20)
    return path


def test_verification_metrics_shape(project_path):
    result = metrics_jobs.verification_metrics(project_path)
    json.dumps(result)  # plain JSON all the way down
    v = result["verification"]
    assert v["n"] == 2
    assert set(v["criteria"]) == {
        "unambiguous",
        "evidence_withheld",
        "evidence_recoverable",
        "volumes_distinct",
    }
    # criterion 4 is asked of Compare questions only: none here, so no pairs for it
    assert v["criteria"]["volumes_distinct"]["n"] == 0
    assert v["criteria"]["volumes_distinct"]["kappa_reason"] == "no pairs"
    assert v["criteria"]["unambiguous"]["n"] == 2
    assert set(v["decision"]) == {
        "kappa",
        "kappa_reason",
        "percent_agreement",
        "disagreements",
        "disagreements_by_pair",
    }
    assert v["decision"]["percent_agreement"] == 50.0
    # both verifiers said yes to "unambiguous" and "evidence recoverable" on both
    # questions: kappa is 0/0 (sklearn: NaN), reported as null with the reason, not 1.0
    for name in ("unambiguous", "evidence_recoverable"):
        c = v["criteria"][name]
        assert c["kappa"] is None and c["kappa_reason"] == "undefined (one category)"
        assert c["percent_agreement"] == 100.0
    assert v["criteria"]["evidence_withheld"]["kappa_reason"] is None
    assert "Fleiss" in v["settings"]["statistic"]
    assert v["decision"]["disagreements_by_pair"] == {"approve|reject": 1}
    assert v["status_counts"] == {"pending": 2, "approved": 1, "corrected": 0, "excluded": 0}
    assert v["adjudication_pending"] == 1
    assert v["time_on_task"]["verdicts"] == 5 and v["time_on_task"]["total_s"] == 70.0


def test_verification_metrics_on_a_read_only_file(project_path, monkeypatch):
    # Tests may run as root, for whom every file is writable: pretend it is not.
    monkeypatch.setattr("store.db.writable", lambda path: False)
    before = project_path.read_bytes()
    assert metrics_jobs.verification_metrics(project_path)["verification"]["n"] == 2
    assert project_path.read_bytes() == before


def test_verification_metrics_of_a_missing_file(tmp_path):
    with pytest.raises(ProjectError, match="no such project file"):
        metrics_jobs.verification_metrics(tmp_path / "missing.reasonscope")
