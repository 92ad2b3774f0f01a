"""The dataset card (README.md) of a Hugging Face benchmark export: the YAML header the Hub
and `datasets.load_dataset` read, and the statistics a paper prints, gathered while the
rows stream by (`CardStats`), so nothing is held but counters."""

from __future__ import annotations

from collections import Counter
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

from annotation.agreement import kappa_text
from annotation.jrdb.reasoning_eval import difficulty_level

# Bins of an evidence body's visible fraction in the model's view (criteria.measured)
VISIBILITY_BINS = (
    ("hidden (0)", 0.0),
    ("(0, 0.1]", 0.1),
    ("(0.1, 0.5]", 0.5),
    ("(0.5, 0.9]", 0.9),
    ("(0.9, 1]", 1.0),
)
NOT_MEASURED = "not measured"
STATUSES = ("approved", "corrected", "excluded", "pending")


def reasonscope_version() -> str:
    try:
        return metadata.version("reasonscope")
    except metadata.PackageNotFoundError:
        return "unknown"


def level(benchmark: str, difficulty: dict[str, int] | None) -> str:
    """A question's difficulty level: JRDB-Reasoning's D1-D3 / other, else D = S + R + T."""
    if not difficulty:
        return "none"
    if benchmark == "jrdb":
        return difficulty_level(difficulty["S"], difficulty["R"], difficulty["T"])
    return f"D{difficulty['D']}"


def visibility_bin(fraction: Any) -> str:
    if not isinstance(fraction, int | float):
        return NOT_MEASURED
    for name, upper in VISIBILITY_BINS:
        if fraction <= upper:
            return name
    return VISIBILITY_BINS[-1][0]


def size_category(n: int) -> str:
    """The Hub's size_categories value for n rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K")):
        if n < limit:
            return name
    return "100K<n<1M" if n < 1_000_000 else "n>1M"


class CardStats:
    """Counters of the exported questions, added one question at a time."""

    def __init__(self) -> None:
        self.questions = 0
        self.images = 0
        self.levels: Counter = Counter()  # (benchmark/task, level)
        self.visibility: Counter = Counter()  # (benchmark/task, bin)
        self.status: Counter = Counter()
        self.pairs = Counter()  # agreed / disagreed among complete first-round pairs
        self.generators: Counter = Counter()
        self.thresholds: Counter = Counter()
        self.seeds: list[int] = []  # min and max only
        self.kappa: dict[str, Any] = {}

    def add_agreement(self, project) -> None:
        """The project's verification agreement (Cohen's kappa of the decision), as the
        Results page and `reasonscope metrics` report it."""
        self.kappa = project.verifications.agreement()

    def add(self, q, row: dict[str, Any]) -> None:
        task = f"{q.benchmark}/{q.task}"
        self.questions += 1
        self.images += len(row["images"])
        self.levels[task, level(q.benchmark, row["difficulty"])] += 1
        self.status[q.status] += 1
        agreement = row["agreement"]
        if agreement["verdicts"] >= 2:
            self.pairs["agreed" if agreement["agreed"] else "disagreed"] += 1
        criteria = q.criteria if isinstance(q.criteria, dict) else {}
        measured = (criteria.get("measured") or {}).get("visibility") or {}
        for body in q.evidence_ids:
            self.visibility[task, visibility_bin(measured.get(body))] += 1
        self.generators[str(criteria.get("generator", "unknown"))] += 1
        if "max_evidence_visibility" in criteria:
            self.thresholds[str(criteria["max_evidence_visibility"])] += 1
        if isinstance(q.seed, int):
            self.seeds = [min(self.seeds + [q.seed]), max(self.seeds + [q.seed])]


def _table(rows: list[str], columns: list[str], cell) -> list[str]:
    lines = [
        "| task | " + " | ".join(columns) + " | total |",
        "| --- |" + " ---: |" * (len(columns) + 1),
    ]
    for r in rows:
        cells = [cell(r, c) for c in columns]
        lines.append(f"| {r} | " + " | ".join(str(x) for x in cells) + f" | {sum(cells)} |")
    totals = [sum(cell(r, c) for r in rows) for c in columns]
    lines.append("| all | " + " | ".join(str(x) for x in totals) + f" | {sum(totals)} |")
    return lines


def statistics_lines(stats: CardStats) -> list[str]:
    """The card's body tables: questions per task and level, evidence visibility,
    verification outcome and agreement."""
    tasks = sorted({t for t, _ in stats.levels})
    levels = sorted({lv for _, lv in stats.levels})
    bins = [b for b, _ in VISIBILITY_BINS] + [NOT_MEASURED]
    bins = [b for b in bins if any(stats.visibility[t, b] for t in tasks)] or bins[:1]
    decision = (stats.kappa or {}).get("decision") or {}
    agree = decision.get("percent_agreement")
    return [
        "## Statistics",
        "",
        "Questions per task and difficulty level (JRDB-Reasoning's levels D1-D3 for JRDB; "
        "D = S + R + T otherwise):",
        "",
        *_table(tasks, levels, lambda t, c: stats.levels[t, c]),
        "",
        "Evidence bodies by their visible fraction in the model's view (as measured at "
        "generation):",
        "",
        *_table(tasks, bins, lambda t, c: stats.visibility[t, c]),
        "",
        "Verification outcome of the exported questions:",
        "",
        "| " + " | ".join(STATUSES) + " |",
        "|" + " ---: |" * len(STATUSES),
        "| " + " | ".join(str(stats.status[s]) for s in STATUSES) + " |",
        "",
        f"Two verifiers each, blind to each other: {stats.pairs['agreed']} exported questions' "
        f"first-round pairs agree and {stats.pairs['disagreed']} disagree. Over the project's "
        f"{(stats.kappa or {}).get('n', 0)} complete pairs, Cohen's kappa of the decision is "
        f"{kappa_text(decision.get('kappa'), decision.get('kappa_reason'))}"
        + (f" ({agree:.1f} % agreement)." if agree is not None else "."),
    ]


def settings_lines(stats: CardStats) -> list[str]:
    from sim.tabletop.world import MODEL_IMAGE_SIZE

    seeds = f"{stats.seeds[0]} to {stats.seeds[1]}" if stats.seeds else "none recorded"
    generators = ", ".join(f"{g} ({n})" for g, n in sorted(stats.generators.items()))
    thresholds = ", ".join(f"{t} ({n})" for t, n in sorted(stats.thresholds.items())) or "none"
    return [
        "## Generation settings",
        "",
        f"- Generators (questions): {generators or 'none'}",
        f"- Evidence visibility threshold `max_evidence_visibility` (questions): {thresholds}",
        f"- Seeds: {seeds}",
        f"- MG-VQA images: the top-down view a model is sent in Direct mode, "
        f"{MODEL_IMAGE_SIZE} x {MODEL_IMAGE_SIZE} PNG; JRDB images: the stitched panorama "
        "frames a question names, uncropped",
        f"- Exported by ReasonScope {reasonscope_version()} (format reasonscope-benchmark/1 "
        "in each row: `answer`, `criteria`, `scene` and each step's `details` are JSON text)",
    ]


def write_card(
    path: Path, feats, stats: CardStats, *, split: str, license_id: str, size: int
) -> None:
    """Write README.md: the YAML header, then the statistics and settings."""
    header = {
        "license": license_id,
        "task_categories": ["visual-question-answering"],
        "size_categories": [size_category(stats.questions)],
        "tags": ["reasonscope", "embodied-reasoning", "robotics"],
        "configs": [
            {"config_name": "default", "data_files": [{"split": split, "path": f"data/{split}-*"}]}
        ],
        "dataset_info": {
            "features": feats._to_yaml_list(),
            "splits": [{"name": split, "num_bytes": size, "num_examples": stats.questions}],
        },
    }
    body = [
        "# ReasonScope benchmark",
        "",
        f"{stats.questions} questions ({stats.images} images) in split `{split}`, exported "
        'by ReasonScope. Load it with `datasets.load_dataset("<this folder or repo>")`.',
        "",
        *statistics_lines(stats),
        "",
        *settings_lines(stats),
        "",
    ]
    text = "---\n" + yaml.safe_dump(header, sort_keys=False) + "---\n\n" + "\n".join(body)
    path.write_text(text, encoding="utf-8")
