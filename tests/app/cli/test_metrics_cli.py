"""`reasonscope metrics` on a project with a known pair of verdicts."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from annotation.verification import Verdict
from store import open_project

ROOT = Path(__file__).resolve().parents[3]
YES = {"unambiguous": True, "evidence_withheld": True, "evidence_recoverable": True}


def test_metrics_json_reports_agreement_and_the_adjudication_backlog(tmp_path):
    db = tmp_path / "m.reasonscope"
    with open_project(db, create=True) as project:
        ben, cleo = project.annotators.sign_in("Ben"), project.annotators.sign_in("Cleo")
        for i in range(3):
            q = project.questions.add(
                {"benchmark": "mgvqa", "task": "count", "text": f"How many mugs? {i}", "answer": i}
            )
            project.verifications.submit(q.id, ben, Verdict(**YES, decision="approve"), 10.0)
            cleo_verdict = (
                Verdict(True, False, True, "reject", reason="visible")
                if i == 2
                else Verdict(**YES, decision="approve")
            )
            project.verifications.submit(q.id, cleo, cleo_verdict, 12.0)
    result = subprocess.run(
        [sys.executable, "-m", "app.cli", "metrics", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    v = json.loads(result.stdout)["verification"]
    assert v["n"] == 3
    assert v["decision"]["disagreements"] == 1
    assert v["decision"]["percent_agreement"] == 100 * 2 / 3
    assert v["status_counts"]["approved"] == 2 and v["adjudication_pending"] == 1
