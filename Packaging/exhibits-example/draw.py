#!/usr/bin/env python3
"""Draws the example exhibits' pictures (our own, made here): python3 draw.py, in this folder.
Needs Pillow and NumPy (Debian: python3-pil, python3-numpy). The JPEGs are committed; run this
only to change them."""
import math
import random

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

W, H = 1600, 1200


def stars(img, n, seed):
    rnd = random.Random(seed)
    d = ImageDraw.Draw(img)
    for _ in range(n):
        x, y, r = rnd.uniform(0, img.width), rnd.uniform(0, img.height), rnd.choice([0.8, 1.0, 1.2, 1.6, 2.2])
        v = rnd.randint(150, 255)
        d.ellipse([x - r, y - r, x + r, y + r], fill=(v, v, min(255, v + 20)))


def sphere(size, base, light=(-0.5, -0.6), texture=None, seed=0):
    """A lit sphere of `size` pixels, RGBA; `texture(x, y) -> rgb` paints its surface."""
    y, x = np.mgrid[-1:1:size * 1j, -1:1:size * 1j]
    r2 = x * x + y * y
    inside = r2 <= 1
    z = np.sqrt(np.clip(1 - r2, 0, 1))
    lx, ly = light
    lz = math.sqrt(max(0, 1 - lx * lx - ly * ly))
    shade = np.clip(x * lx + y * ly + z * lz, 0, 1) ** 0.8 * 0.92 + 0.08
    rgb = np.zeros((size, size, 3))
    rgb[:] = base
    if texture is not None:
        rgb = texture(x, y, z, rgb)
    rgb = rgb * shade[..., None]
    alpha = np.clip((1 - np.sqrt(r2)) * size / 2, 0, 1) * 255
    out = np.dstack([np.clip(rgb, 0, 255), alpha]).astype(np.uint8)
    return Image.fromarray(out, "RGBA")


def noise(x, y, seed, octaves=5, scale=3.0):
    rnd = np.random.default_rng(seed)
    total = np.zeros_like(x)
    amp, freq = 1.0, scale
    for _ in range(octaves):
        px, py = rnd.uniform(0, 2 * math.pi, 2)
        a, b = rnd.uniform(0.6, 1.4, 2)
        total += amp * np.sin(freq * a * x + px) * np.cos(freq * b * y + py)
        total += amp * 0.5 * np.sin(freq * 1.7 * (x * 0.6 + y * 0.8) + py)
        amp *= 0.55
        freq *= 2.1
    return total


def moon():
    img = Image.new("RGB", (W, H), (6, 8, 16))
    stars(img, 260, 1)

    def craters(x, y, z, rgb):
        g = 150 + 22 * noise(x, y, 3, 6, 2.5)
        rgb = np.dstack([g, g, g * 1.02])
        rnd = random.Random(7)
        for _ in range(70):
            cx, cy, cr = rnd.uniform(-0.9, 0.9), rnd.uniform(-0.9, 0.9), rnd.uniform(0.02, 0.14)
            d = np.sqrt((x - cx) ** 2 + (y - cy) ** 2) / cr
            rim = np.exp(-((d - 1) ** 2) * 30) * 25
            pit = np.where(d < 1, -18 * (1 - d * d), 0)
            rgb = rgb + (rim + pit)[..., None]
        maria = noise(x * 0.8, y * 0.8, 11, 3, 1.6) > 0.55
        rgb[maria] *= 0.72
        return rgb

    m = sphere(900, (150, 150, 155), texture=craters)
    img.paste(m, (350, 150), m)
    return img


def earth():
    img = Image.new("RGB", (W, H), (4, 6, 14))
    stars(img, 200, 2)

    def land(x, y, z, rgb):
        n = noise(x, y, 21, 6, 2.2)
        ocean = np.dstack([20 + 0 * x, 70 + 20 * z, 150 + 40 * z])
        ground = np.dstack([70 + 30 * n, 110 + 20 * n, 50 + 10 * n])
        rgb = np.where((n > 0.35)[..., None], ground, ocean)
        clouds = np.clip(noise(x * 1.3, y * 2.2, 5, 5, 3.0) - 0.3, 0, 1) * 1.6
        rgb = rgb * (1 - clouds[..., None]) + 245 * clouds[..., None]
        ice = np.abs(y) > 0.86
        rgb[ice] = (235, 240, 250)
        return rgb

    e = sphere(560, (40, 90, 170), light=(0.55, -0.45), texture=land)
    img.paste(e, (520, 120), e)
    # The Moon's horizon below it: Earthrise.
    ground = Image.new("RGB", (W, 420), (0, 0, 0))
    gy, gx = np.mgrid[0:420, 0:W]
    g = 95 + 30 * noise(gx / 300.0, gy / 120.0, 4, 5, 1.0) - gy * 0.08
    ground = Image.fromarray(np.dstack([g, g, g * 1.03]).clip(0, 255).astype(np.uint8))
    mask = Image.new("L", (W, 420), 0)
    ImageDraw.Draw(mask).ellipse([-900, 60, W + 900, 2400], fill=255)
    img.paste(ground, (0, H - 420), mask)
    return img


def mars():
    img = Image.new("RGB", (W, H), (10, 6, 6))
    stars(img, 220, 3)

    def surface(x, y, z, rgb):
        n = noise(x, y, 31, 6, 2.4)
        rgb = np.dstack([190 + 30 * n, 85 + 20 * n, 40 + 10 * n])
        dark = noise(x * 0.9, y * 1.4, 8, 3, 1.8) > 0.4
        rgb[dark] *= 0.7
        cap = y < -0.82
        rgb[cap] = (240, 232, 225)
        return rgb

    m = sphere(820, (190, 90, 45), texture=surface)
    img.paste(m, (390, 190), m)
    return img


def saturn():
    img = Image.new("RGB", (W, H), (5, 6, 14))
    stars(img, 240, 4)
    cx, cy = W // 2, H // 2 + 20
    rings = Image.new("RGBA", (W, H), (0, 0, 0, 0))
    d = ImageDraw.Draw(rings)
    for r, col in [(700, (180, 160, 120, 110)), (640, (210, 190, 150, 200)), (560, (120, 105, 80, 80)), (540, (225, 205, 165, 220)),
                   (450, (0, 0, 0, 0))]:
        d.ellipse([cx - r, cy - r * 0.28, cx + r, cy + r * 0.28], fill=col)
    rings = rings.filter(ImageFilter.GaussianBlur(1.2))

    def bands(x, y, z, rgb):
        b = np.sin(y * 18 + 0.6 * noise(x, y, 9, 3, 2.0)) * 14
        return np.dstack([225 + b, 195 + b, 135 + b * 0.6])

    s = sphere(560, (225, 195, 135), light=(-0.4, -0.5), texture=bands)
    back = rings.crop((0, 0, W, cy))
    img.paste(back, (0, 0), back)
    img.paste(s, (cx - 280, cy - 280), s)
    front = rings.crop((0, cy, W, H))
    img.paste(front, (0, cy), front)
    return img


def lander():
    img = Image.new("RGB", (W, H), (4, 5, 10))
    stars(img, 160, 5)
    gy, gx = np.mgrid[0:380, 0:W]
    g = 110 + 28 * noise(gx / 260.0, gy / 90.0, 6, 5, 1.0) - gy * 0.05
    ground = Image.fromarray(np.dstack([g, g, g * 1.02]).clip(0, 255).astype(np.uint8))
    img.paste(ground, (0, H - 380))
    d = ImageDraw.Draw(img)
    base = H - 300
    # Shadow, legs and footpads.
    d.ellipse([430, base + 40, 1330, base + 120], fill=(45, 45, 48))
    for x0, x1 in [(560, 470), (1040, 1130), (700, 650), (900, 950)]:
        d.line([(x0, base - 210), (x1, base + 40)], fill=(150, 150, 155), width=14)
        d.ellipse([x1 - 40, base + 28, x1 + 40, base + 52], fill=(170, 170, 175))
    # Descent stage: gold foil, an octagon.
    d.polygon([(560, base - 300), (1040, base - 300), (1090, base - 230), (1090, base - 130), (1040, base - 80),
               (560, base - 80), (510, base - 130), (510, base - 230)], fill=(196, 150, 52))
    for i in range(9):
        d.line([(560 + i * 60, base - 300), (540 + i * 62, base - 80)], fill=(170, 125, 40), width=4)
    # Ascent stage: grey, faceted, a window and the antenna.
    d.polygon([(600, base - 300), (640, base - 470), (760, base - 540), (920, base - 540), (1010, base - 470), (1040, base - 300)],
              fill=(175, 175, 182))
    d.polygon([(700, base - 470), (770, base - 510), (800, base - 440), (730, base - 410)], fill=(30, 35, 48))
    d.line([(930, base - 540), (1000, base - 660)], fill=(200, 200, 205), width=6)
    d.ellipse([960, base - 700, 1060, base - 640], outline=(210, 210, 215), width=6)
    return img


def saturn_v():
    w, h = 1200, 1600
    img = Image.new("RGB", (w, h), (150, 190, 230))
    sky = np.linspace(0, 1, h)[:, None]
    top, bottom = np.array([70, 120, 190]), np.array([190, 215, 235])
    grad = (top * (1 - sky[..., None]) + bottom * sky[..., None]).repeat(w, axis=1)
    img = Image.fromarray(grad.astype(np.uint8))
    d = ImageDraw.Draw(img)
    cx = w // 2
    # The tower and the rocket: white stages, black bands, the escape tower.
    d.rectangle([cx + 170, 300, cx + 260, h - 120], fill=(190, 60, 40))
    for y in range(320, h - 120, 60):
        d.line([(cx + 170, y), (cx + 260, y + 60)], fill=(150, 45, 30), width=5)
    d.rectangle([cx - 90, 420, cx + 90, h - 170], fill=(245, 245, 242))
    for y0, y1 in [(620, 660), (1000, 1040), (1180, 1220), (1330, 1400)]:
        d.rectangle([cx - 90, y0, cx + 90, y1], fill=(25, 25, 28))
    d.polygon([(cx - 90, 420), (cx - 55, 300), (cx + 55, 300), (cx + 90, 420)], fill=(240, 240, 238))
    d.polygon([(cx - 40, 300), (cx, 180), (cx + 40, 300)], fill=(235, 235, 232))
    d.line([(cx, 180), (cx, 90)], fill=(60, 60, 60), width=8)
    for s in (-1, 1):
        d.polygon([(cx + s * 90, h - 300), (cx + s * 150, h - 170), (cx + s * 90, h - 170)], fill=(30, 30, 32))
    d.rectangle([0, h - 170, w, h], fill=(90, 95, 90))
    return img


if __name__ == "__main__":
    for name, draw in [("moon", moon), ("earthrise", earth), ("mars", mars), ("saturn", saturn), ("lunar-module", lander),
                       ("saturn-v", saturn_v)]:
        draw().save(f"{name}.jpg", quality=85, optimize=True, progressive=name == "saturn")
        print(name)
