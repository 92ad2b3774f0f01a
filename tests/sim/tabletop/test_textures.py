"""Table textures: resources/textures/table/ and the script that makes them."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sim.assets import resolve_asset

ROOT = Path(__file__).resolve().parents[3]
TEX_DIR = ROOT / "resources" / "textures" / "table"
SCRIPT = ROOT / "scripts" / "make_textures.py"


@pytest.fixture(scope="module")
def index() -> list[dict]:
    return json.loads((TEX_DIR / "index.json").read_text())


def test_index_matches_the_files(index):
    assert len(index) >= 12
    names = [t["name"] for t in index]
    assert len(names) == len(set(names))
    assert {f"{n}.png" for n in names} == {p.name for p in TEX_DIR.glob("*.png")}
    for t in index:
        assert t["file"] == f"resources:textures/table/{t['name']}.png"
        assert resolve_asset(t["file"]) == TEX_DIR / f"{t['name']}.png"


def test_styles_cover_wood_fabric_stone_pattern(index):
    styles = [t["style"] for t in index]
    assert set(styles) == {"wood", "fabric", "stone", "pattern"}
    assert all(styles.count(s) >= 3 for s in set(styles))


def test_each_texture_is_a_512_rgb_image_that_is_not_too_busy(index):
    for t in index:
        with Image.open(resolve_asset(t["file"])) as im:
            assert im.format == "PNG" and im.size == (512, 512) and im.mode == "RGB"
            rgb = np.asarray(im, dtype=float)
        lum = rgb.mean(axis=2)
        # muted: neither near-black nor blown out, and moderate contrast
        assert 50 <= lum.mean() <= 235, t["name"]
        assert lum.std() <= 50, t["name"]
        assert np.allclose(rgb.reshape(-1, 3).mean(0) / 255, t["mean_rgb"], atol=0.002), t["name"]


def test_script_is_deterministic_and_outputs_are_current(tmp_path):
    out = tmp_path / "tex"
    subprocess.run(
        [sys.executable, str(SCRIPT), "--out", str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        timeout=120,
    )
    made = sorted(p.name for p in out.iterdir())
    shipped = sorted(p.name for p in TEX_DIR.iterdir())
    assert made == shipped
    for name in made:
        assert (out / name).read_bytes() == (TEX_DIR / name).read_bytes(), name
