"""A scene as benchmark files carry it (docs/scenes.md, docs/benchmark-format.md): the
camera, every body and the exact state, checked the way a restore reads them.

`check_scene(scene)` raises `SceneError` naming the key (`scene.bodies[3].size: ...`) for
what a restore (`sim.tabletop.scenes.world_from_records`, then `restore_state`) or the
camera (`sim.camera.CameraSpec.from_dict`) would fail on: a body without a usable pose,
asset reference, size or colour; a state whose bodies are not the scene's bodies, or that
moves a joint the body does not have.
"""

from __future__ import annotations

import math
from typing import Any

from annotation.formats.asset_refs import PRIMITIVE_SCHEME, PRIMITIVE_SIZES, parse_ref
from annotation.formats.json_text import brief

ROLES = ("fixture", "robot", "object")
MAX_SIDE = 16_384  # pixels of a camera image
MAX_METRES = 1_000.0  # a tabletop scene's positions and sizes (a workspace is 50 cm across)


class SceneError(ValueError):
    """A scene a restore cannot read; the message names the key."""


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def numbers(value: Any, n: int, where: str, limit: float = MAX_METRES) -> list[float]:
    """`n` finite numbers (n = 0: any count but none), none past +-`limit`."""
    if not isinstance(value, list) or (len(value) != n if n else not value):
        raise SceneError(f"{where} must be a list of {n or 'some'} numbers, not {brief(value)}")
    if not all(_is_number(v) and abs(v) <= limit for v in value):
        raise SceneError(f"{where} must hold numbers within +-{limit:g}, not {brief(value)}")
    return value


def _text(value: Any, where: str, *, empty: bool = True) -> None:
    if not isinstance(value, str) or (not empty and not value):
        raise SceneError(f"{where} must be {'' if empty else 'non-empty '}text, not {brief(value)}")


def _rotation(value: Any, where: str) -> None:
    q = numbers(value, 4, where, limit=1e6)
    if not 1e-6 < math.sqrt(sum(v * v for v in q)) < 1e6:
        raise SceneError(f"{where} must be a quaternion [qx, qy, qz, qw], not {brief(value)}")


def _joints(value: Any, where: str) -> dict[str, float]:
    if not isinstance(value, dict) or not all(
        _is_number(v) and abs(v) <= MAX_METRES for v in value.values()
    ):
        raise SceneError(f"{where} must be an object of joint name -> angle, not {brief(value)}")
    return value


def check_camera(camera: Any, where: str = "scene.camera") -> None:
    if not isinstance(camera, dict):
        raise SceneError(f"{where} must be an object")
    for key in ("width", "height"):
        value = camera.get(key)
        if isinstance(value, bool) or not isinstance(value, int) or not 0 < value <= MAX_SIDE:
            raise SceneError(f"{where}.{key} must be pixels (1 to {MAX_SIDE}), not {brief(value)}")
    fov = camera.get("fov_deg")
    if not _is_number(fov) or not 0 < fov < 180:
        raise SceneError(f"{where}.fov_deg must be an angle between 0 and 180, not {brief(fov)}")
    for key in ("eye", "target"):
        numbers(camera.get(key), 3, f"{where}.{key}")
    if "up" in camera:
        numbers(camera["up"], 3, f"{where}.up")
    for key in ("near", "far"):
        if key in camera and (not _is_number(camera[key]) or not 0 < camera[key] <= MAX_METRES):
            raise SceneError(f"{where}.{key} must be a distance > 0, not {brief(camera[key])}")


def check_body(body: Any, where: str) -> None:
    """One body record: id, role, asset and its size, scale, colour, texture, pose, joints."""
    if not isinstance(body, dict):
        raise SceneError(f"{where} must be an object")
    _text(body.get("id"), f"{where}.id", empty=False)
    for key in ("name", "category"):
        if key in body:
            _text(body[key], f"{where}.{key}")
    if body.get("role", "object") not in ROLES:
        raise SceneError(f"{where}.role must be one of {', '.join(ROLES)}")
    try:
        scheme, shape = parse_ref(body.get("asset"))
        if body.get("texture") is not None:
            parse_ref(body["texture"])
    except ValueError as exc:
        raise SceneError(f"{where}: {exc}") from None
    if scheme == PRIMITIVE_SCHEME:
        size = numbers(body.get("size"), PRIMITIVE_SIZES[shape], f"{where}.size")
        if min(size) <= 0:
            raise SceneError(f"{where}.size must be > 0, not {brief(size)}")
    scale = body.get("scale", 1.0)
    if not _is_number(scale) or not 0 < scale <= MAX_METRES:
        raise SceneError(f"{where}.scale must be a number > 0, not {brief(scale)}")
    if body.get("rgba") is not None:
        rgba = numbers(body["rgba"], 4, f"{where}.rgba")
        if not all(0 <= v <= 1 for v in rgba):
            raise SceneError(f"{where}.rgba must be 4 numbers from 0 to 1, not {brief(rgba)}")
    numbers(body.get("position"), 3, f"{where}.position")
    _rotation(body.get("orientation"), f"{where}.orientation")
    if body.get("label_patch") is not None:
        _label_patch(body, scheme, f"{where}.label_patch")
    if not isinstance(body.get("fixed", False), bool):
        raise SceneError(f"{where}.fixed must be true or false")
    _joints(body.get("joints", {}), f"{where}.joints")


def _label_patch(body: dict[str, Any], scheme: str, where: str) -> None:
    """A label decal: on a primitive with a texture, a centre, a rotation and a side."""
    patch = body["label_patch"]
    if not isinstance(patch, dict):
        raise SceneError(f"{where} must be an object")
    if scheme != PRIMITIVE_SCHEME or body.get("texture") is None:
        raise SceneError(f"{where}: only a primitive body with a texture carries a label decal")
    numbers(patch.get("position"), 3, f"{where}.position")
    _rotation(patch.get("orientation"), f"{where}.orientation")
    side = patch.get("side")
    if not _is_number(side) or not 0 < side <= 1:
        raise SceneError(f"{where}.side must be a length in metres (0 to 1], not {brief(side)}")


def check_state(state: Any, bodies: list[dict[str, Any]], where: str = "scene.state") -> None:
    """The exact state: one entry per body of the scene, each a pose and the body's joints."""
    if not isinstance(state, dict) or not isinstance(state.get("bodies"), dict):
        raise SceneError(f"{where} must be an object with the bodies' poses")
    joints = {b["id"]: b.get("joints") or {} for b in bodies}
    given = state["bodies"]
    missing, unknown = sorted(set(joints) - set(given)), sorted(set(given) - set(joints))
    if missing or unknown:
        which = f"lacks body {brief(missing[0])}" if missing else f"has no body {brief(unknown[0])}"
        raise SceneError(f"{where}.bodies {which} (it holds one pose per body of the scene)")
    for key, pose in given.items():
        at = f"{where}.bodies[{brief(key)}]"
        if not isinstance(pose, dict):
            raise SceneError(f"{at} must be an object")
        numbers(pose.get("com_position"), 3, f"{at}.com_position")
        _rotation(pose.get("com_orientation"), f"{at}.com_orientation")
        moved = _joints(pose.get("joints") or {}, f"{at}.joints")
        strange = sorted(set(moved) - set(joints[key]))
        if strange:
            raise SceneError(f"{at}.joints: the body has no joint {brief(strange[0])}")
    for key in ("time",):
        if key in state and not _is_number(state[key]):
            raise SceneError(f"{where}.{key} must be a number, not {brief(state[key])}")
    if state.get("table_texture") is not None:
        try:
            parse_ref(state["table_texture"])
        except ValueError as exc:
            raise SceneError(f"{where}.table_texture: {exc}") from None


def check_scene(scene: dict[str, Any]) -> None:
    check_camera(scene.get("camera"))
    bodies = scene.get("bodies")
    if not isinstance(bodies, list):
        raise SceneError("scene.bodies must be a list")
    seen: set[str] = set()
    for i, body in enumerate(bodies):
        check_body(body, f"scene.bodies[{i}]")
        if body["id"] in seen:
            raise SceneError(f"scene.bodies[{i}].id {brief(body['id'])} appears twice")
        seen.add(body["id"])
    if scene.get("table_texture") is not None:
        try:
            parse_ref(scene["table_texture"])
        except ValueError as exc:
            raise SceneError(f"scene.table_texture: {exc}") from None
    if scene.get("state") is None:
        raise SceneError("scene.state: missing (the exact state the scene is restored to)")
    check_state(scene["state"], bodies)
