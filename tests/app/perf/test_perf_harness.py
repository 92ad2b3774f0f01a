"""The perf engine: discovery, order, structure and sanity of results, never wall-clock limits."""

from __future__ import annotations

import ast
import importlib
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

import app.perf
from app.perf import harness
from app.perf import store as perf_store
from app.perf.harness import PerfResult, perf_case, run_cases

ROOT = Path(__file__).resolve().parents[3]

#: The order `reasonscope bench` has always run its cases in (the modules' ORDER keeps it).
RUN_ORDER = [
    "question_paging",
    "autosave_label_write",
    "settle_early_stop",
    "visibility_windowed",
    "generation_overhead",
    "editor_visibility_update",
    "viewport_frame_time",
    "episode_import_memory",
    "episode_bytes_shared",
    "metrics_scaling",
    "replay_list_open",
    "launch_splash",
    "launch_window",
    "verify_next_question",
    "package_create",
    "package_merge",
    "annotator_package_merge",
    "export_labels_edited",
    "track_keyframe_edit",
    "questions_count",
    "questions_find",
    "questions_beneath",
    "questions_compare",
    "hf_export_overhead",
    "hf_export_memory",
    "grasp_isolated",
    "grasp_clutter",
    "environment_errors",
    "grasp_planning",
    "replay_seek",
    "episode_rerun_export",
    "relations_knn",
    "jrdb_frame_load",
    "annotate_step",
    "cloud_frame_time",
    "reasoning_import",
    "seam_iou",
    "graph_view_update",
    "query_engine_rate",
    "scene_graph_build",
    "bimanual_reference_plans",
    "bimanual_sim_speed",
    "bimanual_row_plans",
    "spatial_grounding",
    "batch_scenes_speedup",
    "batch_ray_overhead",
    "run_agent_concurrency",
    "run_agent_manipulation",
    "run_agent_jrdb",
]


@pytest.fixture
def tiny(monkeypatch):
    """Shrink every case so the whole engine runs in a second or two."""
    monkeypatch.setattr(perf_store, "PAGING_SMALL", 400)
    monkeypatch.setattr(perf_store, "PAGING_LARGE", {False: 2_000, True: 2_000})
    monkeypatch.setattr(perf_store, "PAGING_REPEATS", 3)
    monkeypatch.setattr(perf_store, "AUTOSAVE_WRITES", {False: 30, True: 30})


@pytest.fixture
def scratch_cases(monkeypatch):
    """A registry that tests may add to without leaking cases into others."""
    monkeypatch.setattr(harness, "CASES", dict(harness.CASES))
    return harness.CASES


def test_builtin_cases_are_registered():
    assert {"question_paging", "autosave_label_write"} <= set(harness.known_cases())
    assert harness.CASES["question_paging"].goal == "<= 2"
    assert harness.CASES["autosave_label_write"].goal == "median < 2 ms per write"
    assert harness.CASES["question_paging"].description


def test_every_module_but_the_harness_is_discovered_in_running_order():
    modules = harness.case_modules()
    assert "app.perf.harness" not in modules
    files = Path(harness.__file__).parent.glob("*.py")
    assert set(modules) == {f"app.perf.{f.stem}" for f in files} - {
        "app.perf.__init__",
        "app.perf.harness",
    }
    orders = [getattr(sys.modules[m], "ORDER", math.inf) for m in modules]
    assert orders == sorted(orders)
    assert modules[:2] == ["app.perf.store", "app.perf.sim"]  # the cheap cases first


def test_the_running_order_is_the_one_bench_has_always_had():
    assert harness.known_cases() == RUN_ORDER


def test_the_order_does_not_depend_on_what_was_imported_first(scratch_cases):
    # Registration order in the dict is whatever the process imported first ...
    for name in ["spatial_grounding", "viewport_frame_time"]:
        scratch_cases[name] = scratch_cases.pop(name)
    # ... but the running order is the modules' ORDER, then definition order.
    assert harness.known_cases() == RUN_ORDER


def test_run_cases_quick(tiny, tmp_path, monkeypatch):
    monkeypatch.setenv(harness.PERF_DIR_ENV, str(tmp_path))
    messages: list[str] = []
    results = run_cases(["question_paging", "autosave_label_write"], True, messages.append)
    assert [r.name for r in results] == ["question_paging", "autosave_label_write"]
    paging, autosave = results
    for r in results:
        assert isinstance(r, PerfResult)
        assert math.isfinite(r.value) and r.value > 0
        assert r.goal == harness.CASES[r.name].goal
        assert isinstance(r.passed, bool) and r.detail
        assert json.loads(json.dumps(r.as_dict())) == r.as_dict()
        assert set(r.as_dict()) == {"name", "value", "unit", "goal", "passed", "detail", "skipped"}
    assert paging.unit == "x"
    assert paging.passed == (paging.value <= 2)
    assert "400 questions" in paging.detail and "2,000 questions" in paging.detail
    assert "WRONG PAGES" not in paging.detail
    assert autosave.unit == "x dict"
    assert " ms" in autosave.detail and "µs" in autosave.detail
    # Progress names each case as it starts and ends; temporary projects are gone.
    assert any(m.startswith("question_paging: running") for m in messages)
    assert any(m.startswith("autosave_label_write:") and "x dict" in m for m in messages)
    assert list(tmp_path.iterdir()) == []
    assert harness._progress is None


def test_run_all_cases_by_default(scratch_cases, monkeypatch):
    scratch_cases.clear()
    monkeypatch.setattr(harness, "case_modules", lambda: [])  # only the case registered here

    @perf_case("constant", goal="== 1")
    def constant(quick: bool) -> PerfResult:
        return PerfResult("constant", 1.0, "x", "== 1", True, f"quick={quick}")

    assert run_cases(None, quick=False, progress=None) == [
        PerfResult("constant", 1.0, "x", "== 1", True, "quick=False")
    ]


def test_unknown_case_lists_known_names():
    with pytest.raises(ValueError) as info:
        run_cases(["question_paging", "warp_drive"], quick=True, progress=None)
    message = str(info.value)
    assert "warp_drive" in message
    assert "question_paging" in message and "autosave_label_write" in message


def test_a_new_module_in_the_package_is_found_without_a_list(scratch_cases, monkeypatch, tmp_path):
    (tmp_path / "extra_cases.py").write_text(
        "from app.perf.harness import PerfResult, perf_case, report\n"
        "ORDER = 15\n"
        "@perf_case('extra_case', goal='>= 0')\n"
        "def extra_case(quick):\n"
        "    report('extra_case: counting')\n"
        "    return PerfResult('extra_case', 3.0, 'x', '>= 0', True, 'three')\n",
        encoding="utf-8",
    )
    # as if the file were in app/perf/: the package's folders are where discovery looks
    monkeypatch.setattr(app.perf, "__path__", [*app.perf.__path__, str(tmp_path)])
    messages: list[str] = []
    try:
        (result,) = run_cases(["extra_case"], quick=True, progress=messages.append)
        assert result.value == 3.0 and "extra_case" in harness.known_cases()
        assert "extra_case: counting" in messages
        # ORDER 15 runs it after the store's cases and before the simulator's
        assert harness.known_cases() == [*RUN_ORDER[:2], "extra_case", *RUN_ORDER[2:]]
        # Importing the module again (a reload) does not count as a clash ...
        importlib.reload(importlib.import_module("app.perf.extra_cases"))
    finally:
        sys.modules.pop("app.perf.extra_cases", None)

    # ... but another function taking a registered name does.
    with pytest.raises(ValueError, match="already registered"):

        @perf_case("extra_case", goal="")
        def impostor(quick: bool) -> PerfResult:  # pragma: no cover - never runs
            raise AssertionError


def test_cases_registered_outside_the_package_run_last(scratch_cases, monkeypatch, tmp_path):
    (tmp_path / "outside_perf_cases.py").write_text(
        "from app.perf.harness import PerfResult, perf_case\n"
        "@perf_case('outside_case', goal='>= 0')\n"
        "def outside_case(quick):\n"
        "    return PerfResult('outside_case', 1.0, 'x', '>= 0', True, 'one')\n",
        encoding="utf-8",
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        importlib.import_module("outside_perf_cases")
        assert harness.known_cases() == [*RUN_ORDER, "outside_case"]
    finally:
        sys.modules.pop("outside_perf_cases", None)


def test_format_results():
    text = harness.format_results(
        [
            PerfResult("a", 1.5, "x", "<= 2", True, "fine"),
            PerfResult("longer_name", 3.0, "x", "<= 2", False, "slow"),
        ]
    )
    lines = text.splitlines()
    assert len(lines) == 2
    assert "pass" in lines[0] and "FAIL" in lines[1] and "slow" in lines[1]


def test_median_ms_times_the_calls_after_the_warmup():
    calls = []
    assert harness.median_ms(lambda: calls.append(1), repeats=5, warmup=2) >= 0
    assert len(calls) == 7


def test_scratch_folder_is_under_the_perf_dir_and_removed(tmp_path, monkeypatch):
    monkeypatch.setenv(harness.PERF_DIR_ENV, str(tmp_path))
    with harness.scratch_folder() as folder:
        assert folder.parent == tmp_path and folder.is_dir()
    assert not folder.exists()


def _perf_imports() -> dict[str, list[tuple[str, str]]]:
    """For each module of app/perf, the (module, name) pairs it imports from app.perf."""
    found = {}
    for path in Path(harness.__file__).parent.glob("*.py"):
        pairs = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("app.perf"):
                pairs += [(node.module, alias.name) for alias in node.names]
        found[f"app.perf.{path.stem}"] = pairs
    return found


def test_no_perf_module_imports_a_private_name_or_makes_a_cycle():
    imports = _perf_imports()
    private = [(m, name) for m, pairs in imports.items() for _, name in pairs if name[0] == "_"]
    assert private == []
    graph = {m: {source for source, _ in pairs} for m, pairs in imports.items()}

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        return any(
            nxt == goal or (nxt not in seen and reaches(nxt, goal, seen | {nxt}))
            for nxt in graph.get(start, ())
        )

    assert [m for m in graph if reaches(m, m, set())] == []


def test_without_ray_the_ray_cases_are_skipped_and_the_others_run(tmp_path):
    """An install without the cluster extra: `import ray` fails (a package of that name
    that raises, first on the path); the bench says which pip line to run and goes on."""
    fake = tmp_path / "no_ray" / "ray"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError(\"No module named 'ray'\")\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(fake.parent), str(ROOT)])}
    done = subprocess.run(
        [sys.executable, "-m", "app.cli", "bench", "--quick"]
        + ["--case", "batch_scenes_speedup", "--case", "question_paging"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.splitlines()
    assert lines[0].startswith("--  batch_scenes_speedup") and "skipped" in lines[0]
    assert "pip install 'reasonscope[cluster]'" in lines[0]
    assert lines[1].startswith(("ok  question_paging", "MISS question_paging"))
    assert "Traceback" not in done.stderr


def test_bench_exits_1_naming_the_cases_that_missed(scratch_cases, monkeypatch, capsys):
    from app.cli import main

    monkeypatch.setattr(harness, "case_modules", lambda: [])

    @perf_case("made_it", goal="<= 2")
    def made_it(quick: bool) -> PerfResult:
        return PerfResult("made_it", 1.0, "x", "<= 2", True, "fine")

    @perf_case("missed_it", goal="<= 2")
    def missed_it(quick: bool) -> PerfResult:
        return PerfResult("missed_it", 3.0, "x", "<= 2", False, "slow")

    @perf_case("just_says", goal=harness.REPORT)
    def just_says(quick: bool) -> PerfResult:
        return PerfResult("just_says", 7.0, "ms", harness.REPORT, True, "a figure")

    assert main(["bench", "--case", "made_it", "--case", "just_says"]) == 0
    out = capsys.readouterr().out
    assert "ok  made_it" in out and "rep just_says" in out and "ok  just_says" not in out
    assert main(["bench", "--case", "made_it", "--case", "missed_it", "--case", "just_says"]) == 1
    captured = capsys.readouterr()
    assert "MISS missed_it" in captured.out
    assert "bench: 1 case missed its goal: missed_it" in captured.err
    assert harness.missed_cases(run_cases(["missed_it", "just_says"])) == ["missed_it"]
    text = harness.format_results(run_cases(["just_says"]))
    assert "report" in text and "pass" not in text
