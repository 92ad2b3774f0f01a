"""Foundational spatial grounding records: items, and model predictions scored on import.

`project.spatial` is this repository. Reading replies and scoring them is
`annotation.bimanual.spatial_grounding`; this module stores items and what the scoring decided,
each write in one audited transaction.

Items are state, not pixels: the objects and their positions, from which
`sim.bimanual.spatial_scene` re-renders the head-camera image. A prediction belongs to an item and
a model; importing the same (item, model) again replaces the earlier prediction, other
items of that model stay. Each prediction keeps the raw reply, what could be read from it
(possibly nothing, with notes), the sigma it was scored with, and one row per asked
object (arm given, right arm, |x|, score), so that `summary(sigma)` can rescore with
another sigma without reading the replies again.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from annotation.bimanual.spatial_grounding import (
    DEFAULT_SIGMA,
    GroundingItem,
    ObjectScore,
    SpatialImportReport,
    SpatialPrediction,
    score_prediction,
    summarise,
)
from annotation.formats.json_text import brief, clip
from store.base import Repository, dumps, loads
from store.errors import ProjectError, utc_now

_PREDICTION_SELECT = (
    "SELECT p.id, p.item_id, i.setting, p.model, p.reply, p.choices, p.notes, p.sigma, "
    "p.source, p.imported_at FROM spatial_predictions p JOIN spatial_items i ON i.id = p.item_id"
)


def _item(r: tuple) -> GroundingItem:
    objects = {name: tuple(pos) for name, pos in loads(r[3]).items()}
    return GroundingItem(r[0], r[1], objects, tuple(loads(r[4])), r[2])


def _row_error(line: int, problem: str) -> ValueError:
    return ValueError(f"line {line}: {problem}")


class SpatialRepository(Repository):
    """Spatial grounding items and the models' scored predictions."""

    # -- items ------------------------------------------------------------------------------
    def add_items(self, items: Sequence[GroundingItem]) -> int:
        """Store items in one transaction; returns how many were new.

        An item already stored with the same content is left as it is (generating the same
        setting and seed again is harmless); one stored under the same id with other
        objects raises ProjectError and nothing is stored.
        """
        added = 0
        now = utc_now()
        with self.project.write():
            for item in items:
                objects = dumps({k: list(v) for k, v in item.objects.items()})
                asked = dumps(list(item.asked))
                old = self.db.execute(
                    "SELECT setting, objects, asked FROM spatial_items WHERE id = ?", [item.id]
                ).fetchone()
                if old is not None:
                    if tuple(old) != (item.setting, objects, asked):
                        raise ProjectError(
                            f"{self.project.path}: item {item.id} is already stored with other "
                            "objects; use another seed"
                        )
                    continue
                self.db.execute(
                    "INSERT INTO spatial_items(id, setting, seed, objects, asked, created_at) "
                    "VALUES (?, ?, ?, ?, ?, ?)",
                    [item.id, item.setting, item.seed, objects, asked, now],
                )
                added += 1
            if added:
                self._audit(None, "add", "spatial_items", "", {"count": added})
        return added

    def items(self, setting: str | None = None) -> list[GroundingItem]:
        """Stored items (of one setting), by setting and id."""
        where, params = ("WHERE setting = ?", [setting]) if setting is not None else ("", [])
        rows = self.db.execute(
            f"SELECT id, setting, seed, objects, asked FROM spatial_items {where} "
            "ORDER BY setting, seed, id",
            params,
        ).fetchall()
        return [_item(r) for r in rows]

    def get_items(self, ids: Sequence[str]) -> dict[str, GroundingItem]:
        """The stored items among `ids`, by id (unknown ids are left out)."""
        found: dict[str, GroundingItem] = {}
        ordered = sorted(set(ids))
        for start in range(0, len(ordered), 900):
            part = ordered[start : start + 900]
            rows = self.db.execute(
                "SELECT id, setting, seed, objects, asked FROM spatial_items "
                f"WHERE id IN ({', '.join('?' * len(part))})",
                part,
            ).fetchall()
            found.update((r[0], _item(r)) for r in rows)
        return found

    # -- predictions ------------------------------------------------------------------------
    def import_predictions(
        self,
        model: str,
        rows: list[Any],
        *,
        sigma: float = DEFAULT_SIGMA,
        source: str = "",
        lines: Sequence[int] | None = None,
    ) -> SpatialImportReport:
        """Read, score and store prediction rows in one transaction, all or nothing.

        Each row is ``{"id": "<item id>", "reply": "<raw model text>"}`` or ``{"id": ...,
        "results": [{"object": ..., "use_arm": ...}, ...]}``. A reply that cannot be read is
        data: its objects score 0 and it is stored with notes saying why. A row that is not
        an object, has no id, names an unknown item, repeats an item or has neither reply
        nor results raises ValueError "line N: problem" (`lines[i]`, else i + 1) and nothing
        is stored. A model's earlier predictions of the same items are replaced.
        """
        name = (model or "").strip()
        if not name:
            raise ValueError("no model name")
        if not sigma > 0:
            raise ValueError(f"sigma must be positive, not {sigma}")
        lines = list(lines) if lines is not None else list(range(1, len(rows) + 1))
        if len(lines) != len(rows):
            raise ValueError(f"{len(rows)} rows but {len(lines)} line numbers")
        parsed: list[tuple[str, dict[str, Any], int]] = []
        seen: dict[str, int] = {}
        for row, line in zip(rows, lines, strict=True):
            if not isinstance(row, dict):
                raise _row_error(line, "not a JSON object")
            item_id = row.get("id")
            if not isinstance(item_id, str) or not item_id.strip():
                raise _row_error(line, "'id' must be an item's id (a string)")
            if "reply" not in row and "results" not in row:
                raise _row_error(line, "needs a 'reply' (the model's text) or 'results'")
            if item_id in seen:
                raise _row_error(
                    line, f"item {clip(item_id)} already predicted on line {seen[item_id]}"
                )
            seen[item_id] = line
            parsed.append((item_id, row, line))
        items = self.get_items(list(seen))
        for item_id, _, line in parsed:
            if item_id not in items:
                raise _row_error(line, f"no spatial grounding item with id {brief(item_id)}")
        scored = [
            score_prediction(items[item_id], name, sigma=sigma, source=source, **_answer(row))
            for item_id, row, _ in parsed
        ]
        now = utc_now()
        conn = self.db.conn
        with self.project.write():
            replaced = conn.executemany(
                "DELETE FROM spatial_predictions WHERE item_id = ? AND model = ?",
                [(p.item_id, name) for p in scored],
            ).rowcount
            # ids given here (the write lock is held) so that both tables go in one batch each
            first = self.db.execute("SELECT coalesce(max(id), 0) FROM spatial_predictions")
            first = first.fetchone()[0] + 1
            conn.executemany(
                "INSERT INTO spatial_predictions(id, item_id, model, reply, choices, notes, "
                "sigma, score, source, imported_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (first + k, p.item_id, name, p.reply, dumps(p.choices), dumps(p.notes))
                    + (sigma, p.score, source, now)
                    for k, p in enumerate(scored)
                ],
            )
            conn.executemany(
                "INSERT INTO spatial_object_scores(prediction_id, object, predicted, "
                "correct, distance, score) VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (first + k, o.object, o.predicted, o.correct, o.distance, o.score)
                    for k, p in enumerate(scored)
                    for o in p.objects
                ],
            )
            unreadable = sum(not p.readable for p in scored)
            counts = {"imported": len(scored), "unreadable": unreadable, "replaced": replaced}
            self._audit(
                None,
                "import",
                "spatial_predictions",
                name,
                {"source": source, "sigma": sigma, **counts},
            )
        return SpatialImportReport(source, sigma, len(scored), unreadable, replaced, {name: counts})

    def predictions(self, model: str | None = None) -> list[SpatialPrediction]:
        """Stored predictions (of one model) with their per-object scores, by model and item."""
        where, params = ("WHERE p.model = ?", [model]) if model is not None else ("", [])
        rows = self.db.execute(
            f"{_PREDICTION_SELECT} {where} ORDER BY p.model, i.setting, p.item_id", params
        ).fetchall()
        objects: dict[int, list[ObjectScore]] = {}
        score_rows = self.db.execute(
            "SELECT s.prediction_id, s.object, s.predicted, s.correct, s.distance, s.score "
            "FROM spatial_object_scores s JOIN spatial_predictions p ON p.id = s.prediction_id "
            f"{where} ORDER BY s.prediction_id, s.rowid",
            params,
        )
        for r in score_rows:
            objects.setdefault(r[0], []).append(ObjectScore(*r[1:]))
        return [
            SpatialPrediction(
                item_id=r[1],
                setting=r[2],
                model=r[3],
                reply=r[4],
                choices=loads(r[5]),
                notes=loads(r[6]),
                sigma=r[7],
                objects=objects.get(r[0], []),
                source=r[8],
                imported_at=r[9],
                id=r[0],
            )
            for r in rows
        ]

    def models(self) -> list[str]:
        """Names of the models with stored predictions, sorted."""
        rows = self.db.execute("SELECT DISTINCT model FROM spatial_predictions ORDER BY model")
        return [r[0] for r in rows]

    def delete_predictions(self, model: str) -> int:
        """Remove one model's predictions; returns how many."""
        with self.project.write():
            n = self.db.execute("DELETE FROM spatial_predictions WHERE model = ?", [model])
            self._audit(None, "delete", "spatial_predictions", model, {"count": n.rowcount})
        return n.rowcount

    # -- results ----------------------------------------------------------------------------
    def summary(self, sigma: float | None = None) -> dict[str, Any]:
        """Per model and setting, the mean item score and item count, and the mean of the
        three settings ("average", the paper's Avg.; null when a setting has no items,
        which "missing" lists), with the choices behind them ("settings"):

        ``{"sigma": s, "settings": {..}, "by_model": {model: {"sparse": {"score": ..,
        "items": n}, "dense": .., "cluttered": .., "average": .., "missing": [..]}}}``
        (settings without items left out of a row).

        Scored with `sigma`; by default with the sigma the predictions were imported with
        when they all share one, else `DEFAULT_SIGMA`.
        """
        if sigma is None:
            used = [r[0] for r in self.db.execute("SELECT DISTINCT sigma FROM spatial_predictions")]
            sigma = used[0] if len(used) == 1 else DEFAULT_SIGMA
        elif not sigma > 0:
            raise ValueError(f"sigma must be positive, not {sigma}")
        return summarise(self.predictions(), sigma)

    def counts(self) -> dict[str, int]:
        """Stored items, predictions and unreadable predictions."""
        one = lambda sql: self.db.execute(sql).fetchone()[0]  # noqa: E731
        return {
            "items": one("SELECT count(*) FROM spatial_items"),
            "predictions": one("SELECT count(*) FROM spatial_predictions"),
            "unreadable": one("SELECT count(*) FROM spatial_predictions WHERE choices = '{}'"),
        }


def _answer(row: dict[str, Any]) -> dict[str, Any]:
    """The keyword arguments of `score_prediction` for a row: its reply text, else results."""
    if "reply" in row:
        reply = row["reply"]
        if reply is None:
            reply = ""
        elif not isinstance(reply, str):  # a harness that stored the parsed JSON
            reply = dumps(reply)
        return {"reply": reply}
    return {"results": row["results"]}
