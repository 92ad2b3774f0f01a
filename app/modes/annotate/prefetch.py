"""Frames prepared ahead in the Annotate HOI mode, and the bounded cache that holds them.

While the annotator looks at a frame, the frames next to it in the direction of travel
(the next two and the previous one, `neighbours`) are prepared on one background thread:
the panorama decoded (a QImage, which any thread may make), the two sweeps read, merged
and prepared for drawing, and, when a frame has 3D boxes and no stored relations, its
relations computed. Nothing here touches the project: the mode reads the boxes on the GUI
thread, hands them over as plain data (`FrameJob`), and stores the relations that come
back on the GUI thread, through the project's own connection (SQLite connections belong
to the thread that opened them).

A jump elsewhere calls `FramePrefetcher.want` with the new neighbours: queued frames no
longer near are dropped, and a frame being prepared is abandoned at its next checkpoint
(between decoding, reading and computing) and its result thrown away.

`FrameCache` keeps the last `limit` frames shown or prepared (images, clouds), least
recently used out first, so memory has a ceiling whatever the length of the walk.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping
from collections.abc import Sequence as Seq
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path

from PySide6.QtCore import QObject, Signal, Slot
from PySide6.QtGui import QImage

from annotation.jrdb.geometry import GeometricRelation
from annotation.models import Box3D, Frame, Sequence
from widgets.jrdb.cloud_points import PreparedCloud

#: Frames the cache holds by default (each about 10 MB: a decoded 3760 x 480 panorama,
#: 7 MB, and a prepared 120,000-point cloud); settable per user as `annotate/cached_frames`
#: in reasonscope.ini.
DEFAULT_CACHED_FRAMES = 6
AHEAD, BEHIND = 2, 1  # frames prepared in the direction of travel, and against it


@dataclass
class PreparedFrame:
    """A frame ready to show: its panorama, its cloud, and relations computed for it."""

    frame_id: int
    image: QImage | None  # None: the frame has no panorama on disk
    cloud: PreparedCloud | None  # None: no point clouds, or they failed
    relations: list[GeometricRelation] | None = None  # computed here, not yet stored
    error: str = ""


@dataclass(frozen=True)
class FrameJob:
    """What preparing one frame needs, read on the GUI thread."""

    sequence: Sequence
    frame: Frame
    boxes_3d: tuple[Box3D, ...]
    kinds: Mapping[int, str] = field(default_factory=dict)
    compute_relations: bool = False

    @property
    def frame_id(self) -> int:
        return self.frame.id


def cached_frames() -> int:
    """The user's cache size (`annotate/cached_frames`), at least the frame shown and its
    neighbours."""
    from app.settings import settings

    value = settings().value("annotate/cached_frames", DEFAULT_CACHED_FRAMES)
    try:
        return max(AHEAD + BEHIND + 1, int(value))
    except (TypeError, ValueError):
        return DEFAULT_CACHED_FRAMES


def release_freed_memory() -> None:
    """Give the heap's freed pages back to the system (glibc's `malloc_trim`; elsewhere
    nothing). Frames are decoded and read on a worker thread, whose malloc arena keeps what
    it freed: without this the process settles 50-60 MB higher on a JRDB walk. A few
    milliseconds; called when preparing has nothing left to do."""
    global _TRIM
    if _TRIM is None:
        try:
            _TRIM = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim
        except (OSError, AttributeError):  # not glibc: its allocator gives memory back itself
            _TRIM = False
    if _TRIM:
        _TRIM(0)


_TRIM = None


def read_image(path: Path | None) -> QImage | None:
    """The panorama at `path`, decoded (None if there is none)."""
    if path is None or not path.is_file():
        return None
    image = QImage(str(path))
    return None if image.isNull() else image


def image_path(sequence: Sequence, frame: Frame) -> Path | None:
    return Path(sequence.root) / frame.image_path if frame.image_path else None


def prepare_frame(job: FrameJob, wanted: Callable[[], bool]) -> PreparedFrame | None:
    """Decode, read and compute one frame; None as soon as `wanted()` says it is not needed
    any more (checked between the steps)."""
    from app.modes.annotate.loading import load_frame

    image = read_image(image_path(job.sequence, job.frame))
    if not wanted():
        return None
    loaded = load_frame(job.sequence, job.frame, job.boxes_3d, job.kinds, False)
    if not wanted():
        return None
    relations = None
    if job.compute_relations:
        from app.jobs.relations import relations_for_frame  # Open3D, on first use

        points = loaded.cloud.points if loaded.cloud is not None else None
        relations = relations_for_frame(job.frame.id, job.boxes_3d, job.kinds, points)
    return PreparedFrame(job.frame.id, image, loaded.cloud, relations, loaded.error)


def neighbours(index: int, count: int, direction: int) -> list[int]:
    """Frame positions to prepare around `index`, most wanted first: `AHEAD` in the
    direction of travel, then `BEHIND` against it."""
    d = 1 if direction >= 0 else -1
    near = [index + d * k for k in range(1, AHEAD + 1)] + [
        index - d * k for k in range(1, BEHIND + 1)
    ]
    return [i for i in near if 0 <= i < count]


class FrameCache:
    """The last `limit` frames shown or prepared, least recently used out first."""

    def __init__(self, limit: int = DEFAULT_CACHED_FRAMES) -> None:
        self.limit = max(1, int(limit))
        self._frames: OrderedDict[int, PreparedFrame] = OrderedDict()

    def get(self, frame_id: int) -> PreparedFrame | None:
        prepared = self._frames.get(frame_id)
        if prepared is not None:
            self._frames.move_to_end(frame_id)
        return prepared

    def put(self, prepared: PreparedFrame) -> None:
        self._frames[prepared.frame_id] = prepared
        self._frames.move_to_end(prepared.frame_id)
        while len(self._frames) > self.limit:
            self._frames.popitem(last=False)

    def discard(self, frame_id: int) -> None:
        self._frames.pop(frame_id, None)

    def clear(self) -> None:
        self._frames.clear()

    def __contains__(self, frame_id: object) -> bool:
        return frame_id in self._frames

    def __len__(self) -> int:
        return len(self._frames)

    def frame_ids(self) -> list[int]:
        return list(self._frames)


class FramePrefetcher(QObject):
    """Prepares the frames it is asked for on one daemon thread, most wanted first;
    `prepared(PreparedFrame)` is emitted on the GUI thread for each one finished and
    still wanted."""

    prepared = Signal(object)
    _done = Signal(object)  # from the thread; queued to the GUI thread

    def __init__(self, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._lock = threading.Condition()
        self._queue: list[FrameJob] = []
        self._wanted: set[int] = set()
        self._busy: int | None = None  # the frame id being prepared
        self._generation = 0  # `reset` makes whatever is being prepared stale
        self._undelivered = 0  # results emitted by the thread, not yet on the GUI thread
        self._stop = False
        self.started: list[int] = []  # frame ids whose preparation began (for tests)
        self._done.connect(self._deliver)
        self._thread = threading.Thread(target=self._run, name="frame-prefetch", daemon=True)
        self._thread.start()

    def want(self, jobs: Seq[FrameJob], current: int | None = None) -> None:
        """Prepare these frames (in this order) and nothing else: queued frames not among
        them are dropped, the one in preparation is abandoned unless it is among them or
        is the `current` frame (which the mode then waits for instead of reading it)."""
        with self._lock:
            self._wanted = {job.frame_id for job in jobs} | ({current} - {None})
            self._queue = [job for job in jobs if job.frame_id != self._busy]
            self._lock.notify()

    def reset(self) -> None:
        """Drop everything, also what is being prepared now (the data it read changed)."""
        with self._lock:
            self._generation += 1
            self._wanted, self._queue = set(), []

    def busy_with(self, frame_id: int) -> bool:
        with self._lock:
            return self._busy == frame_id

    def queued(self) -> list[int]:
        with self._lock:
            return [job.frame_id for job in self._queue]

    def idle(self) -> bool:
        with self._lock:
            return self._busy is None and not self._queue and not self._undelivered

    def shutdown(self) -> None:
        with self._lock:
            self._stop, self._queue, self._wanted = True, [], set()
            self._lock.notify()

    def _still_wanted(self, frame_id: int, generation: int) -> bool:
        with self._lock:
            return self._wanted_now(frame_id, generation)

    def _wanted_now(self, frame_id: int, generation: int) -> bool:  # with the lock held
        return not self._stop and generation == self._generation and frame_id in self._wanted

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queue and not self._stop:
                    self._lock.wait()
                if self._stop:
                    return
                job = self._queue.pop(0)
                self._busy, generation = job.frame_id, self._generation
                self.started.append(job.frame_id)
            try:
                wanted = partial(self._still_wanted, job.frame_id, generation)
                result = prepare_frame(job, wanted)
            except Exception:  # left to the mode, which reads the frame itself when shown
                result = None
            with self._lock:
                self._busy = None
                deliver = result is not None and self._wanted_now(job.frame_id, generation)
                self._undelivered += deliver
            if deliver:
                try:
                    self._done.emit((generation, result))
                except RuntimeError:  # the mode is gone (its window closed)
                    return

    @Slot(object)
    def _deliver(self, done: tuple[int, PreparedFrame]) -> None:
        generation, result = done
        with self._lock:
            self._undelivered -= 1
        if self._still_wanted(result.frame_id, generation):
            self.prepared.emit(result)
