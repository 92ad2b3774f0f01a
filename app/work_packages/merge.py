"""Merging a work package back: all or nothing, idempotent, refusing foreign and tampered
packages and work signed by anyone else; work on items that changed here since the
package went out is kept aside as a conflict (docs/work-packages.md#merge)."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotation.jrdb.hoi_taxonomy import check_label
from annotation.models import Annotator
from annotation.verification import Verdict
from app.work_packages.annotator import (
    HOI_TAXONOMY,
    apply_box,
    apply_entity,
    apply_label_deletion,
    apply_label_edit,
    apply_removal,
    apply_restoration,
    apply_track_end,
    entity_here,
)
from app.work_packages.rows import TABLES, check_row
from app.work_packages.study import apply_answer, apply_rating
from store import Project, ProjectError, open_project
from store.base import dumps
from store.errors import utc_now
from store.package_io import (
    content_hash,
    migrated_since,
    read_annotator_work,
    read_manifest,
    read_work,
)


@dataclass
class MergeReport:
    package_id: str
    person: str
    role: str
    merged: dict[str, int] = field(default_factory=dict)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    already: int = 0
    dry_run: bool = False
    notes: list[str] = field(default_factory=list)  # e.g. a drawn entity's new id here

    @property
    def changed(self) -> bool:
        return bool(sum(self.merged.values()) or self.conflicts)

    def as_dict(self) -> dict[str, Any]:
        return {
            "package_id": self.package_id,
            "person": self.person,
            "role": self.role,
            "merged": self.merged,
            "conflicts": self.conflicts,
            "already_merged": self.already,
            "dry_run": self.dry_run,
            "notes": self.notes,
        }

    def lines(self) -> list[str]:
        what = ", ".join(f"{n} {k if n != 1 else _ONE[k]}" for k, n in self.merged.items() if n)
        what = what or "nothing new"
        head = "Would merge" if self.dry_run else "Merged"
        out = [f"{head} {self.person}'s {self.role} package {self.package_id[:8]}: {what}"]
        if self.already:
            out.append(f"{self.already} rows were merged before (unchanged)")
        for c in self.conflicts:
            out.append(f"conflict: {c['kind']} {c['item_id']}: {c['reason']} (kept aside)")
        return out + self.notes


_ONE = {
    "verdicts": "verdict",
    "reviews": "review",
    "entities": "entity",
    "boxes": "box",
    "removals": "removal",
    "restorations": "restoration",
    "track ends": "track end",
    "labels": "label",
    "label edits": "label edit",
    "label deletions": "label deletion",
    "error labels": "error label",
    "ratings": "rating",
    "answers": "answer",
    "audit entries": "audit entry",
}

_MANY = {one: many for many, one in _ONE.items()}
# Kinds of work on an annotator package's frames (a frame is done when any merges).
_FRAME_WORK = (
    "entity",
    "box",
    "restoration",
    "removal",
    "track end",
    "label",
    "label edit",
    "label deletion",
)

# Audit tables whose row ids are rows of work: the merged entry names the row it became.
_AUDITED = {
    "verifications": "verdict",
    "error_labels": "error label",
    "entities": "entity",
    "entity_removals": "removal",
    "difficulty_ratings": "rating",
    "human_answers": "answer",
}


class _DryRun(Exception):
    pass


def merge_package(
    db: str | os.PathLike[str],
    pack: Path,
    *,
    dry_run: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> MergeReport:
    """Bring a package's work into the project in one transaction. Raises `ProjectError`
    with one line naming the package file (nothing changed) when it is refused.
    `progress(done, total)` is called after each row of work is taken in."""
    pack = Path(pack).absolute()
    manifest = read_manifest(pack)
    with open_project(db) as project:
        sent = _check(project, pack, manifest)
        try:
            work = read_work(pack, manifest["copied"])
            work.update(read_annotator_work(pack, manifest["copied"], manifest["created"]))
        except (ValueError, TypeError, project.db.conn.DatabaseError) as exc:  # broken JSON
            raise ProjectError(f"{pack}: unreadable work in the package ({exc})") from None
        _check_signatures(pack, manifest, work)
        report = MergeReport(manifest["package_id"], manifest["person"], manifest["role"])
        report.dry_run = dry_run
        person = project.annotators.get(sent["annotator_id"])
        try:
            with project.write():
                _apply(project, manifest, work, person, report, progress)
                if dry_run:
                    raise _DryRun
        except _DryRun:
            pass
        except ValueError as exc:  # the file as a whole (an audit entry): nothing merged
            raise ProjectError(f"{pack}: {exc}") from None
        return report


def _check(project: Project, pack: Path, manifest: dict[str, Any]) -> dict[str, Any]:
    if manifest.get("format") != "reasonscope-package/1":
        raise ProjectError(
            f"{pack}: not a ReasonScope work package (format {manifest.get('format')!r})"
        )
    own = project.packages.project_id()
    if manifest.get("project_id") != own:
        raise ProjectError(
            f"{pack}: a package of another project ({manifest.get('project_id')}), "
            f"not of {project.path.name} ({own})"
        )
    sent = project.packages.get(str(manifest.get("package_id")))
    if sent is None:
        raise ProjectError(
            f"{pack}: package {manifest.get('package_id')} was never sent from {project.path.name}"
        )
    if dumps(sent["manifest"]) != dumps(manifest):
        raise ProjectError(f"{pack}: tampered: its manifest differs from the one sent")
    hashed = {t: ids for t, ids in manifest["copied"].items() if t in manifest["hashed"]}
    found = content_hash(pack, hashed)
    if found != sent["content_sha256"]:
        upgraded = migrated_since(pack, str(manifest.get("created")))
        if upgraded:  # opened by a newer build: the schema (and so the hash) changed
            raise ProjectError(
                f"{pack}: made by an older ReasonScope and upgraded since it was sent "
                f"({', '.join(upgraded)}), so it no longer matches what was sent; "
                "recall it (reasonscope pack recall) and send the work out again"
            )
        raise ProjectError(
            f"{pack}: tampered: its content hash is {found[:16]}, "
            f"the package was sent with {sent['content_sha256'][:16]}"
        )
    return sent


def _check_signatures(pack: Path, manifest: dict[str, Any], work: dict[str, Any]) -> None:
    """Everything done in a package is the package person's, or it is refused whole."""
    person_id = manifest["person_id"]
    names = {a["id"]: a["name"] for a in work["annotators"]}
    signed = (
        [(v["annotator_id"], "verdict", v["id"]) for v in work["verdicts"]]
        + [(r["reviewer_id"], "review", r["id"]) for r in work["reviews"]]
        + [(e["annotator_id"], "error label", e["id"]) for e in work["errors"]]
        + [(r["annotator_id"], "rating", r["id"]) for r in work["ratings"]]
        + [(a["annotator_id"], "answer", a["id"]) for a in work["answers"]]
        + [(lab["annotator_id"], "label", lab["id"]) for lab in work["labels"] if not lab["copied"]]
        + [(e["annotator_id"], "audit entry", e["id"]) for e in work["audit"] if e["annotator_id"]]
        + [(b["annotator_id"], f"{b['dims']} box", b["id"]) for b in work["boxes"]]
        + [(r["annotator_id"], "removal", r["id"]) for r in work["removals"]]
        + [(r["restored_by"], "putting back of removal", r["id"]) for r in work["restorations"]]
        + [(t["annotator_id"], "track end", t["id"]) for t in work["track_ends"]]
        + [(d["deleted_by"], "deletion of label", d["id"]) for d in work["label_deletions"]]
    )
    for who, what, row in signed:
        if who != person_id:
            if isinstance(who, int):
                signer = names.get(who, f"annotator {who}")
            else:  # a crafted id: quoted short
                signer = f"annotator {str(who)[:20]!r}"
            raise ProjectError(
                f"{pack}: {what} {row} is signed by {str(signer)[:60]}, "
                f"not by {manifest['person']} whose package it is"
            )


@dataclass
class _Merging:
    """What one merge keeps track of while it takes the package's rows in."""

    project: Project
    person: Annotator
    package_id: str
    report: MergeReport
    done_before: dict[tuple[str, int], str]
    versions: dict[tuple[str, int], str]
    live: set[tuple[str, int]]
    context: dict[str, Any]
    targets: dict[tuple[str, int], int | None] = field(default_factory=dict)
    done: list[tuple[str, int]] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_ONE, 0))

    def take(self, kind: str, row: dict, apply: Callable) -> None:
        """One row of work: applied, or kept aside with the rule it breaks (naming the
        package's table and row), or skipped when merged before unchanged."""
        blobs = [k for k, v in row.items() if isinstance(v, bytes)]
        if blobs:  # SQLite keeps bytes anywhere; this build writes none in work: kept aside
            row = {k: f"<{len(v)} bytes>" if isinstance(v, bytes) else v for k, v in row.items()}
        digest = hashlib.sha256(dumps(row).encode()).hexdigest()
        before = self.done_before.get((kind, row["id"]))
        if before == digest:
            self.report.already += 1
            return
        item = _item(kind, row)
        if type(item[1]) is not int:  # a crafted id: the row is kept aside under 0
            item = (item[0], 0)
        project = self.project
        try:
            if before is not None:
                raise ProjectError(f"its {kind} was changed in the package after a merge")
            if item in self.versions and item not in self.live:
                raise ProjectError(f"{item[0]} {item[1]} was recalled from this package")
            if blobs:
                raise ValueError(f"{blobs[0]} holds bytes (a BLOB), not a value of this build")
            check_row(kind, row)
            with project.savepoint():
                target = apply(project, self.person, row, self.versions.get(item), self.context)
        except (ProjectError, ValueError, project.db.conn.DatabaseError) as exc:
            reason = str(exc).split(": ", 1)[-1] if str(exc).startswith("/") else str(exc)
            table = f"boxes_{row['dims']}" if kind == "box" else TABLES[kind]
            reason = f"{table} row {row['id']}: {reason}"
            aside = {**row, "work_kind": kind}  # what `apply_conflict` runs on it
            project.packages.keep_aside(self.package_id, item[0], item[1], reason, aside)
            self.report.conflicts.append({"kind": item[0], "item_id": item[1], "reason": reason})
            target = None
        else:
            self.counts[_MANY[kind]] += 1
        if item[0] != "frame":  # returned, applied or kept aside: not out any more
            self.done.append(item)  # (a frame is done when the package is)
        self.targets[(kind, row["id"])] = target
        project.packages.mark_merged(self.package_id, kind, row["id"], target, digest)

    def take_audit(self, entry: dict) -> None:
        """One audit entry of the package, under its person, naming the row it became."""
        if ("audit", entry["id"]) in self.done_before:
            self.report.already += 1
            return
        if not isinstance(entry["detail"], dict) or not isinstance(entry["action"], str):
            raise ValueError(f"audit_log row {entry['id']}: not an audit entry of ReasonScope")
        entry = dict(entry, detail={**entry["detail"], "package": self.package_id})
        source = _AUDITED.get(entry["table_name"])
        if source is not None and str(entry["row_id"]).isdigit():  # the row it became here
            mapped = self.targets.get((source, int(entry["row_id"])))
            entry["row_id"] = mapped if mapped is not None else entry["row_id"]
        try:
            self.project.packages.add_audit(entry)
        except ValueError as exc:
            raise ValueError(f"audit_log row {entry['id']}: {exc}") from None
        self.project.packages.mark_merged(self.package_id, "audit", entry["id"], None)
        self.counts["audit entries"] += 1


def _apply(
    project: Project,
    manifest: dict,
    work: dict,
    person: Annotator,
    report: MergeReport,
    progress: Callable[[int, int], None] | None,
) -> None:
    package_id = manifest["package_id"]
    context = {
        "labels": {lab["id"]: lab for lab in work["labels"] if lab["copied"]},
        "entities": set(manifest["copied"].get("entities", [])),
        "drawn": project.packages.merged_targets(package_id, "entity"),
        "since": manifest["created"],
        "notes": report.notes,
        "package": package_id,
    }
    merging = _Merging(
        project,
        person,
        package_id,
        report,
        project.packages.merged_sources(package_id),
        {(i["kind"], i["id"]): i["version"] for i in manifest["items"]},
        project.packages.live_items(package_id),
        context,
    )
    new_labels = [lab for lab in work["labels"] if not lab["copied"]]
    reopened = [t for t in work["track_ends"] if t.get("reopened")]  # before the keyframes
    ended = [t for t in work["track_ends"] if not t.get("reopened")]  # after them
    kinds = (
        ("verdict", work["verdicts"], _verdict),
        ("review", work["reviews"], _review),
        ("entity", work["entities"], apply_entity),
        ("track end", reopened, apply_track_end),
        ("restoration", work["restorations"], apply_restoration),  # before boxes set on it
        ("box", work["boxes"], apply_box),
        ("removal", work["removals"], apply_removal),
        ("track end", ended, apply_track_end),
        ("label", new_labels, _new_label),
        ("label edit", work["label_edits"], apply_label_edit),
        ("label deletion", work["label_deletions"], apply_label_deletion),
        ("error label", work["errors"], _error_label),
        ("rating", work["ratings"], apply_rating),
        ("answer", work["answers"], apply_answer),
    )
    total, seen = sum(len(rows) for _kind, rows, _apply in kinds), 0
    project.audit_muted = True
    try:
        for kind, rows, apply in kinds:
            for row in rows:
                merging.take(kind, row, apply)
                seen += 1
                if progress is not None:
                    progress(seen, total)
    finally:
        project.audit_muted = False
    for entry in work["audit"]:
        merging.take_audit(entry)
    _finish(merging, manifest)


def _finish(merging: _Merging, manifest: dict) -> None:
    """The counts into the report; the items the work covered done, and the merge audited."""
    counts, report, project = merging.counts, merging.report, merging.project
    report.merged = counts
    if not report.changed:
        return
    now = utc_now()
    done = merging.done
    if any(counts[_MANY[kind]] for kind in _FRAME_WORK):
        done += [(i["kind"], i["id"]) for i in manifest["items"] if i["kind"] == "frame"]
    project.packages.finish_merge(merging.package_id, done, now)
    project.packages.add_audit(
        {
            "at": now,
            "annotator_id": None,
            "action": "package_merge",
            "table_name": "packages",
            "row_id": merging.package_id,
            "detail": {
                "person": merging.person.name,
                **counts,
                "conflicts": len(report.conflicts),
            },
        }
    )


def _item(kind: str, row: dict) -> tuple[str, int]:
    """The assigned item a row of work is about."""
    if kind == "verdict":
        return ("question", row["question_id"])
    if kind == "review":
        return ("label", row["label_id"])
    if kind == "error label":
        return ("episode", row["episode_id"])
    if kind in ("rating", "answer"):
        return (kind, row["question_id"])
    return ("frame", row["frame_id"])


def _verdict(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    question = project.questions.get(row["question_id"])
    if version is None:
        raise ProjectError(f"question {question.id} was not in this package")
    if str(question.version) != version or not question.is_current:
        raise ProjectError(
            f"question {question.id} has been corrected here since (no longer current)"
        )
    first = project.verifications.first_round_people(question.id)
    if row["round"] == "first" and len([p for p in first if p != person.id]) >= 2:
        raise ProjectError(
            f"question {question.id} got its two first-round verdicts here meanwhile"
        )
    verdict = Verdict(  # checked: the criteria, the decision, a reject's reason, corrections
        unambiguous=bool(row["unambiguous"]),
        evidence_withheld=bool(row["evidence_withheld"]),
        evidence_recoverable=bool(row["evidence_recoverable"]),
        # .get: work kept aside before criterion 4 existed has no such key
        volumes_distinct=None
        if row.get("volumes_distinct") is None
        else bool(row["volumes_distinct"]),
        decision=row["decision"],
        reason=row["reason"],
        corrections=row["corrections"],
    )
    record = project.verifications.submit(
        question.id,
        person,
        verdict,
        row["seconds_on_task"] or 0.0,
        created_at=row["created_at"],
        package=context.get("package"),
    )
    if record.round != row["round"]:
        raise ProjectError(f"question {question.id}: its {row['round']} slot is gone here")
    return record.id


def _review(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    if version is None:
        raise ProjectError(f"label {row['label_id']} was not in this package for review")
    record = project.hoi.record(row["label_id"])
    if record is None or record.label is None:
        raise ProjectError(f"label {row['label_id']} has been deleted here since")
    sent = context.get("labels", {}).get(row["label_id"])
    if version != f"r{record.round}" or (sent and sent["updated_at"] != record.label.updated_at):
        raise ProjectError(
            f"label {row['label_id']} has been edited here since (round {record.round})"
        )
    review = project.hoi.review(
        row["label_id"],
        reviewer=person,
        verdict=row["verdict"],
        difficulty=row["difficulty"],
        comment=row["comment"],
        kind=row["kind"],
        created_at=row["created_at"],
        package=context.get("package"),
    )
    return review.id


def _new_label(project: Project, person: Annotator, row: dict, version, context: dict) -> int:
    if version is None:
        raise ProjectError(f"frame {row['frame_id']} was not in this package")
    check_label(
        HOI_TAXONOMY, row["predicate"], row["category"], row["object_entity_id"] is not None
    )
    label = project.hoi.add_label(
        frame_id=row["frame_id"],
        subject_entity_id=entity_here(context, row["subject_entity_id"]),
        object_entity_id=entity_here(context, row["object_entity_id"]),
        category=row["category"],
        predicate=row["predicate"],
        difficulty=row["difficulty"],
        annotator=person,
    )
    return label.id


def _error_label(project: Project, person: Annotator, row: dict, version, _copied) -> int:
    if version is None:
        raise ProjectError(f"episode {row['episode_id']} was not in this package")
    label = project.episodes.add_label(
        row["episode_id"],
        row["step_index"],
        row["category"],
        row["subcategory"],
        row["note"],
        annotator=person,
    )
    return label.id


# The applier of each kind of work (`work_kind` of a kept-aside row).
_BY_WORK = {
    "verdict": _verdict,
    "review": _review,
    "entity": apply_entity,
    "box": apply_box,
    "removal": apply_removal,
    "restoration": apply_restoration,
    "track end": apply_track_end,
    "label": _new_label,
    "label edit": apply_label_edit,
    "label deletion": apply_label_deletion,
    "error label": _error_label,
    "rating": apply_rating,
    "answer": apply_answer,
}
# Rows kept aside before `work_kind` was stored: the kind of work by the item's kind.
_WORK_OF_ITEM = {
    "question": "verdict",
    "label": "review",
    "frame": "label",
    "episode": "error label",
    "rating": "rating",
    "answer": "answer",
}


def apply_conflict(db: str | os.PathLike[str], conflict_id: int) -> int:
    """Decide a conflict by applying its work to the item as it is now (a verdict to the
    question's current version, a review to the label's current round); returns the
    row it became. Raises `ProjectError` (nothing changed) when the rules still refuse."""
    with open_project(db) as project:
        found = [c for c in project.packages.conflicts() if c["id"] == conflict_id]
        if not found:
            raise ProjectError(f"{project.path}: no open conflict #{conflict_id}")
        conflict = found[0]
        sent = project.packages.get(conflict["package_id"])
        item = (conflict["kind"], conflict["item_id"])
        if item not in project.packages.live_items(conflict["package_id"]):
            raise ProjectError(
                f"{project.path}: conflict #{conflict_id}: {item[0]} {item[1]} was not (or is no "
                "longer) in the package; its work cannot be applied"
            )
        person = project.annotators.get(sent["annotator_id"])
        work = dict(conflict["work"])
        kind = work.pop("work_kind", None) or _WORK_OF_ITEM[conflict["kind"]]
        try:
            check_row(kind, work)
        except ValueError as exc:
            raise ProjectError(f"{project.path}: conflict #{conflict_id}: {exc}") from None
        version: str | None = ""
        copied = {
            "entities": set(sent["manifest"]["copied"].get("entities", [])),
            "drawn": project.packages.merged_targets(conflict["package_id"], "entity"),
            "since": utc_now(),  # the owner applies it over what changed here meanwhile
            "notes": [],
            "labels": {},
            "package": conflict["package_id"],
        }
        if conflict["kind"] in ("question", "rating", "answer"):
            uid = project.questions.get(work["question_id"]).uid
            current = [q for q in project.questions.versions(uid) if q.is_current]
            if not current:
                raise ProjectError(
                    f"{project.path}: question {work['question_id']} has no current version"
                )
            work["question_id"], version = current[0].id, str(current[0].version)
        elif conflict["kind"] == "label":
            record = project.hoi.record(work["label_id"])
            if record is None:
                raise ProjectError(f"{project.path}: label {work['label_id']} is deleted")
            work["round"], version = record.round, f"r{record.round}"
        with project.write():
            project.audit_muted = True
            try:
                target = _BY_WORK[kind](project, person, work, version, copied)
            except ValueError as exc:
                raise ProjectError(f"{project.path}: conflict #{conflict_id}: {exc}") from None
            finally:
                project.audit_muted = False
            project.packages.resolve(conflict_id, "applied")
            project.packages.add_audit(
                {
                    "at": utc_now(),
                    "annotator_id": person.id,
                    "action": "conflict_applied",
                    "table_name": conflict["kind"] + "s",
                    "row_id": target,
                    "detail": {"package": conflict["package_id"], "conflict": conflict_id},
                }
            )
        return target
