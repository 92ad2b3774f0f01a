"""Annotators (who works) and the audit log (who changed what, when)."""

from __future__ import annotations

from annotation.models import Annotator, AuditEntry
from store.base import Repository, loads
from store.errors import ProjectError, utc_now


def _annotator(row: tuple) -> Annotator:
    return Annotator(id=row[0], name=row[1], created_at=row[2])


class AnnotatorRepository(Repository):
    def list(self) -> list[Annotator]:
        rows = self.db.execute(
            "SELECT id, name, created_at FROM annotators ORDER BY name COLLATE NOCASE"
        ).fetchall()
        return [_annotator(r) for r in rows]

    def get(self, annotator_id: int) -> Annotator:
        row = self.db.execute(
            "SELECT id, name, created_at FROM annotators WHERE id = ?", [annotator_id]
        ).fetchone()
        if row is None:
            raise ProjectError(f"{self.project.path}: no annotator with id {annotator_id}")
        return _annotator(row)

    def find(self, name: str) -> Annotator | None:
        row = self.db.execute(
            "SELECT id, name, created_at FROM annotators WHERE name = ? COLLATE NOCASE",
            [name.strip()],
        ).fetchone()
        return _annotator(row) if row else None

    def sign_in(self, name: str) -> Annotator:
        """The annotator called `name`, created (and audited) on first sign-in."""
        clean = " ".join(name.split())
        if not clean:
            raise ProjectError(f"{self.project.path}: an annotator needs a name")
        if len(clean) > 80:
            raise ProjectError(f"{self.project.path}: annotator name longer than 80 characters")
        existing = self.find(clean)
        if existing:
            return existing
        with self.project.write():
            existing = self.find(clean)  # another process may have won the race
            if existing:
                return existing
            cur = self.db.execute(
                "INSERT INTO annotators(name, created_at) VALUES (?, ?)", [clean, utc_now()]
            )
            annotator = self.get(cur.lastrowid)
            self._audit(annotator, "create", "annotators", annotator.id, {"name": clean})
        return annotator


class AuditRepository(Repository):
    def recent(self, limit: int = 200) -> list[AuditEntry]:
        rows = self.db.execute(
            "SELECT a.id, a.at, n.name, a.action, a.table_name, a.row_id, a.detail "
            "FROM audit_log a LEFT JOIN annotators n ON n.id = a.annotator_id "
            "ORDER BY a.id DESC LIMIT ?",
            [limit],
        ).fetchall()
        return [
            AuditEntry(
                id=r[0],
                at=r[1],
                annotator=r[2],
                action=r[3],
                table=r[4],
                row_id=r[5],
                detail=loads(r[6], {}),
            )
            for r in rows
        ]

    def count(self) -> int:
        return self.db.execute("SELECT count(*) FROM audit_log").fetchone()[0]
