"""`reasonscope import jrdb`: a synthetic sequence in, warnings for missing parts, and
one-line errors that leave the project unchanged for broken ones."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from annotation.jrdb import dataset as L
from annotation.progress import Progress
from app.cli import main
from app.demo.jrdb_synth import TRUE_CALIBRATION, SynthConfig, write_sequence
from app.io.jrdb import adjust_calibration, frame_points, import_jrdb
from sim.jrdb.lidar import points_in_box
from store import ProjectError, open_project

NAME = "synthetic-cafe_0"
SMALL = SynthConfig(frames=3, points_per_sweep=4000)


@pytest.fixture(scope="module")
def synth_root(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("jrdb") / "root"
    write_sequence(root, SMALL)
    return root


@pytest.fixture
def root(synth_root, tmp_path) -> Path:
    """A private copy that a test may break."""
    return Path(shutil.copytree(synth_root, tmp_path / "root"))


@pytest.fixture
def db(tmp_path) -> Path:
    path = tmp_path / "project.reasonscope"
    open_project(path, create=True).close()
    return path


def snapshot(db: Path) -> tuple:
    with open_project(db) as p:
        summary = p.summary.summary().as_dict()
        labels = p.db.execute("SELECT count(*) FROM person_labels").fetchone()[0]
    return summary, labels


def read_json(path: Path):
    return json.loads(path.read_text())


def write_json(path: Path, data) -> None:
    path.write_text(json.dumps(data))


def test_the_synthetic_sequence_imports_whole(root, db):
    result = import_jrdb(db, root)
    assert result.warnings == []
    [report] = result.sequences
    assert (report.name, report.frames, report.persons, report.objects) == (NAME, 3, 6, 6)
    assert report.boxes_2d == report.boxes_3d == 3 * 12
    assert report.person_labels > 3 * 6 * 4
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        assert seq.root == str(root.resolve()) and seq.frame_count == 3
        assert seq.calibration["source"].endswith(L.CALIBRATION)
        assert p.sequences.frame_times(seq.id)[2] == pytest.approx(2 / 15)
        frames = p.sequences.frames(seq.id)
        assert len(frames[0].pointcloud_paths) == 2
        assert (root / frames[0].image_path).is_file()
        entities = {e.key: e for e in p.sequences.entities(seq.id)}
        assert entities["pedestrian:4"].kind == "human" and entities["laptop:1"].kind == "object"
        assert entities["pedestrian:1"].attributes == {
            "gender": "male",
            "age": "adulthood",
            "social_group": "1",
            "race": "mongoloid/asian",  # JRDB-Social's label, lower case
        }
        boxes = {b.entity_id: b for b in p.sequences.boxes_2d(frames[0].id)}
        seam = boxes[entities["pedestrian:6"].id]
        assert seam.x < L.PANORAMA_WIDTH < seam.x + seam.w  # stored across the seam
        assert boxes[entities["pedestrian:1"].id].attributes["truncated"] is False
        labels = p.sequences.person_labels(frames[0].id)
        walking_together = [lab for lab in labels if lab["kind"] == "interaction"]
        assert {lab["other_entity_id"] for lab in walking_together} == {
            entities["pedestrian:1"].id,
            entities["pedestrian:2"].id,
        }
        # the stored calibration merges the two sweeps: both see the sitting person
        cloud = frame_points(seq, frames[0])
        sitter = next(
            b
            for b in p.sequences.boxes_3d(frames[0].id)
            if b.entity_id == entities["pedestrian:4"].id
        )
        box = (sitter.cx, sitter.cy, sitter.cz, sitter.l, sitter.w, sitter.h, sitter.rot_z)
        assert points_in_box(cloud.of("upper"), box).sum() > 3
        assert points_in_box(cloud.of("lower"), box).sum() > 3


def test_missing_optional_parts_are_warnings(root, db):
    (root / L.LABELS_3D / f"{NAME}.json").unlink()
    (root / L.LABELS_ACTIVITY / f"{NAME}.json").unlink()
    (root / L.LABELS_OBJECTS / f"{NAME}.json").unlink()
    shutil.rmtree(root / L.POINTCLOUDS["lower"])
    (root / L.POINTCLOUDS["upper"] / NAME / "000001.pcd").unlink()
    (root / L.CALIBRATION).unlink()
    result = import_jrdb(db, root, NAME)
    [report] = result.sequences
    assert (report.boxes_2d, report.boxes_3d, report.objects, report.person_labels) == (18, 0, 0, 0)
    text = "\n".join(result.warnings)
    assert len(result.warnings) == 6
    for part in (L.LABELS_3D, L.LABELS_ACTIVITY, L.LABELS_OBJECTS, "lower_velodyne", "defaults"):
        assert part in text
    assert "1 of 3 frames have no upper sweep (000001.pcd)" in text
    with open_project(db) as p:
        seq = p.sequences.find(NAME)
        assert seq.calibration["source"] == "identity"
        frames = p.sequences.frames(seq.id)
        assert [len(f.pointcloud_paths) for f in frames] == [1, 0, 1]


def test_a_3d_box_without_a_2d_match_is_kept_with_a_warning(root, db):
    path = root / L.LABELS_3D / f"{NAME}.json"
    data = read_json(path)
    extra = dict(data["labels"]["000000.pcd"][0], label_id="pedestrian:99")
    data["labels"]["000000.pcd"].append(extra)
    write_json(path, data)
    activity = root / L.LABELS_ACTIVITY / f"{NAME}.json"
    data = read_json(activity)
    data["labels"]["000001.jpg"].append({"label_id": "pedestrian:42", "action_label": {"a": 1}})
    write_json(activity, data)
    result = import_jrdb(db, root)
    assert any("pedestrian:99 in 000000.pcd" in w and "3D-only" in w for w in result.warnings)
    assert any("pedestrian:42" in w and "skipped" in w for w in result.warnings)
    assert result.sequences[0].persons == 7 and result.sequences[0].boxes_3d == 37


def _labels_2d(root: Path) -> Path:
    return root / L.LABELS_2D / f"{NAME}.json"


def _edit_2d(fn):
    def apply(root: Path) -> None:
        data = read_json(_labels_2d(root))
        fn(data)
        write_json(_labels_2d(root), data)

    return apply


def _set_box(data) -> None:
    data["labels"]["000001.jpg"][2]["box"] = [1.0, 2.0, 3.0]


def _bad_difficulty(root: Path) -> None:
    path = root / L.LABELS_ACTIVITY / f"{NAME}.json"
    data = read_json(path)
    data["labels"]["000000.jpg"][0]["action_label"] = {"walking": "often"}
    write_json(path, data)


def _object_named_like_a_person(root: Path) -> None:
    path = root / L.LABELS_OBJECTS / f"{NAME}.json"
    data = read_json(path)
    data["labels"]["000000.jpg"][0]["label_id"] = "bag:1"
    data["labels"]["000000.jpg"][0]["category"] = "bag"
    data["labels"]["000000.jpg"].append({"label_id": "pedestrian", "box": [1, 2, 3, 4]})
    write_json(path, data)


BROKEN = {
    "bad JSON": (lambda r: _labels_2d(r).write_text('{"labels": {'), "line 1: not JSON"),
    "no labels key": (_edit_2d(lambda d: d.pop("labels")), '"labels": missing'),
    "a box of 3 numbers": (
        _edit_2d(_set_box),
        'labels["000001.jpg"][2].box (x, y, w, h): expected 4 numbers, got 3',
    ),
    "no images folder": (
        lambda r: shutil.rmtree(r / L.IMAGES / NAME),
        "no such images folder",
    ),
    "a frame without its image": (
        lambda r: (r / L.IMAGES / NAME / "000002.jpg").unlink(),
        'labels["000002.jpg"]: no image for frame 2',
    ),
    "an image that is not one": (
        lambda r: (r / L.IMAGES / NAME / "000001.jpg").write_bytes(b"not a jpeg"),
        "000001.jpg: not a readable image",
    ),
    "an unreadable pcd": (
        lambda r: (r / L.POINTCLOUDS["upper"] / NAME / "000001.pcd").write_bytes(b"\x00\x01junk"),
        "upper_velodyne/synthetic-cafe_0/000001.pcd: not a PCD",
    ),
    "a truncated pcd": (
        lambda r: (r / L.POINTCLOUDS["lower"] / NAME / "000002.pcd").write_bytes(
            (r / L.POINTCLOUDS["lower"] / NAME / "000002.pcd").read_bytes()[:400]
        ),
        "000002.pcd: truncated PCD",
    ),
    "a calibration without lidars": (
        lambda r: (r / L.CALIBRATION).write_text("image:\n  width: 3760\n"),
        "defaults.yaml: calibrated: missing",
    ),
    "a calibration that is not YAML": (
        lambda r: (r / L.CALIBRATION).write_text("calibrated:\n  lidar_upper_to_rgb: [0, 0\n"),
        "defaults.yaml: line 3: not YAML",
    ),
    "a non-integer difficulty": (_bad_difficulty, 'action_label["walking"]: difficulty'),
    "an object that is a person": (_object_named_like_a_person, "names a person"),
}


@pytest.mark.parametrize("case", list(BROKEN))
def test_broken_required_parts_are_one_line_errors_and_change_nothing(root, db, case):
    breaker, needle = BROKEN[case]
    breaker(root)
    before = snapshot(db)
    with pytest.raises(ProjectError) as exc:
        import_jrdb(db, root)
    message = str(exc.value)
    assert needle in message and "\n" not in message
    assert message.startswith(str(root)), message  # names the file
    assert snapshot(db) == before


def test_importing_a_sequence_twice_is_refused(root, db):
    import_jrdb(db, root)
    before = snapshot(db)
    with pytest.raises(ProjectError, match=f"sequence {NAME} is already in"):
        import_jrdb(db, root)
    assert snapshot(db) == before


def test_unknown_sequence_and_root(root, db, tmp_path):
    with pytest.raises(ProjectError, match="no such label file"):
        import_jrdb(db, root, "nope")
    with pytest.raises(ProjectError, match="no such folder"):
        import_jrdb(db, tmp_path / "missing")
    with pytest.raises(ProjectError, match="no <sequence>.json label files"):
        import_jrdb(db, tmp_path)


def test_cli_reports_json_with_warnings(root, db, capsys):
    (root / L.LABELS_OBJECTS / f"{NAME}.json").unlink()
    code = main(["import", "jrdb", str(root), "--sequence", NAME, "--db", str(db), "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    report = json.loads(out)
    assert report["sequences"][0]["name"] == NAME and report["sequences"][0]["frames"] == 3
    assert len(report["warnings"]) == 1 and L.LABELS_OBJECTS in report["warnings"][0]
    assert "reasonscope: warning" not in err  # warnings live in the JSON


def test_cli_prints_warnings_and_a_summary(root, db, capsys):
    (root / L.LABELS_ACTIVITY / f"{NAME}.json").unlink()
    assert main(["import", "jrdb", str(root), "--db", str(db)]) == 0
    out, err = capsys.readouterr()
    assert f"Imported {NAME}: 3 frames, 6 persons, 6 objects" in out
    assert [ln for ln in err.splitlines() if ln.startswith("reasonscope: warning:")]


def test_cli_error_is_one_line_and_exit_2(root, db, capsys):
    _edit_2d(_set_box)(root)
    assert main(["import", "jrdb", str(root), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    errors = [ln for ln in err.splitlines() if ln.startswith("reasonscope: error:")]
    assert len(errors) == 1 and err.strip().splitlines()[-1] == errors[0]
    assert str(_labels_2d(root)) in errors[0] and ".box" in errors[0]


def test_a_misaligned_calibration_can_be_fixed_after_import(tmp_path, db):
    root = tmp_path / "skewed"
    write_sequence(root, SynthConfig(frames=1, points_per_sweep=6000, lower_yaw_error=0.3))
    import_jrdb(db, root)

    def lower_hits() -> int:
        seq = project.sequences.find(NAME)
        frame = project.sequences.frames(seq.id)[0]
        cloud = frame_points(seq, frame)
        return sum(
            int(points_in_box(cloud.of("lower"), (b.cx, b.cy, b.cz, b.l, b.w, b.h, b.rot_z)).sum())
            for b in project.sequences.boxes_3d(frame.id)
        )

    with open_project(db) as project:
        skewed = lower_hits()
        fixed = adjust_calibration(
            project, NAME, "lower", "Ada", rotation=TRUE_CALIBRATION.lower.rotation
        )
        assert fixed.lower == TRUE_CALIBRATION.lower and "Ada" in fixed.source
        assert lower_hits() > 2 * max(skewed, 1)
        assert project.audit.recent(1)[0].annotator == "Ada"
        with pytest.raises(ProjectError, match="no sequence"):
            adjust_calibration(project, "nope", "lower", "Ada", rotation=(0, 0, 0))


def test_the_demo_part_writes_and_imports_a_sequence_beside_the_project(tmp_path, monkeypatch):
    import app.demo as demo

    monkeypatch.setattr(
        demo, "DEMO_PARTS", [p for p in demo.DEMO_PARTS if p[0] in ("annotators", "jrdb")]
    )
    path = tmp_path / "demo.reasonscope"
    assert demo.build_demo(path, Progress()) == ["annotators", "jrdb"]
    folder = tmp_path / "demo.reasonscope.jrdb"
    assert (folder / L.LABELS_2D / f"{NAME}.json").is_file()
    assert not (tmp_path / "demo.reasonscope.building.jrdb").exists()
    with open_project(path) as p:
        seq = p.sequences.find(NAME)
        assert seq.root == str(folder.resolve()) and seq.frame_count == SynthConfig().frames
        frame = p.sequences.frames(seq.id)[0]
        assert (Path(seq.root) / frame.image_path).is_file()
