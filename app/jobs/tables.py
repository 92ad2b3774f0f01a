"""Results tables as a paper prints them: CSV and LaTeX from the `reasonscope metrics` dict.

`metric_tables(metrics)` turns the metrics of `app.jobs.metrics.project_metrics` into
`Table`s (a title, column names, rows of text cells and notes); `to_csv` and
`to_latex` write one. The notes carry the metric's `settings` (how the numbers were
computed, docs/metrics.md), so a table never leaves without them: in CSV as
trailing lines starting with "#" (pandas: `read_csv(..., comment="#")`), in LaTeX as
a footnote under the tabular. An average that cannot be taken (a row lacking a task
or setting) is written "incomplete", never a number.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from annotation.agreement import kappa_text
from annotation.averages import average_text
from annotation.jrdb.reasoning_eval import (
    HUMAN,
)
from annotation.jrdb.reasoning_tables import (
    PAPER_AVERAGE,
    PAPER_LEVELS,
    PAPER_TABLES,
)
from annotation.metric_text import settings_text
from annotation.runs import run_label

TABLES = (
    "verification",
    "hoi",
    "episodes",
    "reasoning",
    "spatial",
    "bimanual",
    "bimanual_planning",
    "bimanual_fine",
    "bimanual_views",
    "bimanual_errors",
    "mgvqa_ablations",
    "mgvqa_turns",
    "mgvqa_recovery",
    "jrdb_vqa_images",
    "jrdb_vqa_videos",
    "jrdb_vg_images",
)
#: MG-VQA Table 2's rows: the base prompt and each variant added on its own
VARIANT_NAMES = {
    "plain": "Base",
    "search": "+Search",
    "search-persistent": "+Search-persistent",
    "multiview": "+Multiview",
}


@dataclass
class Table:
    """One results table: what it shows, its columns, its rows (text cells) and notes."""

    name: str
    title: str
    columns: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: a header row above the columns: (label, how many columns it spans); "" spans blank
    groups: list[tuple[str, int]] = field(default_factory=list)


def _num(value: float | None, digits: int = 1) -> str:
    return "-" if value is None else f"{value:.{digits}f}"


def _settings_note(settings: dict[str, str] | None) -> list[str]:
    text = settings_text(settings)
    return [text] if text else []


def verification_table(v: dict[str, Any]) -> Table:
    t = Table(
        "verification",
        "Agreement between the two verifiers",
        ["Criterion", "Pairs", "Cohen's kappa", "Agreement (%)", "Disagreements"],
    )
    for name, m in [("decision", v["decision"]), *v["criteria"].items()]:
        t.rows.append(
            [
                name,
                str(m.get("n", v["n"])),  # criterion 4: its Compare pairs only
                kappa_text(m["kappa"], m.get("kappa_reason"), 3),
                _num(m["percent_agreement"]),
                str(m["disagreements"]),
            ]
        )
    t.notes = _settings_note(v.get("settings"))
    return t


def hoi_table(h: dict[str, Any]) -> Table:
    t = Table(
        "hoi",
        "HOI labels: agreement on difficulty and verdicts",
        ["Pairs of", "Pairs", "Kappa (quadratic)", "Kappa (linear)", "Agreement (%)"],
    )
    for name, m in h["difficulty"].items():
        if isinstance(m, dict):
            why = m.get("kappa_reason")
            t.rows.append(
                [
                    f"difficulty, {name.replace('_', ' ')}",
                    str(m["n"]),
                    kappa_text(m["kappa_quadratic"], why, 3),
                    kappa_text(m["kappa_linear"], why, 3),
                    _num(m["percent_agreement"]),
                ]
            )
    v = h["verdicts"]
    t.rows.append(
        [
            "verdicts, reviewer vs reviewer",
            str(v["n"]),
            kappa_text(v["kappa"], v.get("kappa_reason"), 3),
            "",
            _num(v["percent_agreement"]),
        ]
    )
    t.notes = _settings_note(h.get("settings"))
    return t


def episodes_table(e: dict[str, Any]) -> Table:
    tasks = e["tasks"]
    columns = ["Model", "Agent", "Mode", "Run"]
    for task in tasks:
        columns += [task.capitalize(), f"{task.capitalize()} n"]
    t = Table("episodes", "Success rate (%) per task and mode", [*columns, "Avg."])
    for r in e["rows"]:
        who = r["model"] + (" (baseline)" if r["baseline"] else "")
        cells = [who, r["agent"], r["mode"], r.get("run_label", "")]
        for task in tasks:
            s = r["success"][task]
            cells += [_num(s["success_pct"]), str(s["n"])]
        cells.append(average_text(r["average_pct"], r.get("missing_tasks") or []))
        t.rows.append(cells)
    t.notes = ["Cells: success (%) and episodes (n) per task."] + _tag_note(e)
    t.notes += _settings_note(e.get("settings"))
    return t


def reasoning_table(r: dict[str, Any]) -> Table:
    levels = [lv for lv in r["levels"]]
    columns = ["Model", "Benchmark", "Task", "Modality"]
    for level in levels:
        columns += [level, f"{level} n"]
    t = Table("reasoning", "Accuracy (%) by difficulty level", [*columns, "All", "All n"])
    for row in r["accuracy"] + r["human"]:
        cells = [row["model"], row["benchmark"], row["task"], row["modality"]]
        for level in levels:
            cell = row["levels"][level]
            cells += [_num(cell["accuracy_pct"]), str(cell["n"])]
        cells += [_num(row["all"]["accuracy_pct"]), str(row["all"]["n"])]
        t.rows.append(cells)
    t.notes = [f"{lv}: {d}." for lv, d in r.get("level_definitions", {}).items()]
    t.notes += _settings_note(r.get("settings"))
    return t


def jrdb_paper_table(p: dict[str, Any], r: dict[str, Any]) -> Table:
    """A JRDB-Reasoning result table (Tables 2, 3 and 4): per model, each part (the
    pooled VQA score, then Wh and Count; or VG) by level D1-D3, and their average."""
    t = Table(
        f"jrdb_{p['name']}",
        p["source"],
        ["Model", "Part", *PAPER_LEVELS, "Avg.", *(f"{lv} n" for lv in PAPER_LEVELS)],
    )
    for row in p["rows"]:
        cells = ["Human Eval" if row["model"] == HUMAN else row["model"], row["part"]]
        cells += [_num(row["levels"][lv]["accuracy_pct"]) for lv in PAPER_LEVELS]
        cells.append(average_text(row["average_pct"], row["missing"]))
        cells += [str(row["levels"][lv]["n"]) for lv in PAPER_LEVELS]
        t.rows.append(cells)
    definitions = r.get("level_definitions", {})
    t.notes = [f"Questions: JRDB-Reasoning, {p['modality']} modality only."]
    t.notes += [f"{lv}: {definitions[lv]}." for lv in PAPER_LEVELS if lv in definitions]
    t.notes.append(PAPER_AVERAGE + ".")
    if any(row["part"] == "VQA" for row in p["rows"]):
        t.notes.append("VQA pools the Wh and Count questions; Wh and Count are its parts.")
    t.notes.append(
        "Human Eval: each cell is the mean over annotators of their own accuracy; the n "
        "columns count every answer."
    )
    if p["left_out"]:
        t.notes.append(
            "Left out (not D1-D3): "
            + ", ".join(f"{n} at {lv}" for lv, n in sorted(p["left_out"].items()))
            + "."
        )
    t.notes += _settings_note(r.get("settings"))
    return t


def spatial_table(s: dict[str, Any]) -> Table:
    settings = ("sparse", "dense", "cluttered")
    columns = ["Model"]
    for name in settings:
        columns += [name.capitalize(), f"{name.capitalize()} n"]
    t = Table(
        "spatial",
        "Foundational spatial grounding: Gaussian-weighted spatial score",
        [*columns, "Avg."],
    )
    for model, row in sorted((s.get("by_model") or {}).items(), key=lambda kv: kv[0].lower()):
        cells = [model]
        for name in settings:
            cell = row.get(name)
            cells += ["-", "0"] if cell is None else [_num(cell["score"]), str(cell["items"])]
        cells.append(average_text(row.get("average"), row.get("missing") or []))
        t.rows.append(cells)
    t.notes = _settings_note(s.get("settings"))
    return t


def bimanual_table(b: dict[str, Any]) -> Table:
    tasks = b["tasks"]
    t = Table("bimanual", "Dual-arm success rate (%) per task", ["Model", *tasks, "Avg."])
    for model in b["models"]:
        row = b["success_by_task"][model]
        cells = [model]
        for task in tasks:
            c = row.get(task)
            cells.append(
                "-" if not c else f"{100 * c['rate']:.1f} ({c['success']}/{c['episodes']})"
            )
        average = b.get("average_by_model", {}).get(model, {})
        rate = average.get("rate")
        cells.append(
            average_text(None if rate is None else 100 * rate, average.get("missing") or [])
        )
        t.rows.append(cells)
    t.notes = ["Cells: success (%) (successes/episodes)."] + _settings_note(b.get("settings"))
    return t


def _pct_cell(cell: dict[str, Any] | None) -> str:
    return "-" if not cell else f"{cell['rate_pct']:.0f}"


def _episode_range(rows: list[dict[str, Any]]) -> str:
    return _range_text([c["episodes"] for r in rows for c in r["cells"].values() if c])


def _range_text(counts: list[int]) -> str:
    if not counts:
        return "no episodes"
    low, high = min(counts), max(counts)
    return f"{low} episodes a cell" if low == high else f"{low}-{high} episodes a cell"


def bimanual_planning_table(b: dict[str, Any]) -> Table:
    """papers/003 Table 1: per group its average then its tasks, and the total average."""
    p = b["paper"]["planning"]
    columns, groups = ["Models"], [("", 1)]
    for g in p["groups"]:
        columns += [f"{g['name']} Avg.", *(c["id"] for c in g["columns"])]
        groups.append((f"{g['name']} Manipulation Tasks", len(g["columns"]) + 1))
    columns.append("Total Avg.")
    groups.append(("", 1))
    t = Table("bimanual_planning", f"{p['title']}: success rate (%)", columns, groups=groups)
    for r in p["rows"]:
        cells = [r["model"]]
        for g in p["groups"]:
            ids = [c["id"] for c in g["columns"]]
            lacking = [i for i in ids if r["cells"][i] is None]
            cells.append(average_text(r["group_avg"][g["name"]], lacking, 2))
            cells += [_pct_cell(r["cells"][i]) for i in ids]
        cells.append(average_text(r["total_avg"], r["missing"], 2))
        t.rows.append(cells)
    tasks = "; ".join(f"{c['id']} {c['task']}" for g in p["groups"] for c in g["columns"])
    t.notes = [f"Success rate (%) per task ({_episode_range(p['rows'])}). Tasks: {tasks}."]
    t.notes += _settings_note(b["paper"].get("settings"))
    return t


def bimanual_fine_table(b: dict[str, Any]) -> Table:
    """papers/003 Table 3: the five fine-control tasks and their average."""
    p = b["paper"]["fine"]
    ids = [c["id"] for c in p["columns"]]
    t = Table("bimanual_fine", f"{p['title']}: success rate (%)", ["Models", *ids, "Avg."])
    for r in p["rows"]:
        t.rows.append(
            [
                r["model"],
                *(_pct_cell(r["cells"][i]) for i in ids),
                average_text(r["avg"], r["missing"], 2),
            ]
        )
    tasks = "; ".join(f"{c['id']} {c['task']}" for c in p["columns"])
    t.notes = [f"Success rate (%) per task ({_episode_range(p['rows'])}). Tasks: {tasks}."]
    t.notes += _settings_note(b["paper"].get("settings"))
    return t


def bimanual_views_table(b: dict[str, Any]) -> Table:
    """ST-BiBench Table 4: success (%) as Base / +Third View on Place8, Grab1, Place9."""
    p = b["paper"]["views"]
    ids = [c["id"] for c in p["columns"]]
    t = Table("bimanual_views", f"{p['title']}: success rate (%)", ["Models", *ids])
    for r in p["rows"]:
        cells = [r["model"]]
        for tid in ids:
            pair = r["cells"][tid]
            cells.append(" / ".join(_pct_cell(pair[view]) for view in ("base", "third")))
        t.rows.append(cells)
    tasks = "; ".join(f"{c['id']} {c['task']}" for c in p["columns"])
    t.notes = [f"Cells: Base / +Third View ({_view_range(p['rows'])}). Tasks: {tasks}."]
    t.notes += _settings_note(p.get("settings"))
    return t


ERROR_GROUP_NAMES = {
    "environment": "Environment",
    "perceptual_reasoning": "Perceptual",
    "strategic_planning": "Planning",
    "format": "Format",
}


def bimanual_errors_table(b: dict[str, Any]) -> Table:
    """ST-BiBench Figure 3: each model's labelled errors, the share of each group and kind."""
    rows = b.get("errors_by_model") or {}
    first = next(iter(rows.values()), None)
    kinds = list(first["kinds"]) if first else []
    groups = list(ERROR_GROUP_NAMES)
    t = Table(
        "bimanual_errors",
        "Error analysis: share (%) of the labelled steps",
        [
            "Models",
            "Labelled",
            *(ERROR_GROUP_NAMES[g] for g in groups),
            *(k.replace("_", " ") for k in kinds),
            "Other",
        ],
        groups=[("", 2), ("Groups", len(groups)), ("Kinds", len(kinds) + 1)],
    )
    for model, m in rows.items():
        t.rows.append(
            [
                model,
                str(m["labels"]),
                *(_num(m["groups"][g]["pct"]) for g in groups),
                *(_num(m["kinds"][k]["pct"]) for k in kinds),
                _num(m["other"]["pct"]),
            ]
        )
    t.notes = [
        "The breakdown of ST-BiBench Figure 3: per model, the labelled steps of its own "
        "episodes (replays in sim left out) and the share of each error group and kind "
        "among them; a step labelled with two kinds counts in both. Labels come from "
        "Replay's error labels (docs/bimanual-replay.md)."
    ] + _settings_note(b.get("settings"))
    return t


def _view_range(rows: list[dict[str, Any]]) -> str:
    return _range_text(
        [c["episodes"] for r in rows for pair in r["cells"].values() for c in pair.values() if c]
    )


def _tag_note(e: dict[str, Any]) -> list[str]:
    """What a table of tagged questions holds (`metrics --tag`)."""
    tag = e.get("tag")
    if not tag:
        return []
    hard = " (the MG-VQA-Hard set, MG-VQA Table 5)" if tag == "hard" else ""
    return [f"Only the episodes on questions tagged {tag}{hard}."]


def _other_settings(r: dict[str, Any]) -> str:
    """The row's run settings but its prompt variant (the ablation tables' own column)."""
    return run_label({k: v for k, v in r.get("run", {}).items() if k != "prompt_variant"})


def _model_rows(e: dict[str, Any]) -> list[dict[str, Any]]:
    """The non-baseline rows, by model, mode and prompt variant in the paper's order."""
    order = list(VARIANT_NAMES)

    def key(r: dict[str, Any]) -> tuple:
        variant = r.get("run", {}).get("prompt_variant", "")
        rank = order.index(variant) if variant in order else len(order)
        modes = e.get("modes") or []
        mode = modes.index(r["mode"]) if r["mode"] in modes else len(modes)
        return (r["model"].lower(), r["agent"].lower(), mode, _other_settings(r), rank)

    return sorted((r for r in e["rows"] if not r["baseline"]), key=key)


def mgvqa_ablations_table(e: dict[str, Any]) -> Table:
    """MG-VQA Table 2: success per task under each prompt variant, acted episodes and mean
    manipulation calls per question."""
    tasks = e["tasks"]
    columns = ["Model", "Mode", "Variant", "Run", *[t.capitalize() for t in tasks], "Avg."]
    t = Table(
        "mgvqa_ablations",
        "Prompt ablations: success rate (%) per task",
        [*columns, "Acted episodes", "Manip. calls / q"],
    )
    for r in _model_rows(e):
        variant = r.get("run", {}).get("prompt_variant", "")
        manip = r["manipulation"]
        t.rows.append(
            [
                r["model"],
                r["mode"],
                VARIANT_NAMES.get(variant, variant or "-"),
                _other_settings(r),
                *(_num(r["success"][task]["success_pct"]) for task in tasks),
                average_text(r["average_pct"], r.get("missing_tasks") or []),
                str(manip["acted_episodes"]),
                _num(manip["mean_calls"], 2),
            ]
        )
    t.notes = (
        [
            "The layout of MG-VQA Table 2: each variant is a separate addition to the base "
            "prompt (Search: guidance at the start; Search-persistent: repeated every turn; "
            "Multiview: an oblique view beside the top-down one). Acted episodes: at least one "
            "grasp or push. Manip. calls / q: mean grasp + push calls per question. Rows of "
            "other run settings (Run) are never merged."
        ]
        + _tag_note(e)
        + _settings_note(e.get("settings"))
    )
    return t


def mgvqa_turns_table(e: dict[str, Any]) -> Table:
    """MG-VQA Table 3: median model turns / manipulation calls per question, per task."""
    tasks = e["tasks"]
    t = Table(
        "mgvqa_turns",
        "Median model turns / manipulation calls per question",
        ["Model", "Mode", "Run", *[task.capitalize() for task in tasks]],
    )
    for r in _model_rows(e):
        cells = [r["model"], r["mode"], r.get("run_label", "")]
        for task in tasks:
            turns = r["turns"]["by_task"][task]["median_turns"]
            calls = r["manipulation"]["by_task"][task]["median_calls"]
            n = r["success"][task]["n"]
            cells.append("-" if not n else f"{turns:g} / {calls:g} (n={n})")
        t.rows.append(cells)
    t.notes = (
        [
            "The layout of MG-VQA Table 3: per task, the median number of model turns (every "
            "tool call, answer and unreadable reply) / the median number of grasp + push calls "
            "per question, over the row's episodes of that task (n)."
        ]
        + _tag_note(e)
        + _settings_note(e.get("settings"))
    )
    return t


def mgvqa_recovery_table(e: dict[str, Any]) -> Table:
    """MG-VQA Table 4: what agents did after their first failed grasp."""
    t = Table(
        "mgvqa_recovery",
        "Agent actions following failed grasps",
        [
            *("Model", "Mode", "Run", "N"),
            *("Push", "Grasp", "None"),
            *("Scene + seg.", "Seg. only", "No new seg."),
        ],
        groups=[("", 4), ("Next manipulation", 3), ("Re-grounding", 3)],
    )
    for r in (r for r in e["rows"] if r["recovery"]["failed_grasp_episodes"]):
        rec = r["recovery"]
        t.rows.append(
            [
                r["model"] + (" (baseline)" if r["baseline"] else ""),
                r["mode"],
                r.get("run_label", ""),
                str(rec["failed_grasp_episodes"]),
                *(_num(rec["next_pct"][k]) for k in ("push", "grasp", "none")),
                *(_num(rec["regrounding_pct"][k]) for k in ("scene_and_seg", "seg_only", "no_seg")),
            ]
        )
    t.notes = (
        [
            "The layout of MG-VQA Table 4. N: episodes with at least one failed grasp. Next "
            "manipulation (% of N): the first grasp or push after the failure, or none when the "
            "agent answered. Re-grounding (% of the episodes that pushed next): a new "
            "perceive_scene before the find_object (Scene + seg.), find_object on the old scene "
            "graph (Seg. only), or a mask segmented before the failure (No new seg.)."
        ]
        + _tag_note(e)
        + _settings_note(e.get("settings"))
    )
    return t


_BUILDERS: dict[str, tuple[Callable[[dict[str, Any]], Table], Callable[[dict], dict]]] = {
    "verification": (verification_table, lambda m: m["verification"]),
    "hoi": (hoi_table, lambda m: m["hoi"]),
    "episodes": (episodes_table, lambda m: m["episodes"]),
    "reasoning": (reasoning_table, lambda m: m["reasoning"]),
    "spatial": (spatial_table, lambda m: m["bimanual"].get("spatial") or {}),
    "bimanual": (bimanual_table, lambda m: m["bimanual"]),
    "bimanual_planning": (bimanual_planning_table, lambda m: m["bimanual"]),
    "bimanual_fine": (bimanual_fine_table, lambda m: m["bimanual"]),
    "bimanual_views": (bimanual_views_table, lambda m: m["bimanual"]),
    "bimanual_errors": (bimanual_errors_table, lambda m: m["bimanual"]),
    "mgvqa_ablations": (mgvqa_ablations_table, lambda m: m["episodes"]),
    "mgvqa_turns": (mgvqa_turns_table, lambda m: m["episodes"]),
    "mgvqa_recovery": (mgvqa_recovery_table, lambda m: m["episodes"]),
    **{
        f"jrdb_{name}": (
            lambda m, name=name: jrdb_paper_table(m["paper"][name], m),
            lambda m: m["reasoning"],
        )
        for name in PAPER_TABLES
    },
}


def metric_table(metrics: dict[str, Any], name: str) -> Table:
    """The table `name` (one of `TABLES`) of a `project_metrics` dict."""
    if name not in _BUILDERS:
        raise ValueError(f"no table {name!r}: choose one of {', '.join(TABLES)}")
    build, part = _BUILDERS[name]
    return build(part(metrics))


def to_csv(table: Table) -> str:
    """The table as CSV: a header row, the rows, then its notes as lines starting "# "."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(table.columns)
    writer.writerows(table.rows)
    for note in table.notes:
        out.write(f"# {note}\n")
    return out.getvalue()


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "≥": r"$\geq$",
    "σ": r"$\sigma$",
}


def latex_escape(text: str) -> str:
    """Text safe inside a LaTeX tabular cell or paragraph."""
    return "".join(_LATEX_SPECIAL.get(ch, ch) for ch in text)


def _latex_groups(groups: list[tuple[str, int]]) -> list[str]:
    """A spanning header row and the rules under its labelled spans."""
    if not groups:
        return []
    cells, rules, col = [], [], 1
    for label, span in groups:
        cells.append(rf"\multicolumn{{{span}}}{{c}}{{{latex_escape(label)}}}" if label else "")
        if label:
            rules.append(rf"\cmidrule(lr){{{col}-{col + span - 1}}}")
        cells += [""] * (span - 1) if not label else []
        col += span
    return [" & ".join(cells) + r" \\", " ".join(rules)]


def to_latex(table: Table) -> str:
    """The table as a LaTeX `table` float (booktabs rules), its notes as a footnote."""
    align = "l" + "r" * (len(table.columns) - 1)
    lines = [
        r"\begin{table}[t]",
        r"\centering",
        rf"\caption{{{latex_escape(table.title)}}}",
        rf"\label{{tab:reasonscope-{table.name}}}",
        rf"\begin{{tabular}}{{{align}}}",
        r"\toprule",
        *_latex_groups(table.groups),
        " & ".join(latex_escape(c) for c in table.columns) + r" \\",
        r"\midrule",
    ]
    lines += [" & ".join(latex_escape(c) for c in row) + r" \\" for row in table.rows]
    lines += [r"\bottomrule", r"\end{tabular}"]
    if table.notes:
        notes = " ".join(latex_escape(n) for n in table.notes)
        lines += [r"\par\smallskip", rf"{{\footnotesize {notes}\par}}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"
