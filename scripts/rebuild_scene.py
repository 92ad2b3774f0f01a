#!/usr/bin/env python3
"""Rebuild an exported scene with plain PyBullet and render its camera view.

Uses nothing from ReasonScope: only pybullet, pybullet_data, airo_models (for
the robot's URDFs), numpy and Pillow. It shows that a line of
`reasonscope scenes export` (format reasonscope-scene/1) is self-contained.

    python scripts/rebuild_scene.py scenes.jsonl --id scene-1 --out view.png
    python scripts/rebuild_scene.py benchmark.jsonl --id <question id> --out view.png
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np
import pybullet as p
import pybullet_data
from PIL import Image

RESOURCES = Path(__file__).resolve().parents[1] / "resources"


def resolve(ref: str) -> str:
    scheme, _, rel = ref.partition(":")
    if scheme == "pybullet_data":
        return str(Path(pybullet_data.getDataPath()) / rel)
    if scheme == "airo_models":
        import airo_models

        return str(Path(airo_models.__file__).parent / rel)
    if scheme == "resources":
        return str(RESOURCES / rel)
    raise ValueError(f"cannot resolve asset {ref!r}")


def box_atlas(path: str) -> str:
    """PyBullet textures a box's top face with the last quarter of u and v, mirrored:
    give it a 4 x 4 tiling of the vertically flipped image, so the top shows it all."""
    import tempfile

    with Image.open(path) as image:
        tile = image.convert("RGB").transpose(Image.Transpose.FLIP_TOP_BOTTOM)
    w, h = tile.size
    atlas = Image.new("RGB", (4 * w, 4 * h))
    for i in range(4):
        for j in range(4):
            atlas.paste(tile, (i * w, j * h))
    out = Path(tempfile.mkdtemp()) / "atlas.png"
    atlas.save(out)
    return str(out)


def build(scene: dict, client: int) -> dict[str, int]:
    """Create every body of the scene in `client`; return id -> body uid."""
    uids = {}
    for body in scene["bodies"]:
        asset, scale = body["asset"], float(body.get("scale", 1.0))
        pos, orn = body["position"], body["orientation"]
        if asset.startswith("primitive:"):
            shape = asset.split(":", 1)[1]
            size = [float(s) * scale for s in body["size"]]
            rgba = body.get("rgba") or [0.7, 0.7, 0.7, 1]
            geom = {"box": p.GEOM_BOX, "cylinder": p.GEOM_CYLINDER}.get(shape, p.GEOM_SPHERE)
            half = size if shape == "box" else [0, 0, 0]
            radius = 0.0 if shape == "box" else size[0]
            length = size[1] if shape == "cylinder" else 0.0
            patch = body.get("label_patch")
            if patch is None:
                vis = p.createVisualShape(
                    geom,
                    halfExtents=half,
                    radius=radius,
                    length=length,
                    rgbaColor=rgba,
                    physicsClientId=client,
                )
            else:
                # A label decal: a 1 mm square plate 1 mm off the face (centre and
                # rotation given in the body's frame, the plate's +z outward).
                rot = np.asarray(p.getMatrixFromQuaternion(patch["orientation"])).reshape(3, 3)
                centre = np.asarray(patch["position"]) + rot[:, 2] * 0.0015
                vis = p.createVisualShapeArray(
                    shapeTypes=[geom, p.GEOM_BOX],
                    halfExtents=[half, [patch["side"] / 2, patch["side"] / 2, 0.0005]],
                    radii=[radius, 0.0],
                    lengths=[length, 0.0],
                    rgbaColors=[rgba, [1, 1, 1, 1]],
                    visualFramePositions=[[0, 0, 0], centre.tolist()],
                    visualFrameOrientations=[[0, 0, 0, 1], patch["orientation"]],
                    physicsClientId=client,
                )
            uid = p.createMultiBody(0, -1, vis, pos, orn, physicsClientId=client)
        else:
            uid = p.loadURDF(
                resolve(asset),
                pos,
                orn,
                globalScaling=scale,
                useFixedBase=True,
                physicsClientId=client,
            )
            if body.get("rgba"):
                for link in range(-1, p.getNumJoints(uid, physicsClientId=client)):
                    p.changeVisualShape(uid, link, rgbaColor=body["rgba"], physicsClientId=client)
        joints = body.get("joints") or {}
        for j in range(p.getNumJoints(uid, physicsClientId=client)):
            name = p.getJointInfo(uid, j, physicsClientId=client)[1].decode()
            if name in joints:
                p.resetJointState(uid, j, joints[name], physicsClientId=client)
        if body.get("texture"):
            tex = p.loadTexture(box_atlas(resolve(body["texture"])), physicsClientId=client)
            # on the decal alone if the body has one, else on every face
            on = {"shapeIndex": 1, "rgbaColor": [1, 1, 1, 1]} if body.get("label_patch") else {}
            p.changeVisualShape(uid, -1, textureUniqueId=tex, physicsClientId=client, **on)
        if body.get("label_patch"):  # the body's own colour, set again after the decal's
            p.changeVisualShape(
                uid,
                -1,
                shapeIndex=0,
                rgbaColor=body.get("rgba") or [0.7, 0.7, 0.7, 1],
                physicsClientId=client,
            )
        uids[body["id"]] = uid
    return uids


def render(scene: dict, client: int) -> tuple[np.ndarray, np.ndarray]:
    cam = scene["camera"]
    w, h = int(cam["width"]), int(cam["height"])
    view = p.computeViewMatrix(cam["eye"], cam["target"], cam["up"])
    proj = p.computeProjectionMatrixFOV(cam["fov_deg"], w / h, cam["near"], cam["far"])
    _, _, rgba, _, seg = p.getCameraImage(
        w,
        h,
        view,
        proj,
        renderer=p.ER_TINY_RENDERER,
        shadow=0,
        lightDirection=(0.3, -0.4, 1.0),
        physicsClientId=client,
    )
    rgb = np.asarray(rgba, dtype=np.uint8).reshape(h, w, 4)[:, :, :3]
    return rgb, np.asarray(seg, dtype=np.int32).reshape(h, w)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scenes", type=Path)
    parser.add_argument("--id", help="scene id (default: the first line)")
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args(argv)
    for line in args.scenes.read_text().splitlines():
        record = json.loads(line)
        if args.id is None or record["id"] == args.id:
            # a scenes-export line is the scene; a benchmark line carries it in "scene"
            scene = record.get("scene") or record
            break
    else:
        print(f"{args.scenes}: no scene {args.id!r}", file=sys.stderr)
        return 2
    client = p.connect(p.DIRECT)
    build(scene, client)
    rgb, _ = render(scene, client)
    Image.fromarray(rgb).save(args.out)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
