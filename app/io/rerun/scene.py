"""An episode's world in a Rerun recording: every visual shape once, every body's pose at
every step, and for dual-arm worlds both end effectors and grippers.

The world is rebuilt the way Replay rebuilds it (the stored scene for a tabletop episode,
the task's seeded set-up for a dual-arm one) and put in each step's stored state in turn:
nothing is simulated. Entities: `world/bodies/<key>` holds the body's base (URDF) frame,
`world/bodies/<key>/shape_<n>` its visual shapes in that frame (a link's shape moves in
it as the joints move), `world/arms/<arm>/end_effector` and `arms/<arm>/gripper_opening`
a dual-arm robot's hands.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from annotation.models import Episode, Scene
from sim.camera import CameraSpec
from sim.tabletop.replay import EpisodeReplay, as_step, episode_camera, restorable, state_at
from sim.visuals import VisualShape, link_frames, pose_matrix, visual_shapes
from sim.world import World

MESH_TYPES = {".obj": "model/obj", ".stl": "model/stl", ".glb": "model/gltf-binary"}


@dataclass
class EpisodeWorld:
    """The world an episode replays in, with its shapes and the camera of its images."""

    replay: EpisodeReplay
    camera: CameraSpec
    shapes: list[VisualShape] = field(default_factory=list)
    arms: tuple[str, ...] = ()  # the dual-arm world's arms; () for the tabletop
    logged: dict[int, np.ndarray] = field(default_factory=dict)  # a link shape's last pose

    @property
    def world(self) -> World:
        return self.replay.world

    def close(self) -> None:
        self.replay.world.close()


def episode_world(
    episode: Episode, steps: Sequence[Any], scene: Scene | None
) -> EpisodeWorld | None:
    """The episode's world, or None when it has none to restore (an imported log, an
    episode without a stored scene): then its steps, images and texts are all there is."""
    dicts = [as_step(s) for s in steps]
    if not any(restorable(s.get("state")) for s in dicts):
        return None
    if episode.benchmark == "bimanual":
        return _dual_arm_world(episode, dicts)
    if scene is None:
        return None
    from sim.tabletop.scenes import world_from_records

    camera = episode_camera(scene.camera, episode.header)
    world = world_from_records([b.as_record() for b in scene.bodies], scene.state)
    replay = EpisodeReplay(world, dicts, camera, initial=scene.state)
    return EpisodeWorld(replay, camera, visual_shapes(world))


def _dual_arm_world(episode: Episode, steps: list[dict[str, Any]]) -> EpisodeWorld | None:
    from sim.bimanual.cameras import camera as bimanual_camera
    from sim.bimanual.tasks import TASKS
    from sim.bimanual.world import ARMS, DualArmWorld

    task = TASKS.get(episode.task)
    if task is None:
        return None
    block = episode.header.get("bimanual") or {}
    size = block.get("image_size") or [640, 480]
    camera = bimanual_camera("head", int(size[0]), int(size[1]))
    world = DualArmWorld()
    try:
        task.setup(world, int(block.get("seed") or 0))
        initial = state_at(steps, 0) or world.capture_state()
        replay = EpisodeReplay(world, steps, camera, initial=initial)
    except BaseException:
        world.close()
        raise
    return EpisodeWorld(replay, camera, visual_shapes(world), ARMS)


# -- what is logged once ------------------------------------------------------------------------
def shape_archetype(rr, shape: VisualShape):
    """The Rerun archetype drawing one visual shape in its own frame, or None (a plane)."""
    colour = [float(c) for c in shape.rgba]
    d = shape.dimensions
    if shape.geometry == "box":
        return rr.Boxes3D(
            half_sizes=[[d[0] / 2, d[1] / 2, d[2] / 2]], colors=[colour], fill_mode="solid"
        )
    if shape.geometry == "sphere":
        return rr.Ellipsoids3D(half_sizes=[[d[0]] * 3], colors=[colour], fill_mode="solid")
    if shape.geometry in ("cylinder", "capsule"):
        return rr.Cylinders3D(lengths=[d[0]], radii=[d[1]], colors=[colour], fill_mode="solid")
    if shape.geometry == "mesh" and shape.mesh_path:
        path = Path(shape.mesh_path)
        media = MESH_TYPES.get(path.suffix.lower())
        if media and path.is_file():
            return rr.Asset3D(contents=path.read_bytes(), media_type=media)
        return rr.Boxes3D(half_sizes=[[0.01, 0.01, 0.01]], colors=[colour])  # unreadable mesh
    return None


def shape_path(root: str, shape: VisualShape, n: int) -> str:
    return f"{root}/world/bodies/{shape.body_key}/shape_{n}"


def log_shapes(rec, rr, root: str, world: EpisodeWorld) -> None:
    """Every visual shape's geometry, once; a base shape's place on its body, once."""
    for n, shape in enumerate(world.shapes):
        archetype = shape_archetype(rr, shape)
        if archetype is None:
            continue
        path = shape_path(root, shape, n)
        rec.log(path, archetype, static=True)
        if shape.link == -1:
            rec.log(path, _transform(rr, _local(shape)), static=True)


def _local(shape: VisualShape) -> np.ndarray:
    """A shape's frame in its link's frame, its mesh scale included."""
    m = pose_matrix(shape.local_position, shape.local_orientation)
    if shape.geometry == "mesh":
        m = m @ np.diag([*shape.dimensions[:3], 1.0])
    return m


def _transform(rr, m: np.ndarray):
    """A 4x4 matrix as a Rerun transform (its rotation-and-scale part as a 3x3 matrix)."""
    return rr.Transform3D(translation=m[:3, 3], mat3x3=m[:3, :3])


# -- what is logged at every step ----------------------------------------------------------------
def body_poses(world: World) -> dict[str, tuple[list[float], list[float]]]:
    """Every body's base frame: (position, [qx, qy, qz, qw])."""
    return {
        key: tuple(list(map(float, v)) for v in world.link_frame_pose(key)) for key in world.bodies
    }


def log_poses(rec, rr, root: str, world: EpisodeWorld, index: int) -> bool:
    """Put the world in its state after step `index` and log where everything is.

    Every body's pose is logged at every step, so any step reads back whole; a link's
    shapes only when they move. False when no state is stored for the step."""
    if not world.replay.seek(index):
        return False
    poses = body_poses(world.world)
    for key, (position, orientation) in poses.items():
        rec.log(
            f"{root}/world/bodies/{key}",
            rr.Transform3D(translation=position, quaternion=rr.Quaternion(xyzw=orientation)),
        )
    frames = link_frames(world.world)
    bases = {key: pose_matrix(*poses[key]) for key in poses}
    for n, shape in enumerate(world.shapes):
        if shape.link == -1 or shape.geometry == "plane":
            continue
        base = bases[shape.body_key]
        m = np.linalg.inv(base) @ pose_matrix(*frames[(shape.body_uid, shape.link)]) @ _local(shape)
        last = world.logged.get(n)
        if last is None or not np.allclose(last, m, atol=1e-7):
            world.logged[n] = m
            rec.log(shape_path(root, shape, n), _transform(rr, m))
    _log_arms(rec, rr, root, world)
    return True


def _log_arms(rec, rr, root: str, world: EpisodeWorld) -> None:
    for arm in world.arms:
        position, orientation = world.world.ee_pose(arm)
        path = f"{root}/world/arms/{arm}/end_effector"
        rec.log(
            path,
            rr.Transform3D(
                translation=[float(v) for v in position],
                quaternion=rr.Quaternion(xyzw=[float(v) for v in orientation]),
            ),
            rr.TransformAxes3D(axis_length=0.08),
        )
        rec.log(f"{root}/arms/{arm}/gripper_opening", rr.Scalars(world.world.gripper_opening(arm)))
