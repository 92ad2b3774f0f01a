"""The cameras of the dual-arm world, named as ST-BiBench's observations name them.

RoboTwin frame (right +x, away +y, up +z; table top at z = 0.74). The head
camera sits above and behind the arms' bases looking down at the table, as a
robot's head would; the front camera faces the robot from across the table;
the third-person camera looks over the whole workspace from the side and
above. Each is a `CameraSpec`, so `sim.render.render(world, camera)` draws it.
"""

from __future__ import annotations

from sim.camera import CameraSpec

TABLE_Z = 0.74

HEAD = CameraSpec(
    width=640,
    height=480,
    fov_deg=55.0,
    eye=(0.0, -0.62, TABLE_Z + 0.62),
    target=(0.0, 0.02, TABLE_Z),
    up=(0.0, 0.0, 1.0),
    near=0.05,
    far=4.0,
    name="head",
)
FRONT = CameraSpec(
    width=640,
    height=480,
    fov_deg=50.0,
    eye=(0.0, 0.85, TABLE_Z + 0.42),
    target=(0.0, -0.15, TABLE_Z + 0.06),
    up=(0.0, 0.0, 1.0),
    near=0.05,
    far=4.0,
    name="front",
)
THIRD = CameraSpec(
    width=640,
    height=480,
    fov_deg=50.0,
    eye=(1.15, 0.55, TABLE_Z + 0.75),
    target=(0.0, -0.12, TABLE_Z + 0.05),
    up=(0.0, 0.0, 1.0),
    near=0.05,
    far=5.0,
    name="third",
)
CAMERAS: dict[str, CameraSpec] = {c.name: c for c in (HEAD, FRONT, THIRD)}


def camera(name: str, width: int | None = None, height: int | None = None) -> CameraSpec:
    """A named camera, optionally at another size (the height follows the aspect when omitted)."""
    try:
        spec = CAMERAS[name]
    except KeyError:
        raise ValueError(f"unknown camera {name!r}; cameras: {', '.join(CAMERAS)}") from None
    if width is None:
        return spec
    if height is None:
        height = max(1, round(width * spec.height / spec.width))
    return spec.with_size(int(width), int(height))
