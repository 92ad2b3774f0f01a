#!/usr/bin/env python3
"""Generate the table-top textures in resources/textures/table/ (seeded, deterministic).

    python scripts/make_textures.py                 # rewrite resources/textures/table/
    python scripts/make_textures.py --out /tmp/tex  # somewhere else (same bytes)

Every texture is a 512 x 512 RGB PNG drawn with numpy and Pillow, in one of four
styles: wood, fabric, stone, pattern. They are kept muted and low in contrast so that
objects stay easy to see on them. ``index.json`` lists them as
``{"name", "style", "file": "resources:textures/table/<name>.png", "mean_rgb"}``.
Each texture draws from its own random generator (seeded by the global seed and
its name), so adding one does not change the others.
"""

from __future__ import annotations

import argparse
import json
import zlib
from collections.abc import Callable
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

SIZE = 512
DEFAULT_SEED = 20240611
ROOT = Path(__file__).resolve().parents[1]
DEFAULT_OUT = ROOT / "resources" / "textures" / "table"
REF_PREFIX = "resources:textures/table/"

Array = np.ndarray


# -- noise and colour helpers -------------------------------------------------------


def _smooth_interp(grid: Array, size: int) -> Array:
    """Periodic smoothstep interpolation of a (cy, cx) lattice up to size x size."""
    cy, cx = grid.shape

    def axis(c: int) -> tuple[Array, Array, Array]:
        t = np.arange(size) * c / size
        i0 = np.floor(t).astype(int)
        f = t - i0
        return i0 % c, (i0 + 1) % c, f * f * (3 - 2 * f)

    y0, y1, fy = axis(cy)
    x0, x1, fx = axis(cx)
    fy, fx = fy[:, None], fx[None, :]
    top = grid[y0][:, x0] * (1 - fx) + grid[y0][:, x1] * fx
    bottom = grid[y1][:, x0] * (1 - fx) + grid[y1][:, x1] * fx
    return top * (1 - fy) + bottom * fy


def noise(rng, cells: tuple[int, int], octaves: int = 1, persistence: float = 0.5) -> Array:
    """Tileable fractal value noise in [0, 1]; ``cells`` = lattice size (rows, cols)."""
    total = np.zeros((SIZE, SIZE))
    amp, norm = 1.0, 0.0
    cy, cx = cells
    for _ in range(octaves):
        total += amp * _smooth_interp(rng.random((cy, cx)), SIZE)
        norm += amp
        amp *= persistence
        cy, cx = min(cy * 2, SIZE), min(cx * 2, SIZE)
    return total / norm


def grain(rng, amount: float) -> Array:
    """Per-pixel noise centred on 0, softened by a 3x3 box blur."""
    g = rng.random((SIZE, SIZE)) - 0.5
    g = (g + np.roll(g, 1, 0) + np.roll(g, -1, 0) + np.roll(g, 1, 1) + np.roll(g, -1, 1)) / 5
    return g * amount * 2


def lerp(a, b, t: Array) -> Array:
    """Blend two RGB colours (0-255) by t (H x W) into an H x W x 3 float image."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    return a + (b - a) * t[..., None]


def ramp(stops: list[tuple[float, tuple[int, int, int]]], t: Array) -> Array:
    """Piecewise-linear colour ramp: stops = [(position, rgb), ...] sorted by position."""
    pos = np.array([s[0] for s in stops])
    cols = np.array([s[1] for s in stops], dtype=float)
    t = np.clip(t, pos[0], pos[-1])
    return np.stack([np.interp(t, pos, cols[:, k]) for k in range(3)], -1)


def shade(img: Array, factor: Array) -> Array:
    return img * factor[..., None]


def coords() -> tuple[Array, Array]:
    y, x = np.mgrid[0:SIZE, 0:SIZE].astype(float)
    return y, x


def to_image(img: Array) -> Image.Image:
    return Image.fromarray(np.clip(np.rint(img), 0, 255).astype(np.uint8), "RGB")


# -- wood ---------------------------------------------------------------------------


def _wood_board(rng, light, dark, rings: float, warp: float, figure_y: float) -> Array:
    """One board's grain: growth rings of a log cut off-centre, stretched along x.

    The rings are ellipses around a centre beyond the left or right edge, so they show
    as long lines that bend into arches (cathedrals); noise warps them and adds fibres.
    """
    y, x = coords()
    cx = rng.choice([-0.6, 1.6]) * SIZE + rng.uniform(-0.2, 0.2) * SIZE
    cy = figure_y * SIZE
    w = noise(rng, (3, 2), octaves=3) - 0.5
    r = np.sqrt(((x - cx) / 5.0) ** 2 + (y - cy) ** 2) / SIZE
    # uneven yearly growth: ring phase advances faster in some years
    phase = rings * r + warp * w + 0.15 * np.sin(2 * np.pi * 3 * r)
    t = 0.5 + 0.5 * np.cos(2 * np.pi * phase)
    t = t**2.2  # thin dark latewood lines, wide light earlywood
    fibres = noise(rng, (128, 2), octaves=2) - 0.5
    t = np.clip(t * 0.7 + fibres * 0.35 + 0.1, 0, 1)
    img = lerp(light, dark, t)
    return shade(img, 1 + 0.08 * (noise(rng, (3, 3), octaves=2) - 0.5) + grain(rng, 0.025))


def wood(light, dark, rings=14.0, warp=0.6):
    def make(rng) -> Image.Image:
        return to_image(_wood_board(rng, light, dark, rings, warp, rng.uniform(0.2, 0.8)))

    return make


def planks(light, dark, rows: int = 4, rings=10.0):
    """Boards running along x, with seams and staggered butt joints."""

    def make(rng) -> Image.Image:
        boards = [_wood_board(rng, light, dark, rings, 0.5, rng.uniform(0.2, 0.8)) for _ in "ab"]
        img = np.zeros((SIZE, SIZE, 3))
        h = SIZE // rows
        for i in range(rows):
            rows_i = slice(i * h, (i + 1) * h)
            joint = int(rng.integers(48, SIZE - 48))
            for k, cols in enumerate((slice(0, joint), slice(joint, SIZE))):
                top = int(rng.integers(0, SIZE - h + 1))  # a random strip of the board
                strip = boards[(i + k) % 2][top : top + h, cols]
                img[rows_i, cols] = strip * rng.uniform(0.9, 1.08)
            img[rows_i, joint - 1 : joint + 1] *= 0.6
            img[i * h : i * h + 2] *= 0.55
        return to_image(img)

    return make


# -- fabric -------------------------------------------------------------------------


def _threads(rng, n: int, spread: float) -> Array:
    """Per-thread brightness jitter repeated along the thread (length SIZE)."""
    return 1 + spread * (rng.random(n) - 0.5)


def weave(warp_rgb, weft_rgb, pitch: int = 4, twill: bool = False, slub: float = 0.25):
    """Plain or twill weave; pitch = thread width in pixels."""

    def make(rng) -> Image.Image:
        y, x = coords()
        n = SIZE // pitch
        row = (y // pitch).astype(int) % n
        col = (x // pitch).astype(int) % n
        if twill:
            over = ((col + row) % 4) < 2
        else:
            over = ((col + row) % 2) == 0
        wy = _threads(rng, n, slub)[row] * (0.92 + 0.08 * np.sin(np.pi * (y % pitch) / pitch))
        wx = _threads(rng, n, slub)[col] * (0.92 + 0.08 * np.sin(np.pi * (x % pitch) / pitch))
        warp_img = shade(np.broadcast_to(np.asarray(warp_rgb, float), (SIZE, SIZE, 3)), wx)
        weft_img = shade(np.broadcast_to(np.asarray(weft_rgb, float), (SIZE, SIZE, 3)), wy)
        img = np.where(over[..., None], warp_img, weft_img)
        mottle = 1 + 0.06 * (noise(rng, (6, 6), octaves=3) - 0.5) + grain(rng, 0.03)
        return to_image(shade(img, mottle))

    return make


def felt(rgb):
    def make(rng) -> Image.Image:
        t = 1 + 0.07 * (noise(rng, (8, 8), octaves=4) - 0.5) + grain(rng, 0.06)
        img = shade(np.broadcast_to(np.asarray(rgb, float), (SIZE, SIZE, 3)), t)
        return to_image(img).filter(ImageFilter.GaussianBlur(0.6))

    return make


# -- stone --------------------------------------------------------------------------


def marble(base, vein, veins: float = 2.5):
    """Soft clouding plus wandering diagonal veins (warped bands), some thin and faint."""

    def make(rng) -> Image.Image:
        y, x = coords()
        t = 0.12 * (noise(rng, (3, 3), octaves=4) - 0.5)
        for strength, sharp, turb_amp, count in (
            (0.7, 14, 1.2, veins),
            (0.35, 30, 1.6, veins * 1.7),
        ):
            turb = noise(rng, (2, 2), octaves=4) - 0.5
            angle = rng.uniform(0.35, 1.2)
            u = (x * np.cos(angle) + y * np.sin(angle)) / SIZE
            s = np.abs(np.sin(np.pi * (count * u + turb_amp * turb + rng.uniform())))
            width = 0.6 + 0.8 * noise(rng, (4, 4), octaves=2)  # veins thin out and fade
            t = t + strength * ((1 - s) ** (sharp * width) + 0.25 * (1 - s) ** 4)
        img = lerp(base, vein, np.clip(t + 0.02, 0, 1))
        return to_image(shade(img, 1 + grain(rng, 0.015)))

    return make


def granite(base, specks: list[tuple[tuple[int, int, int], float]]):
    """Speckled stone: base mottle plus flecks of each colour covering a given fraction."""

    def make(rng) -> Image.Image:
        mottle = 1 + 0.1 * (noise(rng, (10, 10), octaves=3) - 0.5)
        img = shade(np.broadcast_to(np.asarray(base, float), (SIZE, SIZE, 3)), mottle)
        for rgb, frac in specks:
            n = noise(rng, (170, 170), octaves=2, persistence=0.6)
            mask = n > np.quantile(n, 1 - frac)
            img = np.where(mask[..., None], np.asarray(rgb, float) * mottle[..., None], img)
        img = to_image(img).filter(ImageFilter.GaussianBlur(0.5))
        return to_image(shade(np.asarray(img, float), 1 + grain(rng, 0.03)))

    return make


def concrete(base):
    def make(rng) -> Image.Image:
        t = 1 + 0.16 * (noise(rng, (5, 5), octaves=6, persistence=0.6) - 0.5) + grain(rng, 0.05)
        img = shade(np.broadcast_to(np.asarray(base, float), (SIZE, SIZE, 3)), t)
        im = to_image(img)
        draw = ImageDraw.Draw(im)
        for _ in range(260):  # air pores
            cx, cy = rng.integers(0, SIZE, 2)
            r = float(rng.uniform(0.6, 2.2))
            c = tuple(int(v * 0.62) for v in base)
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=c)
        return im.filter(ImageFilter.GaussianBlur(0.4))

    return make


def slate(base):
    def make(rng) -> Image.Image:
        layers = noise(rng, (40, 3), octaves=3) - 0.5
        patches = noise(rng, (4, 4), octaves=3) - 0.5
        t = 1 + 0.18 * layers + 0.12 * patches + grain(rng, 0.04)
        return to_image(shade(np.broadcast_to(np.asarray(base, float), (SIZE, SIZE, 3)), t))

    return make


def terrazzo(base, chips: list[tuple[int, int, int]], count: int = 420):
    def make(rng) -> Image.Image:
        mottle = 1 + 0.06 * (noise(rng, (6, 6), octaves=3) - 0.5) + grain(rng, 0.03)
        im = to_image(shade(np.broadcast_to(np.asarray(base, float), (SIZE, SIZE, 3)), mottle))
        draw = ImageDraw.Draw(im)
        for _ in range(count):
            cx, cy = rng.uniform(0, SIZE, 2)
            r = rng.uniform(2.0, 7.5)
            k = int(rng.integers(4, 7))
            ang = np.sort(rng.uniform(0, 2 * np.pi, k))
            rad = r * rng.uniform(0.6, 1.0, k)
            pts = [
                (float(cx + a * np.cos(t)), float(cy + a * np.sin(t)))
                for a, t in zip(rad, ang, strict=True)
            ]
            draw.polygon(pts, fill=tuple(chips[int(rng.integers(len(chips)))]))
        return im.filter(ImageFilter.GaussianBlur(0.5))

    return make


# -- pattern ------------------------------------------------------------------------


def _cloth_texture(rng) -> Array:
    """Subtle fine weave shading to lay over printed patterns."""
    y, x = coords()
    fine = 0.97 + 0.03 * np.sin(np.pi * (x % 3) / 3) * np.sin(np.pi * (y % 3) / 3)
    return fine * (1 + 0.05 * (noise(rng, (6, 6), octaves=3) - 0.5)) + grain(rng, 0.02)


def gingham(light, colour, band: int = 32):
    def make(rng) -> Image.Image:
        y, x = coords()
        sx = ((x // band) % 2).astype(float)
        sy = ((y // band) % 2).astype(float)
        t = (sx + sy) / 2  # 0 white, 0.5 tint, 1 full colour
        img = lerp(light, colour, t * 0.85)
        return to_image(shade(img, _cloth_texture(rng)))

    return make


def stripes(light, colour, widths: list[int]):
    """Vertical stripes: widths alternate light/colour, repeating across the image."""

    def make(rng) -> Image.Image:
        pattern = []
        for i, w in enumerate(widths):
            pattern += [i % 2] * w
        reps = -(-SIZE // len(pattern))
        t = np.tile(np.array(pattern * reps, dtype=float)[:SIZE], (SIZE, 1))
        return to_image(shade(lerp(light, colour, t), _cloth_texture(rng)))

    return make


def tartan(ground, bands: list[tuple[int, tuple[int, int, int]]]):
    """Sett of coloured bands crossed with itself, mixed on a twill diagonal."""

    def make(rng) -> Image.Image:
        sett = []
        for width, rgb in bands:
            sett += [rgb] * width
        sett = sett + sett[::-1]  # symmetric sett
        reps = -(-SIZE // len(sett))
        line = np.array((sett * reps)[:SIZE], dtype=float)
        warp = np.broadcast_to(line[None, :, :], (SIZE, SIZE, 3))
        weft = np.broadcast_to(line[:, None, :], (SIZE, SIZE, 3))
        y, x = coords()
        twill = (((x + y) // 2) % 2)[..., None].astype(bool)
        img = np.where(twill, warp, weft) * 0.5 + (warp + weft) * 0.25
        img = 0.7 * img + 0.3 * np.asarray(ground, float)
        return to_image(shade(img, _cloth_texture(rng)))

    return make


def tiles(face, grout, tile: int = 128, gap: int = 4):
    def make(rng) -> Image.Image:
        y, x = coords()
        n = SIZE // tile
        tone = 1 + 0.06 * (rng.random((n, n)) - 0.5)
        t = tone[(y // tile).astype(int) % n, (x // tile).astype(int) % n]
        t = t * (1 + 0.05 * (noise(rng, (8, 8), octaves=3) - 0.5)) + grain(rng, 0.02)
        img = shade(np.broadcast_to(np.asarray(face, float), (SIZE, SIZE, 3)), t)
        edge = ((x % tile) < gap) | ((y % tile) < gap)
        img = np.where(edge[..., None], np.asarray(grout, float) * t[..., None], img)
        return to_image(img).filter(ImageFilter.GaussianBlur(0.5))

    return make


def checker(a, b, square: int = 64):
    def make(rng) -> Image.Image:
        y, x = coords()
        t = (((x // square) + (y // square)) % 2).astype(float)
        img = lerp(a, b, t)
        return to_image(shade(img, _cloth_texture(rng)))

    return make


def polka(ground, dot, spacing: int = 64, radius: float = 7.0):
    def make(rng) -> Image.Image:
        im = to_image(
            shade(np.broadcast_to(np.asarray(ground, float), (SIZE, SIZE, 3)), _cloth_texture(rng))
        )
        draw = ImageDraw.Draw(im)
        for j in range(-1, SIZE // spacing + 1):
            for i in range(-1, SIZE // spacing + 1):
                cx = i * spacing + (spacing // 2 if j % 2 else 0) + spacing / 4
                cy = j * spacing + spacing / 4
                draw.ellipse((cx - radius, cy - radius, cx + radius, cy + radius), fill=dot)
        return im.filter(ImageFilter.GaussianBlur(0.6))

    return make


# -- the set ------------------------------------------------------------------------

TEXTURES: list[tuple[str, str, Callable]] = [
    ("oak_light", "wood", wood((214, 176, 128), (164, 116, 70), rings=18)),
    ("walnut", "wood", wood((146, 102, 70), (100, 66, 44), rings=22, warp=0.8)),
    ("pine_planks", "wood", planks((226, 190, 140), (182, 132, 80), rings=14)),
    ("birch_plywood", "wood", wood((232, 212, 178), (200, 174, 134), rings=10, warp=0.4)),
    ("cherry_planks", "wood", planks((184, 116, 82), (138, 82, 54), rows=6, rings=16)),
    ("linen_natural", "fabric", weave((212, 200, 176), (202, 190, 164), pitch=3, slub=0.16)),
    (
        "denim_blue",
        "fabric",
        weave((92, 114, 150), (136, 148, 170), pitch=2, twill=True, slub=0.12),
    ),
    ("felt_green", "fabric", felt((52, 112, 76))),
    ("canvas_grey", "fabric", weave((160, 160, 154), (148, 148, 142), pitch=4, slub=0.12)),
    ("marble_white", "stone", marble((234, 232, 226), (140, 142, 150))),
    (
        "granite_speckled",
        "stone",
        granite(
            (150, 146, 142),
            [((96, 92, 92), 0.14), ((196, 188, 182), 0.12), ((168, 126, 116), 0.06)],
        ),
    ),
    ("concrete", "stone", concrete((168, 166, 160))),
    ("slate_grey", "stone", slate((108, 116, 124))),
    (
        "terrazzo",
        "stone",
        terrazzo(
            (222, 214, 200),
            [(170, 160, 150), (120, 120, 124), (196, 150, 130), (150, 170, 160), (236, 232, 224)],
        ),
    ),
    ("gingham_red", "pattern", gingham((242, 238, 232), (208, 100, 96))),
    (
        "ticking_stripes",
        "pattern",
        stripes((238, 234, 224), (120, 142, 182), [22, 6, 6, 6, 22, 16]),
    ),
    (
        "tartan_green",
        "pattern",
        tartan(
            (60, 90, 70),
            [
                (28, (46, 86, 64)),
                (6, (36, 52, 92)),
                (14, (46, 86, 64)),
                (4, (196, 176, 96)),
                (20, (36, 52, 92)),
                (4, (160, 60, 52)),
            ],
        ),
    ),
    ("tiles_white", "pattern", tiles((228, 228, 222), (168, 164, 156))),
    ("checker_sand", "pattern", checker((222, 204, 170), (188, 162, 122))),
    ("polka_blue", "pattern", polka((226, 232, 238), (120, 150, 196))),
]


def make_all(out: Path, seed: int = DEFAULT_SEED) -> list[dict]:
    out.mkdir(parents=True, exist_ok=True)
    index = []
    for name, style, make in TEXTURES:
        rng = np.random.default_rng([seed, zlib.crc32(name.encode())])
        im = make(rng)
        assert im.size == (SIZE, SIZE) and im.mode == "RGB", name
        im.save(out / f"{name}.png", format="PNG", optimize=False, compress_level=6)
        mean = np.asarray(im, dtype=float).reshape(-1, 3).mean(0) / 255
        index.append(
            {
                "name": name,
                "style": style,
                "file": f"{REF_PREFIX}{name}.png",
                "mean_rgb": [round(float(v), 3) for v in mean],
            }
        )
    lines = ",\n".join(" " + json.dumps(item) for item in index)
    (out / "index.json").write_text(f"[\n{lines}\n]\n", encoding="utf-8")
    return index


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, help="output directory")
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED)
    parser.add_argument("--sheet", type=Path, help="also write a contact sheet PNG here")
    args = parser.parse_args(argv)
    index = make_all(args.out, args.seed)
    if args.sheet:
        cols, tile = 5, 256
        rows = -(-len(index) // cols)
        sheet = Image.new("RGB", (cols * tile, rows * (tile + 16)), "white")
        draw = ImageDraw.Draw(sheet)
        for i, item in enumerate(index):
            im = Image.open(args.out / f"{item['name']}.png").resize((tile, tile))
            x, y = (i % cols) * tile, (i // cols) * (tile + 16)
            sheet.paste(im, (x, y + 16))
            draw.text((x + 4, y + 2), f"{item['name']} ({item['style']})", fill=(0, 0, 0))
        sheet.save(args.sheet)
    print(f"wrote {len(index)} textures to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
