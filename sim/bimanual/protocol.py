"""The ST-BiBench planning harness's per-task protocol, and the paper's.

BiManiBench's harness (`script/myvlmEb_eval.py`, `eval_policy`) reads from each
task's `description/task_instruction/<task>.json` the step limit
(`action_limit`: planner calls an episode at most, default 10), the execution
truncation (`action_chunk_num`: `VLMPlanner.act` keeps the first k actions of a
plan, default 6) and the task's example reply (`template_example`, written into
the prompt by `VLMPlanner.set_template_example` as `json.dumps(..., indent=4)`).
It sends the planner the head image and the third-person view, then the prompt text,
then the task's example picture (`script/example_img/<task>.png`, 14 tasks have one;
shipped byte for byte in resources/bimanual/example_img), and plays two
rounds of 50 test episodes (100 per task, the paper's "minimum of 100
independent evaluation episodes per individual task"). The values, with the
file and commit each came from, ship in resources/bimanual/harness_protocol.json
(written by scripts/bimanual_harness_protocol.py); docs/bimanual-agents.md
explains them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

PROTOCOL_FILE = (
    Path(__file__).resolve().parents[2] / "resources" / "bimanual" / ("harness_protocol.json")
)
# What the planning tier sees by default, as the harness sends it (head + third view).
PLANNING_CAMERAS = ("head", "third")
# The fine-grained (16-number row) tier: the paper uses the ego-centric view only.
ROW_CAMERAS = ("head",)
PROTOCOLS = ("harness", "paper")


@dataclass(frozen=True)
class TaskProtocol:
    """One task's harness values and where they came from."""

    task: str
    max_steps: int  # the harness's action_limit
    truncate: int  # the harness's action_chunk_num
    example: str | None  # the harness's example reply text, or None when it has none
    source: str  # the BiManiBench file (or "harness default") the values came from
    # the task's example picture ("resources:bimanual/example_img/<task>.png") and the
    # sha256 of its shipped bytes, or None when the harness has none for the task
    example_image: str | None = None
    example_image_sha256: str | None = None


@cache
def _protocol_data() -> dict[str, Any]:
    return json.loads(PROTOCOL_FILE.read_text(encoding="utf-8"))


def paper_episodes() -> int:
    """Episodes per task under the paper's protocol: rounds x test episodes (2 x 50)."""
    data = _protocol_data()
    return int(data["rounds"]) * int(data["episodes_per_round"])


def task_protocol(task: str) -> TaskProtocol:
    """The harness's values for `task`; ValueError naming the task when none are shipped."""
    tasks = _protocol_data()["tasks"]
    if task not in tasks:
        raise ValueError(f"no ST-BiBench harness values for bimanual task {task!r}")
    entry = tasks[task]
    return TaskProtocol(
        task=task,
        max_steps=int(entry["action_limit"]),
        truncate=int(entry["action_chunk_num"]),
        example=entry.get("example"),
        source=entry["file"] or "harness default",
        example_image=entry.get("example_image_ref"),
        example_image_sha256=entry.get("example_image_sha256"),
    )


def source_commit() -> str:
    """The BiManiBench commit the shipped values were read from."""
    return str(_protocol_data()["source"]["commit"])


def default_cameras(tier: str) -> tuple[str, ...]:
    """The cameras a tier sees unless --camera narrows them."""
    return ROW_CAMERAS if tier == "row16" else PLANNING_CAMERAS
