"""The demo's team round: two verifiers got a work package each for one pending
question; Dan's came back and is merged, Eve's is still out (Results > Team)."""

from __future__ import annotations

from annotation.verification import Verdict, asked_criteria
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import merge_package
from store import Project, open_project

DEMO_VERIFIERS = ("Dan (verifier)", "Eve (verifier)")


def add_team_demo(project: Project) -> None:
    """Packages beside the demo (in `<demo folder>/demo-packages/`), one merged back."""
    pending = project.verifications.queue(project.annotators.sign_in(DEMO_VERIFIERS[0]))
    if not pending:
        return
    folder = project.path.parent / "demo-packages"
    folder.mkdir(exist_ok=True)
    packs = []
    for name in DEMO_VERIFIERS:
        out = folder / f"{name.split()[0].lower()}-verifier.rspack"
        out.unlink(missing_ok=True)  # a demo rebuilt from scratch sends them again
        create_package(project.path, PackageRequest(name, "verifier", [pending[-1].id]), out)
        packs.append(out)
    with open_project(packs[0]) as package:
        dan = package.annotators.sign_in(DEMO_VERIFIERS[0])
        yes = dict.fromkeys(asked_criteria(pending[-1].task), True)
        package.verifications.submit(pending[-1].id, dan, Verdict(**yes, decision="approve"), 41.0)
    merge_package(project.path, packs[0])
