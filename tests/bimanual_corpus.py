"""The bimanual log corpus (tests/data/bimanual), copied to a temporary folder with its
observation images made on the fly: tiny JPEGs/PNGs, so no binaries are committed."""

from __future__ import annotations

import shutil
from pathlib import Path

from app.demo.bimanual import write_listed_images

DATA = Path(__file__).resolve().parent / "data" / "bimanual"
RUN = Path(
    "bimanibench/eval_result/high_level/handover_block/vlmpolicy/config_arx_x5_0_7/"
    "2025-06-01_120000"
)
EPISODES = RUN / "obsimg" / "round0"
EMBODIED = Path("embodiedbench/gpt-5_base/stack_blocks_two")


def make_corpus(tmp_path: Path) -> Path:
    """A copy of the corpus under tmp_path with every image listed in jpegs.txt written:
    32 x 32, one colour per name, except names marked `same` (one shared colour)."""
    root = tmp_path / "bimanual"
    shutil.copytree(DATA, root)
    write_listed_images(root, DATA / "jpegs.txt")
    return root


def imported_project(tmp_path: Path, name: str = "runs.reasonscope") -> Path:
    """A new project under tmp_path holding the whole corpus, imported through the CLI
    (both formats), as a user would."""
    from app.cli import main
    from store import open_project

    corpus = make_corpus(tmp_path)
    path = tmp_path / name
    open_project(path, create=True).close()
    for fmt in ("bimanibench", "embodiedbench"):
        code = main(["import", "episodes", str(corpus / fmt), "--format", fmt, "--db", str(path)])
        assert code == 0, f"importing the {fmt} corpus failed"
    return path
