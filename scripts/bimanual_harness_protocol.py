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

The harness also sends, after the prompt text of every planner request, the task's
picture `script/example_img/<task>.png` (`VLMPlanner.act` and `get_message` in
`script/vlmplanner.py`). Its sha256 is recorded per task; with `--images` the pictures
are copied byte for byte to resources/bimanual/example_img/, with the repository's
LICENSE and a README naming the source.

    python scripts/bimanual_harness_protocol.py /path/to/BiManiBench-git-dir [--images]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "resources" / "bimanual" / "harness_protocol.json"
IMAGES = ROOT / "resources" / "bimanual" / "example_img"
IMAGE_REF = "resources:bimanual/example_img/{name}"
READER = "script/myvlmEb_eval.py, eval_policy (the json_data.get lines)"
DEFAULTS = {"action_limit": 10, "action_chunk_num": 6}


def git_show(repo: Path, path: str) -> str | None:
    done = subprocess.run(
        ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, text=True
    )
    return done.stdout if done.returncode == 0 else None


def git_bytes(repo: Path, path: str) -> bytes:
    """A file's bytes at HEAD, exactly as committed (no text conversion)."""
    return subprocess.run(
        ["git", "-C", str(repo), "show", f"HEAD:{path}"], capture_output=True, check=True
    ).stdout


def images_readme(commit: str, pictures: dict[str, str]) -> str:
    """The README shipped next to the copied pictures: where they come from and why."""
    names = "\n".join(f"- `{Path(path).name}`" for path in sorted(pictures.values()))
    return f"""# BiManiBench example pictures

The example picture of each task that the ST-BiBench planning harness sends with
every planner request: a worked example (the instruction, the scene at the start and
after the task is done in the harness's own simulator, and an example reply).
Copied byte for byte from the BiManiBench repository
(https://github.com/bimanibench/BiManiBench), commit
`{commit}`,
path `script/example_img/<task>.png`, under its MIT licence (`LICENSE` here,
"Copyright (c) 2026 bimanibench").

The harness appends the task's picture after the prompt text
(`VLMPlanner.get_message` in `script/vlmplanner.py`); our planning-tier agent does the
same (docs/bimanual-agents.md). Each file's sha256 is in `../harness_protocol.json`
(`example_image_sha256`). Do not edit them; rebuild with
`python scripts/bimanual_harness_protocol.py <BiManiBench git dir> --images`.

{names}
"""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("repo", type=Path, help="a BiManiBench git directory")
    parser.add_argument(
        "--images",
        action="store_true",
        help="also copy the example pictures and the licence to resources/bimanual/example_img",
    )
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
    pictures: dict[str, str] = {}
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
        entry["example_image"] = None
        entry["example_image_ref"] = None
        entry["example_image_sha256"] = None
        if image in names:
            data_bytes = git_bytes(args.repo, image)
            name = Path(image).name
            entry["example_image"] = image
            entry["example_image_ref"] = IMAGE_REF.format(name=name)
            entry["example_image_sha256"] = hashlib.sha256(data_bytes).hexdigest()
            pictures[task] = image
            if args.images:
                IMAGES.mkdir(parents=True, exist_ok=True)
                (IMAGES / name).write_bytes(data_bytes)
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
    if args.images:
        (IMAGES / "LICENSE").write_bytes(git_bytes(args.repo, "LICENSE"))
        (IMAGES / "README.md").write_text(images_readme(commit, pictures), encoding="utf-8")
        print(f"copied {len(pictures)} pictures and the licence to {IMAGES.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
