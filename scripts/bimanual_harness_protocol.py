#!/usr/bin/env python3
"""Write resources/bimanual/harness_protocol.json from a BiManiBench checkout.

The ST-BiBench planning harness (BiManiBench, MIT licence) reads three fields of
each task's `description/task_instruction/<task>.json` in `eval_policy`
(`script/myvlmEb_eval.py`): `action_limit` (default 10: planner calls an episode
at most), `action_chunk_num` (default 6: `VLMPlanner.act` keeps only the first
that many actions of each plan) and `template_example` (default {}: the example
reply, written into the prompt as `json.dumps(..., indent=4)` by
`VLMPlanner.set_template_example`). This script reads the same fields with the
same defaults for our tasks and records where each value came from.

    python scripts/bimanual_harness_protocol.py /path/to/BiManiBench-git-dir
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "resources" / "bimanual" / "harness_protocol.json"
READER = "script/myvlmEb_eval.py, eval_policy (the json_data.get lines)"
DEFAULTS = {"action_limit": 10, "action_chunk_num": 6}


def git_show(repo: Path, path: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a BiManiBench git directory")
    args = parser.parse_args()
    from sim.bimanual.tasks import TASKS

    commit = subprocess.run(
        ["git", "-C", str(args.repo), "rev-parse", "HEAD"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    names = set(
        subprocess.run(
            ["git", "-C", str(args.repo), "ls-tree", "-r", "HEAD", "--name-only"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
    )
    tasks = {}
    for task in TASKS:
        path = f"description/task_instruction/{task}.json"
        text = git_show(args.repo, path)
        data = json.loads(text) if text is not None else {}
        entry: dict = {"file": path if text is not None else None}
        for key, default in DEFAULTS.items():
            entry[key] = data.get(key, default)
            entry[f"{key}_from"] = "file" if key in data else "harness default"
        example = data.get("template_example")
        # the harness writes json.dumps(template_example, indent=4); a task without one
        # gets "{}", which is no example, so we record none
        entry["example"] = json.dumps(example, indent=4) if example else None
        image = f"script/example_img/{task}.png"
        entry["example_image"] = image if image in names else None
        tasks[task] = entry
    out = {
        "format": "reasonscope-bimanual-protocol/1",
        "source": {
            "repository": "https://github.com/bimanibench/BiManiBench",
            "licence": "MIT",
            "commit": commit,
            "reader": READER,
            "defaults": DEFAULTS,
        },
        "rounds": 2,
        "episodes_per_round": 50,
        "tasks": tasks,
    }
    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)} ({len(tasks)} tasks)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
