"""The demo's pending tabletop questions with the scripted search agent's manipulation
episodes on them, built once per test run: the failed grasps Replay compares with the plan.

Import `pending_demo` into a test module to use it (it is a session fixture; the project
is built the first time a test asks for it, about 40 s of question generation and physics).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from annotation.progress import Progress

_BUILT: dict[str, Path] = {}


def build_pending_demo(path: Path) -> Path:
    """The demo's parts that matter here: its annotators, its pending questions (count
    only, as the demo has them) and the search agent in manipulation mode on them."""
    import app.demo as demo

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(demo, "DEMO_QUESTION_TASKS", ("count",))
        mp.setattr(demo, "DEMO_RUNS", (("search", "manipulation"),))
        wanted = ("annotators", "pending_questions", "episodes")
        mp.setattr(demo, "DEMO_PARTS", [(n, f) for n, f in demo.DEMO_PARTS if n in wanted])
        demo.build_demo(path, Progress())
    return path


@pytest.fixture(scope="session")
def pending_demo(tmp_path_factory) -> Path:
    if "path" not in _BUILT:
        folder = tmp_path_factory.mktemp("pending_demo")
        _BUILT["path"] = build_pending_demo(folder / "demo.reasonscope")
    return _BUILT["path"]


def closed_grasps(project) -> list[tuple[int, object]]:
    """(episode id, step) of every failed grasp whose fingers closed, in episode order."""
    found = []
    for episode_id in project.episodes.ids():
        for step in project.episodes.steps(episode_id):
            replay = (step.result or {}).get("replay") or {}
            if step.name == "grasp" and not step.ok and replay.get("tool_at_close"):
                found.append((episode_id, step))
    return found
