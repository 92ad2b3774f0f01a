"""Camera maths of the 3D viewport as pure numpy functions (no Qt, no painting).

pyqtgraph's `GLViewWidget` describes its camera by an orbit centre, a distance,
an elevation and an azimuth (degrees; azimuth 0 puts the camera on +x) and a
*horizontal* field of view; the simulator's `CameraSpec` by eye, target, up and
a *vertical* field of view. These functions convert between the two and
reproduce the widget's own view and projection matrices, so that clicks,
presets and tests share one definition of "where the camera is".

Limits of the conversion: the widget's euler camera cannot roll, so a spec's
`up` is honoured only when it looks straight down (or up), where the azimuth
alone sets which way the image is turned; elsewhere the image is upright (world
+z up). Near and far planes are the widget's (0.001 and 1000 times the
distance), not the spec's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from sim.camera import CameraSpec, pixel_ray

NEAR_FACTOR = 0.001  # GLViewWidget.projectionMatrix: near = distance * 0.001
FAR_FACTOR = 1000.0  # ... and far = distance * 1000
_VERTICAL = 1e-6


@dataclass(frozen=True)
class ViewParams:
    """A GLViewWidget euler camera: what `cameraParams()` returns, as plain numbers."""

    center: tuple[float, float, float]
    distance: float
    elevation: float  # degrees above the xy plane, seen from the centre
    azimuth: float  # degrees around +z, 0 = camera on the +x side
    fov: float  # horizontal field of view, degrees

    def with_fov(self, fov: float) -> ViewParams:
        return replace(self, fov=float(fov))


def _rotation(angle_deg: float, axis) -> np.ndarray:
    """4x4 rotation by `angle_deg` about `axis` (right-handed, as QMatrix4x4.rotate)."""
    axis = np.asarray(axis, dtype=float)
    x, y, z = axis / np.linalg.norm(axis)
    a = math.radians(angle_deg)
    c, s = math.cos(a), math.sin(a)
    m = np.eye(4)
    m[:3, :3] = [
        [c + x * x * (1 - c), x * y * (1 - c) - z * s, x * z * (1 - c) + y * s],
        [y * x * (1 - c) + z * s, c + y * y * (1 - c), y * z * (1 - c) - x * s],
        [z * x * (1 - c) - y * s, z * y * (1 - c) + x * s, c + z * z * (1 - c)],
    ]
    return m


def _translation(offset) -> np.ndarray:
    m = np.eye(4)
    m[:3, 3] = offset
    return m


def view_matrix(params: ViewParams) -> np.ndarray:
    """World -> eye matrix, exactly as `GLViewWidget.viewMatrix()` builds it (euler mode)."""
    return (
        _translation((0.0, 0.0, -params.distance))
        @ _rotation(params.elevation - 90.0, (1, 0, 0))
        @ _rotation(params.azimuth + 90.0, (0, 0, -1))
        @ _translation(-np.asarray(params.center, dtype=float))
    )


def projection_matrix(params: ViewParams, width: float, height: float) -> np.ndarray:
    """The widget's perspective projection for a `width` x `height` viewport."""
    near = params.distance * NEAR_FACTOR
    far = params.distance * FAR_FACTOR
    right = near * math.tan(math.radians(params.fov) / 2)
    top = right * height / width
    m = np.zeros((4, 4))
    m[0, 0] = near / right
    m[1, 1] = near / top
    m[2, 2] = -(far + near) / (far - near)
    m[2, 3] = -2 * far * near / (far - near)
    m[3, 2] = -1.0
    return m


def eye_position(params: ViewParams) -> np.ndarray:
    """Where the camera is in the world (`GLViewWidget.cameraPosition()`)."""
    e, a = math.radians(params.elevation), math.radians(params.azimuth)
    offset = params.distance * np.array(
        [math.cos(e) * math.cos(a), math.cos(e) * math.sin(a), math.sin(e)]
    )
    return np.asarray(params.center, dtype=float) + offset


def horizontal_fov(vertical_fov_deg: float, width: float, height: float) -> float:
    """Horizontal field of view (degrees) of a vertical one at aspect `width / height`."""
    half = math.tan(math.radians(vertical_fov_deg) / 2) * width / height
    return math.degrees(2 * math.atan(half))


def vertical_fov(horizontal_fov_deg: float, width: float, height: float) -> float:
    """Vertical field of view (degrees) of a horizontal one at aspect `width / height`."""
    half = math.tan(math.radians(horizontal_fov_deg) / 2) * height / width
    return math.degrees(2 * math.atan(half))


def view_params_from_spec(spec: CameraSpec, *, width: float, height: float) -> ViewParams:
    """The widget camera closest to `spec`, for a viewport of `width` x `height` pixels.

    The vertical field of view is kept (as `CameraSpec.with_size` does), so the
    horizontal one depends on the viewport's aspect.
    """
    eye = np.asarray(spec.eye, dtype=float)
    target = np.asarray(spec.target, dtype=float)
    offset = eye - target
    distance = float(np.linalg.norm(offset))
    if distance <= 0:
        raise ValueError("camera eye and target coincide")
    unit = offset / distance
    elevation = math.degrees(math.asin(max(-1.0, min(1.0, unit[2]))))
    if math.hypot(unit[0], unit[1]) > _VERTICAL:
        azimuth = math.degrees(math.atan2(unit[1], unit[0]))
    else:
        # Straight down (or up): the azimuth only turns the image. The image's up
        # direction turns with the azimuth like a rotation about z, so the best
        # azimuth for `spec.up` follows from the up directions at 0 and 90 degrees.
        probe = ViewParams(tuple(target), distance, elevation, 0.0, 60.0)
        up0 = view_matrix(probe)[1, :3]
        up90 = view_matrix(replace(probe, azimuth=90.0))[1, :3]
        up = np.asarray(spec.up, dtype=float)
        azimuth = math.degrees(math.atan2(float(up @ up90), float(up @ up0)))
    return ViewParams(
        center=tuple(float(v) for v in target),
        distance=distance,
        elevation=elevation,
        azimuth=azimuth,
        fov=horizontal_fov(spec.fov_deg, width, height),
    )


def _spec(params: ViewParams, width: float, height: float, name: str) -> CameraSpec:
    view = view_matrix(params)
    return CameraSpec(
        width=width,
        height=height,
        fov_deg=vertical_fov(params.fov, width, height),
        eye=tuple(float(v) for v in eye_position(params)),
        target=tuple(float(v) for v in params.center),
        up=tuple(float(v) for v in view[1, :3]),
        near=params.distance * NEAR_FACTOR,
        far=params.distance * FAR_FACTOR,
        name=name,
    )


def spec_from_view_params(
    params: ViewParams, *, width: int, height: int, name: str = "viewport"
) -> CameraSpec:
    """The `CameraSpec` that sees what the widget shows at `width` x `height` pixels."""
    return _spec(params, int(width), int(height), name)


def click_ray(
    params: ViewParams, *, width: float, height: float, x: float, y: float
) -> tuple[np.ndarray, np.ndarray]:
    """World origin and unit direction of the ray through widget point (x, y).

    (x, y) are in the same units as `width` and `height` (logical pixels), origin
    at the top-left corner, y down; a pixel's centre is at +0.5.
    """
    return pixel_ray(_spec(params, float(width), float(height), "click"), x, y)
