"""Parametric single-stroke lettering for procedural card indices.

This module owns :class:`StrokeFont`: the corner-index glyphs (``2``–``9``, ``10``, ``J``,
``Q``, ``K``, ``A`` and the letters of "JOKER") drawn as polylines with a pen, each glyph in one
of its common printed shapes. Card decks differ exactly there: a flat-topped or a round ``3``, an
open or a closed ``4``, a ``1`` with or without a flag and foot, a pointed, flat or arched ``A``,
a ``Q`` whose tail crosses the bowl or hangs below it; many decks print them with a thin pen in a
condensed width (the held-out design's look). The TrueType and Hershey fonts of
:mod:`vision.synth.faces` each fix one shape per glyph; a stroke font draws a random mix, with any
pen
weight, width and slant, so the classifier learns what makes a rank a rank, not one typeface.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import cv2
import numpy as np

Stroke = list[tuple[float, float]]
"""A polyline in glyph units: x from 0 (left) to 1 (right), y from 0 (top) to 1 (bottom)."""

DRAW_H = 96
"""Height in pixels at which glyphs are drawn before :func:`vision.synth.faces.text_mask` scales."""


def arc(cx: float, cy: float, rx: float, ry: float, start: float, end: float) -> Stroke:
    """Points of an elliptic arc; angles in degrees, 0 = right, 90 = down (image axes)."""
    steps = max(4, int(abs(end - start) / 10))
    return [
        (cx + rx * math.cos(math.radians(a)), cy + ry * math.sin(math.radians(a)))
        for a in np.linspace(start, end, steps + 1)
    ]


def bowl(cx: float, cy: float, rx: float, ry: float, squareness: float = 2.0) -> Stroke:
    """A closed bowl: an ellipse (``squareness`` 2) or, above 2, a superellipse whose sides run
    straight and whose ends stay round — the tall "0" and "Q" of condensed lettering."""
    if squareness == 2.0:
        return arc(cx, cy, rx, ry, 0, 360)
    e = 2.0 / squareness
    return [
        (
            cx + rx * math.copysign(abs(math.cos(t)) ** e, math.cos(t)),
            cy + ry * math.copysign(abs(math.sin(t)) ** e, math.sin(t)),
        )
        for t in np.linspace(0, 2 * math.pi, 73)
    ]


def _turned(strokes: list[Stroke]) -> list[Stroke]:
    """The glyph turned 180° (a 9 is a turned 6)."""
    return [[(1 - x, 1 - y) for x, y in s] for s in strokes]


def _two(v: int) -> list[Stroke]:
    neck = (0.02, 1.0) if v == 0 else (0.1, 0.88)
    tail = arc(0.5, 0.3, 0.45, 0.3, 195, 385 if v == 0 else 405)
    return [[*tail, neck, (0.02, 1.0), (1.0, 1.0)]]


def _three(v: int) -> list[Stroke]:
    lower = arc(0.5, 0.72, 0.47, 0.28, 265 if v == 0 else 240, 520)
    if v == 0:  # round top: two bowls
        return [[*arc(0.5, 0.26, 0.42, 0.26, 200, 450), *lower]]
    return [[(0.05, 0.0), (0.92, 0.0), (0.42, 0.42), *lower]]  # flat top, like a 5's


def _four(v: int) -> list[Stroke]:
    if v == 0:  # closed
        return [[(0.72, 1.0), (0.72, 0.0), (0.0, 0.7), (1.0, 0.7)]]
    return [[(0.15, 0.0), (0.05, 0.68), (1.0, 0.68)], [(0.72, 0.25), (0.72, 1.0)]]  # open


def _five(v: int) -> list[Stroke]:
    top = [(0.9, 0.0), (0.18, 0.0), (0.12, 0.45)]
    bowl = arc(0.48, 0.7, 0.46, 0.3, 215 if v == 0 else 235, 515)
    return [[*top, *bowl]]


def _six(v: int) -> list[Stroke]:
    bowl = arc(0.5, 0.71, 0.45, 0.29, 0, 360)
    if v == 0:  # curved stem
        return [arc(0.55, 0.6, 0.47, 0.6, 290, 170), bowl]
    return [[(0.78, 0.0), (0.09, 0.63)], bowl]  # straight stem


def _seven(v: int) -> list[Stroke]:
    if v == 0:
        return [[(0.0, 0.0), (1.0, 0.0), (0.32, 1.0)]]
    return [[(0.0, 0.14), (0.0, 0.0), (1.0, 0.0), (0.4, 1.0)], [(0.35, 0.52), (0.85, 0.52)]]


def _eight(v: int) -> list[Stroke]:
    top_r = 0.38 if v == 0 else 0.43
    return [arc(0.5, 0.25, top_r, 0.25, 0, 360), arc(0.5, 0.72, 0.47, 0.28, 0, 360)]


def _ten(v: int, squareness: float = 2.0) -> list[Stroke]:
    # Drawn in a box twice as wide as a digit, then squeezed by the width table.
    one: Stroke = [(0.16, 0.0), (0.16, 1.0)]
    strokes = [one]
    if v >= 1:
        strokes = [[(0.04, 0.18), (0.16, 0.0), (0.16, 1.0)]]
    if v == 2:
        strokes.append([(0.04, 1.0), (0.28, 1.0)])
    return [*strokes, bowl(0.68, 0.5, 0.28, 0.5, squareness)]


def _jack(v: int) -> list[Stroke]:
    hook = [(0.72, 0.0), (0.72, 0.72), *arc(0.42, 0.72, 0.3, 0.28, 0, 180)]
    return [hook, [(0.35, 0.0), (1.0, 0.0)]] if v == 1 else [hook]


def _queen(v: int, squareness: float = 2.0) -> list[Stroke]:
    tails = ([(0.55, 0.68), (1.0, 1.0)], [(0.3, 0.86), (1.0, 1.0)], [(0.5, 0.84), (0.7, 1.0)])
    return [bowl(0.5, 0.45, 0.48, 0.45, squareness), tails[v]]


def _king(v: int) -> list[Stroke]:
    stem = [(0.0, 0.0), (0.0, 1.0)]
    if v == 0:
        return [stem, [(1.0, 0.0), (0.0, 0.62)], [(0.33, 0.42), (1.0, 1.0)]]
    return [stem, [(1.0, 0.0), (0.0, 0.52), (1.0, 1.0)]]


def _ace(v: int) -> list[Stroke]:
    if v == 0:  # pointed
        return [[(0.0, 1.0), (0.5, 0.0), (1.0, 1.0)], [(0.19, 0.62), (0.81, 0.62)]]
    if v == 1:  # flat apex
        return [[(0.0, 1.0), (0.36, 0.0), (0.64, 0.0), (1.0, 1.0)], [(0.17, 0.6), (0.83, 0.6)]]
    arch = [(0.02, 1.0), *arc(0.5, 0.42, 0.48, 0.42, 180, 360), (0.98, 1.0)]
    return [arch, [(0.02, 0.58), (0.98, 0.58)]]


def _letter_o(v: int, squareness: float = 2.0) -> list[Stroke]:
    return [bowl(0.5, 0.5, 0.5, 0.5, squareness)]


def _letter_i(v: int) -> list[Stroke]:
    return [[(0.5, 0.0), (0.5, 1.0)]] if v == 0 else [[(0.5, 0.0), (0.5, 1.0)], [(0, 0), (1, 0)]]


def _letter_e(v: int) -> list[Stroke]:
    return [[(1.0, 0.0), (0.0, 0.0), (0.0, 1.0), (1.0, 1.0)], [(0.0, 0.5), (0.8, 0.5)]]


def _letter_r(v: int) -> list[Stroke]:
    bowl = [(0.0, 1.0), (0.0, 0.0), *arc(0.5, 0.27, 0.45, 0.27, 270, 450), (0.0, 0.54)]
    return [bowl, [(0.4, 0.54), (1.0, 1.0)]]


BOWLED = frozenset({"10", "Q", "O"})
"""Glyphs drawn around a closed bowl, which a font may square (``StrokeFont.squareness``)."""

GLYPHS: dict[str, tuple[int, float, Callable[..., list[Stroke]]]] = {
    # character: (number of variants, width ÷ height, strokes of variant v)
    "2": (2, 0.6, _two),
    "3": (2, 0.58, _three),
    "4": (2, 0.64, _four),
    "5": (2, 0.58, _five),
    "6": (2, 0.6, _six),
    "7": (2, 0.58, _seven),
    "8": (2, 0.6, _eight),
    "9": (2, 0.6, lambda v: _turned(_six(v))),
    "10": (3, 1.05, _ten),
    "J": (2, 0.5, _jack),
    "Q": (3, 0.72, _queen),
    "K": (2, 0.66, _king),
    "A": (3, 0.74, _ace),
    "O": (1, 0.72, _letter_o),
    "I": (2, 0.3, _letter_i),
    "E": (1, 0.55, _letter_e),
    "R": (1, 0.6, _letter_r),
}


def _serifs(strokes: list[Stroke]) -> list[Stroke]:
    """Short bars across the ends of upright strokes that touch the top or the foot."""
    bars = []
    for stroke in strokes:
        for end, before in ((stroke[0], stroke[1]), (stroke[-1], stroke[-2])):
            x, y = end
            upright = abs(y - before[1]) > abs(x - before[0])
            if upright and (y < 0.02 or y > 0.98):
                bars.append([(x - 0.14, y), (x + 0.14, y)])
    return bars


@dataclass(frozen=True)
class StrokeFont:
    """One deck's stroke lettering: a shape per glyph, a pen weight, a width and a slant."""

    variants: tuple[tuple[str, int], ...]
    weight: float  # pen width, fraction of the glyph height (0.03 hairline … 0.14 bold)
    width: float  # width scale of every glyph (condensed < 1 < wide)
    slant: float  # horizontal shift of the top against the bottom, fraction of the height
    serifs: bool = False  # short bars across the ends of upright strokes at the top and foot
    squareness: float = 2.0
    """The bowls of 0, Q and O: 2 ellipses; above 2 straight-sided (condensed lettering)."""

    @staticmethod
    def random(rng: np.random.Generator, square_bowls: float = 0.0) -> StrokeFont:
        """A random stroke font; ``square_bowls`` of them square their bowls (0 draws no extra
        random number, so older recipes make the same fonts)."""
        variants = tuple((ch, int(rng.integers(n))) for ch, (n, _, _) in GLYPHS.items())
        weight = float(rng.uniform(0.03, 0.09) if rng.random() < 0.6 else rng.uniform(0.09, 0.14))
        slant = float(rng.uniform(0.05, 0.2)) if rng.random() < 0.2 else 0.0
        serifs = bool(rng.random() < 0.3)
        width = float(rng.uniform(0.65, 1.15))
        squareness = 2.0
        if square_bowls and rng.random() < square_bowls:
            squareness = float(rng.uniform(3.0, 8.0))
        return StrokeFont(variants, weight, width, slant, serifs, squareness)

    def draws(self, text: str) -> bool:
        """Whether every glyph of ``text`` is in the stroke alphabet."""
        return text in GLYPHS or all(ch in GLYPHS for ch in text)

    def render(self, text: str) -> np.ndarray:
        """``text`` drawn white on black, uint8, :data:`DRAW_H` pixels for a glyph's height."""
        chars = [text] if text in GLYPHS else list(text)
        pen = max(1, round(self.weight * DRAW_H))
        pad = pen + 2
        shift = self.slant * DRAW_H
        widths = [GLYPHS[ch][1] * self.width * DRAW_H for ch in chars]
        gap = 0.12 * DRAW_H
        total = sum(widths) + gap * (len(chars) - 1) + shift
        canvas = np.zeros((DRAW_H + 2 * pad, round(total) + 2 * pad), np.uint8)
        chosen = dict(self.variants)
        x = float(pad)
        for ch, w in zip(chars, widths, strict=True):
            _, _, strokes_of = GLYPHS[ch]
            inner_h = DRAW_H - pen  # the pen's half width stays inside the glyph box
            v = chosen.get(ch, 0)
            strokes = strokes_of(v, self.squareness) if ch in BOWLED else strokes_of(v)
            for stroke in [*strokes, *(_serifs(strokes) if self.serifs else [])]:
                left, top = x + pen / 2, pad + pen / 2
                pts = np.array(
                    [
                        (left + px * (w - pen) + (1 - py) * shift, top + py * inner_h)
                        for px, py in stroke
                    ],
                    np.float32,
                )
                cv2.polylines(
                    canvas, [np.round(pts * 16).astype(np.int32)], False, 255, pen, cv2.LINE_AA, 4
                )
            x += w + gap
        return canvas
