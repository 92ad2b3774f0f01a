"""What recorded dual-arm (ST-BiBench) episodes add up to: success per model and task,
the error kinds of the dual-arm paper's analysis, format-error steps.

Pure functions over `Episode`/`Step` pairs (annotation.models) and error labels; no
database, no simulator, no screen. `bimanual_metrics` is the `bimanual` key of
`reasonscope metrics --json`; the paper's tables come from `annotation.bimanual.paper_tables`,
the `per_model` figures from `annotation.model_usage`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from annotation.averages import AVERAGE_RULE, full_mean, pct
from annotation.bimanual.paper_tables import (
    FINE,
    paper_tables,
    sim_task,
    tier_of,
    view_of,
    views_table,
)
from annotation.model_usage import model_name
from annotation.models import Episode, Step
from annotation.runs import Run, plain_setting, run_label

BIMANUAL_BENCHMARK = "bimanual"
REPLAY_IN_SIM_AGENT = "replay-in-sim"  # re-runs of another episode: not a model's own try
#: The error kinds of the dual-arm paper's analysis (papers/003, appendix D), in its order:
#: (category, subcategory) ids of resources/taxonomies/episode_errors.json.
BIMANUAL_ERROR_KINDS = (
    ("environment", "execution_flaw"),
    ("environment", "scene_randomization"),
    ("perceptual_reasoning", "state_estimation"),
    ("perceptual_reasoning", "end_effector_allocation"),
    ("perceptual_reasoning", "physical_attribute"),
    ("strategic_planning", "action_sequencing"),
    ("strategic_planning", "bimanual_conflict"),
    ("strategic_planning", "action_parameters"),
    ("format", ""),
)
BIMANUAL_CATEGORIES = tuple(dict.fromkeys(c for c, _ in BIMANUAL_ERROR_KINDS))


def error_key(category: str, subcategory: str = "") -> str:
    """The key of an error kind in the `bimanual.errors` counts: its most specific id."""
    return subcategory or category


def is_bimanual(episode: Episode) -> bool:
    return episode.benchmark == BIMANUAL_BENCHMARK


#: The header fields that make a dual-arm run (in this order): `bimanual_run` reads them,
#: store/episode_queries.py groups on the same.
BIMANUAL_RUN_KEYS = (
    "cameras",
    "image_size",
    "max_steps",
    "truncate",
    "example",
    "randomization",
)


def bimanual_run(header: dict[str, Any]) -> Run:
    """The settings of the dual-arm run an episode belongs to: the cameras the model saw,
    the image size, the step limit, the truncation, the task example shown ("harness":
    the task file's reply; "harness+picture": with the task's picture after the text) and
    a randomized look, as recorded (unrecorded, no example and a fixed look left
    out, so headers from before these keys group as they did)."""
    header = header if isinstance(header, dict) else {}
    size = header.get("image_size")
    if isinstance(size, list | tuple) and len(size) == 2:
        size = f"{size[0]}x{size[1]}"
    values = {
        "cameras": header.get("cameras"),
        "image_size": size,
        "max_steps": header.get("max_steps"),
        "truncate": header.get("truncate"),
        "example": header.get("example") or None,
        "randomization": "randomized" if header.get("randomization") else None,
    }
    return tuple(
        (k, plain_setting(values[k])) for k in BIMANUAL_RUN_KEYS if values[k] not in (None, "")
    )


def row_names(facts: Sequence[BimanualFacts]) -> dict[tuple[str, Run], str]:
    """The row each (model, run) is shown in: the model's name when it has one run, else the
    name with the run's settings, so two runs of a model are never added up together."""
    runs: dict[str, list[Run]] = {}
    for f in facts:
        seen = runs.setdefault(f.model, [])
        if f.run not in seen:
            seen.append(f.run)
    return {
        (model, run): model if len(these) == 1 else f"{model} ({run_label(run) or 'unrecorded'})"
        for model, these in runs.items()
        for run in these
    }


#: The choices behind the `bimanual` numbers, reported with them (`settings`).
BIMANUAL_SETTINGS = {
    "tasks": "every dual-arm task with episodes in the project",
    "average": f"per model: {AVERAGE_RULE}",
    "success": "the episode's recorded outcome; an episode without one counts as not succeeded",
    "replays_in_sim": "re-runs of recorded plans in our simulator are not counted",
    "runs": "a model's episodes under different settings (cameras, image size, step limit, "
    "truncation) are separate rows, named with their settings; never added up together",
}


def bimanual_metrics(
    episodes: Iterable[tuple[Episode, Sequence[Step]]], labels: Iterable[Any] = ()
) -> dict[str, Any]:
    """What dual-arm episodes add up to: success per model and task, and the errors found.

    `episodes` are (Episode, steps) pairs (other benchmarks are skipped); `labels` are
    the error labels (`ErrorLabel`) on them. Shape::

        {"episodes": int,                          # dual-arm episodes counted
         "models": [str], "tasks": [str],          # sorted
         "success_by_task": {model: {task: {"success": int, "episodes": int,
                                            "rate": float | null,   # success / episodes, 0..1
                                            "unknown": int}}},      # outcome not recorded
         "average_by_model": {model: {"rate": float | null,  # mean over every task
                                      "missing": [str]}},     # listed; null if any lacks
         "settings": {...},                        # the choices behind the numbers
         "runs": {model: {setting: value}},        # each row's run (`bimanual_run`); a
                                                   # model with several runs has a row each
         "errors": {kind: int},                    # labelled steps per error kind
         "other_errors": {kind: int},              # labels outside the paper's kinds
         "format_error_steps": int,                # unreadable replies (automatic)
         "format_error_by_model": {model: int},
         "replays_in_sim": int,                    # re-runs in our world, not counted above
         "errors_by_model": {model: {"labels": int, # labelled steps of its own episodes
                                     "groups": {category: {"n", "pct"}},
                                     "kinds": {kind: {"n", "pct"}}, "other": {"n", "pct"}}},
         "paper": {...}}                           # Tables 1 and 3 of papers/003, by tier
                                                   # (annotation.bimanual.paper_tables)

    A model is the episode's model (else its agent). An episode whose outcome is unknown
    counts in `episodes` and `unknown`, not as a success. Replays in our simulator
    (agent "replay-in-sim") re-run another episode's plans, so they count only in
    `replays_in_sim`. `errors` has every kind of `BIMANUAL_ERROR_KINDS`, keyed by
    `error_key` (e.g. "state_estimation", "format"); a step labelled with a kind by two
    annotators counts once. Format-error steps are counted from the steps themselves,
    whether or not anyone labelled them.
    """
    facts: list[BimanualFacts] = []
    rows_of: dict[int, tuple[str, Run]] = {}  # episode id -> (model, run) of a model's try
    ids: set[int] = set()
    replays = 0
    for episode, steps in episodes:
        if not is_bimanual(episode):
            continue
        ids.add(episode.id)
        if episode.agent == REPLAY_IN_SIM_AGENT:
            replays += 1
            continue
        facts.append(
            BimanualFacts(
                model_name(episode.model, episode.agent),
                episode.task,
                episode.success,
                episode.header.get("tier"),
                sum(1 for s in steps if s.kind == "format_error"),
                run=bimanual_run(episode.header),
            )
        )
        rows_of[episode.id] = (facts[-1].model, facts[-1].run)
    kinds: Counter = Counter()
    by_model: Counter = Counter()
    seen: set[tuple] = set()
    for label in labels:
        where = (label.episode_id, label.step_index, label.category, label.subcategory)
        if label.episode_id not in ids or where in seen:
            continue
        seen.add(where)
        kinds[(label.category, label.subcategory)] += 1
        if label.episode_id in rows_of:
            by_model[(*rows_of[label.episode_id], label.category, label.subcategory)] += 1
    return summarize_bimanual(facts, kinds, replays, by_model)


@dataclass(frozen=True)
class BimanualFacts:
    """`n` alike dual-arm episodes (not replays in sim) of one model and task."""

    model: str  # `model_name`
    task: str
    success: bool | None
    tier: Any = None  # the header's tier
    format_error_steps: int = 0  # summed over the n episodes
    n: int = 1
    run: Run = ()  # the run's settings (`bimanual_run`)


def summarize_bimanual(
    facts: Iterable[BimanualFacts],
    label_kinds: Counter | dict,
    replays: int = 0,
    model_kinds: Counter | dict | None = None,
) -> dict[str, Any]:
    """`bimanual_metrics` from grouped facts and labelled steps per (category, subcategory),
    each step counted once per kind; `model_kinds` the same per (model, run, category,
    subcategory) for the models' own episodes (not replays in sim)."""
    table: dict[str, dict[str, dict[str, Any]]] = {}
    tiered: dict[str, dict[str, dict[str, dict[str, int]]]] = {}
    format_by_model: dict[str, int] = {}
    total = 0
    facts = list(facts)
    names = row_names(facts)
    runs: dict[str, dict[str, Any]] = {}
    views: dict[str, dict[str, dict[str, dict[str, int]]]] = {}  # model -> view -> task
    for f in facts:
        total += f.n
        model = names[(f.model, f.run)]
        runs[model] = dict(f.run)
        cell = table.setdefault(model, {}).setdefault(
            f.task, {"success": 0, "episodes": 0, "rate": None, "unknown": 0}
        )
        cell["episodes"] += f.n
        if f.success is None:
            cell["unknown"] += f.n
        elif f.success:
            cell["success"] += f.n
        cell["rate"] = cell["success"] / cell["episodes"]
        if tier_of(f.tier) == FINE:
            task = sim_task(f.task, f.tier)
            view = view_of(dict(f.run).get("cameras"))
            seen = views.setdefault(f.model, {}).setdefault(view, {})
            seen = seen.setdefault(task, {"success": 0, "episodes": 0})
            seen["episodes"] += f.n
            seen["success"] += f.n if f.success else 0
        by_tier = tiered.setdefault(tier_of(f.tier), {}).setdefault(model, {})
        counts = by_tier.setdefault(sim_task(f.task, f.tier), {"success": 0, "episodes": 0})
        counts["episodes"] += f.n
        counts["success"] += f.n if f.success else 0
        format_by_model[model] = format_by_model.get(model, 0) + f.format_error_steps
    errors = {error_key(c, s): 0 for c, s in BIMANUAL_ERROR_KINDS}
    other: dict[str, int] = {}
    for (category, subcategory), n in sorted(label_kinds.items()):
        key = error_key(category, subcategory)
        if (category, subcategory) in BIMANUAL_ERROR_KINDS:
            errors[key] += n
        else:
            other[key] = other.get(key, 0) + n
    models = sorted(table, key=str.lower)
    tasks = sorted({t for row in table.values() for t in row})
    averages = {}
    for m in models:
        rate, missing = full_mean({t: c["rate"] for t, c in table[m].items()}, tasks)
        averages[m] = {"rate": rate, "missing": missing}
    return {
        "episodes": total,
        "models": models,
        "tasks": tasks,
        "success_by_task": {m: dict(sorted(table[m].items())) for m in models},
        "average_by_model": averages,
        "settings": BIMANUAL_SETTINGS,
        "runs": {m: runs[m] for m in models},
        "errors": errors,
        "other_errors": dict(sorted(other.items())),
        "format_error_steps": sum(format_by_model.values()),
        "format_error_by_model": {m: format_by_model[m] for m in models},
        "replays_in_sim": replays,
        "paper": {**paper_tables(tiered, models), "views": views_table(views)},
        "errors_by_model": _errors_by_model(model_kinds or {}, names, models),
    }


def _errors_by_model(
    model_kinds: Counter | dict, names: dict[tuple[str, Run], str], models: list[str]
) -> dict[str, Any]:
    """Per row: labelled steps, and the share (%) of each error group (category) and kind
    among them (a step labelled with two kinds counts in each)."""
    counts: dict[str, Counter] = {}
    for (model, run, category, subcategory), n in model_kinds.items():
        row = names.get((model, run))
        if row is not None:
            counts.setdefault(row, Counter())[(category, subcategory)] += n
    out = {}
    for row in (m for m in models if m in counts):
        c = counts[row]
        total = sum(c.values())
        groups = {g: sum(n for (cat, _), n in c.items() if cat == g) for g in BIMANUAL_CATEGORIES}
        kinds = {error_key(cat, sub): c.get((cat, sub), 0) for cat, sub in BIMANUAL_ERROR_KINDS}
        other = sum(n for k, n in c.items() if k not in BIMANUAL_ERROR_KINDS)
        out[row] = {
            "labels": total,
            "groups": {g: {"n": n, "pct": pct(n, total)} for g, n in groups.items()},
            "kinds": {k: {"n": n, "pct": pct(n, total)} for k, n in kinds.items()},
            "other": {"n": other, "pct": pct(other, total)},
        }
    return out
