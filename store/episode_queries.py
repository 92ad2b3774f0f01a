"""Episodes read in bulk, in SQL: what `metrics` adds up and what the Replay list pages.

`project.episodes` reads and writes one episode at a time; this repository answers the
questions asked of all of them at once without loading any episode whole. The metrics
queries GROUP BY what the figures depend on (model, agent, mode, task, success, calls
per episode, ...), so their rows are few whatever the number of episodes, and the
figures themselves are computed by the pure functions of
`annotation.tabletop.episode_metrics`, `annotation.bimanual.metrics` and
`annotation.model_usage` from those groups. Where a figure needs an
episode's sequence of calls (what it did after a failed grasp), one query streams just
those calls, never the state snapshots.

JSON fields are read with SQLite's JSON functions; a JSON text SQLite cannot read (a
NaN written by Python) is handed over raw for Python to read.

The Replay list pages by keyset (`id > after ORDER BY id LIMIT n`), with its filters in
the WHERE clause and a separate count, so a page costs the same however many episodes
there are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from annotation.bimanual.metrics import bimanual_run
from annotation.models import Episode
from annotation.tabletop.episode_metrics import run_settings
from store.base import Repository, loads
from store.state_blobs import unpack_text

BIMANUAL = "bimanual"
REPLAY_IN_SIM = "replay-in-sim"
TURN_KINDS = ("tool", "action", "answer", "format_error")
MANIPULATION_TOOLS = ("grasp", "push")
RECOVERY_TOOLS = ("grasp", "push", "find_object", "perceive_scene")
# An episode "has a failed grasp" when one of its grasp calls did not succeed.
FAILED_GRASP = (
    "EXISTS (SELECT 1 FROM steps s WHERE s.episode_id = e.id AND s.name = 'grasp' AND s.ok = 0)"
)
LIST_COLUMNS = (
    "e.id, e.uid, e.benchmark, e.model, e.agent, e.mode, e.task, e.question_id, e.scene_id, "
    "e.outcome, e.success, e.score, e.header, e.created_at, "
    "(SELECT count(*) FROM steps s WHERE s.episode_id = e.id), "
    "(SELECT count(*) FROM steps s WHERE s.episode_id = e.id AND s.name = 'grasp' "
    "AND s.ok = 0)"
)
FACETS = ("model", "task", "mode", "outcome")


def _in(values: tuple[str, ...]) -> str:
    return "(" + ", ".join(f"'{v}'" for v in values) + ")"


def json_value(kind: str | None, value: Any) -> Any:
    """A value read with `json_type` and `json_extract`, as `json.loads` would give it."""
    if kind in ("object", "array"):
        return json.loads(value)
    if kind == "true":
        return True
    if kind == "false":
        return False
    return None if kind in (None, "null") else value


def _json_field(column: str, path: str, when: str = "1") -> str:
    """`kind, value` of a JSON path of `column`, when `when` holds and the JSON is valid."""
    guard = f"({when}) AND typeof({column}) = 'text' AND json_valid({column})"
    return (
        f"CASE WHEN {guard} THEN json_type({column}, '{path}') END, "
        f"CASE WHEN {guard} THEN json_extract({column}, '{path}') END"
    )


def _raw(column: str, when: str = "1") -> str:
    """The JSON text of `column` when SQLite cannot read it (for Python to): text that is
    not JSON (a NaN written by Python), or long text stored compressed (a BLOB)."""
    return (
        f"CASE WHEN ({when}) AND {column} IS NOT NULL AND (typeof({column}) = 'blob' "
        f"OR NOT json_valid({column})) THEN {column} END"
    )


# The header fields of a run's settings (annotation.tabletop.episode_metrics.run_settings):
# episodes that differ in one are never added up together.
RUN_PATHS = {
    "prompt_variant": "$.prompt_variant",
    "width": "$.camera.width",
    "height": "$.camera.height",
    "gripper": "$.gripper",
    "perceiver": "$.perceiver",
    "perception_model": "$.perception_model",
    "segmenter": "$.segmenter",
    "max_steps": "$.max_steps",
}


# The same for a dual-arm run (annotation.bimanual.metrics.bimanual_run).
BIMANUAL_RUN_PATHS = {
    "cameras": "$.cameras",
    "width": "$.image_size[0]",
    "height": "$.image_size[1]",
    "max_steps": "$.max_steps",
    "truncate": "$.truncate",
    "example": "$.example",
    "randomization": "$.randomization",
}


def _run_fields(column: str, paths: dict[str, str] = RUN_PATHS) -> str:
    guard = f"typeof({column}) = 'text' AND json_valid({column})"
    return ", ".join(
        f"CASE WHEN {guard} THEN json_extract({column}, '{path}') END" for path in paths.values()
    )


def _raw_header(raw: str) -> dict[str, Any]:
    """A header SQLite could not read (`_raw`), read in Python; {} when it is no object."""
    header = json.loads(unpack_text(raw))
    return header if isinstance(header, dict) else {}


def _bimanual_header(values: tuple, raw: str | None) -> dict[str, Any]:
    """The settings fields of a dual-arm header as `bimanual_run` reads them."""
    if raw is not None:
        return _raw_header(raw)
    fields = dict(zip(BIMANUAL_RUN_PATHS, values, strict=True))
    width, height = fields.pop("width"), fields.pop("height")
    if isinstance(fields["cameras"], str):  # JSON text of the list, as SQLite gives it
        try:
            fields["cameras"] = json.loads(fields["cameras"])
        except json.JSONDecodeError:
            pass  # a plain string, as recorded
    size = [width, height] if width is not None and height is not None else None
    return {**fields, "image_size": size}


def _run_header(values: tuple, raw: str | None) -> dict[str, Any]:
    """The settings fields of a header as `run_settings` reads them: from SQL's columns, or
    from the raw text when SQLite could not read it."""
    if raw is not None:
        return _raw_header(raw)
    fields = dict(zip(RUN_PATHS, values, strict=True))
    width, height = fields.pop("width"), fields.pop("height")
    return {**fields, "camera": {"width": width, "height": height}}


# One row per episode: step counts and usage, from the steps the episode owns.
_PER_EPISODE = f"""
SELECT e.id AS id, e.model AS model, e.agent AS agent, e.mode AS mode, e.task AS task,
       e.success AS own, e.header AS header,
       count(s.id) AS steps,
       coalesce(sum(s.kind = 'format_error'), 0) AS bad,
       coalesce(sum(s.kind = 'tool' AND s.name IN {_in(MANIPULATION_TOOLS)}), 0) AS calls,
       coalesce(sum(s.kind IN {_in(TURN_KINDS)}), 0) AS turns,
       max(CASE WHEN s.kind = 'answer' THEN s.step_index END) AS last_answer,
       count(s.latency_s) AS requests, sum(s.latency_s) AS latency,
       sum(s.tokens_in) AS tokens_in, sum(s.tokens_out) AS tokens_out
FROM episodes e LEFT JOIN steps s ON s.episode_id = e.id
WHERE {{where}}
GROUP BY e.id
"""

# With a tag (`:tag`), only the episodes on questions carrying it (criteria.tags).
_TAGGED = (
    "(:tag IS NULL OR e.question_id IN (SELECT q.id FROM questions q, "
    "json_each(q.criteria, '$.tags') t WHERE t.value = :tag))"
)
_FIND_OR_COUNT = "p.task IN ('find', 'count')"
_EPISODE_GROUPS = f"""
WITH per AS ({_PER_EPISODE.format(where=f"e.benchmark != '{BIMANUAL}' AND {_TAGGED}")})
SELECT p.model, p.agent, p.mode, p.task, p.own,
       {_json_field("a.result", "$.replay.correct", "p.own IS NULL")},
       {_raw("a.result", "p.own IS NULL")},
       p.calls, p.turns,
       {_json_field("p.header", "$.question.answer", _FIND_OR_COUNT)},
       {_raw("p.header")},
       a.step_index IS NOT NULL,
       {_json_field("a.arguments", "$.answer", "p.task = 'count'")},
       {_raw("a.arguments", "p.task = 'count'")},
       {_run_fields("p.header")},
       count(*), sum(p.steps), sum(p.bad), sum(p.bad > 0),
       sum(p.requests), sum(p.latency), sum(p.tokens_in), sum(p.tokens_out)
FROM per p LEFT JOIN steps a ON a.episode_id = p.id AND a.step_index = p.last_answer
GROUP BY {", ".join(str(i) for i in range(1, 18 + len(RUN_PATHS)))}
"""

_BIMANUAL_EPISODES = _PER_EPISODE.format(
    where=f"e.benchmark = '{BIMANUAL}' AND e.agent != '{REPLAY_IN_SIM}'"
)
_BIMANUAL_GROUPS = f"""
WITH per AS ({_BIMANUAL_EPISODES})
SELECT p.model, p.agent, p.task, p.own,
       {_json_field("p.header", "$.tier")}, {_raw("p.header")},
       {_run_fields("p.header", BIMANUAL_RUN_PATHS)},
       count(*), sum(p.bad), sum(p.requests), sum(p.latency), sum(p.tokens_in),
       sum(p.tokens_out)
FROM per p
GROUP BY {", ".join(str(i) for i in range(1, 8 + len(BIMANUAL_RUN_PATHS)))}
"""

_RECOVERY_CALLS = f"""
SELECT s.episode_id, e.model, e.agent, e.mode, s.name, s.ok, {_raw("e.header")},
       {_run_fields("e.header")}
FROM steps s JOIN episodes e ON e.id = s.episode_id
WHERE e.benchmark != '{BIMANUAL}' AND {_TAGGED}
  AND s.kind = 'tool' AND s.name IN {_in(RECOVERY_TOOLS)}
  AND s.episode_id IN (SELECT episode_id FROM steps
                       WHERE kind = 'tool' AND name = 'grasp' AND ok = 0)
ORDER BY s.episode_id, s.step_index
"""


@dataclass(frozen=True)
class EpisodeGroup:
    """Alike MG-VQA episodes (`n` of them) with what their figures depend on; JSON fields
    already read (`answer_correct`, `truth`, `given`: None when absent)."""

    model: str
    agent: str
    mode: str
    task: str
    own_success: bool | None  # the episode's recorded success
    answer_correct: bool | None  # the last answer step's result.replay.correct, if a bool
    calls: int
    turns: int
    truth: Any  # header.question.answer (Find and Count episodes)
    answered: bool  # there is an answer step
    given: Any  # the last answer's arguments.answer (Count episodes)
    run: tuple[tuple[str, Any], ...]  # the run's settings (`run_settings`)
    n: int
    steps: int
    format_error_steps: int
    with_format_errors: int
    requests: int
    latency_s: float | None
    tokens_in: int | None
    tokens_out: int | None


@dataclass(frozen=True)
class BimanualGroup:
    """Alike dual-arm episodes (not replays in sim)."""

    model: str
    agent: str
    task: str
    success: bool | None
    tier: Any
    run: tuple[tuple[str, Any], ...]  # the run's settings (`bimanual_run`)
    n: int
    format_error_steps: int
    requests: int
    latency_s: float | None
    tokens_in: int | None
    tokens_out: int | None


def _truthy(value: Any) -> bool | None:
    return None if value is None else bool(value)


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _read(kind: str | None, value: Any, raw: str | None, path: tuple[str, ...]) -> Any:
    """A JSON field read in SQL, or (`raw`: SQLite could not read the text) in Python."""
    if raw is None:
        return json_value(kind, value)
    node: Any = json.loads(unpack_text(raw))
    for key in path:
        node = node.get(key) if isinstance(node, dict) else None
    return node


def _episode(r: tuple) -> Episode:
    return Episode(
        id=r[0],
        uid=r[1],
        benchmark=r[2],
        model=r[3],
        agent=r[4],
        mode=r[5],
        task=r[6],
        question_id=r[7],
        scene_id=r[8],
        outcome=r[9],
        success=_truthy(r[10]),
        score=r[11],
        header=loads(r[12], {}),
        created_at=r[13],
        step_count=r[14],
    )


@dataclass(frozen=True)
class EpisodePage:
    """One page of the Replay list: episodes and their failed grasp counts."""

    episodes: list[Episode]
    failed_grasps: dict[int, int]  # episode id -> failed grasp calls (0 left out)


class EpisodeQueryRepository(Repository):
    # -- metrics ----------------------------------------------------------------------------
    def episode_groups(self, tag: str | None = None) -> Iterator[EpisodeGroup]:
        """The MG-VQA (every benchmark but the dual-arm one) episodes, grouped; with `tag`,
        only those on questions carrying it."""
        k = len(RUN_PATHS)
        for r in self.db.execute(_EPISODE_GROUPS, {"tag": tag}):
            yield EpisodeGroup(
                model=r[0],
                agent=r[1],
                mode=r[2],
                task=r[3],
                own_success=_truthy(r[4]),
                answer_correct=_bool(_read(r[5], r[6], r[7], ("replay", "correct"))),
                calls=r[8],
                turns=r[9],
                truth=_read(r[10], r[11], r[12], ("question", "answer"))
                if r[3] in ("find", "count")
                else None,
                answered=bool(r[13]),
                given=_read(r[14], r[15], r[16], ("answer",)),
                run=run_settings(_run_header(r[17 : 17 + k], r[12])),
                n=r[17 + k],
                steps=r[18 + k],
                format_error_steps=r[19 + k],
                with_format_errors=r[20 + k],
                requests=r[21 + k],
                latency_s=r[22 + k],
                tokens_in=r[23 + k],
                tokens_out=r[24 + k],
            )

    def recovery_calls(
        self, tag: str | None = None
    ) -> Iterator[tuple[int, str, str, str, tuple, str, bool | None]]:
        """(episode id, model, agent, mode, run settings, tool name, ok) of the grasp, push,
        find_object and perceive_scene calls of the MG-VQA episodes with a failed grasp, in
        order, streamed."""
        for r in self.db.execute(_RECOVERY_CALLS, {"tag": tag}):
            run = run_settings(_run_header(r[7:], r[6]))
            yield r[0], r[1], r[2], r[3], run, r[4], _truthy(r[5])

    def episode_tags(self) -> list[str]:
        """The tags of the questions that have episodes (e.g. authored, hard), sorted."""
        rows = self.db.execute(
            "SELECT DISTINCT t.value FROM episodes e JOIN questions q ON q.id = e.question_id, "
            "json_each(q.criteria, '$.tags') t WHERE t.type = 'text' ORDER BY 1"
        )
        return [r[0] for r in rows]

    def bimanual_groups(self) -> Iterator[BimanualGroup]:
        """The dual-arm episodes but replays in sim, grouped."""
        k = len(BIMANUAL_RUN_PATHS)
        for r in self.db.execute(_BIMANUAL_GROUPS):
            yield BimanualGroup(
                model=r[0],
                agent=r[1],
                task=r[2],
                success=_truthy(r[3]),
                tier=_read(r[4], r[5], r[6], ("tier",)),
                run=bimanual_run(_bimanual_header(r[7 : 7 + k], r[6])),
                n=r[7 + k],
                format_error_steps=r[8 + k],
                requests=r[9 + k],
                latency_s=r[10 + k],
                tokens_in=r[11 + k],
                tokens_out=r[12 + k],
            )

    def bimanual_replays(self) -> int:
        """Dual-arm replays in our simulator (agent "replay-in-sim")."""
        return self.db.execute(
            "SELECT count(*) FROM episodes WHERE benchmark = ? AND agent = ?",
            [BIMANUAL, REPLAY_IN_SIM],
        ).fetchone()[0]

    def bimanual_model_label_kinds(self) -> Iterator[tuple[str, str, tuple, str, str, int]]:
        """(model, agent, run settings, category, subcategory, labelled places) of the models'
        own dual-arm episodes (not replays in sim), each place and kind counted once."""
        k = len(BIMANUAL_RUN_PATHS)
        rows = self.db.execute(
            f"""SELECT e.model, e.agent, {_raw("e.header")},
                       {_run_fields("e.header", BIMANUAL_RUN_PATHS)},
                       l.category, l.subcategory, count(*)
                FROM (SELECT DISTINCT episode_id, step_index, category, subcategory
                      FROM error_labels) l JOIN episodes e ON e.id = l.episode_id
                WHERE e.benchmark = ? AND e.agent != ?
                GROUP BY {", ".join(str(i) for i in range(1, 6 + k))}""",
            [BIMANUAL, REPLAY_IN_SIM],
        )
        for r in rows:
            run = bimanual_run(_bimanual_header(r[3 : 3 + k], r[2]))
            yield r[0], r[1], run, r[3 + k], r[4 + k], r[5 + k]

    def bimanual_label_kinds(self) -> dict[tuple[str, str], int]:
        """(category, subcategory) -> labelled places (episode and step) on dual-arm
        episodes: a place labelled with one kind by two annotators counts once."""
        rows = self.db.execute(
            "SELECT category, subcategory, count(*) FROM (SELECT DISTINCT l.episode_id, "
            "l.step_index, l.category, l.subcategory FROM error_labels l JOIN episodes e "
            "ON e.id = l.episode_id WHERE e.benchmark = ?) GROUP BY 1, 2",
            [BIMANUAL],
        )
        return {(r[0], r[1]): r[2] for r in rows}

    # -- the Replay list ---------------------------------------------------------------------
    def _where(self, filters: dict[str, Any]) -> tuple[list[str], list[Any]]:
        where, params = [], []
        for column in ("model", "task", "mode", "outcome"):
            value = filters.get(column)
            if value is not None:
                where.append(f"e.{column} = ?")
                params.append(value)
        success = filters.get("success")
        if success is not None:
            where.append("e.success = ?")
            params.append(int(success))
        failed = filters.get("failed_grasp")
        if failed is not None:
            where.append(FAILED_GRASP if failed else f"NOT {FAILED_GRASP}")
        return where, params

    def page(self, *, after: int = 0, limit: int = 200, **filters: Any) -> EpisodePage:
        """Up to `limit` episodes with an id above `after` that match the filters (the
        keyword arguments of `EpisodeRepository.list`; None: any), by id."""
        where, params = self._where(filters)
        sql = f"SELECT {LIST_COLUMNS} FROM episodes e WHERE " + " AND ".join(["e.id > ?", *where])
        rows = self.db.execute(sql + " ORDER BY e.id LIMIT ?", [after, *params, limit])
        episodes, failed = [], {}
        for r in rows:
            episodes.append(_episode(r))
            if r[15]:
                failed[r[0]] = r[15]
        return EpisodePage(episodes, failed)

    def count(self, **filters: Any) -> int:
        """How many episodes match the filters (as `page`)."""
        where, params = self._where(filters)
        sql = "SELECT count(*) FROM episodes e" + (" WHERE " + " AND ".join(where) if where else "")
        return self.db.execute(sql, params).fetchone()[0]

    def rank(self, episode_id: int, **filters: Any) -> int | None:
        """How many matching episodes come before `episode_id`, or None when it does not
        match (for showing an episode deep in the list)."""
        where, params = self._where(filters)
        match = self.db.execute(
            "SELECT 1 FROM episodes e WHERE " + " AND ".join(["e.id = ?", *where]),
            [episode_id, *params],
        ).fetchone()
        if match is None:
            return None
        sql = "SELECT count(*) FROM episodes e WHERE " + " AND ".join(["e.id < ?", *where])
        return self.db.execute(sql, [episode_id, *params]).fetchone()[0]

    def facets(self) -> dict[str, list[str]]:
        """The distinct models, tasks, modes and outcomes stored (the filters' choices), as
        `EpisodeRepository.facets`: models, tasks and modes from the index on them."""
        seen: dict[str, set[str]] = {column: set() for column in FACETS}
        combos = self.db.execute("SELECT model, task, mode FROM episodes GROUP BY 1, 2, 3")
        outcomes = self.db.execute("SELECT DISTINCT outcome FROM episodes")
        for row in [*combos, *((None, None, None, o) for (o,) in outcomes)]:
            for column, value in zip(FACETS, row, strict=False):
                if value:
                    seen[column].add(value)
        return {c: sorted(v, key=lambda x: (_ascii_lower(x), x)) for c, v in seen.items()}

    def any(self) -> bool:
        """True when the project holds at least one episode."""
        return self.db.execute("SELECT 1 FROM episodes LIMIT 1").fetchone() is not None


def _ascii_lower(text: str) -> str:
    """SQLite's NOCASE folding: ASCII letters only."""
    return text.translate(_NOCASE)


_NOCASE = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
