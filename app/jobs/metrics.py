"""Metrics shared by `reasonscope metrics` and the Results mode."""

from __future__ import annotations

import os
from collections import Counter
from itertools import groupby
from typing import Any

from annotation.averages import average_text
from annotation.bimanual.metrics import BimanualFacts, summarize_bimanual
from annotation.jrdb.hoi_review import hoi_agreement, hoi_counts, in_qc_sample, sequence_progress
from annotation.jrdb.hoi_taxonomy import load_hoi_taxonomy
from annotation.jrdb.reasoning_eval import (
    LEVEL_DEFINITIONS,
    LEVELS,
    REASONING_SETTINGS,
)
from annotation.jrdb.reasoning_tables import (
    PAPER_TABLES,
    accuracy_by_level,
    human_accuracy_by_level,
    paper_table,
    spearman_table,
    step_curves,
)
from annotation.model_usage import PER_MODEL_SETTINGS, ModelUsage, model_name, per_model_rows
from annotation.tabletop.episode_metrics import (
    EpisodeFacts,
    classify_tool_calls,
    compare_count,
    presence_of,
    summarize_episodes,
    unwrap_answer,
)
from store import open_for_reading


def verification_metrics(db_path: str | os.PathLike[str]) -> dict[str, Any]:
    """Verification agreement and progress of a project, as the `verification` JSON key.

    Opens the project read-only when the file (or its folder) is not writable.
    Raises `ProjectError` with a one-line reason for a missing or bad file.

    Shape: {"verification": {"n", "criteria", "decision", "decision_labels",
    "status_counts", "adjudication_pending", "time_on_task"}}; see docs/verification.md.
    """
    with open_for_reading(db_path) as project:
        return {"verification": project_verification_metrics(project)}


def project_metrics(db_path: str | os.PathLike[str], tag: str | None = None) -> dict[str, Any]:
    """Everything `reasonscope metrics` reports: {"verification": {...}, "episodes": {...},
    "hoi": {...}, "reasoning": {...}, "bimanual": {...}}.

    Read-only where needed, and one-line `ProjectError`s, as `verification_metrics`.
    The `episodes` shape is documented in `annotation.tabletop.episode_metrics.episode_metrics`,
    the `bimanual` one in `annotation.bimanual.metrics.bimanual_metrics`. With
    `tag`, the `episodes` figures count only the episodes on questions carrying it.
    """
    with open_for_reading(db_path) as project:
        return {
            "verification": project_verification_metrics(project),
            "episodes": project_episode_metrics(project, tag),
            "hoi": project_hoi_metrics(project),
            "reasoning": project_reasoning_metrics(project),
            "bimanual": project_bimanual_metrics(project),
        }


def project_episode_metrics(project, tag: str | None = None) -> dict[str, Any]:
    """The `episodes` metrics of an open project: success, manipulation, recovery, errors,
    and `per_model` (episodes, success, model requests, latency, tokens).

    Dual-arm episodes have their own key (`project_bimanual_metrics`) and are left out.
    With `tag`, only the episodes on questions carrying it (a Hard table: tag "hard").
    Added up in SQL (`project.episode_queries`): the figures of `episode_metrics`, computed
    from groups of alike episodes and the calls of those with a failed grasp.
    """
    queries = project.episode_queries
    facts, usage = [], {}
    for g in queries.episode_groups(tag):
        success = g.own_success if g.own_success is not None else bool(g.answer_correct)
        truth = unwrap_answer(g.truth)
        facts.append(
            EpisodeFacts(
                g.model,
                g.agent,
                g.mode,
                g.task,
                success=success,
                calls=g.calls,
                turns=g.turns,
                presence=presence_of(truth) if g.task == "find" else None,
                count=compare_count(truth, g.answered, g.given) if g.task == "count" else None,
                steps=g.steps,
                format_error_steps=g.format_error_steps,
                with_format_errors=g.with_format_errors,
                n=g.n,
                run=g.run,
            )
        )
        usage.setdefault(model_name(g.model, g.agent), ModelUsage()).add(
            g.n, g.n if success else 0, g.requests, g.latency_s, g.tokens_in, g.tokens_out
        )
    out = summarize_episodes(facts, _recoveries(queries.recovery_calls(tag)))
    out["per_model"] = per_model_rows(usage)
    out["per_model_settings"] = PER_MODEL_SETTINGS
    out["tag"] = tag
    return out


def _recoveries(calls) -> Counter:
    """{(model, agent, mode, run, Recovery): episodes} from the streamed calls of the
    episodes with a failed grasp (`EpisodeQueryRepository.recovery_calls`)."""
    out: Counter = Counter()
    for (_id, model, agent, mode, run), rows in groupby(calls, key=lambda r: r[:5]):
        recovery = classify_tool_calls([(r[5], r[6]) for r in rows])
        if recovery is not None:
            out[(model, agent, mode, run, recovery)] += 1
    return out


def project_bimanual_metrics(project) -> dict[str, Any]:
    """The `bimanual` metrics of an open project: success per model and task, error labels
    per category of the dual-arm paper, format-error steps (docs/bimanual-replay.md), and
    `per_model` as in `project_episode_metrics`. Added up in SQL."""
    queries = project.episode_queries
    facts, usage = [], {}
    for g in queries.bimanual_groups():
        model = model_name(g.model, g.agent)
        facts.append(
            BimanualFacts(model, g.task, g.success, g.tier, g.format_error_steps, g.n, run=g.run)
        )
        usage.setdefault(model, ModelUsage()).add(
            g.n, g.n if g.success else 0, g.requests, g.latency_s, g.tokens_in, g.tokens_out
        )
    by_model: Counter = Counter()
    for model, agent, run, category, subcategory, n in queries.bimanual_model_label_kinds():
        by_model[(model_name(model, agent), run, category, subcategory)] += n
    out = summarize_bimanual(
        facts, queries.bimanual_label_kinds(), queries.bimanual_replays(), by_model
    )
    out["per_model"] = per_model_rows(usage)
    out["per_model_settings"] = PER_MODEL_SETTINGS
    out["spatial"] = project.spatial.summary()  # as app.jobs.spatial.spatial_metrics
    return out


def model_lines(rows: list[dict[str, Any]]) -> list[str]:
    """The `per_model` rows as plain-text lines: episodes, success, mean latency, tokens."""
    if not rows:
        return []
    width = max([12] + [len(r["model"]) for r in rows])
    lines = [
        f"  {'per model':<{width}} {'episodes':>9} {'success':>14} {'requests':>9} "
        f"{'latency':>9} {'tokens in':>13} {'tokens out':>13}"
    ]
    for r in rows:
        rate = "-" if r["success_pct"] is None else f"{r['success_pct']:.1f} %"
        latency = "-" if r["mean_latency_s"] is None else f"{r['mean_latency_s']:.2f} s"
        tin, tout = ("-" if t is None else f"{t:,}" for t in (r["tokens_in"], r["tokens_out"]))
        success = f"{r['succeeded']:,} ({rate})"
        lines.append(
            f"  {r['model']:<{width}} {r['episodes']:>9,} {success:>14} "
            f"{r['requests']:>9,} {latency:>9} {tin:>13} {tout:>13}"
        )
    return lines


def bimanual_lines(m: dict[str, Any]) -> list[str]:
    """The `bimanual` metrics as the plain-text lines `reasonscope metrics` prints."""
    lines = [
        f"bimanual: {m['episodes']} episodes, {m['format_error_steps']} format-error steps, "
        f"{m['replays_in_sim']} replays in sim"
    ]
    tasks = m["tasks"]
    if tasks:
        width = max([12] + [len(model) for model in m["models"]])
        lines.append(f"  {'model':<{width}} " + " ".join(f"{t[:20]:>20}" for t in tasks))
    for model, row in m["success_by_task"].items():
        cells = []
        for task in tasks:
            c = row.get(task)
            text = "-" if c is None else f"{c['success']}/{c['episodes']} ({100 * c['rate']:.0f} %)"
            cells.append(f"{text:>20}")
        lines.append(f"  {model:<{width}} " + " ".join(cells))
    paper = m.get("paper") or {}
    for r in (paper.get("planning") or {}).get("rows", []):
        groups = ", ".join(
            f"{g} {'incomplete' if v is None else f'{v:.2f}'}" for g, v in r["group_avg"].items()
        )
        lines.append(
            f"  paper Table 1 (planning) {r['model']}: {groups}; total "
            f"{average_text(r['total_avg'], r['missing'], 2)}"
        )
    for r in (paper.get("fine") or {}).get("rows", []):
        lines.append(
            f"  paper Table 3 (fine control) {r['model']}: avg "
            f"{average_text(r['avg'], r['missing'], 2)}"
        )
    labelled = {k: n for k, n in {**m["errors"], **m["other_errors"]}.items() if n}
    if labelled:
        lines.append("  error labels: " + ", ".join(f"{k} {n}" for k, n in labelled.items()))
    spatial = m.get("spatial") or {}
    for model, row in (spatial.get("by_model") or {}).items():
        cells = ", ".join(
            f"{s} {row[s]['score']:.1f} ({row[s]['items']})"
            for s in ("sparse", "dense", "cluttered")
            if s in row
        )
        lines.append(
            f"  spatial grounding {model}: {cells}; "
            f"avg {average_text(row['average'], row.get('missing', []))} "
            f"(sigma {spatial['sigma']:g} m)"
        )
    return lines + model_lines(m.get("per_model") or [])  # last: the lines above keep their place


def project_verification_metrics(project) -> dict[str, Any]:
    """The `verification` metrics of an open project (the GUI's own connection)."""
    repo = project.verifications
    metrics = repo.agreement()
    # the criteria mean different checks per benchmark (docs/verification.md): split too
    benchmarks = [
        r[0] for r in project.db.execute("SELECT DISTINCT benchmark FROM questions ORDER BY 1")
    ]
    metrics["by_benchmark"] = {b: repo.agreement(b) for b in benchmarks}
    metrics["status_counts"] = project.questions.counts_by_status()
    metrics["adjudication_pending"] = repo.adjudication_pending()
    metrics["time_on_task"] = repo.time_on_task()
    return metrics


def project_hoi_metrics(project) -> dict[str, Any]:
    """The `hoi` metrics of an open project: label counts by status and category, agreement
    on difficulty (weighted kappa) and on verdicts, quality checks, progress per sequence.

    Shape (docs/hoi-labels.md): {"labels", "status_counts", "rounds_after_return",
    "by_category", "difficulty": {"weights", "author_vs_reviewer", "reviewer_vs_reviewer"},
    "verdicts", "qc", "sequences": [{"name", "person_frames", ...}]}.
    """
    repo = project.hoi
    records = repo.records()
    categories = [c.id for c in load_hoi_taxonomy().categories]
    seed, rate = repo.qc_settings()
    metrics = {**hoi_counts(records, categories), **hoi_agreement(records)}
    metrics["qc"].update(
        seed=seed, rate=rate, sampled=sum(1 for r in records if in_qc_sample(r.id, seed, rate))
    )
    by_sequence: dict[int, list] = {}
    for record in records:
        by_sequence.setdefault(record.sequence_id, []).append(record)
    metrics["sequences"] = [
        {
            "name": name,
            **sequence_progress(repo.person_frames(sid), by_sequence.get(sid, [])).as_dict(),
        }
        for sid, name in repo.sequences()
    ]
    return metrics


def project_reasoning_metrics(project) -> dict[str, Any]:
    """The `reasoning` metrics of an open project: JRDB-Reasoning evaluation by level.

    Shape (docs/jrdb-questions.md, "Evaluation"): {"levels", "level_definitions",
    "counts": {"predictions", "stale_predictions", "human_answers", "stale_human_answers",
    "ratings"}, "models", "accuracy": [{"model", "benchmark", "task", "levels": {"D1":
    {"n", "correct", "accuracy_pct", "mean_iou"}, ...}, "all": {...}}], "human": [the same,
    model "human", each cell the mean over annotators with "annotators"], "steps": [{"model",
    "task", "level", "curve": [{"step", "n", "correct", "accuracy_pct"}]}], "spearman":
    [{"benchmark", "task", "n", "ratings", "annotators", "rho", "p", "words"}], "paper":
    {"vqa_images" | "vqa_videos" | "vg_images": the JRDB-Reasoning paper's Tables 2-4,
    see `annotation.jrdb.reasoning_tables.paper_table`}}. Rows of "accuracy" and "human"
    carry their questions' "modality": image and video never share a row.

    Only scores against a question's current version count, and excluded questions not at
    all; scores left on a corrected question's older version are counted as stale.
    """
    repo = project.reasoning
    predictions = [p for p in repo.predictions() if p.question_status != "excluded"]
    answers = [a for a in repo.human_answers() if a.question_status != "excluded"]
    live = [p for p in predictions if p.is_current]
    live_answers = [a for a in answers if a.is_current]
    return {
        "levels": list(LEVELS),
        "level_definitions": dict(LEVEL_DEFINITIONS),
        "settings": REASONING_SETTINGS,
        "counts": {
            "predictions": len(live),
            "stale_predictions": len(predictions) - len(live),
            "human_answers": len(live_answers),
            "stale_human_answers": len(answers) - len(live_answers),
            "ratings": repo.counts()["ratings"],
        },
        "models": repo.models(),
        "accuracy": accuracy_by_level(live),
        "human": human_accuracy_by_level(live_answers),
        "steps": step_curves(live),
        "spearman": spearman_table(repo.rating_points()),
        "paper": {name: paper_table(name, live, live_answers) for name in PAPER_TABLES},
        "per_model": per_model_rows(_prediction_usage(repo)),
        "per_model_settings": {
            **PER_MODEL_SETTINGS,
            "episodes": "for reasoning: a model's predictions of current, not excluded "
            "questions; succeeded: the correct ones",
            "requests": "predictions made by run-agent here, which record their request",
        },
    }


def _prediction_usage(repo) -> dict[str, ModelUsage]:
    """Each model's predictions as `per_model` figures: one "episode" a question; requests,
    latency and tokens from those run-agent asked here (an imported file has none)."""
    usage = {}
    for model, n, correct, requests, latency, tokens_in, tokens_out in repo.usage_by_model():
        usage[model] = ModelUsage()
        usage[model].add(n, correct, requests, latency, tokens_in, tokens_out)
    return usage
