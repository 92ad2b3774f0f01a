"""What every repository shares: its project, JSON columns and the audit trail."""

from __future__ import annotations

import json
from typing import Any

from annotation.models import Annotator
from store.connection import ProjectFile
from store.errors import ProjectError, utc_now

# What the store itself derives from a person's work: audited even while a package merge
# replays work with its own entries (`ProjectFile.audit_muted`).
CONSEQUENCES = frozenset({"derive_status"})


def dumps(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | None, default: Any = None) -> Any:
    if text is None:
        return default
    return json.loads(text)


class Repository:
    """A family of tables. It gets the open file, never the other repositories:
    one that needs another takes it as a keyword argument."""

    def __init__(self, project: ProjectFile) -> None:
        self.project = project

    @property
    def db(self):
        return self.project.db

    def _audit(
        self,
        annotator: Annotator | None,
        action: str,
        table: str,
        row_id: object,
        detail: dict[str, Any] | None = None,
    ) -> None:
        """Record who changed what, in the caller's transaction."""
        if self.project.audit_muted and action not in CONSEQUENCES:
            return
        self.db.execute(
            "INSERT INTO audit_log(at, annotator_id, action, table_name, row_id, detail) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [
                utc_now(),
                annotator.id if annotator else None,
                action,
                table,
                str(row_id),
                dumps(detail or {}),
            ],
        )

    def _require(self, annotator: Annotator | None) -> Annotator:
        if annotator is None:
            raise ProjectError(
                f"{self.project.path}: a person's change needs a signed-in annotator"
            )
        return annotator
