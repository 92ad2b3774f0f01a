"""Perf case `cloud_frame_time`: a lidar view frame with 5 million points and level of detail,
against a frame of a 60,000-point cloud (one JRDB frame's two sweeps) drawn in full.

Both views are real `widgets.jrdb.cloud_view.CloudView`s of the same size in the
same process. Each measured frame orbits the camera first, so the big view
draws what it draws while a person drags the camera (its moving budget); the
small cloud is under every budget and is always drawn whole. Frames are
rendered with `QOpenGLWidget.grabFramebuffer()`, the two views in
alternation; the value is the ratio of the median frame times. The detail
also reports one still frame of the big view (the full-detail frame drawn
once the camera rests, capped by the view's time allowance).

It needs a display with OpenGL (Xvfb will do); without one it reports a
failed result that says so (see `app.perf.display`).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from annotation.jrdb.synthetic import lidar_like
from app.perf.display import gl_application
from app.perf.harness import PerfResult, perf_case, report

ORDER = 90  # where these cases run in `reasonscope bench` (see app.perf.harness)

NAME = "cloud_frame_time"
GOAL = "<= 2"
POINTS = 5_000_000
BASE_POINTS = 60_000
FRAMES = {False: 30, True: 10}
SIZE = (640, 480)


@dataclass(frozen=True)
class CloudMeasurement:
    frames: int
    size: tuple[int, int]
    points: int
    base_points: int
    drawn: int  # points the big view drew per moving frame
    big_ms: float  # median moving frame of the big cloud
    base_ms: float  # median frame of the small cloud
    still_ms: float | None  # one still frame of the big cloud
    still_drawn: int
    prepare_s: float  # giving the big cloud its drawing order and entities

    @property
    def ratio(self) -> float:
        return self.big_ms / self.base_ms


def measure_cloud_frames(
    frames: int,
    *,
    points: int = POINTS,
    base_points: int = BASE_POINTS,
    size: tuple[int, int] = SIZE,
    still: bool = True,
) -> CloudMeasurement:
    """Median orbiting-frame times of a big cloud (level of detail) and a small one."""
    app = gl_application()
    from widgets.jrdb.cloud_points import prepare_cloud
    from widgets.jrdb.cloud_view import CloudView

    big_points = lidar_like(points, seed=1)
    t0 = time.perf_counter()
    prepared = prepare_cloud(big_points)
    prepare_s = time.perf_counter() - t0
    big, small = CloudView(), CloudView()
    views = (big, small)
    try:
        big.set_cloud(prepared)
        small.set_cloud(lidar_like(base_points, seed=2))
        for view in views:
            view.resize(*size)
            view.show()
        app.processEvents()
        for view in views:  # the first frames upload the buffers and compile the shaders
            view.view.orbit(1, 0)
            view.view.grabFramebuffer()
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(frames):
            for view, bucket in zip(views, times, strict=True):
                view.view.orbit(3, 0)
                start = time.perf_counter()
                view.view.grabFramebuffer()
                bucket.append(time.perf_counter() - start)
        drawn = big.drawn_count
        still_ms = None
        if still:
            big._settle()  # what the still timer does when the camera rests
            start = time.perf_counter()
            big.view.grabFramebuffer()
            still_ms = (time.perf_counter() - start) * 1000
        return CloudMeasurement(
            frames=frames,
            size=size,
            points=big.total_count,
            base_points=small.total_count,
            drawn=drawn,
            big_ms=statistics.median(times[0]) * 1000,
            base_ms=statistics.median(times[1]) * 1000,
            still_ms=still_ms,
            still_drawn=big.drawn_count,
            prepare_s=prepare_s,
        )
    finally:
        for view in views:
            view.close()
        app.processEvents()


@perf_case(NAME, goal=GOAL)
def cloud_frame_time(quick: bool) -> PerfResult:
    """A lidar view frame at 5M points with level of detail, as a multiple of one at 60k points."""
    report(f"{NAME}: building a {POINTS:,}-point cloud and two lidar views")
    try:
        m = measure_cloud_frames(FRAMES[quick], still=not quick)
    except RuntimeError as exc:
        if not str(exc).startswith("no display"):
            raise
        return PerfResult(NAME, 0.0, "x 60k", GOAL, False, str(exc))
    w, h = m.size
    still = (
        f"; one still frame drew {m.still_drawn:,} points in {m.still_ms:.0f} ms"
        if m.still_ms is not None
        else ""
    )
    detail = (
        f"{w}x{h}, orbiting: {m.points:,} points drawing {m.drawn:,} a frame "
        f"{m.big_ms:.1f} ms vs {m.base_points:,} points {m.base_ms:.1f} ms; medians of "
        f"{m.frames} interleaved frames{still}; drawing order and entities for the big cloud "
        f"{m.prepare_s:.1f} s"
    )
    return PerfResult(NAME, m.ratio, "x 60k", GOAL, m.ratio <= 2, detail)
