"""Synthetic training scenes for the card detector, written in ultralytics YOLO format.

This module owns the scenes: tables, fanned and stacked cards, occluders, camera effects, and
the labels that go with them. Card faces come from :mod:`vision.synth.faces`.

Label design
------------
The detector's boxes are **corner indices**: the rank + suit index printed in a card's corners
(the top-left one and the bottom-right one turned 180°); the class is the card's identity (one
of the 54 names of :mod:`vision.classes`). On fanned pairs, tractors and throws the index is
often the only part of a card that shows, it is what a human reads, and it looks alike across
deck designs, whose pips and court art differ wildly. Each visible corner index gets one box:
the axis-aligned bounds of its visible part in the final image, clipped to the image, unless
less than :data:`MIN_VISIBLE` (60%) of it shows (covered by another card, a hand, sleeve, pen
or coin, or outside the image, all computed with a z-ordered id map after the camera's
perspective warp). Boxes under :data:`MIN_BOX_PX` pixels are dropped. Jokers: Chinese jokers
carry a vertical "JOKER" in the corners, labelled like an index as BJ / SJ; a design whose
joker has no corner index (adrian_kennard) is labelled with the whole visible face instead
(kept when at least :data:`MIN_VISIBLE_FACE`, 20 %, of it shows: under the next card of a fan a
joker shows a strip a fifth of its width, which a referee still reads). The runtime later
groups the corner
boxes of one identity into physical cards (two decks: every card exists twice).

Scenes are square ``imgsz`` images rendered at twice that size and area-downscaled. Each image
is reproducible on its own: its generator is seeded with ``seed * 1_000_003 + index``.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_ID, CLASS_NAMES, JOKERS
from vision.crops import Box
from vision.synth.decks import load_deck
from vision.synth.faces import FACE_H, PROCEDURAL, CardFace, check_design, load_art_face, rect_quad
from vision.synth.procedural import ProceduralStyle, make_back, random_style, render_procedural
from vision.training.evaluate import HIDDEN_DIR

MIN_VISIBLE = 0.6
MIN_VISIBLE_FACE = 0.2
FACE_EXTENT = 0.6  # a face's visible part this share of its long side: a strip, or more
MIN_BOX_PX = 4.0
LONE_VISIBLE = 0.95  # a face card this much of which shows lies alone: its four corners show
GLIMPSE = 0.05  # an index this much of which shows may still be boxed: never a "none" crop
N_STYLES = 48
"""Procedural deck styles per dataset (faces are cached per style and identity)."""
PRINTED_MATTER_P = 0.3
"""Share of scenes with a score sheet or newspaper on the table."""
SMALL_SHARE = 0.1
"""Share of scenes drawn at the table camera's card scale (see :func:`render_scene`)."""
JOKER_SHARE = 0.0
"""Share of card groups with one or two jokers mixed in anywhere (see :func:`with_jokers`).
0 (the default) draws no extra random numbers, so older recipes make the same scenes."""

SQUARE_BOWLS = 0.0
"""Share of procedural stroke fonts with straight-sided bowls (:meth:`vision.synth.stroke_font.
StrokeFont.random`); 0 (the default) keeps older recipes' scenes."""

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS = ("S", "H", "D", "C")
OCCLUDER = 30000
"""Id-map value of hands, sleeves, pens and coins (cards use 1..N, the table 0)."""


# --------------------------------------------------------------------------- faces


def scene_name(seed: int, index: int) -> str:
    """A scene's file stem: its seed and index, so that sets drawn with different seeds can be
    written to one folder (a training set of several seeds) without overwriting each other."""
    return f"s{seed}_{index:06d}"


@functools.lru_cache(maxsize=N_STYLES)
def _style(seed: int, k: int, square_bowls: float = 0.0) -> ProceduralStyle:
    return random_style(np.random.default_rng([seed, k, 7]), square_bowls)


@functools.lru_cache(maxsize=1024)
def _face(
    design: str,
    seed: int,
    style: int,
    identity: str,
    picture_joker: bool = False,
    square_bowls: float = 0.0,
) -> CardFace:
    if design == PROCEDURAL:
        drawn = _style(seed, style, square_bowls)
        if picture_joker and identity in JOKERS:
            drawn = replace(drawn, joker_index=False)
        return render_procedural(
            drawn,
            identity,
            FACE_H,
            seed=(seed * 1000 + style) * 100 + CLASS_ID[identity],
        )
    if identity in JOKERS and not load_deck(design).has_jokers:
        # A deck printed without jokers: the scene's jokers come from a procedural deck.
        return _face(PROCEDURAL, seed, style, identity, picture_joker, square_bowls)
    face = load_art_face(design, identity)
    if not face.corners and not face.whole_face:
        # No index box found (court art touching the index, a deck printing none): an unlabelled
        # index would teach the localiser that an index is background.
        return _face(PROCEDURAL, seed, style, identity, picture_joker, square_bowls)
    return face


@functools.lru_cache(maxsize=64)
def _back(seed: int, k: int) -> np.ndarray:
    return make_back(np.random.default_rng([seed, k, 11]))


# --------------------------------------------------------------------------- backgrounds


def smooth_noise(rng: np.random.Generator, size: int, cells: int) -> np.ndarray:
    """Low-frequency noise in [-1, 1], ``size`` × ``size``."""
    small = rng.uniform(-1, 1, (cells, cells)).astype(np.float32)
    return cv2.resize(small, (size, size), interpolation=cv2.INTER_CUBIC)


def background(rng: np.random.Generator, size: int) -> np.ndarray:
    """A table top: felt, wood, patterned cloth, plain desk or carpet (RGB float32 0..255).

    Drawn at half ``size`` and upscaled: the scene is downscaled by two in the end anyway.
    """
    full = size
    size = size // 2
    kind = rng.choice(["felt", "wood", "cloth", "plain", "carpet"], p=[0.35, 0.2, 0.15, 0.15, 0.15])
    palette = [
        (30, 100, 50),
        (25, 60, 120),
        (120, 30, 35),
        (90, 90, 90),
        (140, 110, 70),
        (60, 40, 30),
        (200, 200, 195),
        (30, 30, 35),
        (170, 150, 120),
    ]
    base_rgb = np.array(palette[int(rng.integers(len(palette)))], dtype=np.float32)
    base = base_rgb + rng.uniform(-25, 25, 3)
    img: np.ndarray = np.empty((size, size, 3), np.float32)
    img[:] = base
    if kind == "felt":
        img += smooth_noise(rng, size, 8)[..., None] * 12
        img += rng.normal(0, 6, (size, size, 1)).astype(np.float32)
    elif kind == "wood":
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        warp = smooth_noise(rng, size, 5) * rng.uniform(10, 40)
        freq = rng.uniform(0.03, 0.15)
        grain = np.sin((yy + warp) * freq) * 0.5 + 0.5
        grain = grain * 0.7 + 0.3 * smooth_noise(rng, size, 40)
        tone = np.array([1.0, 0.75, 0.5], dtype=np.float32) * rng.uniform(0.8, 1.2)
        img = base * 0.8 + grain[..., None] * 40 * tone
        if rng.random() < 0.5:
            img = np.ascontiguousarray(np.rot90(img))
    elif kind == "cloth":
        yy, xx = np.mgrid[0:size, 0:size].astype(np.float32)
        period = rng.uniform(12, 60)
        other = np.array(palette[int(rng.integers(len(palette)))], dtype=np.float32)
        a = (np.sin(xx * 2 * np.pi / period) > 0).astype(np.float32)
        b = (np.sin(yy * 2 * np.pi / period) > 0).astype(np.float32)
        pattern = (a + b) / 2 if rng.random() < 0.6 else a
        img = base * (1 - pattern[..., None] * 0.6) + other * pattern[..., None] * 0.6
        img += rng.normal(0, 5, (size, size, 1)).astype(np.float32)
    elif kind == "plain":
        g = np.linspace(-1, 1, size, dtype=np.float32)
        img += g[None, :, None] * rng.uniform(-20, 20) + g[:, None, None] * rng.uniform(-20, 20)
        img += rng.normal(0, 2, (size, size, 1)).astype(np.float32)
    else:  # carpet
        n: np.ndarray = rng.normal(0, 1, (size // 2, size // 2, 3)).astype(np.float32)
        n = cv2.resize(cv2.GaussianBlur(n, (0, 0), 1.0), (size, size))
        img += n * 30
    if rng.random() < 0.35:  # clutter on the table
        for _ in range(int(rng.integers(1, 6))):
            col = tuple(float(v) for v in rng.uniform(0, 255, 3))
            c = (int(rng.integers(size)), int(rng.integers(size)))
            if rng.random() < 0.5:
                ax = (int(rng.integers(5, size // 6)), int(rng.integers(5, size // 6)))
                cv2.ellipse(img, c, ax, float(rng.uniform(0, 180)), 0, 360, col, -1, cv2.LINE_AA)
            else:
                pts = (
                    np.array(c, dtype=np.float32)
                    + rng.uniform(-size / 8, size / 8, (int(rng.integers(3, 6)), 2))
                ).astype(np.int32)
                cv2.fillPoly(img, [pts], col, cv2.LINE_AA)
    img = cv2.resize(
        np.clip(img, 0, 255).astype(np.float32), (full, full), interpolation=cv2.INTER_LINEAR
    )
    return img


# --------------------------------------------------------------------------- layout


@dataclass
class Placed:
    """One card on the table: its face (or back) and the affine map face → canvas."""

    rgba: np.ndarray
    matrix: np.ndarray  # 2 × 3
    face: CardFace | None  # None for a card back


def _identities(rng: np.random.Generator, k: int) -> list[str]:
    """The identities of one group of ``k`` cards: pairs, tractors, throws, mixes, hands."""
    kind = rng.choice(["pair", "tractor", "throw", "mix", "hand"], p=[0.2, 0.15, 0.2, 0.3, 0.15])
    suit = str(rng.choice(SUITS))
    if rng.random() < 0.06:
        return [str(rng.choice(["BJ", "SJ"]))] * min(k, 2)
    if kind == "pair":
        c = str(rng.choice(CLASS_NAMES))
        return [c, c]
    if kind == "tractor":
        n = max(2, k // 2)
        start = int(rng.integers(0, len(RANKS) - n + 1))
        return [r + suit for r in RANKS[start : start + n] for _ in range(2)]
    if kind == "throw":
        ranks = sorted(rng.choice(len(RANKS), size=min(k, len(RANKS)), replace=False))
        return [RANKS[r] + suit for r in ranks]
    cards = [str(c) for c in rng.choice(CLASS_NAMES, size=k)]
    if kind == "hand":
        cards.sort(key=lambda c: (c[-1], CLASS_ID[c]))
    return cards


def with_jokers(rng: np.random.Generator, cards: Sequence[str]) -> list[str]:
    """``cards`` with one or two of them (never more than half of a group of 3+) turned into
    jokers, often the same one twice: a joker anywhere in a fan, also under other cards, the
    way a player lays BJ + a trump, or a joker pair, on the table."""
    out = list(cards)
    m = 1 if len(out) < 3 or rng.random() < 0.5 else 2
    joker = str(rng.choice(JOKERS))
    for slot in sorted(int(i) for i in rng.choice(len(out), size=m, replace=False)):
        out[slot] = joker if rng.random() < 0.5 else str(rng.choice(JOKERS))
    return out


def card_affine(w: float, h: float, cx: float, cy: float, angle: float, scale: float) -> np.ndarray:
    """Map face pixels (w × h face) to a card of ``scale`` centred at (cx, cy), rotated."""
    a = math.radians(angle)
    c, s = math.cos(a) * scale, math.sin(a) * scale
    return np.array(
        [[c, -s, cx - c * w / 2 + s * h / 2], [s, c, cy - s * w / 2 - c * h / 2]],
        dtype=np.float32,
    )


def _group(
    rng: np.random.Generator,
    size: int,
    card_h: float,
    faces: list[CardFace | None],
    backs: list[np.ndarray],
) -> Iterator[Placed]:
    """Lay out one group (fan, spread, column or messy stack) of cards."""
    n = len(faces)
    mode = rng.choice(["fan", "spread", "column", "messy", "arc"], p=[0.45, 0.12, 0.13, 0.18, 0.12])
    card_w = card_h * 0.7
    step = card_w * rng.uniform(0.14, 0.42)
    if mode == "spread":
        step = card_w * rng.uniform(1.03, 1.4)
    jitter = 15.0 if mode == "messy" else 3.0
    direction = 1 if rng.random() < 0.8 else -1
    gx, gy = rng.uniform(-0.05, 1.05, 2) * size
    gangle = rng.uniform(0, 360)
    arc = rng.uniform(4, 12) if mode == "arc" else 0.0
    ga = math.radians(gangle)
    for i, face in enumerate(faces):
        off = (i - (n - 1) / 2) * direction
        if mode == "column":
            lx, ly = rng.normal(0, card_w * 0.02), off * card_h * rng.uniform(0.15, 0.3)
        elif mode == "messy":
            lx, ly = off * step + rng.normal(0, card_w * 0.15), rng.normal(0, card_h * 0.1)
        elif mode == "arc":
            t = math.radians(off * arc)
            lx, ly = math.sin(t) * card_h * 1.2, (1 - math.cos(t)) * card_h * 1.2
        else:
            lx, ly = off * step, rng.normal(0, card_h * 0.015)
        x = gx + lx * math.cos(ga) - ly * math.sin(ga)
        y = gy + lx * math.sin(ga) + ly * math.cos(ga)
        angle = gangle + off * arc + rng.normal(0, jitter / 2)
        rgba = backs[int(rng.integers(len(backs)))] if face is None else face.image
        fh, fw = rgba.shape[:2]
        yield Placed(rgba, card_affine(fw, fh, x, y, angle, card_h / fh), face)


# --------------------------------------------------------------------------- rendering


def _composite(canvas: np.ndarray, idmap: np.ndarray, p: Placed, ident: int, shadow: float) -> None:
    """Warp one card onto the canvas and the id map (with an optional drop shadow)."""
    size = canvas.shape[0]
    fh, fw = p.rgba.shape[:2]
    corners = cv2.transform(rect_quad(0, 0, fw, fh)[None], p.matrix)[0]
    x0, y0 = np.floor(corners.min(0)).astype(int) - 4
    x1, y1 = np.ceil(corners.max(0)).astype(int) + 4
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(size, x1), min(size, y1)
    if x0 >= x1 or y0 >= y1:
        return
    m = p.matrix.copy()
    m[:, 2] -= (x0, y0)
    src = p.rgba
    scale = math.hypot(m[0, 0], m[1, 0])
    if scale < 0.6:  # pre-shrink with area averaging to avoid aliasing
        new_h = max(8, round(fh * scale * 1.25))
        f = new_h / fh
        src = cv2.resize(src, (max(4, round(fw * f)), new_h), interpolation=cv2.INTER_AREA)
        m[:, :2] /= f
    warped = cv2.warpAffine(
        src,
        m,
        (x1 - x0, y1 - y0),
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0, 0),
    )
    a = warped[..., 3].astype(np.float32) * np.float32(1 / 255)
    roi = canvas[y0:y1, x0:x1]
    if shadow > 0:
        d = max(1, round(scale * fh * 0.015))
        sh = np.zeros_like(a)
        sh[d:, d:] = a[:-d, :-d]
        sh = cv2.GaussianBlur(sh, (0, 0), d)
        roi[:] = cv2.multiply(roi, cv2.merge([1 - shadow * sh] * 3))
    rgb = warped[..., :3].astype(np.float32)
    roi[:] = cv2.blendLinear(rgb, np.ascontiguousarray(roi), a, 1 - a)
    idmap[y0:y1, x0:x1][warped[..., 3] > 127] = ident


_PRINT_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 AJQK10 +-:/"
_HERSHEY = (
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
)


def _printed_matter(rng: np.random.Generator, canvas: np.ndarray, card_h: float) -> None:
    """A score sheet, newspaper or flyer lying on the table, under the cards.

    Printed letters and digits (A, J, Q, K, 10 among them) at index sizes are the look-alikes
    of corner indices that real tables have (measured: newspaper text read as jokers on real
    photos); they are never labelled, so the models learn that text alone is not a card.
    """
    size = canvas.shape[0]
    w = int(card_h * rng.uniform(1.0, 3.0))
    h = int(card_h * rng.uniform(0.8, 2.5))
    tint = np.array([rng.uniform(215, 255), rng.uniform(210, 250), rng.uniform(195, 245)])
    sheet = np.empty((h, w, 3), np.uint8)
    sheet[:] = tint.astype(np.uint8)
    ink = [(20, 20, 20), (30, 30, 160), (150, 40, 30), (60, 60, 60)][int(rng.integers(4))]
    y = 0.0
    while y < h:
        text_h = card_h * float(rng.choice([0.04, 0.07, 0.1, 0.15, 0.22]))
        font = _HERSHEY[int(rng.integers(len(_HERSHEY)))]
        scale = text_h / 22.0
        y += text_h * rng.uniform(1.3, 1.8)
        n = int(rng.integers(3, 40))
        text = "".join(rng.choice(list(_PRINT_CHARS), n))
        color = ink if rng.random() < 0.85 else (30, 30, 200)
        thick = max(1, round(scale * rng.uniform(1, 2.5)))
        cv2.putText(sheet, text, (int(rng.uniform(0, 0.2) * w), int(y)), font, scale, color, thick)
    angle = float(rng.uniform(0, 360))
    cx, cy = float(rng.uniform(0, size)), float(rng.uniform(0, size))
    m = cv2.getRotationMatrix2D((w / 2, h / 2), angle, 1.0)
    m[:, 2] += np.array([cx - w / 2, cy - h / 2])
    warped = cv2.warpAffine(sheet, m, (size, size), flags=cv2.INTER_AREA)
    mask = cv2.warpAffine(np.full((h, w), 255, np.uint8), m, (size, size))
    canvas[mask > 127] = warped[mask > 127]


def _occluders(
    rng: np.random.Generator, canvas: np.ndarray, idmap: np.ndarray, card_h: float
) -> None:
    """Hands with sleeves, pens and coins, drawn over the cards."""
    size = canvas.shape[0]
    for _ in range(int(rng.choice([0, 1, 2, 3], p=[0.45, 0.35, 0.15, 0.05]))):
        mask = np.zeros((size, size), np.uint8)
        kind = rng.choice(["hand", "pen", "coin"], p=[0.55, 0.25, 0.2])
        if kind == "hand":
            side = rng.integers(4)
            t = rng.uniform(0.1, 0.9) * size
            edge = [(t, -10.0), (size + 10.0, t), (t, size + 10.0), (-10.0, t)][side]
            ang = [90, 180, 270, 0][side] + rng.uniform(-35, 35)
            reach = rng.uniform(0.2, 0.55) * size
            dx, dy = math.cos(math.radians(ang)), math.sin(math.radians(ang))
            tip = (edge[0] + dx * reach, edge[1] + dy * reach)
            hand_r = card_h * rng.uniform(0.35, 0.6)
            sleeve = tuple(float(v) for v in rng.uniform(0, 255, 3))
            skin = np.array(
                [rng.uniform(150, 240), rng.uniform(100, 180), rng.uniform(70, 150)],
                dtype=np.float32,
            )
            smask = np.zeros_like(mask)
            back = (int(tip[0] - dx * hand_r * 1.2), int(tip[1] - dy * hand_r * 1.2))
            cv2.line(
                smask,
                (int(edge[0] - dx * size), int(edge[1] - dy * size)),
                back,
                255,
                int(hand_r * 1.6),
            )
            cv2.ellipse(
                mask,
                (int(tip[0]), int(tip[1])),
                (int(hand_r), int(hand_r * 0.7)),
                ang,
                0,
                360,
                255,
                -1,
                cv2.LINE_AA,
            )
            for f in range(int(rng.integers(0, 5))):  # fingers
                fa = math.radians(ang + (f - 1.5) * 18)
                fx, fy = tip[0] + math.cos(fa) * hand_r * 1.3, tip[1] + math.sin(fa) * hand_r * 1.3
                cv2.line(
                    mask,
                    (int(tip[0]), int(tip[1])),
                    (int(fx), int(fy)),
                    255,
                    max(2, int(hand_r * 0.28)),
                    cv2.LINE_AA,
                )
            _paint(canvas, idmap, mask, skin, rng, shade=True)
            _paint(canvas, idmap, smask, np.array(sleeve, dtype=np.float32), rng, shade=True)
            continue
        c = (int(rng.integers(size)), int(rng.integers(size)))
        if kind == "pen":
            ang = rng.uniform(0, math.pi)
            ln = card_h * rng.uniform(0.8, 1.6)
            p1 = (int(c[0] + math.cos(ang) * ln / 2), int(c[1] + math.sin(ang) * ln / 2))
            p2 = (int(c[0] - math.cos(ang) * ln / 2), int(c[1] - math.sin(ang) * ln / 2))
            cv2.line(mask, p1, p2, 255, max(2, int(card_h * 0.06)), cv2.LINE_AA)
            col = rng.uniform(0, 255, 3).astype(np.float32)
        else:
            cv2.circle(mask, c, max(3, int(card_h * rng.uniform(0.1, 0.18))), 255, -1, cv2.LINE_AA)
            col = np.array(
                [rng.uniform(150, 220), rng.uniform(120, 180), rng.uniform(40, 90)],
                dtype=np.float32,
            )
        _paint(canvas, idmap, mask, col, rng, shade=kind == "coin")


def _paint(
    canvas: np.ndarray,
    idmap: np.ndarray,
    mask: np.ndarray,
    col: np.ndarray,
    rng: np.random.Generator,
    shade: bool,
) -> None:
    ys, xs = np.nonzero(mask)
    if len(xs) == 0:
        return
    y0, y1, x0, x1 = ys.min(), ys.max() + 1, xs.min(), xs.max() + 1
    a = mask[y0:y1, x0:x1].astype(np.float32)[..., None] / 255.0
    tone = np.ones_like(a)
    if shade:
        g = np.linspace(rng.uniform(0.7, 1.0), rng.uniform(1.0, 1.2), y1 - y0, dtype=np.float32)
        tone = tone * g[:, None, None]
    roi = canvas[y0:y1, x0:x1]
    roi[:] = roi * (1 - a) + np.clip(col * tone, 0, 255) * a
    idmap[y0:y1, x0:x1][a[..., 0] > 0.5] = OCCLUDER


def camera_homography(rng: np.random.Generator, size: int) -> np.ndarray:
    """Homography canvas → output (same size): zoom, tilt and a little rotation."""
    m = size * rng.uniform(0.0, 0.12)
    src = np.array([[m, m], [size - m, m], [size - m, size - m], [m, size - m]], dtype=np.float32)
    tilt = size * rng.uniform(0, 0.08)
    if rng.random() < 0.5:  # far edge looks narrower
        src[0, 0] -= tilt
        src[1, 0] += tilt
    src += rng.uniform(-0.03, 0.03, (4, 2)).astype(np.float32) * size
    src = np.clip(src, 0, size - 1)
    dst = rect_quad(0, 0, size, size)
    return cv2.getPerspectiveTransform(src, dst)


def photometric(rng: np.random.Generator, img: np.ndarray) -> np.ndarray:
    """Shadows, glare, blur, colour, exposure and sensor noise: float32 RGB in, uint8 out."""
    s = img.shape[0]
    if rng.random() < 0.35:  # soft shadow
        m: np.ndarray = np.zeros((32, 32), np.float32)
        cv2.ellipse(
            m,
            (int(rng.integers(32)), int(rng.integers(32))),
            (int(rng.integers(6, 20)), int(rng.integers(6, 20))),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        m = cv2.resize(cv2.GaussianBlur(m, (0, 0), 3), (s, s))
        img *= 1 - rng.uniform(0.2, 0.5) * m[..., None]
    if rng.random() < 0.3:  # glare
        m = np.zeros((32, 32), np.float32)
        cv2.ellipse(
            m,
            (int(rng.integers(32)), int(rng.integers(32))),
            (int(rng.integers(2, 8)), int(rng.integers(2, 6))),
            float(rng.uniform(0, 180)),
            0,
            360,
            1.0,
            -1,
        )
        m = cv2.resize(cv2.GaussianBlur(m, (0, 0), 1.5), (s, s))
        img += rng.uniform(60, 180) * m[..., None]
    r = rng.random()
    if r < 0.15:  # motion blur
        k = int(rng.integers(3, 7))
        kern: np.ndarray = np.zeros((k, k), np.float32)
        kern[k // 2, :] = 1.0 / k
        rot = cv2.getRotationMatrix2D((k / 2 - 0.5, k / 2 - 0.5), float(rng.uniform(0, 180)), 1)
        kern = cv2.warpAffine(kern, rot, (k, k))
        img = cv2.filter2D(img, -1, kern / max(kern.sum(), 1e-6))
    elif r < 0.4:  # defocus
        img = cv2.GaussianBlur(img, (0, 0), rng.uniform(0.4, 1.2))
    gain = rng.uniform(0.85, 1.15, 3) * rng.uniform(0.7, 1.3)  # white balance, contrast
    img = img * gain.astype(np.float32) + np.float32(rng.uniform(-30, 30))  # brightness
    sigma = rng.uniform(0, 8)
    img += rng.standard_normal(img.shape, dtype=np.float32) * np.float32(sigma)
    gamma = rng.uniform(0.7, 1.4)
    lut = np.clip(255.0 * (np.arange(256) / 255.0) ** gamma, 0, 255).astype(np.uint8)
    return cv2.LUT(np.clip(img, 0, 255).astype(np.uint8), lut)


def render_scene(
    rng: np.random.Generator,
    designs: Sequence[str],
    imgsz: int = 320,
    seed: int = 0,
    small_share: float = SMALL_SHARE,
    joker_share: float = JOKER_SHARE,
    square_bowls: float = SQUARE_BOWLS,
    faces_seen: list[tuple[str, Box]] | None = None,
    glimpses: list[Box] | None = None,
    lone_seen: list[tuple[str, np.ndarray]] | None = None,
    hidden: list[tuple[int, float, float, float, float]] | None = None,
) -> tuple[np.ndarray, list[tuple[int, float, float, float, float]]]:
    """One scene: an ``imgsz`` RGB uint8 image and its boxes ``(cls, x0, y0, x1, y1)`` in px.

    ``faces_seen``, when given, receives every face card's visible part not labelled whole
    (identity, box; :func:`visible_faces`): what a localiser draws when it boxes a card whole
    or a fan's strip of one. ``glimpses``, when given, receives the box of every corner index
    of which at least :data:`GLIMPSE` shows, labelled or not: where a box is no false alarm.
    ``lone_seen``, when given, receives every face card lying alone (:func:`lone_cards`: its
    identity and its four corners in px), whose corner marks the table's zone reader reads.
    ``hidden``, when given, receives the labelled boxes whose rank or suit hardly shows
    (:func:`half_hidden`).

    Card heights are 15–25 % of the side in ``small_share`` of the scenes (the table camera's
    scale: a card is ≈ 56 px tall in the localiser's 512 px view of the 800 px decision frame,
    ≈ 18 % of 320), 25–60 % in two thirds of the rest and 60–110 % (close-ups) in the others.
    ``joker_share`` of the card groups get jokers mixed in (:func:`with_jokers`), half of them
    picture jokers (no corner index, labelled whole) in the procedural design.
    ``square_bowls`` of the procedural stroke fonts draw straight-sided bowls (0, Q, O).
    """
    size = imgsz * 2
    canvas = background(rng, size)
    idmap = np.zeros((size, size), np.int32)
    r = rng.random()
    if r < small_share:
        frac = rng.uniform(0.15, 0.25)
    elif r < small_share + (1 - small_share) * 2 / 3:
        frac = rng.uniform(0.25, 0.6)
    else:
        frac = rng.uniform(0.6, 1.1)
    card_h = frac * size
    n_groups = int(rng.integers(1, 3 if frac > 0.6 else 5 if frac > 0.25 else 8))
    mix = rng.random() < 0.25
    base_design = str(rng.choice(list(designs)))
    placed: list[Placed] = []
    backs = [_back(seed, int(rng.integers(64)))]
    for _ in range(n_groups):
        design = str(rng.choice(list(designs))) if mix else base_design
        style = int(rng.integers(N_STYLES))
        k = int(
            rng.choice(
                [1, 2, 3, 4, 5, 6, 8, 10, 12],
                p=[0.12, 0.2, 0.15, 0.15, 0.12, 0.1, 0.08, 0.05, 0.03],
            )
        )
        if frac > 0.6:
            k = min(k, 4)
        ids = _identities(rng, k)
        picture = False
        if joker_share and rng.random() < joker_share:
            ids, picture = with_jokers(rng, ids), bool(rng.random() < 0.5)
        faces: list[CardFace | None] = [
            _face(design, seed, style, c, picture, square_bowls) for c in ids
        ]
        if rng.random() < 0.15:  # face-down cards in the group
            for _ in range(int(rng.integers(1, 4))):
                faces.insert(int(rng.integers(len(faces) + 1)), None)
        gh = card_h * rng.uniform(0.9, 1.1)
        placed.extend(_group(rng, size, gh, faces, backs))
    if rng.random() < 0.2:  # a face-down pile (the kitty)
        placed[:0] = list(_group(rng, size, card_h, [None] * int(rng.integers(2, 8)), backs))
    if rng.random() < PRINTED_MATTER_P:
        _printed_matter(rng, canvas, card_h)
    shadow = rng.uniform(0.15, 0.45) if rng.random() < 0.6 else 0.0
    for i, p in enumerate(placed):
        _composite(canvas, idmap, p, i + 1, shadow)
    if rng.random() < 0.45:
        _occluders(rng, canvas, idmap, card_h)
    hom = camera_homography(rng, size)
    out = cv2.warpPerspective(
        canvas, hom, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REFLECT
    )
    out = cv2.resize(out, (imgsz, imgsz), interpolation=cv2.INTER_AREA)
    out = photometric(rng, out)
    boxes = list(_labels(placed, idmap, hom, size, imgsz))
    if faces_seen is not None:
        faces_seen.extend(visible_faces(placed, idmap, hom, size, imgsz))
    if lone_seen is not None:
        lone_seen.extend(lone_cards(placed, idmap, hom, size, imgsz))
    if hidden is not None:
        hidden.extend(half_hidden(placed, idmap, hom, size, imgsz))
    if glimpses is not None:
        seen = _labels(placed, idmap, hom, size, imgsz, GLIMPSE)
        glimpses.extend((x0, y0, x1, y1) for _, x0, y0, x1, y1 in seen)
    return out, boxes


def _labels(
    placed: Sequence[Placed],
    idmap: np.ndarray,
    hom: np.ndarray,
    size: int,
    imgsz: int,
    least: float | None = None,
) -> Iterable[tuple[int, float, float, float, float]]:
    """Boxes of the visible corner indices (or whole jokers without an index); ``least``
    replaces the share of each that must show (:data:`MIN_VISIBLE`, :data:`MIN_VISIBLE_FACE`)."""
    for i, p in enumerate(placed):
        if p.face is None:
            continue
        face = p.face
        fh, fw = face.image.shape[:2]
        quads = face.corners
        need = MIN_VISIBLE
        if face.whole_face:
            quads, need = (rect_quad(0, 0, fw, fh),), MIN_VISIBLE_FACE
        need = need if least is None else least
        for q in quads:
            box = _visible_box(p.matrix, q, i + 1, need, idmap, hom, size, imgsz)
            if box is not None:
                yield (CLASS_ID[face.identity], *box)


def half_hidden(
    placed: Sequence[Placed], idmap: np.ndarray, hom: np.ndarray, size: int, imgsz: int
) -> Iterable[tuple[int, float, float, float, float]]:
    """The labelled corner indices (as :func:`_labels` boxes them) whose rank or suit shows
    less than :data:`MIN_VISIBLE`: the rest of the index shows, but what it says may not
    (an 8 whose suit lies under the next card). A whole face is never one."""

    def shown_on(
        matrix: np.ndarray, card_id: int
    ) -> Callable[[np.ndarray], tuple[np.ndarray, int]]:
        return lambda quad: _shown_points(matrix, quad, card_id, idmap, hom, size, imgsz)

    for i, p in enumerate(placed):
        if p.face is None or p.face.whole_face:
            continue
        for q in p.face.corners:
            box = _visible_box(p.matrix, q, i + 1, MIN_VISIBLE, idmap, hom, size, imgsz)
            if box is not None and _halves_shown(q, shown_on(p.matrix, i + 1)) < MIN_VISIBLE:
                yield (CLASS_ID[p.face.identity], *box)


def visible_faces(
    placed: Sequence[Placed], idmap: np.ndarray, hom: np.ndarray, size: int, imgsz: int
) -> Iterable[tuple[str, Box]]:
    """The visible part (at least :data:`MIN_VISIBLE_FACE` of it) of every face card not
    labelled whole: a card lying alone, or the strip a fan leaves of it — what the table's
    whole-card and fan-strip readers show the classifier (a joker there is still a joker,
    any other card is no corner index)."""
    for i, p in enumerate(placed):
        if p.face is None or p.face.whole_face:
            continue
        fh, fw = p.face.image.shape[:2]
        quad = rect_quad(0, 0, fw, fh)
        box = _visible_box(p.matrix, quad, i + 1, MIN_VISIBLE_FACE, idmap, hom, size, imgsz)
        if box is None:
            continue
        # Its long side must be most of the card's (a strip runs the card's height): a corner
        # left showing is the index's business, not a picture's.
        whole = cv2.perspectiveTransform(cv2.transform(quad[None], p.matrix), hom)[0] / 2.0
        extent = whole.max(axis=0) - whole.min(axis=0)
        if max(box[2] - box[0], box[3] - box[1]) >= FACE_EXTENT * float(extent.max()):
            yield p.face.identity, box


def lone_cards(
    placed: Sequence[Placed], idmap: np.ndarray, hom: np.ndarray, size: int, imgsz: int
) -> Iterable[tuple[str, np.ndarray]]:
    """Every face card not labelled whole of which at least :data:`LONE_VISIBLE` shows (a card
    lying alone, as a seat's single card or a joker put down on its own) and all of which lies
    in the picture: its identity and its face's four corners in output px (4 × 2, in the
    face's order)."""
    for i, p in enumerate(placed):
        if p.face is None or p.face.whole_face:
            continue
        fh, fw = p.face.image.shape[:2]
        quad = rect_quad(0, 0, fw, fh)
        if _visible_box(p.matrix, quad, i + 1, LONE_VISIBLE, idmap, hom, size, imgsz) is None:
            continue
        corners = cv2.perspectiveTransform(cv2.transform(quad[None], p.matrix), hom)[0]
        corners *= imgsz / size
        if corners.min() >= 0 and corners.max() <= imgsz:  # all of it in the picture
            yield p.face.identity, corners


def _shown_points(
    matrix: np.ndarray,
    quad: np.ndarray,
    card_id: int,
    idmap: np.ndarray,
    hom: np.ndarray,
    size: int,
    imgsz: int,
) -> tuple[np.ndarray, int]:
    """The output-image points of the part of ``quad`` (face pixels) that shows on card
    ``card_id`` of the id map and inside the picture, and how many canvas pixels ``quad``
    covers in all (the share that shows is ``len(points) / total``)."""
    none = np.zeros((0, 2), np.float32)
    cq = cv2.transform(quad[None], matrix)[0]
    x0, y0 = np.floor(cq.min(0)).astype(int)
    x1, y1 = np.ceil(cq.max(0)).astype(int) + 1
    if x1 - x0 < 2 or y1 - y0 < 2:
        return none, 0
    qmask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(qmask, (cq - (x0, y0)).round().astype(np.int32), 1)
    total = int(qmask.sum())
    cx0, cy0, cx1, cy1 = max(0, x0), max(0, y0), min(size, x1), min(size, y1)
    if total == 0 or cx0 >= cx1 or cy0 >= cy1:
        return none, total
    sub = qmask[cy0 - y0 : cy1 - y0, cx0 - x0 : cx1 - x0]
    vis = (sub > 0) & (idmap[cy0:cy1, cx0:cx1] == card_id)
    ys, xs = np.nonzero(vis)
    pts = np.stack([xs + cx0 + 0.5, ys + cy0 + 0.5], 1).astype(np.float32)
    if not len(pts):
        return none, total
    pts = cv2.perspectiveTransform(pts[None], hom)[0] / 2.0
    inside = (pts[:, 0] >= 0) & (pts[:, 0] < imgsz) & (pts[:, 1] >= 0) & (pts[:, 1] < imgsz)
    return pts[inside], total


def _visible_box(
    matrix: np.ndarray,
    quad: np.ndarray,
    card_id: int,
    need: float,
    idmap: np.ndarray,
    hom: np.ndarray,
    size: int,
    imgsz: int,
) -> Box | None:
    """The output-image box of the part of ``quad`` (face pixels) that shows on card
    ``card_id`` of the id map, or ``None`` when less than ``need`` of it shows or the box is
    under :data:`MIN_BOX_PX`."""
    pts, total = _shown_points(matrix, quad, card_id, idmap, hom, size, imgsz)
    if total == 0 or not len(pts) or len(pts) < need * total:
        return None
    bx0, by0 = np.clip(pts.min(0) - 0.5, 0, imgsz)
    bx1, by1 = np.clip(pts.max(0) + 0.5, 0, imgsz)
    if bx1 - bx0 < MIN_BOX_PX or by1 - by0 < MIN_BOX_PX:
        return None
    return float(bx0), float(by0), float(bx1), float(by1)


def _halves_shown(quad: np.ndarray, shown: Callable[[np.ndarray], tuple[np.ndarray, int]]) -> float:
    """The smaller share that shows of ``quad``'s two halves along the face's long side: of a
    corner index, its rank's and its suit's (``shown``: :func:`_shown_points` of a quad)."""
    (x0, y0), (x1, y1) = quad.min(0), quad.max(0)
    mid = (y0 + y1) / 2
    shares = []
    for half in (rect_quad(x0, y0, x1, mid), rect_quad(x0, mid, x1, y1)):
        pts, total = shown(half)
        shares.append(len(pts) / total if total else 0.0)
    return min(shares)


# --------------------------------------------------------------------------- dataset files


def progress(n: int, desc: str) -> Iterable[int]:
    try:
        from tqdm import tqdm
    except ImportError:

        def simple() -> Iterator[int]:
            for i in range(n):
                if i % 100 == 0 or i == n - 1:
                    print(f"{desc}: {i + 1}/{n}", flush=True)
                yield i

        return simple()
    bar: Iterable[int] = tqdm(range(n), desc=desc, unit="img")
    return bar


def progress_bar(n: int, desc: str) -> Callable[[int], None]:
    """A bar over ``n`` items; the function returned moves it on by a number of them (and
    closes it at ``n``)."""
    items = iter(progress(n, desc))
    done = 0

    def advance(k: int) -> None:
        nonlocal done
        for _ in range(k):
            next(items, None)
        done += k
        if done >= n:
            next(items, None)  # the end of the iteration closes the bar

    return advance


def write_data_yaml(out: Path) -> None:
    """``out/data.yaml`` (ultralytics) and ``out/classes.txt`` for the dataset in ``out``."""
    out = out.resolve()
    val = "images/val" if (out / "images" / "val").is_dir() else "images/train"
    lines = [
        f"path: {out}",
        "train: images/train",
        f"val: {val}",
        f"nc: {len(CLASS_NAMES)}",
        "names:",
    ]
    lines += [f"  {i}: '{name}'" for i, name in enumerate(CLASS_NAMES)]
    (out / "data.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (out / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n", encoding="utf-8")


@dataclass(frozen=True)
class _SceneRecipe:
    """What every chunk of one :func:`synthesize` run draws (see its arguments)."""

    out: Path
    seed: int
    designs: tuple[str, ...]
    imgsz: int
    split: str
    small_share: float
    joker_share: float
    square_bowls: float


SCENE_CHUNK = 25
"""Scenes one worker renders at a time."""


def _write_scenes(job: tuple[int, int, _SceneRecipe]) -> int:
    """Render and write scenes ``start`` … ``stop - 1`` of a recipe; returns how many."""
    start, stop, r = job
    img_dir, lbl_dir = r.out / "images" / r.split, r.out / "labels" / r.split
    hidden_dir = r.out / HIDDEN_DIR / r.split
    for i in range(start, stop):
        rng = np.random.default_rng(r.seed * 1_000_003 + i)
        hidden: list[tuple[int, float, float, float, float]] = []
        img, boxes = render_scene(
            rng,
            r.designs,
            r.imgsz,
            r.seed,
            r.small_share,
            r.joker_share,
            r.square_bowls,
            hidden=hidden,
        )
        quality = int(rng.integers(40, 96))
        bgr = cv2.cvtColor(img, cv2.COLOR_RGB2BGR)
        name = scene_name(r.seed, i)
        cv2.imwrite(str(img_dir / f"{name}.jpg"), bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (lbl_dir / f"{name}.txt").write_text(yolo_lines(boxes, r.imgsz))
        (hidden_dir / f"{name}.txt").write_text(yolo_lines(hidden, r.imgsz))
    return stop - start


def yolo_lines(boxes: Iterable[tuple[int, float, float, float, float]], size: int) -> str:
    """Pixel boxes ``(cls, x0, y0, x1, y1)`` of a ``size`` square image as YOLO label lines."""
    return "".join(
        f"{c} {(x0 + x1) / 2 / size:.6f} {(y0 + y1) / 2 / size:.6f} "
        f"{(x1 - x0) / size:.6f} {(y1 - y0) / size:.6f}\n"
        for c, x0, y0, x1, y1 in boxes
    )


def synthesize(
    n: int,
    out: Path,
    seed: int,
    designs: Sequence[str],
    imgsz: int = 320,
    split: str = "train",
    small_share: float = SMALL_SHARE,
    joker_share: float = JOKER_SHARE,
    square_bowls: float = SQUARE_BOWLS,
    workers: int = 1,
) -> None:
    """Write ``n`` synthetic scenes as ``out/images/<split>/sSEED_NNNNNN.jpg`` + YOLO labels
    (``small_share``, ``joker_share``, ``square_bowls``: see :func:`render_scene`);
    ``workers`` processes share the scenes, which come out the same for any number."""
    if not 0.0 <= small_share <= 1.0:
        raise ValueError(f"small-card share {small_share} must lie in 0…1")
    if not 0.0 <= joker_share <= 1.0:
        raise ValueError(f"joker share {joker_share} must lie in 0…1")
    if not 0.0 <= square_bowls <= 1.0:
        raise ValueError(f"square-bowl share {square_bowls} must lie in 0…1")
    if not designs:
        raise ValueError("no designs: give procedural, a built-in deck or a deck folder")
    for design in designs:
        check_design(design)
    out = Path(out)
    (out / "images" / split).mkdir(parents=True, exist_ok=True)
    (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    (out / HIDDEN_DIR / split).mkdir(parents=True, exist_ok=True)
    recipe = _SceneRecipe(
        out, seed, tuple(designs), imgsz, split, small_share, joker_share, square_bowls
    )
    jobs = [(s, min(s + SCENE_CHUNK, n), recipe) for s in range(0, n, SCENE_CHUNK)]
    bar = progress_bar(n, f"synth {split}")
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            bar(_write_scenes(job))
    else:
        with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
            for written in pool.imap_unordered(_write_scenes, jobs):
                bar(written)
    write_data_yaml(out)


def draw_labels(image_path: Path, label_path: Path, out_path: Path, scale: int = 2) -> None:
    """Draw an image's YOLO labels (box + class name) into a picture for review."""
    img = cv2.imread(str(image_path))
    if img is None:
        raise FileNotFoundError(image_path)
    h, w = img.shape[:2]
    img = cv2.resize(img, (w * scale, h * scale), interpolation=cv2.INTER_NEAREST)
    text = Path(label_path).read_text() if Path(label_path).exists() else ""
    for line in text.splitlines():
        c, cx, cy, bw, bh = line.split()
        x0 = (float(cx) - float(bw) / 2) * w * scale
        y0 = (float(cy) - float(bh) / 2) * h * scale
        x1, y1 = x0 + float(bw) * w * scale, y0 + float(bh) * h * scale
        cv2.rectangle(img, (round(x0), round(y0)), (round(x1), round(y1)), (0, 255, 0), 1)
        cv2.putText(
            img,
            CLASS_NAMES[int(c)],
            (round(x0), max(10, round(y0) - 2)),
            cv2.FONT_HERSHEY_SIMPLEX,
            0.4,
            (0, 255, 255),
            1,
            cv2.LINE_AA,
        )
    Path(out_path).parent.mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out_path), img)
