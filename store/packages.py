"""Work packages in the project that sends them out: assignments, merged work, conflicts.

A package is one person's assignment written to a package file (`store.package_io`).
This repository keeps, in the sending project, what is out with whom since when
(`assignments`), which rows of a package's work have been taken in (`package_work`,
what makes a second merge a no-op) and work kept aside because its item changed here
after the package went out (`package_conflicts`). The assignment rules that span
packages (a question's two verifiers, a label round's two reviewers, nothing to the
same person twice) are checked here against both the stored work and what is out.
"""

from __future__ import annotations

from typing import Any

from store.base import Repository, dumps, loads
from store.errors import ProjectError, given_time, utc_now

ROLES = ("verifier", "reviewer", "adjudicator", "annotator", "rater", "human-baseline")
# What a role's package assigns: questions, label review rounds, frames, or questions to
# rate or to answer (the human study).
ROLE_KIND = {
    "verifier": "question",
    "adjudicator": "question",
    "reviewer": "label",
    "annotator": "frame",
    "rater": "rating",
    "human-baseline": "answer",
}
# Every kind of work a person does, counted per annotator for the team view: key -> the
# query giving (annotator id, count). Boxes count when an annotator set them; entities
# when one added them (their audit entry: an entity row names nobody).
_WORK = {
    "verdicts": "SELECT annotator_id, count(*) FROM verifications WHERE retracted_at IS NULL "
    "GROUP BY annotator_id",
    "reviews": "SELECT reviewer_id, count(*) FROM hoi_reviews GROUP BY reviewer_id",
    "hoi_labels": "SELECT annotator_id, count(*) FROM hoi_labels GROUP BY annotator_id",
    "error_labels": "SELECT annotator_id, count(*) FROM error_labels GROUP BY annotator_id",
    "ratings": "SELECT annotator_id, count(*) FROM difficulty_ratings GROUP BY annotator_id",
    "answers": "SELECT annotator_id, count(*) FROM human_answers GROUP BY annotator_id",
    "boxes_2d": "SELECT annotator_id, count(*) FROM boxes_2d WHERE source = 'annotator' "
    "GROUP BY annotator_id",
    "boxes_3d": "SELECT annotator_id, count(*) FROM boxes_3d WHERE source = 'annotator' "
    "GROUP BY annotator_id",
    "entities": "SELECT annotator_id, count(*) FROM audit_log WHERE action = 'create' "
    "AND table_name = 'entities' GROUP BY annotator_id",
    "entity_removals": "SELECT annotator_id, count(*) FROM entity_removals GROUP BY annotator_id",
}
WORK_KINDS = tuple(_WORK)
# An assignment still out: neither merged back (done) nor recalled.
OUTSTANDING = "a.recalled_at IS NULL AND a.done_at IS NULL"


class PackageRepository(Repository):
    # -- identity ------------------------------------------------------------------------
    def project_id(self) -> str:
        value = self.project.meta_get("project_id")
        if not value:
            raise ProjectError(f"{self.project.path}: has no project id (schema too old)")
        return value

    def manifest(self) -> dict[str, Any] | None:
        """This file's manifest when it is a work package, else None."""
        text = self.project.meta_get("package")
        return loads(text) if text else None

    def check_person(self, name: str) -> None:
        """In a work package only its person works: `ProjectError` naming the file for
        anyone else (and for a package whose manifest names nobody)."""
        try:
            manifest = self.manifest()
        except ValueError:
            manifest = {}
        if manifest is None:
            return
        owner = manifest.get("person") if isinstance(manifest, dict) else None
        if not isinstance(owner, str) or not owner.strip():
            raise ProjectError(f"{self.project.path}: its work package names no person")
        who = " ".join(name.split())
        if who.casefold() != " ".join(owner.split()).casefold():
            raise ProjectError(
                f"{self.project.path}: this work package is {owner}'s; {who} cannot work in it"
            )

    # -- what may go out -------------------------------------------------------------------
    def out_with_others(self, kind: str, item_id: int, version: str, person_id: int) -> list[str]:
        """Names of the people this item (at this version) is out with, besides the person."""
        rows = self.db.execute(
            "SELECT n.name FROM assignments a JOIN annotators n ON n.id = a.annotator_id "
            f"WHERE a.kind = ? AND a.item_id = ? AND a.version = ? AND {OUTSTANDING} "
            "AND a.annotator_id != ? ORDER BY a.id",
            [kind, item_id, version, person_id],
        ).fetchall()
        return [r[0] for r in rows]

    def handed_to(self, kind: str, item_id: int, version: str, person_id: int) -> bool:
        """Whether the item (at this version) has gone out to the person (not recalled)."""
        return (
            self.db.execute(
                "SELECT 1 FROM assignments WHERE kind = ? AND item_id = ? AND version = ? "
                "AND annotator_id = ? AND recalled_at IS NULL",
                [kind, item_id, version, person_id],
            ).fetchone()
            is not None
        )

    def item_out(self, kind: str, item_id: int) -> str | None:
        """Who has this frame or episode out in an annotator package, if anyone."""
        row = self.db.execute(
            "SELECT n.name FROM assignments a JOIN annotators n ON n.id = a.annotator_id "
            f"WHERE a.kind = ? AND a.item_id = ? AND {OUTSTANDING}",
            [kind, item_id],
        ).fetchone()
        return row[0] if row else None

    # -- sending and recalling -----------------------------------------------------------------
    def record(self, manifest: dict[str, Any], person_id: int, file: str) -> None:
        """Note a package as out: the package and one assignment per item, one transaction."""
        now = manifest["created"]
        try:
            self._record(manifest, person_id, file, now)
        except self.db.conn.IntegrityError:
            raise ProjectError(
                f"{self.project.path}: an item of this package is already out with "
                f"{manifest['person']} (nothing goes to a person twice)"
            ) from None

    def _record(self, manifest: dict[str, Any], person_id: int, file: str, now: str) -> None:
        with self.project.write():
            self.db.execute(
                "INSERT INTO packages(id, annotator_id, role, file, manifest, content_sha256, "
                "created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                [manifest["package_id"], person_id, manifest["role"], file, dumps(manifest)]
                + [manifest["content_sha256"], now],
            )
            for item in manifest["items"]:
                self.db.execute(
                    "INSERT INTO assignments(package_id, kind, item_id, version, annotator_id, "
                    "role, assigned_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    [manifest["package_id"], item["kind"], item["id"], item["version"]]
                    + [person_id, manifest["role"], now],
                )
            self._audit(
                None,
                "package_out",
                "packages",
                manifest["package_id"],
                {
                    "person": manifest["person"],
                    "role": manifest["role"],
                    "items": len(manifest["items"]),
                },
            )

    def get(self, package_id: str) -> dict[str, Any] | None:
        row = self.db.execute(
            "SELECT p.id, n.name, p.role, p.file, p.manifest, p.content_sha256, p.created_at, "
            "p.merged_at, p.recalled_at, p.annotator_id FROM packages p "
            "JOIN annotators n ON n.id = p.annotator_id WHERE p.id = ?",
            [package_id],
        ).fetchone()
        return _package(row) if row else None

    def list(self) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT p.id, n.name, p.role, p.file, p.manifest, p.content_sha256, p.created_at, "
            "p.merged_at, p.recalled_at, p.annotator_id FROM packages p "
            "JOIN annotators n ON n.id = p.annotator_id ORDER BY p.created_at, p.id"
        ).fetchall()
        return [_package(r) for r in rows]

    def assignments(self, package_id: str) -> list[dict[str, Any]]:
        """A package's items: kind, id, version, and since when out, done or recalled."""
        rows = self.db.execute(
            "SELECT kind, item_id, version, assigned_at, done_at, recalled_at FROM assignments "
            "WHERE package_id = ? ORDER BY id",
            [package_id],
        ).fetchall()
        keys = ("kind", "item_id", "version", "assigned_at", "done_at", "recalled_at")
        return [dict(zip(keys, r, strict=True)) for r in rows]

    def recall(self, package_id: str) -> int:
        """Take back what a package still has out (merged work stays); how many items."""
        with self.project.write():
            if self.get(package_id) is None:
                raise ProjectError(f"{self.project.path}: no package {package_id}")
            now = utc_now()
            cur = self.db.execute(
                "UPDATE assignments SET recalled_at = ? WHERE package_id = ? "
                "AND recalled_at IS NULL AND done_at IS NULL",
                [now, package_id],
            )
            self.db.execute(
                "UPDATE packages SET recalled_at = ? WHERE id = ? AND recalled_at IS NULL",
                [now, package_id],
            )
            self._audit(None, "package_recall", "packages", package_id, {"items": cur.rowcount})
            return cur.rowcount

    # -- merging ---------------------------------------------------------------------------------
    def merged_sources(self, package_id: str) -> dict[tuple[str, int], str]:
        """(kind, row id in the package) -> the digest of the row as it was merged."""
        rows = self.db.execute(
            "SELECT kind, source_id, digest FROM package_work WHERE package_id = ?", [package_id]
        ).fetchall()
        return {(r[0], r[1]): r[2] for r in rows}

    def merged_targets(self, package_id: str, kind: str) -> dict[int, int]:
        """Row id in the package -> the row it became here, for one kind of merged work."""
        rows = self.db.execute(
            "SELECT source_id, target_id FROM package_work WHERE package_id = ? AND kind = ? "
            "AND target_id IS NOT NULL",
            [package_id, kind],
        ).fetchall()
        return dict(rows)

    def live_items(self, package_id: str) -> set[tuple[str, int]]:
        """The package's items not recalled."""
        rows = self.db.execute(
            "SELECT kind, item_id FROM assignments WHERE package_id = ? AND recalled_at IS NULL",
            [package_id],
        ).fetchall()
        return {(r[0], r[1]) for r in rows}

    def mark_merged(
        self, package_id: str, kind: str, source_id: int, target_id: int | None, digest: str = ""
    ) -> None:
        """In the caller's transaction: one row of the package's work has been taken in (or
        kept aside), as it was then (`digest`)."""
        self.db.execute(
            "INSERT OR REPLACE INTO package_work(package_id, kind, source_id, target_id, "
            "digest, merged_at) VALUES (?, ?, ?, ?, ?, ?)",
            [package_id, kind, source_id, target_id, digest, utc_now()],
        )

    def keep_aside(
        self, package_id: str, kind: str, item_id: int, reason: str, work: dict[str, Any]
    ) -> int:
        """In the caller's transaction: work on an item that changed here, for a decision."""
        cur = self.db.execute(
            "INSERT INTO package_conflicts(package_id, kind, item_id, reason, work, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [package_id, kind, item_id, reason, dumps(work), utc_now()],
        )
        return cur.lastrowid

    def conflicts(self, package_id: str | None = None, *, open_only: bool = True) -> list[dict]:
        where, params = [], []
        if package_id is not None:
            where.append("c.package_id = ?")
            params.append(package_id)
        if open_only:
            where.append("c.resolved_at IS NULL")
        clause = f"WHERE {' AND '.join(where)}" if where else ""
        rows = self.db.execute(
            "SELECT c.id, c.package_id, n.name, c.kind, c.item_id, c.reason, c.work, "
            "c.created_at, c.resolved_at, c.resolution FROM package_conflicts c "
            "JOIN packages p ON p.id = c.package_id JOIN annotators n ON n.id = p.annotator_id "
            f"{clause} ORDER BY c.id",
            params,
        ).fetchall()
        keys = "id package_id person kind item_id reason work created_at resolved_at resolution"
        return [dict(zip(keys.split(), r[:6] + (loads(r[6]),) + r[7:], strict=True)) for r in rows]

    def resolve(self, conflict_id: int, resolution: str) -> None:
        with self.project.write():
            cur = self.db.execute(
                "UPDATE package_conflicts SET resolved_at = ?, resolution = ? "
                "WHERE id = ? AND resolved_at IS NULL",
                [utc_now(), resolution, conflict_id],
            )
            if cur.rowcount != 1:
                raise ProjectError(f"{self.project.path}: no open conflict #{conflict_id}")
            self._audit(None, "conflict_" + resolution, "package_conflicts", conflict_id)

    def finish_merge(self, package_id: str, done: list[tuple[str, int]], at: str) -> None:
        """In the caller's transaction: the items the merged work covered are done."""
        for kind, item_id in done:
            self.db.execute(
                "UPDATE assignments SET done_at = coalesce(done_at, ?) WHERE package_id = ? "
                "AND kind = ? AND item_id = ? AND recalled_at IS NULL",
                [at, package_id, kind, item_id],
            )
        self.db.execute("UPDATE packages SET merged_at = ? WHERE id = ?", [at, package_id])

    def add_audit(self, entry: dict[str, Any]) -> None:
        """In the caller's transaction: copy one audit entry of a package, as it was (its
        time checked: `given_time`)."""
        given_time(entry["at"], "audit time")
        self.db.execute(
            "INSERT INTO audit_log(at, annotator_id, action, table_name, row_id, detail) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            [entry["at"], entry["annotator_id"], entry["action"], entry["table_name"]]
            + [str(entry["row_id"]), dumps(entry["detail"])],
        )

    # -- the team view -------------------------------------------------------------------------
    def work(self) -> dict[int, dict[str, int]]:
        """Per annotator id with any work in the project (done here or merged from a
        package): how many of each of `WORK_KINDS` (every kind, zeros included)."""
        found: dict[int, dict[str, int]] = {}
        for key, sql in _WORK.items():
            for annotator_id, n in self.db.execute(sql):
                if annotator_id is not None:
                    found.setdefault(annotator_id, dict.fromkeys(WORK_KINDS, 0))[key] = n
        return found

    def team(self) -> list[dict[str, Any]]:
        """Per person with packages: items assigned, done, merged (in merged work), out, and
        the dates of their first assignment, last merge; packages not yet returned; and
        their `work` (every kind, done here or merged)."""
        work = self.work()
        rows = self.db.execute(
            "SELECT n.id, n.name, count(a.id), "
            "sum(a.done_at IS NOT NULL), sum(a.recalled_at IS NULL AND a.done_at IS NULL), "
            "sum(a.recalled_at IS NOT NULL AND a.done_at IS NULL), min(a.assigned_at), "
            "max(a.done_at) FROM assignments a JOIN annotators n ON n.id = a.annotator_id "
            "GROUP BY n.id ORDER BY n.name COLLATE NOCASE"
        ).fetchall()
        out = []
        for r in rows:
            packages = self.db.execute(
                "SELECT count(*), sum(merged_at IS NULL AND recalled_at IS NULL), "
                "group_concat(CASE WHEN merged_at IS NULL AND recalled_at IS NULL "
                "THEN role || ' ' || substr(created_at, 1, 10) END, ', ') "
                "FROM packages WHERE annotator_id = ?",
                [r[0]],
            ).fetchone()
            out.append(
                {
                    "annotator_id": r[0],
                    "person": r[1],
                    "assigned": r[2],
                    "merged": r[3] or 0,
                    "outstanding": r[4] or 0,
                    "recalled": r[5] or 0,
                    "first_assigned": r[6],
                    "last_merged": r[7],
                    "packages": packages[0],
                    "not_returned": packages[1] or 0,
                    "not_returned_list": packages[2] or "",
                    "work": work.get(r[0], dict.fromkeys(WORK_KINDS, 0)),
                }
            )
        return out


def reviews_held(db) -> dict[int, list[tuple[int, str]]]:
    """Label id -> (reviewer, round "rN") of reviews out in packages and not back yet."""
    held: dict[int, list[tuple[int, str]]] = {}
    for label_id, person, version in db.execute(
        f"SELECT a.item_id, a.annotator_id, a.version FROM assignments a WHERE a.kind = 'label' "
        f"AND {OUTSTANDING}"
    ):
        held.setdefault(label_id, []).append((person, version))
    return held


def review_slot_free(record: Any, annotator_id: int, held: dict) -> bool:
    """Whether the label round has a review slot no package holds, and the annotator
    does not hold one of its slots in a package (they review it there)."""
    holders = [p for p, v in held.get(record.id, ()) if v == f"r{record.round}"]
    given = [r for r in record.current("review") if r.reviewer_id not in holders]
    return annotator_id not in holders and len(given) + len(holders) < 2


def held_review_refusal(db, record: Any, reviewer: Any, package: str | None) -> str | None:
    """Why a review given in the project would take a slot a work package holds (None:
    it does not). Merging a package passes its id: its person's own slot is theirs."""
    holders = [p for p, v in reviews_held(db).get(record.id, ()) if v == f"r{record.round}"]
    if reviewer.id in holders and package is None:
        return f"label #{record.id} is out with {reviewer.name} in a work package; review it there"
    given = [r for r in record.current("review") if r.reviewer_id != reviewer.id]
    others = [p for p in holders if p != reviewer.id]
    if others and len(given) + len(others) >= 2:
        return f"label #{record.id}'s review slots are out in work packages"
    return None


def _package(r: tuple) -> dict[str, Any]:
    return {
        "package_id": r[0],
        "person": r[1],
        "role": r[2],
        "file": r[3],
        "manifest": loads(r[4]),
        "content_sha256": r[5],
        "created": r[6],
        "merged_at": r[7],
        "recalled_at": r[8],
        "annotator_id": r[9],
    }
