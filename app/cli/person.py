"""The person `reasonscope verify`, `review` and `queue` work as (`--as NAME`), under the rules
the GUI works under (docs/cli.md#reasonscope-verify).

The rules live in the store: `project.verifications.submit` (blind pairs, one slot a person,
adjudication only of a disagreement) and `project.hoi.review` (no self-review, two reviewers
a round, QC by a third). A refused action raises `ProjectError`, which `app.cli.main` prints
as one line naming the file; nothing is written, not even a first sign-in. In a work package
(project_meta `package`) only the package's person may work.
"""

from __future__ import annotations

from annotation.models import Annotator
from store import ProjectError
from store.project import Project


def clean_name(name: str) -> str:
    return " ".join(name.split())


def check_package(project: Project, name: str) -> None:
    """Refuse (`ProjectError`) a nameless person, and anyone but its person in a work
    package: a package holds one person's assignment, and only that person works in it."""
    if not clean_name(name):
        raise ProjectError(f"{project.path}: --as needs a person's name")
    project.packages.check_person(name)


def person_in(project: Project, name: str, *, create: bool) -> Annotator | None:
    """The annotator `name` after `check_package`: signed in (created if new) when
    `create`, else found or None."""
    check_package(project, name)
    if create:
        return project.annotators.sign_in(name)
    return project.annotators.find(clean_name(name))
