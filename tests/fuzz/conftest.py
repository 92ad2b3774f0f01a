"""The fuzz tests' seeds, built once per test run from the real-writer fixtures
(`seeds.py`), and a summary of the outcomes at the end of the run."""

from __future__ import annotations

import pytest
import seeds
from contract import TALLY


@pytest.fixture(scope="session")
def fuzz_seed(tmp_path_factory):
    """seed name -> its `Seed`, each built on first use."""
    built: dict[str, seeds.Seed] = {}
    builders = {
        "benchmark": seeds.benchmark_seed,
        "episodes": seeds.episodes_seed,
        "mgvqa": seeds.mgvqa_seed,
        "bimanibench": seeds.bimanibench_seed,
        "embodiedbench": seeds.embodiedbench_seed,
        "jrdb": seeds.jrdb_seed,
        "predictions": seeds.predictions_seed,
        "spatial-predictions": seeds.spatial_seed,
        "pack-merge": seeds.pack_seed,
    }

    def get(name: str) -> seeds.Seed:
        if name not in built:
            built[name] = builders[name](tmp_path_factory.mktemp(f"seed-{name}"))
        return built[name]

    return get


def pytest_terminal_summary(terminalreporter) -> None:
    if not TALLY:
        return
    terminalreporter.section("fuzz outcomes (examples per input)")
    for name in sorted({n for n, _ in TALLY}):
        counts = {outcome: n for (input_, outcome), n in TALLY.items() if input_ == name}
        terminalreporter.write_line(
            f"{name}: " + ", ".join(f"{n} {outcome}" for outcome, n in sorted(counts.items()))
        )
