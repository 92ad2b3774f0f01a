"""ST-BiBench's results tables as the paper lays them out (papers/003, Tables 1 and 3).

The paper reports the Strategic Coordination Planning tier (named actions) in two
groups of columns, Independent Parallel and Sequential Collaborative, each with its
own average and a total average over all fourteen tasks; and the Fine-Grained Action
Control tier (16-number end-effector rows) as five columns and their average. Its
columns are task ids (Place1, Ranking2, Handover3, ...); this module maps them to
task names and episodes to tiers, and fills the tables from success counts.

An episode's tier is its header's `tier`: ours ("primitive", "row16") or a
BiManiBench log's level ("high_level", "low_level"); an episode without one is
counted in the planning tier. BiManiBench runs the fine-control Place10 as its own
environment, `place_bread_skillet_vla` (the skillet is moved to the centre first);
a fine-control episode named `place_bread_skillet` is that task (`sim_task`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from annotation.averages import full_mean

PLANNING, FINE = "planning", "fine"
TIER_TITLES = {
    PLANNING: "Strategic Coordination Planning",
    FINE: "Fine-Grained Action Control",
}
#: Table 1: (group, [(task id, task name), ...]) in the paper's column order.
PLANNING_GROUPS: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = (
    (
        "Independent Parallel",
        (
            ("Place1", "place_cans_plasticbox"),
            ("Place2", "blocks_cross_shape"),
            ("Ranking1", "blocks_ranking_size"),
            ("Ranking2", "blocks_ranking_rgb"),
            ("Stack1", "stack_blocks_three"),
            ("Stack2", "stack_bowls_three"),
        ),
    ),
    (
        "Sequential Collaborative",
        (
            ("Handover1", "handover_mic"),
            ("Handover2", "handover_block"),
            ("Handover3", "hanging_mug"),
            ("Place3", "place_burger_fries"),
            ("Place4", "place_object_basket"),
            ("Place5", "place_bread_skillet"),
            ("Place6", "blocks_tower"),
            ("Place7", "put_bottles_dustbin"),
        ),
    ),
)
#: Table 3: [(task id, task name), ...] in the paper's column order.
FINE_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Place8", "place_object_scale"),
    ("Place9", "place_burger_fries"),
    ("Place10", "place_bread_skillet_vla"),
    ("Grab1", "grab_roller"),
    ("Stack3", "stack_blocks_two"),
)
#: Table 4: the third-person view ablation, on three fine-control tasks, in its order.
VIEW_COLUMNS: tuple[tuple[str, str], ...] = (
    ("Place8", "place_object_scale"),
    ("Grab1", "grab_roller"),
    ("Place9", "place_burger_fries"),
)
VIEWS = ("base", "third")  # the head camera alone; with the third-person view added
PLANNING_TASKS = tuple(task for _, columns in PLANNING_GROUPS for _, task in columns)
FINE_TASKS = tuple(task for _, task in FINE_COLUMNS)
#: every task the paper names (17 distinct; place_bread_skillet has a fine-control variant)
PAPER_TASKS = tuple(sorted(set(PLANNING_TASKS) | set(FINE_TASKS)))
_TIER_OF = {"primitive": PLANNING, "high_level": PLANNING, "row16": FINE, "low_level": FINE}
#: fine-control episodes whose harness task name differs from the planning tier's
_FINE_VARIANTS = {"place_bread_skillet": "place_bread_skillet_vla"}

TABLE_SETTINGS = {
    "layout": "ST-BiBench Table 1 (planning tier: Independent Parallel and Sequential "
    "Collaborative groups, each with its average, and the total average over all 14 tasks) "
    "and Table 3 (fine-control tier: 5 tasks and their average)",
    "tier": "an episode's recorded tier: named actions (ours 'primitive', BiManiBench "
    "'high_level') count in the planning table, 16-number rows ('row16', 'low_level') in "
    "the fine-control one; an episode without a tier counts as planning",
    "average": "mean of the group's task rates, each task weighing the same; none when a "
    "task of the group has no episodes",
}


def paper_ids(task: str) -> list[str]:
    """The paper's ids of a task, in both tiers ("place_burger_fries" -> Place3, Place9)."""
    ids = [tid for _, cols in PLANNING_GROUPS for tid, name in cols if name == task]
    return ids + [tid for tid, name in FINE_COLUMNS if name == task]


def tier_of(tier: str | None) -> str:
    """PLANNING or FINE for a recorded tier ("primitive", "low_level", "", ...)."""
    return _TIER_OF.get(tier or "", PLANNING)


def sim_task(task: str, tier: str | None) -> str:
    """The task our world runs for a recorded (task, tier): the fine-control variant of
    place_bread_skillet is place_bread_skillet_vla."""
    if tier_of(tier) == FINE:
        return _FINE_VARIANTS.get(task, task)
    return task


def view_of(cameras: Any) -> str:
    """ "third" when the episode's model saw the third-person view, else "base" (an episode
    that recorded no cameras saw the default, the head camera)."""
    if isinstance(cameras, str):
        try:
            cameras = json.loads(cameras)
        except json.JSONDecodeError:
            cameras = [cameras]
    return "third" if isinstance(cameras, list) and "third" in cameras else "base"


def views_table(counts: Mapping[str, Mapping[str, Mapping[str, Mapping[str, Any]]]]) -> dict:
    """Table 4 from `counts[model][view][task] = {"success", "episodes"}` (fine-control
    episodes only): {"title", "columns": [{"id", "task"}], "rows": [{"model",
    "cells": {id: {"base": cell | null, "third": cell | null}}}], "settings"}."""
    rows = []
    for model in sorted(counts, key=str.lower):
        cells = {
            tid: {view: _cells(counts[model].get(view) or {}, [(tid, task)])[tid] for view in VIEWS}
            for tid, task in VIEW_COLUMNS
        }
        if any(c for pair in cells.values() for c in pair.values()):
            rows.append({"model": model, "cells": cells})
    return {
        "title": "Third-person view ablation",
        "columns": [{"id": t, "task": k} for t, k in VIEW_COLUMNS],
        "rows": rows,
        "settings": {
            "layout": "ST-BiBench Table 4: success rate (%) with the head camera alone "
            "(Base) / with the third-person view added, on three fine-control tasks",
            "views": "an episode whose recorded cameras include the third-person one counts "
            "under +Third View, any other under Base; other run settings are not split here",
        },
    }


def _pct(cell: Mapping[str, Any] | None) -> float | None:
    if not cell or not cell.get("episodes"):
        return None
    return 100.0 * cell["success"] / cell["episodes"]


def _cells(counts: Mapping[str, Mapping[str, Any]], columns) -> dict[str, dict | None]:
    out: dict[str, dict | None] = {}
    for tid, task in columns:
        c = counts.get(task)
        out[tid] = (
            None
            if not c or not c.get("episodes")
            else {
                "task": task,
                "success": c["success"],
                "episodes": c["episodes"],
                "rate_pct": _pct(c),
            }
        )
    return out


def _mean(cells: Mapping[str, dict | None], ids: list[str]) -> tuple[float | None, list[str]]:
    return full_mean({t: (c or {}).get("rate_pct") for t, c in cells.items()}, ids)


def paper_tables(
    counts: Mapping[str, Mapping[str, Mapping[str, Mapping[str, Any]]]], models: list[str]
) -> dict[str, Any]:
    """Both tables from `counts[tier][model][task] = {"success": int, "episodes": int}`.

    Shape::

        {"planning": {"title", "groups": [{"name", "columns": [{"id", "task"}]}],
                      "rows": [{"model", "cells": {id: {task, success, episodes,
                                                         rate_pct} | null},
                                "group_avg": {group: pct | null},
                                "total_avg": pct | null, "missing": [id]}]},
         "fine": {"title", "columns": [{"id", "task"}],
                  "rows": [{"model", "cells": {...}, "avg": pct | null, "missing": [id]}]},
         "settings": {...}}

    A model has a row in a table when it has an episode of one of that table's tasks.
    """
    planning_rows, fine_rows = [], []
    all_planning = [(tid, task) for _, cols in PLANNING_GROUPS for tid, task in cols]
    for model in models:
        cells = _cells(counts.get(PLANNING, {}).get(model) or {}, all_planning)
        if any(cells.values()):
            groups = {}
            for name, cols in PLANNING_GROUPS:
                groups[name] = _mean(cells, [tid for tid, _ in cols])[0]
            total, missing = _mean(cells, [tid for tid, _ in all_planning])
            planning_rows.append(
                {
                    "model": model,
                    "cells": cells,
                    "group_avg": groups,
                    "total_avg": total,
                    "missing": missing,
                }
            )
        cells = _cells(counts.get(FINE, {}).get(model) or {}, FINE_COLUMNS)
        if any(cells.values()):
            avg, missing = _mean(cells, [tid for tid, _ in FINE_COLUMNS])
            fine_rows.append({"model": model, "cells": cells, "avg": avg, "missing": missing})
    return {
        PLANNING: {
            "title": TIER_TITLES[PLANNING],
            "groups": [
                {"name": name, "columns": [{"id": t, "task": k} for t, k in cols]}
                for name, cols in PLANNING_GROUPS
            ],
            "rows": planning_rows,
        },
        FINE: {
            "title": TIER_TITLES[FINE],
            "columns": [{"id": t, "task": k} for t, k in FINE_COLUMNS],
            "rows": fine_rows,
        },
        "settings": TABLE_SETTINGS,
    }
