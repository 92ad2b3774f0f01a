"""Perf case `viewport_frame_time`: what the 3D viewport costs a frame, against an empty view.

Both views are real `SceneViewport`s of the same size in the same process: one
shows the tabletop world with the robot and 15 objects (primitives and
pybullet_data meshes), the other no world at all (it only clears). Frames are
rendered with `QOpenGLWidget.grabFramebuffer()` (draw into the widget's
framebuffer and read it back), the two views in alternation so that machine
noise hits both alike; the value is the ratio of the median frame times.

It needs a display with OpenGL (an X server, Xvfb included). Without one it
reports a failed result that says so instead of crashing (`app.perf.display`
decides that before any QApplication is made).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass

from app.perf.display import gl_application
from app.perf.harness import PerfResult, perf_case, report

ORDER = 30  # where these cases run in `reasonscope bench` (see app.perf.harness)

NAME = "viewport_frame_time"
GOAL = "<= 2"
FRAMES = {False: 60, True: 20}
SIZE = (640, 480)
OBJECTS = 15
# Meshes from pybullet_data, as the object catalog uses them; the rest are primitives.
MESH_ASSETS = (
    ("pybullet_data:objects/mug.urdf", 1.0),
    ("pybullet_data:duck_vhacd.urdf", 1.0),
    ("pybullet_data:lego/lego.urdf", 1.0),
    ("pybullet_data:soccerball.urdf", 0.12),
    ("pybullet_data:teddy_vhacd.urdf", 1.0),
    ("pybullet_data:jenga/jenga.urdf", 1.0),
)


@dataclass(frozen=True)
class FrameMeasurement:
    frames: int
    size: tuple[int, int]
    full_ms: float  # median frame with the world shown
    empty_ms: float  # median frame of the empty view
    items: int  # GL items drawn (one per visual shape)
    triangles: int
    objects: int
    build_s: float  # building the full view (mesh reading included, if not cached yet)

    @property
    def ratio(self) -> float:
        return self.full_ms / self.empty_ms


TABLE_TEXTURE = "resources:textures/table/oak_light.png"


def _full_world(objects: int):
    """The tabletop world with the robot and `objects` objects, meshes first."""
    from sim.tabletop.world import TABLE_TOP_Z, TabletopWorld

    world = TabletopWorld(with_robot=True)
    shapes = (("box", (0.03, 0.03, 0.03)), ("cylinder", (0.03, 0.09)), ("sphere", (0.035,)))
    for i in range(objects):
        x, y = -0.2 + 0.1 * (i % 5), -0.1 + 0.1 * (i // 5)
        if i < len(MESH_ASSETS):
            asset, scale = MESH_ASSETS[i]
            world.add_urdf(f"object_{i}", asset, (x, y, TABLE_TOP_Z + 0.05), scale=scale)
        else:
            shape, size = shapes[i % 3]
            colour = (0.2 + 0.05 * i, 0.8 - 0.04 * i, 0.3 + 0.03 * i, 1.0)
            world.add_primitive(f"object_{i}", shape, size, (x, y, TABLE_TOP_Z + 0.05), rgba=colour)
    return world


def measure_viewport_frames(
    frames: int, *, objects: int = OBJECTS, size: tuple[int, int] = SIZE
) -> FrameMeasurement:
    """Median frame times of the full and the empty viewport, interleaved."""
    app = gl_application()
    from widgets.viewport.view import SceneViewport

    world = _full_world(objects)
    t0 = time.perf_counter()
    full = SceneViewport(world)
    build_s = time.perf_counter() - t0
    # The empty view: the same room (floor, textured table, basket), no robot, no objects.
    from sim.tabletop.world import TabletopWorld

    empty_world = TabletopWorld(with_robot=False)
    empty_world.set_table_texture(TABLE_TEXTURE)
    world.set_table_texture(TABLE_TEXTURE)
    empty = SceneViewport(empty_world)
    views = (full, empty)
    try:
        for view in views:
            view.resize(*size)
            view.set_camera_preset("free")
            view.show()
        app.processEvents()
        for view in views:  # first frames upload buffers and compile shaders
            view.gl_view.grabFramebuffer()
            view.gl_view.grabFramebuffer()
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(frames):
            for view, bucket in zip(views, times, strict=True):
                start = time.perf_counter()
                view.gl_view.grabFramebuffer()
                bucket.append(time.perf_counter() - start)
        items = full.items()
        return FrameMeasurement(
            frames=frames,
            size=size,
            full_ms=statistics.median(times[0]) * 1000,
            empty_ms=statistics.median(times[1]) * 1000,
            items=len(items),
            triangles=sum(item.geometry.triangle_count for item in items),
            objects=len(world.objects()),
            build_s=build_s,
        )
    finally:
        for view in views:
            view.close()
        app.processEvents()
        world.close()
        empty_world.close()


@perf_case(NAME, goal=GOAL)
def viewport_frame_time(quick: bool) -> PerfResult:
    """A 3D viewport frame with the robot and 15 objects, as a multiple of an empty view's."""
    report(f"{NAME}: building the tabletop world and two viewports")
    try:
        m = measure_viewport_frames(FRAMES[quick])
    except RuntimeError as exc:
        if not str(exc).startswith("no display"):
            raise
        return PerfResult(NAME, 0.0, "x empty", GOAL, False, str(exc))
    w, h = m.size
    detail = (
        f"{w}x{h}: full {m.full_ms:.2f} ms ({m.items} items, {m.triangles:,} triangles, "
        f"robot + {m.objects} objects), empty table {m.empty_ms:.2f} ms; medians of {m.frames} "
        f"interleaved frames; building the view {m.build_s:.2f} s"
    )
    return PerfResult(NAME, m.ratio, "x empty", GOAL, m.ratio <= 2, detail)
