#!/usr/bin/env python3
"""Write a synthetic sequence in the JRDB folder layout, to try `reasonscope import jrdb`.

    python scripts/make_jrdb_sequence.py /tmp/jrdb-demo
    python scripts/make_jrdb_sequence.py /tmp/jrdb-big --frames 60 --people 20 --objects 12 \\
        --points 60000 --seed 3
    reasonscope import jrdb /tmp/jrdb-demo --db project.reasonscope

The folder gets labels/, images/, pointclouds/ and calibration/ exactly as the
dataset lays them out (docs/jrdb-import.md), plus our labels/labels_objects/.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from app.demo.jrdb_synth import SynthConfig, write_sequence  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    defaults = SynthConfig()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("root", type=Path, help="dataset root to write (created if missing)")
    parser.add_argument("--name", default=defaults.name, help="sequence name")
    parser.add_argument("--frames", type=int, default=defaults.frames, help="frames (15 Hz)")
    parser.add_argument("--people", type=int, default=defaults.people, help="persons")
    parser.add_argument("--objects", type=int, default=defaults.objects, help="objects")
    parser.add_argument(
        "--points", type=int, default=defaults.points_per_sweep, help="lidar rays per sweep"
    )
    parser.add_argument("--seed", type=int, default=defaults.seed, help="random seed")
    parser.add_argument(
        "--lower-yaw-error",
        type=float,
        default=0.0,
        metavar="RADIANS",
        help="write the lower lidar's yaw off by this much (a misaligned calibration to fix)",
    )
    args = parser.parse_args(argv)
    if min(args.frames, args.points) < 1 or min(args.people, args.objects) < 0:
        parser.error("--frames and --points must be positive, --people and --objects >= 0")
    config = SynthConfig(
        name=args.name,
        frames=args.frames,
        people=args.people,
        objects=args.objects,
        points_per_sweep=args.points,
        seed=args.seed,
        lower_yaw_error=args.lower_yaw_error,
    )
    summary = write_sequence(args.root, config)
    print(
        f"Wrote {summary.name} to {summary.root}: {summary.frames} frames, "
        f"{len(summary.persons)} persons, {len(summary.objects)} objects; "
        f"boxes across the seam: {', '.join(summary.seam_persons) or 'none'}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
