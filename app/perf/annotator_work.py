"""Perf cases of an annotator's box and label work: merging an annotator package of a
real-size JRDB stretch back, exporting the edited sequence's label files
(docs/work-packages.md#speed, docs/hoi-labels.md), and editing a keyframe of a 500-frame
object track (docs/annotate-mode.md#tracks-and-keyframes).

What users run: a package of consecutive frames of a sequence at JRDB's size (30 people
and 10 objects a frame, two 60,000-point sweeps carried per frame), in which the
annotator moved five boxes a frame, tracked two objects they drew through every frame
(2D and 3D boxes), took an entity out of every tenth frame and gave three labels a frame.
"""

from __future__ import annotations

import shutil
import statistics
import time
from pathlib import Path

from app.demo.jrdb_synth import SynthConfig, write_sequence
from app.io.hoi_labels import label_files
from app.io.jrdb import import_jrdb
from app.perf.harness import PerfResult, perf_case, report, scratch_folder
from app.work_packages.create import PackageRequest, create_package
from app.work_packages.merge import merge_package
from store import open_project

ORDER = 37  # after the work package cases (see app.perf.harness)

FRAMES = {False: 60, True: 20}
ROUNDS = {False: 3, True: 2}
GOAL_MERGE = 1.0
GOAL_EXPORT = 1.5


def _sequence(folder: Path, quick: bool) -> Path:
    config = SynthConfig(frames=FRAMES[quick], people=30, objects=10, points_per_sweep=60_000)
    root = folder / "jrdb"
    write_sequence(root, config)
    db = folder / "sequence.reasonscope"
    open_project(db, create=True).close()
    import_jrdb(db, root)
    return db


def _work(path: Path, name: str = "ana") -> int:
    """The annotator's work (see the module's docstring), through the store's calls; how
    many rows of work it saved."""
    saved = 0
    with open_project(path) as p, p.write():
        ana = p.annotators.sign_in(name)
        seq = p.sequences.list()[0]
        frames = p.sequences.frames(seq.id)
        drawn = [p.sequences.add_drawn_entity(seq.id, "object", "bag", ana) for _ in range(2)]
        for n, frame in enumerate(frames):
            boxes = p.sequences.boxes_2d(frame.id)
            people = [b for b in boxes if b.entity_id not in drawn][:8]
            for box in people[:5]:
                p.sequences.set_box_2d(
                    box.entity_id, frame.id, (box.x + 4, box.y, box.w, box.h), ana
                )
            for k, entity in enumerate(drawn):
                p.sequences.set_box_2d(entity, frame.id, (600 + 80 * k + n, 300, 40, 40), ana)
                p.sequences.set_box_3d(entity, frame.id, (2.0, k, -0.5, 0.4, 0.3, 0.4, 0.1), ana)
            for box in people[5:8]:
                p.hoi.add_label(
                    frame_id=frame.id,
                    subject_entity_id=box.entity_id,
                    object_entity_id=None,
                    category="pose",
                    predicate="standing",
                    difficulty=1,
                    annotator=ana,
                )
            saved += 5 + 4 + 3
            if n % 10 == 0 and len(boxes) > 10:
                p.sequences.remove_entity(boxes[-1].entity_id, frame.id, ana)
                saved += 1
    return saved


def _timed(fn) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


@perf_case("annotator_package_merge", goal=f"<= {GOAL_MERGE:g}x creating the package")
def annotator_package_merge(quick: bool) -> PerfResult:
    """Merging the worked annotator package back (the manifest and content hash checked,
    its carried sweeps among it, every row of work through the store) against creating
    that package: taking the work back costs no more than sending it out. The time to
    save the same work in the project is reported beside it."""
    ours, base, here_s = [], [], []
    request = PackageRequest("ana", "annotator", sequence="synthetic-cafe_0")
    with scratch_folder() as folder:
        report(f"annotator_package_merge: writing a {FRAMES[quick]}-frame JRDB sequence")
        pristine = _sequence(folder, quick)
        source = folder / "sent.reasonscope"
        shutil.copy(pristine, source)
        pack = folder / "ana.rspack"
        create_package(source, request, pack)
        rows = _work(pack)
        for r in range(ROUNDS[quick]):
            report(f"annotator_package_merge: round {r + 1} of {ROUNDS[quick]}")
            db, fresh, here = (folder / f"{k}{r}.reasonscope" for k in ("db", "fresh", "here"))
            for copy, origin in ((db, source), (fresh, pristine), (here, pristine)):
                shutil.copy(origin, copy)
            out = folder / f"again{r}.rspack"
            ours.append(_timed(lambda: merge_package(db, pack)))  # noqa: B023
            base.append(_timed(lambda: create_package(fresh, request, out)))  # noqa: B023
            here_s.append(_timed(lambda: _work(here)))  # noqa: B023
        size = pack.stat().st_size / 1e6
    ratio = statistics.median(ours) / statistics.median(base)
    return PerfResult(
        "annotator_package_merge",
        ratio,
        "x",
        f"<= {GOAL_MERGE:g}x creating the package",
        ratio <= GOAL_MERGE,
        f"{rows} rows of box and label work over {FRAMES[quick]} frames ({size:.0f} MB package "
        f"with its sweeps): merge median {1000 * statistics.median(ours):.0f} ms against "
        f"{1000 * statistics.median(base):.0f} ms to create the package (saving the same work "
        f"here: {1000 * statistics.median(here_s):.0f} ms)",
    )


@perf_case("export_labels_edited", goal=f"<= {GOAL_EXPORT:g}x the export before the work")
def export_labels_edited(quick: bool) -> PerfResult:
    """The four label files of the edited sequence (moved boxes with their originals, drawn
    objects, removals, labels) against the same export before any work was done."""
    ours, base = [], []
    with scratch_folder() as folder:
        report(f"export_labels_edited: writing a {FRAMES[quick]}-frame JRDB sequence")
        before = _sequence(folder, quick)
        after = folder / "edited.reasonscope"
        shutil.copy(before, after)
        _work(after)
        for r in range(ROUNDS[quick] * 2):
            report(f"export_labels_edited: round {r + 1} of {ROUNDS[quick] * 2}")
            for db, times in ((after, ours), (before, base)):
                with open_project(db) as p:
                    times.append(_timed(lambda: label_files(p, "synthetic-cafe_0")))  # noqa: B023
    ratio = statistics.median(ours) / statistics.median(base)
    return PerfResult(
        "export_labels_edited",
        ratio,
        "x",
        f"<= {GOAL_EXPORT:g}x the export before the work",
        ratio <= GOAL_EXPORT,
        f"{FRAMES[quick]} frames of 30 people and 10 objects: edited export median "
        f"{1000 * statistics.median(ours):.0f} ms against {1000 * statistics.median(base):.0f} ms "
        "before the work",
    )


TRACK_FRAMES = 500
GOAL_TRACK = 3.0


def _track_project(path: Path, people: int) -> tuple[int, list, int]:
    """A 500-frame sequence with `people` imported people boxed in every frame and a bag
    drawn by an annotator, keyed in 2D and 3D at frames 0, 250 and 499 (three keyframes:
    every other frame's box is derived). Returns the annotator's id, frames, bag's id."""
    with open_project(path, create=True) as p, p.write():
        ana = p.annotators.sign_in("ana")
        seq = p.sequences.add("track_500", "/data/jrdb", {"source": "identity"})
        frames = [p.sequences.add_frame(seq.id, i, None) for i in range(TRACK_FRAMES)]
        for k in range(people):
            person = p.sequences.add_entity(seq.id, f"pedestrian:{k + 1}", "human", "pedestrian")
            for i, frame in enumerate(frames):
                p.sequences.add_box_2d(person, frame.id, (100 * k + i % 50, 100, 60, 200))
                p.sequences.add_box_3d(person, frame.id, (3.0, k, 0.0, 0.5, 0.5, 1.7, 0.0))
        bag = p.sequences.add_drawn_entity(seq.id, "object", "bag", ana)
        for i in (0, TRACK_FRAMES // 2, TRACK_FRAMES - 1):
            p.sequences.set_box_2d(bag, frames[i].id, (600 + i, 300, 40, 40), ana)
            p.sequences.set_box_3d(
                bag, frames[i].id, (2.0 + i / 100, 0, -0.5, 0.4, 0.3, 0.4, 3.0), ana
            )
        return ana.id, frames, bag


@perf_case("track_keyframe_edit", goal=f"<= {GOAL_TRACK:g}x reading a frame's boxes")
def track_keyframe_edit(quick: bool) -> PerfResult:
    """Editing the middle keyframe of a 500-frame object track (saved, audited) and reading
    the frame's boxes again for the redraw, against reading a frame's boxes (what every
    frame change does): the segment is re-interpolated by the edit at no extra cost,
    because only keyframes are stored. The time to derive every frame of the edited
    segment (500 frames) and the rows stored are reported beside it."""
    people = 10 if quick else 30
    repeats = 10 if quick else 30
    ours, base = [], []
    with scratch_folder() as folder:
        report(f"track_keyframe_edit: a {TRACK_FRAMES}-frame track among {people} people")
        path = folder / "track.reasonscope"
        _ana, frames, bag = _track_project(path, people)
        middle = frames[TRACK_FRAMES // 2]
        with open_project(path) as p:
            ana = p.annotators.sign_in("ana")
            repo = p.sequences

            def edit(n: int) -> None:
                repo.set_box_2d(bag, middle.id, (850 + n % 7, 300, 40, 40), ana)
                repo.set_box_3d(bag, middle.id, (4.5, n % 3, -0.5, 0.4, 0.3, 0.4, -3.0), ana)
                repo.box_records(middle.id, "2d"), repo.box_records(middle.id, "3d")

            def frame_read(n: int) -> None:
                frame = frames[(37 * n) % TRACK_FRAMES]
                repo.box_records(frame.id, "2d"), repo.box_records(frame.id, "3d")

            for n in range(repeats):  # interleaved, so drift hits both alike
                ours.append(_timed(lambda: edit(n)))  # noqa: B023
                base.append(_timed(lambda: frame_read(n)))  # noqa: B023
            segment_s = _timed(
                lambda: [repo.box_record(bag, f.id, dims) for f in frames for dims in ("2d", "3d")]
            )
            stored = p.db.execute(
                "SELECT (SELECT count(*) FROM boxes_2d WHERE entity_id = ?) + "
                "(SELECT count(*) FROM boxes_3d WHERE entity_id = ?)",
                [bag, bag],
            ).fetchone()[0]
    ratio = statistics.median(ours) / statistics.median(base)
    return PerfResult(
        "track_keyframe_edit",
        ratio,
        "x",
        f"<= {GOAL_TRACK:g}x reading a frame's boxes",
        ratio <= GOAL_TRACK,
        f"keyframe edit + redraw read median {1000 * statistics.median(ours):.1f} ms against "
        f"{1000 * statistics.median(base):.1f} ms for a frame's boxes ({people} people); every "
        f"frame of the {TRACK_FRAMES}-frame track derived again in {1000 * segment_s:.0f} ms; "
        f"{stored} box rows stored for the track",
    )
