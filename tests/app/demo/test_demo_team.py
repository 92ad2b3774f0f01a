"""The demo's team round: Dan's package merged, Eve's still out, both on one question."""

from __future__ import annotations

from app.demo.team import DEMO_VERIFIERS, add_team_demo
from store import open_project


def test_the_team_demo_sends_two_packages_and_merges_one(tmp_path):
    with open_project(tmp_path / "demo.reasonscope", create=True) as project:
        for i in range(2):
            project.questions.add(
                {
                    "benchmark": "mgvqa",
                    "task": "count",
                    "text": f"q{i}",
                    "answer": 1,
                    "evidence_ids": [],
                }
            )
        add_team_demo(project)
        packages = project.packages.list()
        assert [(p["person"], bool(p["merged_at"])) for p in packages] == [
            (DEMO_VERIFIERS[0], True),
            (DEMO_VERIFIERS[1], False),
        ]
        assert all(p["manifest"]["items"][0]["id"] == 2 for p in packages)
        assert (tmp_path / "demo-packages" / "eve-verifier.rspack").is_file()
        team = {row["person"]: row for row in project.packages.team()}
        assert team[DEMO_VERIFIERS[0]]["merged"] == 1
        assert team[DEMO_VERIFIERS[1]]["outstanding"] == 1
        ada = project.annotators.sign_in("Ada (annotator)")
        assert [q.id for q in project.verifications.queue(ada)] == [1]  # 2 has its two
