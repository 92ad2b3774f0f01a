"""Import JRDB sequences (the dataset's folder layout) into a project, in one transaction.

`read_jrdb` reads and checks everything first and returns a plan per sequence
with its warnings; `store_jrdb` writes the plans into an open project inside
one `project.write()`; `import_jrdb` does both on a project file. A malformed
required part raises `ProjectError("FILE: key: problem")` before anything is
written; a missing optional part is a warning. docs/jrdb-import.md lists which
is which.
"""

from __future__ import annotations

import os
import re
from collections import defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path

from PIL import Image, UnidentifiedImageError

from annotation.jrdb import dataset as L
from annotation.models import Frame, Sequence
from annotation.progress import Progress
from sim.jrdb.lidar import LidarError, MergedCloud, load_frame_points, read_pcd_header
from store import Project, ProjectError, open_project

_IMAGE_SUFFIXES = (".jpg", ".jpeg", ".png")
_EXAMPLES = 3  # how many offenders a warning names


@dataclass
class SequencePlan:
    """Everything read and checked for one sequence, ready to be stored."""

    name: str
    root: Path
    images: dict[int, str]  # frame index -> image path relative to root
    pointclouds: dict[int, list[str]]  # frame index -> .pcd paths relative to root
    persons_2d: list[L.PersonBox2D]
    persons_3d: list[L.PersonBox3D]
    objects: list[L.ObjectBox]
    person_labels: list[L.PersonLabel]
    calibration: L.Calibration
    warnings: list[str] = field(default_factory=list)
    label_entries: list[tuple[int, str, dict]] = field(default_factory=list)  # kept whole

    @property
    def person_ids(self) -> list[str]:
        ids = {b.label_id for b in self.persons_2d} | {b.label_id for b in self.persons_3d}
        return sorted(ids, key=natural_key)

    @property
    def object_categories(self) -> dict[str, str]:
        return {o.label_id: o.category for o in sorted(self.objects, key=lambda o: o.frame_index)}


@dataclass(frozen=True)
class SequenceReport:
    """What one sequence's import stored."""

    name: str
    sequence_id: int
    frames: int
    persons: int
    objects: int
    boxes_2d: int
    boxes_3d: int
    person_labels: int

    def as_dict(self) -> dict:
        return asdict(self)


@dataclass(frozen=True)
class JrdbImport:
    sequences: list[SequenceReport]
    warnings: list[str]


def natural_key(label_id: str) -> tuple:
    """`pedestrian:2` before `pedestrian:10`."""
    return tuple(int(p) if p.isdigit() else p for p in re.split(r"(\d+)", label_id))


def _examples(items: list[str]) -> str:
    more = f" and {len(items) - _EXAMPLES} more" if len(items) > _EXAMPLES else ""
    return ", ".join(items[:_EXAMPLES]) + more


def _load(path: Path, parse):
    try:
        data = L.decode_json(path.read_bytes())
        return parse(data)
    except L.LayoutError as exc:
        raise ProjectError(f"{path}: {exc}") from None
    except OSError as exc:
        raise ProjectError(f"{path}: cannot be read ({exc.strerror})") from None


def sequence_names(root: str | os.PathLike[str]) -> list[str]:
    """The sequences a dataset root labels (one `labels_2d_stitched/<seq>.json` each)."""
    folder = Path(root) / L.LABELS_2D
    names = sorted(p.stem for p in folder.glob("*.json")) if folder.is_dir() else []
    if not names:
        raise ProjectError(f"{folder}: no <sequence>.json label files (is {root} a JRDB root?)")
    return names


def read_calibration(
    root: Path, calibration_path: str | os.PathLike[str] | None, warnings: list[str]
) -> L.Calibration:
    path = Path(calibration_path) if calibration_path else root / L.CALIBRATION
    if not path.is_file():
        if calibration_path:
            raise ProjectError(f"{path}: no such calibration file")
        warnings.append(
            f"{path}: missing; the two lidar sweeps are merged without moving them (identity), "
            "so they will not line up until the calibration is adjusted"
        )
        return L.Calibration()
    try:
        calibration = L.parse_calibration(path.read_text(encoding="utf-8"))
    except (L.LayoutError, UnicodeDecodeError) as exc:
        raise ProjectError(f"{path}: {exc}") from None
    return L.Calibration(calibration.upper, calibration.lower, str(path), calibration.image_size)


def _read_images(root: Path, name: str, plan_warnings: list[str], size: tuple) -> dict[int, str]:
    folder = root / L.IMAGES / name
    if not folder.is_dir():
        raise ProjectError(f"{folder}: no such images folder (stitched panoramas of {name})")
    images: dict[int, str] = {}
    other_sizes: list[str] = []
    for path in sorted(folder.iterdir()):
        if path.suffix.lower() not in _IMAGE_SUFFIXES:
            continue
        try:
            index = L.frame_index(path.name, str(folder))
        except L.LayoutError:
            continue  # not a frame (e.g. a thumbnail); frames are NNNNNN.jpg
        try:
            with Image.open(path) as image:
                if image.size != size:
                    other_sizes.append(f"{path.name} {image.size[0]}x{image.size[1]}")
        except (UnidentifiedImageError, OSError):
            raise ProjectError(f"{path}: not a readable image") from None
        images[index] = path.relative_to(root).as_posix()
    if not images:
        raise ProjectError(f"{folder}: no NNNNNN.jpg frames in this images folder")
    if other_sizes:
        plan_warnings.append(
            f"{folder}: {len(other_sizes)} images are not {size[0]}x{size[1]} "
            f"({_examples(other_sizes)}); boxes are kept as they are"
        )
    return images


def _read_pointclouds(
    root: Path, name: str, frames: list[int], warnings: list[str]
) -> dict[int, list[str]]:
    clouds: dict[int, list[str]] = defaultdict(list)
    for sensor, base in L.POINTCLOUDS.items():
        folder = root / base / name
        if not folder.is_dir():
            warnings.append(f"{folder}: missing; frames have no {sensor} lidar sweep")
            continue
        missing = []
        for index in frames:
            path = folder / L.frame_name(index, ".pcd")
            if not path.is_file():
                missing.append(path.name)
                continue
            try:
                read_pcd_header(path)
            except LidarError as exc:
                raise ProjectError(str(exc)) from None
            clouds[index].append(path.relative_to(root).as_posix())
        if missing:
            warnings.append(
                f"{folder}: {len(missing)} of {len(frames)} frames have no {sensor} sweep "
                f"({_examples(missing)})"
            )
    return clouds


def _check_frames(path: Path, indices: set[int], frames: set[int], suffix: str) -> None:
    unknown = sorted(indices - frames)
    if unknown:
        where = f'labels["{L.frame_name(unknown[0], suffix)}"]'
        raise ProjectError(f"{path}: {where}: no image for frame {unknown[0]} in {L.IMAGES}")


def read_sequence(root: Path, name: str, calibration: L.Calibration) -> SequencePlan:
    """Read and check one sequence's files; raise `ProjectError` on a malformed required one."""
    warnings: list[str] = []
    labels_2d = root / L.LABELS_2D / f"{name}.json"
    if not labels_2d.is_file():
        raise ProjectError(f"{labels_2d}: no such label file (sequence {name})")
    persons_2d = _load(labels_2d, L.parse_labels_2d)
    images = _read_images(root, name, warnings, calibration.image_size)
    frames = set(images)
    _check_frames(labels_2d, {b.frame_index for b in persons_2d}, frames, ".jpg")

    persons_3d: list[L.PersonBox3D] = []
    path = root / L.LABELS_3D / f"{name}.json"
    if path.is_file():
        persons_3d = _load(path, L.parse_labels_3d)
        _check_frames(path, {b.frame_index for b in persons_3d}, frames, ".pcd")
        in_2d = {(b.label_id, b.frame_index) for b in persons_2d}
        alone = [b for b in persons_3d if (b.label_id, b.frame_index) not in in_2d]
        if alone:
            named = [f"{b.label_id} in {L.frame_name(b.frame_index, '.pcd')}" for b in alone]
            warnings.append(
                f"{path}: {len(alone)} 3D boxes have no 2D box with the same label_id in their "
                f"frame ({_examples(named)}); kept as 3D-only"
            )
    else:
        warnings.append(f"{path}: missing; persons have 2D boxes only")

    known = {b.label_id for b in persons_2d} | {b.label_id for b in persons_3d}
    objects: list[L.ObjectBox] = []
    path = root / L.LABELS_OBJECTS / f"{name}.json"
    if path.is_file():
        objects = _load(path, L.parse_objects)
        _check_frames(path, {o.frame_index for o in objects}, frames, ".jpg")
        clash = sorted({o.label_id for o in objects} & known)
        if clash:
            raise ProjectError(f"{path}: object label_id {clash[0]} is also a person's")
    else:
        warnings.append(
            f"{path}: missing; no object boxes (JRDB publishes none), so HOI labels have no "
            "objects until someone draws them"
        )

    person_labels: list[L.PersonLabel] = []
    entries: list[tuple[int, str, dict]] = []
    path = root / L.LABELS_ACTIVITY / f"{name}.json"
    if path.is_file():
        parsed, entries = _load(path, lambda d: (L.parse_activity(d), L.activity_entries(d)))
        _check_frames(path, {p.frame_index for p in parsed}, frames, ".jpg")
        unknown: set[str] = set()
        skipped = 0
        for p in parsed:
            missing = [i for i in (p.label_id, p.other_label_id) if i and i not in known]
            if missing:
                unknown.update(missing)
                skipped += 1
            else:
                person_labels.append(p)
        if unknown:
            ids = sorted(unknown, key=natural_key)
            warnings.append(
                f"{path}: {skipped} labels name persons with no box in this sequence "
                f"({_examples(ids)}); skipped"
            )
    else:
        warnings.append(f"{path}: missing; no actions, social activities or demographics")

    clouds = _read_pointclouds(root, name, sorted(frames), warnings)
    return SequencePlan(
        name,
        root,
        images,
        dict(clouds),
        persons_2d,
        persons_3d,
        objects,
        person_labels,
        calibration,
        warnings,
        [e for e in entries if e[1] in known],
    )


def read_jrdb(
    root: str | os.PathLike[str],
    sequence: str | None = None,
    *,
    calibration_path: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> tuple[list[SequencePlan], list[str]]:
    """Read and check one sequence (or every labelled one) of a dataset root."""
    progress = progress or Progress()
    root = Path(root)
    if not root.is_dir():
        raise ProjectError(f"{root}: no such folder (expected a JRDB dataset root)")
    names = [sequence] if sequence else sequence_names(root)
    warnings: list[str] = []
    calibration = read_calibration(root, calibration_path, warnings)
    plans = []
    for i, name in enumerate(names):
        progress.report(i, len(names), f"Reading JRDB sequence {name}")
        plan = read_sequence(root, name, calibration)
        warnings += plan.warnings
        plans.append(plan)
    return plans, warnings


def store_sequence(project: Project, plan: SequencePlan, progress: Progress) -> SequenceReport:
    """Write one checked sequence; joins the caller's transaction."""
    repo = project.sequences
    if repo.find(plan.name) is not None:
        raise ProjectError(f"{plan.root}: sequence {plan.name} is already in {project.path}")
    seq = repo.add(plan.name, str(plan.root.resolve()), plan.calibration.as_dict())
    ids: dict[str, int] = {}
    for label_id in plan.person_ids:
        kind, category = L.entity_kind(label_id)
        ids[label_id] = repo.add_entity(seq.id, label_id, kind, category)
    for label_id, category in sorted(plan.object_categories.items()):
        ids[label_id] = repo.add_entity(seq.id, label_id, "object", category)
    by_frame: dict[int, list] = defaultdict(list)
    for record in [*plan.persons_2d, *plan.persons_3d, *plan.objects, *plan.person_labels]:
        by_frame[record.frame_index].append(record)
    demographics: dict[str, dict[str, str]] = defaultdict(dict)
    entries: dict[int, list[tuple[str, dict]]] = defaultdict(list)
    for index, label_id, entry in plan.label_entries:
        entries[index].append((label_id, entry))
    counts = dict.fromkeys(("boxes_2d", "boxes_3d", "person_labels"), 0)
    frames = sorted(plan.images)
    for n, index in enumerate(frames):
        progress.report(n, len(frames), f"Storing JRDB sequence {plan.name}")
        frame = repo.add_frame(
            seq.id,
            index,
            plan.images[index],
            tuple(plan.pointclouds.get(index, ())),
            timestamp=index / L.FRAME_RATE_HZ,
        )
        for r in by_frame.get(index, ()):
            if isinstance(r, L.PersonBox2D):
                repo.add_box_2d(ids[r.label_id], frame.id, r.box, r.attributes)
                counts["boxes_2d"] += 1
            elif isinstance(r, L.PersonBox3D):
                repo.add_box_3d(ids[r.label_id], frame.id, r.box, r.attributes)
                counts["boxes_3d"] += 1
            elif isinstance(r, L.ObjectBox):
                if r.box_2d is not None:
                    repo.add_box_2d(ids[r.label_id], frame.id, r.box_2d, r.attributes)
                    counts["boxes_2d"] += 1
                if r.box_3d is not None:
                    repo.add_box_3d(ids[r.label_id], frame.id, r.box_3d, r.attributes)
                    counts["boxes_3d"] += 1
            else:
                other = ids[r.other_label_id] if r.other_label_id else None
                repo.add_person_label(
                    frame.id, ids[r.label_id], r.kind, r.label, r.difficulty, other
                )
                counts["person_labels"] += 1
                if r.kind == "social_group":
                    demographics[r.label_id].setdefault("social_group", r.label)
                elif r.kind in ("gender", "age", "race") and (value := L.demographic(r.label)):
                    demographics[r.label_id].setdefault(r.kind, value)
        for label_id, entry in entries.get(index, ()):
            repo.add_label_entry(frame.id, ids[label_id], entry)
    for label_id, attributes in demographics.items():
        repo.set_entity_attributes(ids[label_id], attributes)
    return SequenceReport(
        plan.name,
        seq.id,
        len(frames),
        len(plan.person_ids),
        len(plan.object_categories),
        **counts,
    )


def store_jrdb(
    project: Project, plans: list[SequencePlan], progress: Progress | None = None
) -> list[SequenceReport]:
    """Write every plan into an open project in one transaction: all or nothing."""
    progress = progress or Progress()
    with project.write():
        return [store_sequence(project, plan, progress) for plan in plans]


def import_jrdb(
    db: str | os.PathLike[str],
    root: str | os.PathLike[str],
    sequence: str | None = None,
    *,
    calibration_path: str | os.PathLike[str] | None = None,
    progress: Progress | None = None,
) -> JrdbImport:
    """Read, check and store JRDB sequences into the project file `db`."""
    progress = progress or Progress()
    with open_project(db) as project:
        plans, warnings = read_jrdb(
            root, sequence, calibration_path=calibration_path, progress=progress
        )
        reports = store_jrdb(project, plans, progress)
    return JrdbImport(reports, warnings)


def adjust_calibration(
    project: Project,
    sequence: str,
    sensor: str,
    annotator_name: str,
    *,
    translation: tuple[float, float, float] | None = None,
    rotation: tuple[float, float, float] | None = None,
) -> L.Calibration:
    """Move one lidar of a stored sequence (published values can leave the sweeps apart)."""
    seq = project.sequences.find(sequence)
    if seq is None:
        raise ProjectError(f"{project.path}: no sequence {sequence}")
    annotator = project.annotators.sign_in(annotator_name)
    calibration = stored_calibration(seq).with_pose(
        sensor, translation=translation, rotation=rotation, source=f"adjusted by {annotator.name}"
    )
    project.sequences.set_calibration(seq.id, calibration.as_dict(), annotator)
    return calibration


def stored_calibration(sequence: Sequence) -> L.Calibration:
    """The lidar calibration kept with a sequence (identity when it has none)."""
    try:
        return L.Calibration.from_dict(sequence.calibration)
    except L.LayoutError as exc:
        raise ProjectError(f"sequence {sequence.name}: stored calibration: {exc}") from None


def frame_points(sequence: Sequence, frame: Frame) -> MergedCloud:
    """A stored frame's two sweeps, merged into the label frame with the sequence's calibration."""
    try:
        return load_frame_points(
            sequence.root, frame.pointcloud_paths, stored_calibration(sequence)
        )
    except LidarError as exc:
        raise ProjectError(str(exc)) from None
