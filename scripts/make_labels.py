#!/usr/bin/env python3
"""Write the A/B/C label textures (white with a bold black letter) to resources/textures/labels/.

A label texture is applied to a box body; its colour comes from the body's
rgba, which PyBullet multiplies with the texture, so the letter stays black on
whatever colour the box has. Deterministic: the same bytes every run.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from PIL import Image, ImageDraw, ImageFont

OUT = Path(__file__).resolve().parents[1] / "resources" / "textures" / "labels"
SIZE = 256


def label(letter: str) -> Image.Image:
    image = Image.new("RGB", (SIZE, SIZE), (255, 255, 255))
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default(size=int(SIZE * 0.72))
    box = draw.textbbox((0, 0), letter, font=font, stroke_width=6)
    x = (SIZE - (box[2] - box[0])) / 2 - box[0]
    y = (SIZE - (box[3] - box[1])) / 2 - box[1]
    draw.text((x, y), letter, fill=(0, 0, 0), font=font, stroke_width=6, stroke_fill=(0, 0, 0))
    draw.rectangle([6, 6, SIZE - 7, SIZE - 7], outline=(0, 0, 0), width=6)
    return image


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT)
    args = parser.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    for letter in "ABC":
        label(letter).save(args.out / f"{letter}.png", optimize=False, compress_level=9)
        print(args.out / f"{letter}.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
