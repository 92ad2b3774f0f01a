"""The real-structure JRDB activity file of tests/data/jrdb/ (its README names the real code
it follows) as a dataset root, and the JRDB toolkit's GT conversion script beside it."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from PIL import Image

from annotation.jrdb import dataset as L
from app.cli import main
from store import open_project

DATA = Path(__file__).resolve().parent / "data" / "jrdb"
NAME = "bytes-cafe-2019-02-07_0"
FIXTURE = DATA / f"{NAME}.json"


def toolkit():
    spec = importlib.util.spec_from_file_location("jrdb_gt", DATA / "GT_conversion_script.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_root(base: Path, activity: dict, extra_2d: dict | None = None) -> Path:
    """A dataset root around an activity file: the 2D file holds the same boxes (JRDB's
    `labels_2d_stitched` entries are label_id, file_id, box, attributes), and images."""
    root = base / "root"
    for folder in (L.LABELS_2D, L.LABELS_ACTIVITY, f"{L.IMAGES}/{NAME}"):
        (root / folder).mkdir(parents=True, exist_ok=True)
    labels_2d = {
        frame: [{k: e[k] for k in ("label_id", "file_id", "box", "attributes")} for e in people]
        for frame, people in activity["labels"].items()
    }
    for frame, entry in (extra_2d or {}).items():
        labels_2d[frame].append(entry)
    (root / L.LABELS_2D / f"{NAME}.json").write_text(json.dumps({"labels": labels_2d}))
    (root / L.LABELS_ACTIVITY / f"{NAME}.json").write_text(json.dumps(activity))
    for frame in activity["labels"]:
        image = Image.new("RGB", (L.PANORAMA_WIDTH, L.PANORAMA_HEIGHT), (90, 90, 90))
        image.save(root / L.IMAGES / NAME / frame, quality=60)
    return root


def imported_fixture(tmp_path: Path) -> tuple[Path, Path]:
    """A project with the fixture imported (`reasonscope import jrdb`) and its root."""
    db = tmp_path / "project.reasonscope"
    open_project(db, create=True).close()
    root = make_root(tmp_path, json.loads(FIXTURE.read_text()))
    assert main(["import", "jrdb", str(root), "--db", str(db), "--json"]) == 0
    return db, root


# The edits the label-edit tests make, and the toolkit's GT lines they imply.
MOVED_BOX = "3300,100,230,360"  # pedestrian:7 in frame 15; the dataset: 3359,106,236,366


def implied_gt(
    theirs: dict[str, list[str]], moved: tuple[float, float, float, float] = (3300, 100, 230, 360)
) -> dict[str, list[str]]:
    """The toolkit's lines of the original file after the edits: pedestrian:7's lines in
    frame 15 with the corners of its `moved` box (x1 y1 x2 y2: 3300 100 3530 460 for
    MOVED_BOX), pedestrian:9's lines of frame 30 gone; an added person (no JRDB-Act
    labels: no_eval) adds none."""
    x, y, w, h = moved
    corners = f"0 15 {x} {y} {x + w} {y + h} "
    return {
        name: [
            line.replace("0 15 3359 106 3595 472 ", corners)
            for line in lines
            if not line.startswith("0 30 1500 140 1560 340 ")
        ]
        for name, lines in theirs.items()
    }
