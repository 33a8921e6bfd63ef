"""Procedural decks: paper tints, 2- or 4-colour suits, pips or simple court art, a maker's
lettering and often an ornate spade on the ace of spades, any of the fonts of
:mod:`vision.synth.lettering`, jokers with a corner mark (mostly the Chinese-style vertical
"JOKER" lettering, else the word across the corner or a star, :func:`joker_mark`) or, in a
quarter of the decks, picture-only jokers labelled whole; in two decks of five the jokers'
picture fills the face (:func:`joker_full_bleed`) — so that the detector does not learn
one deck's look. A :class:`ProceduralStyle` fixes one deck's look; :func:`render_procedural`
draws one identity in it. Card backs (:func:`make_back`) are face-down distractors, and
:func:`make_face` draws a face of any design.
"""

from __future__ import annotations

import functools
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import SupportsFloat, SupportsInt

import cv2
import numpy as np

from vision.classes import CLASS_NAMES
from vision.synth.faces import (
    CARD_ASPECT,
    FACE_H,
    PROCEDURAL,
    CardFace,
    load_art_backs,
    load_art_face,
    pad_box,
    rot180,
)
from vision.synth.lettering import (
    HERSHEY,
    STROKE_FONT_SHARE,
    Font,
    font_paths,
    paste,
    suit_mask,
    text_mask,
)
from vision.synth.stroke_font import StrokeFont


@dataclass(frozen=True)
class ProceduralStyle:
    """Everything that makes one procedural deck look like itself."""

    paper: tuple[int, int, int]
    border: tuple[int, int, int] | None
    radius: float  # corner radius, fraction of width
    font: Font
    squeeze: float
    rank_h: float  # rank glyph height, fraction of card height
    suit_ratio: float  # small suit height / rank height (an 80分 deck always prints the suit)
    margin_x: float  # index left margin, fraction of width
    margin_y: float  # index top margin, fraction of height
    ten_style: int  # 0: "10", 1: narrow "10", 2: "IO"-like
    colors: dict[str, tuple[int, int, int]]
    suit_shape: tuple[float, float, float, float]
    suit_font: str | None  # draw suit glyphs from this font's ♠♥♦♣ instead of suit_shape
    pips: bool  # number cards show pips (else one large centre suit)
    court_colors: tuple[tuple[int, int, int], ...]
    joker_colors: tuple[tuple[int, int, int], ...]
    thickness: int
    joker_index: bool = True  # False: picture-only jokers (no corner index; labelled whole)
    suit_gap: float = 0.125  # space between the index's rank and suit, fraction of rank height


SUIT_GLYPHS = {"S": "\u2660", "H": "\u2665", "D": "\u2666", "C": "\u2663"}


@functools.lru_cache(maxsize=1)
def suit_fonts() -> tuple[str, ...]:
    """The TrueType fonts among :func:`font_paths` that draw all four suit glyphs."""
    from PIL import ImageFont

    found = []
    for path in font_paths():
        font = ImageFont.truetype(path, 32)
        # A font without a glyph draws its "missing" box, the same for all four suits.
        shapes = {font.getmask(g).getbbox() for g in SUIT_GLYPHS.values()}
        if len(shapes) >= 3:
            found.append(path)
    return tuple(found)


def _suit_font(rng: np.random.Generator) -> str | None:
    fonts = suit_fonts()
    if not fonts or rng.random() < 0.6:
        return None
    return fonts[int(rng.integers(len(fonts)))]


def styled_suit_mask(style: ProceduralStyle, suit: str, w: int, h: int) -> np.ndarray:
    """The style's suit glyph, ``w × h``: a font's glyph or the procedural shape."""
    if style.suit_font is None:
        return suit_mask(suit, style.suit_shape, w, h)
    glyph = text_mask(SUIT_GLYPHS[suit], style.suit_font, h)
    return cv2.resize(glyph, (w, h), interpolation=cv2.INTER_AREA)


def _rgb(values: Iterable[SupportsInt]) -> tuple[int, int, int]:
    """Exactly three values as an ``(r, g, b)`` tuple of ints."""
    r, g, b = (int(v) for v in values)
    return r, g, b


FOUR_COLOUR_CONVENTIONS = (
    {"S": "black", "D": "blue", "C": "green"},  # the poker deck's
    {"S": "green", "D": "yellow", "C": "black"},  # the German bridge deck's
    {"S": "blue", "D": "yellow", "C": "green"},
)
"""Which suit takes which ink in a 4-colour deck (hearts stay red): printed decks disagree, so
a suit's colour never tells it and the classifier learns the shapes."""


def _four_colours(
    rng: np.random.Generator, black: tuple[int, int, int]
) -> dict[str, tuple[int, int, int]]:
    """The inks of spades, diamonds and clubs in a 4-colour deck of a random convention."""
    inks = {
        "black": black,
        "blue": (20, 60, int(rng.integers(160, 220))),
        "green": (20, int(rng.integers(110, 150)), 40),
        "yellow": (int(rng.integers(220, 245)), int(rng.integers(120, 175)), 20),
    }
    convention = FOUR_COLOUR_CONVENTIONS[int(rng.integers(len(FOUR_COLOUR_CONVENTIONS)))]
    return {suit: inks[ink] for suit, ink in convention.items()}


def _four(values: Iterable[SupportsFloat]) -> tuple[float, float, float, float]:
    """Exactly four values as a tuple of floats."""
    a, b, c, d = (float(v) for v in values)
    return a, b, c, d


def random_style(rng: np.random.Generator, square_bowls: float = 0.0) -> ProceduralStyle:
    """A random procedural deck style; ``square_bowls``: see :meth:`StrokeFont.random`."""
    paper_kind = rng.integers(4)
    base = [(250, 250, 248), (248, 242, 225), (240, 245, 252), (232, 232, 232)][paper_kind]
    paper = _rgb(np.clip(c + rng.integers(-8, 6), 0, 255) for c in base)
    fonts: list[str | int] = [*font_paths(), *HERSHEY]
    font: Font = fonts[int(rng.integers(len(fonts)))]
    if rng.random() < STROKE_FONT_SHARE:
        font = StrokeFont.random(rng, square_bowls)
    red = (int(rng.integers(190, 236)), int(rng.integers(0, 52)), int(rng.integers(0, 52)))
    black = _rgb(rng.integers(0, 45, 3))
    four_colour = rng.random() < 0.2
    colors = {"H": red, "D": red, "S": black, "C": black}
    if four_colour:
        colors |= _four_colours(rng, black)
    court = tuple(_rgb(rng.integers(0, 256, 3)) for _ in range(4))
    jok = (red, (230, 180, 20), (30, 90, 200), (40, 150, 60)) if rng.random() < 0.6 else (red,)
    return ProceduralStyle(
        paper=paper,
        border=None if rng.random() < 0.5 else _rgb(rng.integers(120, 210, 3)),
        radius=float(rng.uniform(0.03, 0.1)),
        font=font,
        squeeze=float(rng.uniform(0.7, 1.25)),
        rank_h=float(rng.uniform(0.08, 0.14)),
        suit_ratio=float(rng.uniform(0.55, 0.95)),
        margin_x=float(rng.uniform(0.03, 0.09)),
        margin_y=float(rng.uniform(0.025, 0.07)),
        ten_style=int(rng.choice(3, p=[0.6, 0.25, 0.15])),
        colors=colors,
        suit_shape=_four(rng.random(4)),
        suit_font=_suit_font(rng),
        pips=bool(rng.random() < 0.8),
        court_colors=court,
        joker_colors=jok,
        thickness=int(rng.integers(1, 4)),
        joker_index=bool(rng.random() >= 0.25),
        suit_gap=float(rng.uniform(0.05, 0.6)),
    )


_PIPS: dict[str, list[tuple[float, float]]] = {
    "2": [(0.5, 0.0), (0.5, 1.0)],
    "3": [(0.5, 0.0), (0.5, 0.5), (0.5, 1.0)],
    "4": [(0, 0), (1, 0), (0, 1), (1, 1)],
    "5": [(0, 0), (1, 0), (0.5, 0.5), (0, 1), (1, 1)],
    "6": [(0, 0), (1, 0), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "7": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0, 1), (1, 1)],
    "8": [(0, 0), (1, 0), (0.5, 0.25), (0, 0.5), (1, 0.5), (0.5, 0.75), (0, 1), (1, 1)],
    "9": [
        (0, 0),
        (1, 0),
        (0, 1 / 3),
        (1, 1 / 3),
        (0.5, 0.5),
        (0, 2 / 3),
        (1, 2 / 3),
        (0, 1),
        (1, 1),
    ],
    "10": [
        (0, 0),
        (1, 0),
        (0.5, 1 / 6),
        (0, 1 / 3),
        (1, 1 / 3),
        (0, 2 / 3),
        (1, 2 / 3),
        (0.5, 5 / 6),
        (0, 1),
        (1, 1),
    ],
}


def _rank_mask(style: ProceduralStyle, rank: str, h: int) -> np.ndarray:
    if rank == "10" and style.ten_style == 1:
        return text_mask("10", style.font, h, style.squeeze * 0.6, style.thickness)
    if rank == "10" and style.ten_style == 2:
        one = text_mask("I", style.font, h, 0.8, style.thickness)
        zero = text_mask("O", style.font, h, style.squeeze * 0.55, style.thickness)
        gap = np.zeros((h, max(1, h // 12)), np.float32)
        return np.hstack([one, gap, zero])
    return text_mask(rank, style.font, h, style.squeeze, style.thickness)


def _rounded_alpha(w: int, h: int, r: int) -> np.ndarray:
    ss = 2
    a = np.zeros((h * ss, w * ss), np.uint8)
    R = r * ss
    cv2.rectangle(a, (R, 0), (w * ss - 1 - R, h * ss - 1), 255, -1)
    cv2.rectangle(a, (0, R), (w * ss - 1, h * ss - 1 - R), 255, -1)
    for cx, cy in (
        (R, R),
        (w * ss - 1 - R, R),
        (R, h * ss - 1 - R),
        (w * ss - 1 - R, h * ss - 1 - R),
    ):
        cv2.circle(a, (cx, cy), R, 255, -1, cv2.LINE_AA)
    return cv2.resize(a, (w, h), interpolation=cv2.INTER_AREA)


def _blank(style: ProceduralStyle, w: int, h: int) -> np.ndarray:
    img = np.empty((h, w, 4), np.uint8)
    img[..., :3] = style.paper
    img[..., 3] = _rounded_alpha(w, h, max(2, round(style.radius * w)))
    if style.border is not None:
        r = max(2, round(style.radius * w))
        t = max(1, h // 200)
        cv2.rectangle(
            img, (t + r // 2, t), (w - 1 - t - r // 2, h - 1 - t), (*style.border, 255), t
        )
        cv2.rectangle(
            img, (t, t + r // 2), (w - 1 - t, h - 1 - t - r // 2), (*style.border, 255), t
        )
        img[..., :3][:r, :r] = style.paper
        img[..., :3][:r, -r:] = style.paper
        img[..., :3][-r:, :r] = style.paper
        img[..., :3][-r:, -r:] = style.paper
    return img


def _draw_centre(
    img: np.ndarray, style: ProceduralStyle, identity: str, rng: np.random.Generator
) -> None:
    h, w = img.shape[:2]
    rank, suit = identity[:-1], identity[-1]
    col = style.colors.get(suit, (0, 0, 0))
    if rank in _PIPS and style.pips:
        ps = round(h * 0.1)
        x0, x1, y0, y1 = 0.3 * w, 0.7 * w, 0.2 * h, 0.8 * h
        pm = styled_suit_mask(style, suit, round(ps * 0.85), ps)
        for fx, fy in _PIPS[rank]:
            cx, cy = x0 + fx * (x1 - x0), y0 + fy * (y1 - y0)
            m = pm if fy <= 0.5 else pm[::-1, ::-1]
            paste(img, m, round(cx - m.shape[1] / 2), round(cy - m.shape[0] / 2), col)
    elif rank in _PIPS or rank == "A":
        ps = round(h * (0.35 if rank == "A" else 0.25))
        m = styled_suit_mask(style, suit, round(ps * 0.85), ps)
        paste(img, m, (w - m.shape[1]) // 2, (h - m.shape[0]) // 2, col)
    else:  # court card: a framed panel with blobs and a big letter
        fx0, fy0 = round(0.2 * w), round(0.16 * h)
        fx1, fy1 = w - fx0, h - fy0
        panel = np.empty((fy1 - fy0, fx1 - fx0, 3), np.uint8)
        # Most printed court cards draw their figure on white: the panel is often the paper.
        panel[:] = style.paper if rng.random() < 0.5 else style.court_colors[0]
        ph, pw = panel.shape[:2]
        for i in range(int(rng.integers(3, 8))):
            c = style.court_colors[1 + i % 3]
            center = (int(rng.integers(0, pw)), int(rng.integers(0, ph)))
            axes = (int(rng.integers(pw // 8, pw // 2)), int(rng.integers(ph // 10, ph // 3)))
            cv2.ellipse(panel, center, axes, float(rng.uniform(0, 180)), 0, 360, c, -1, cv2.LINE_AA)
        img[fy0:fy1, fx0:fx1, :3] = panel
        cv2.rectangle(img, (fx0, fy0), (fx1, fy1), (*col, 255), max(1, h // 150))
        letter = text_mask(rank, style.font, round(ph * 0.35), style.squeeze, style.thickness)
        paste(img, letter, (w - letter.shape[1]) // 2, (h - letter.shape[0]) // 2, col)
        if rng.random() < 0.6:
            # A big suit pip in the frame's corners, right beside the index, as on most decks
            # (the index must be read next to it).
            ps = round(h * float(rng.uniform(0.08, 0.13)))
            pip = styled_suit_mask(style, suit, round(ps * 0.85), ps)
            gap = max(1, h // 100)
            paste(img, pip, fx0 + gap, fy0 + gap, col)
            paste(img, pip[::-1, ::-1], fx1 - gap - pip.shape[1], fy1 - gap - pip.shape[0], col)


ORNATE_ACE_SHARE = 0.5
"""Share of procedural aces of spades whose big spade is ornate (:func:`_draw_ornate_spade`)."""
MAKER_LETTERING_SHARE = 0.7
"""Share of procedural aces of spades with a maker's lettering (:func:`_draw_maker_lettering`)."""
COURT_SMALL_PRINT_SHARE = 0.2
"""Share of procedural court cards that carry a line of small print under their panel."""
MAKER_TEXT_SPAN = (0.28, 0.72)
"""The columns (fractions of the width) maker lettering stays within: clear of both indices."""


def _maker_word(rng: np.random.Generator) -> str:
    """A made-up maker's name: 4–9 letters, upper or title case, never a joker's lettering."""
    while True:
        letters = "".join(str(c) for c in rng.choice(list("ABCDEFGHIKLMNOPRSTUVWY"), 9))
        word = letters[: int(rng.integers(4, 10))]
        if "JOKER" not in word:
            return word if rng.random() < 0.5 else word.capitalize()


def _text_line(
    img: np.ndarray, text: str, font: Font, height: int, centre_y: float, ink: tuple[int, ...]
) -> None:
    """``text`` centred across the card at ``centre_y`` (px), shrunk to fit
    :data:`MAKER_TEXT_SPAN`."""
    w = img.shape[1]
    mask = text_mask(text, font, max(3, height))
    widest = (MAKER_TEXT_SPAN[1] - MAKER_TEXT_SPAN[0]) * w
    if mask.shape[1] > widest:
        scale = widest / mask.shape[1]
        size = (max(1, int(widest)), max(2, round(mask.shape[0] * scale)))
        mask = cv2.resize(mask, size, interpolation=cv2.INTER_AREA)
    paste(img, mask, (w - mask.shape[1]) // 2, round(centre_y - mask.shape[0] / 2), ink)


def _draw_maker_lettering(
    img: np.ndarray, style: ProceduralStyle, rng: np.random.Generator, small_print_only: bool
) -> None:
    """A maker's name under (or over) the ace of spades' big spade and a line or two of small
    print, as nearly every printed deck carries (a Bicycle ace reads "Bicycle" and its maker's
    address): lettering no corner index shows, which the localiser must leave unboxed and the
    classifier read as ``none``. A court card gets the small print only, under its panel."""
    h = img.shape[0]
    fonts: list[Font] = [*font_paths(), *HERSHEY]
    ink = (*(style.colors["S"] if rng.random() < 0.6 else _rgb(rng.integers(0, 90, 3))), 255)
    if not small_print_only:
        font = fonts[int(rng.integers(len(fonts)))]
        below = rng.random() < 0.75
        centre = h * (float(rng.uniform(0.71, 0.75)) if below else float(rng.uniform(0.25, 0.29)))
        _text_line(img, _maker_word(rng), font, round(h * rng.uniform(0.035, 0.06)), centre, ink)
    lines = int(rng.integers(1, 3))
    small = round(h * float(rng.uniform(0.014, 0.022)))
    font = fonts[int(rng.integers(len(fonts)))]
    for k in range(lines):
        words = " ".join(_maker_word(rng).upper() for _ in range(int(rng.integers(2, 5))))
        _text_line(img, words, font, small, h * (0.855 + k * 0.03), ink)


def _centred_at(mask: np.ndarray, cx: float, cy: float) -> tuple[int, int]:
    return round(cx - mask.shape[1] / 2), round(cy - mask.shape[0] / 2)


def _draw_ornate_spade(img: np.ndarray, style: ProceduralStyle, rng: np.random.Generator) -> None:
    """The ace of spades' big spade made ornate, as a maker prints its mark (a Bicycle ace):
    paper-coloured filigree and an emblem inside it, scrollwork, a ring and dots around it —
    a figure with no corner index that the classifier must read as ``none``, not as a picture
    joker's emblem."""
    h, w = img.shape[:2]
    ink = (*style.colors["S"], 255)
    paper = (*style.paper, 255)
    cx, cy = w / 2, h / 2
    ps = round(h * float(rng.uniform(0.33, 0.4)))
    spade = styled_suit_mask(style, "S", round(ps * 0.85), ps)
    paste(img, spade, *_centred_at(spade, cx, cy), ink)
    line = max(1, round(h * float(rng.uniform(0.004, 0.01))))
    inner = styled_suit_mask(style, "S", round(ps * 0.5), round(ps * 0.6))
    kernel = np.ones((line + 1, line + 1), np.uint8)
    edges = cv2.morphologyEx((inner > 0.5).astype(np.uint8), cv2.MORPH_GRADIENT, kernel)
    paste(img, edges.astype(np.float32), *_centred_at(inner, cx, cy), paper)
    middle = (round(cx), round(cy - ps * 0.05))
    r = max(2, round(ps * float(rng.uniform(0.08, 0.16))))
    if rng.random() < 0.5:
        cv2.circle(img, middle, r, paper, line, cv2.LINE_AA)
    else:
        star = _star_points(middle[0], middle[1], r).round().astype(np.int32)
        cv2.fillPoly(img, [star], paper, cv2.LINE_AA)
    for side in (-1, 1):  # scrollwork curls either side of the pip, mirrored
        for _ in range(int(rng.integers(1, 4))):
            centre = (round(cx + side * ps * float(rng.uniform(0.45, 0.6))),
                      round(cy + ps * float(rng.uniform(-0.35, 0.35))))  # fmt: skip
            axes = (max(2, round(ps * rng.uniform(0.06, 0.16))),
                    max(2, round(ps * rng.uniform(0.04, 0.12))))  # fmt: skip
            start = float(rng.uniform(0, 180))
            cv2.ellipse(img, centre, axes, 0, start, start + 270, ink, line, cv2.LINE_AA)
    if rng.random() < 0.5:
        ring = round(ps * float(rng.uniform(0.55, 0.62)))
        cv2.circle(img, (round(cx), round(cy)), ring, ink, line, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 7))):
        a = float(rng.uniform(0, 2 * np.pi))
        d = ps * float(rng.uniform(0.5, 0.65))
        dot = (round(cx + d * np.cos(a)), round(cy + d * np.sin(a)))
        cv2.circle(img, dot, max(1, round(ps * 0.02)), ink, -1, cv2.LINE_AA)


JOKER_MARKS = ("vertical", "vertical", "vertical", "word", "star", "ringed_star")
"""A deck's joker corner mark, one drawn per deck (:func:`joker_mark`): the Chinese-style
vertical "JOKER", the word across the corner, or a star alone or in a ring (many Western decks
mark their jokers so), in the big joker's colours or the small one's black."""


def joker_mark(style: ProceduralStyle) -> str:
    """The joker corner mark of the deck ``style`` draws: fixed by the style (both jokers of a
    deck alike) without drawing from the deck's random stream."""
    return JOKER_MARKS[_style_hash(style, style.squeeze, style.rank_h) % len(JOKER_MARKS)]


def _style_hash(style: ProceduralStyle, *numbers: float) -> int:
    """A hash of the style's font and ``numbers``: a choice fixed per deck that draws nothing
    from the deck's random stream (its other cards render as before)."""
    return zlib.crc32("|".join([str(style.font), *(f"{v:.6f}" for v in numbers)]).encode())


def _star_points(cx: float, cy: float, r: float) -> np.ndarray:
    angles = np.linspace(0, 2 * np.pi, 10, endpoint=False) - np.pi / 2
    radii = np.where(np.arange(10) % 2 == 0, r, r * 0.42)
    return np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 1)


MarkGround = Callable[[tuple[float, float, float, float]], None]
"""Paints the ground of a corner mark given its box, before the mark is inked (a patch of
paper where the mark lies over a picture)."""


def _draw_joker_corner(
    img: np.ndarray,
    style: ProceduralStyle,
    mark: str,
    colour: tuple[int, ...],
    ground: MarkGround | None = None,
) -> tuple[float, float, float, float]:
    """Draw a Western joker's corner mark (``word``, ``star``, ``ringed_star``) over its
    ``ground``; its box."""
    h, w = img.shape[:2]
    x, y = round(style.margin_x * w), round(style.margin_y * h)
    ink = (*colour, 255)
    line = max(1, h // 160)
    if mark == "word":
        lh = round(h * style.rank_h * 0.45)
        letters = [text_mask(ch, style.font, lh, style.squeeze, style.thickness) for ch in "JOKER"]
        gap = max(1, lh // 8)
        box = (float(x), float(y), float(x + sum(m.shape[1] + gap for m in letters)), float(y + lh))
        if ground:
            ground(box)
        x1 = x
        for m in letters:
            paste(img, m, x1, y, colour)
            x1 += m.shape[1] + gap
        return box
    r = h * style.rank_h * 0.5
    cx, cy = x + r, y + r
    if ground:
        ground((float(x), float(y), float(x + 2 * r), float(y + 2 * r)))
    star = _star_points(cx, cy, r * (0.7 if mark == "ringed_star" else 1.0))
    cv2.fillPoly(img, [star.round().astype(np.int32)], ink, cv2.LINE_AA)
    if mark == "ringed_star":
        cv2.circle(img, (round(cx), round(cy)), round(r), ink, line, cv2.LINE_AA)
    return (float(x), float(y), float(x + 2 * r), float(y + 2 * r))


JOKER_FULL_BLEED_SHARE = 0.4
"""The share of decks whose jokers' picture fills the face to a thin margin
(:func:`joker_full_bleed`), the corner mark drawn over it on a patch of paper: many
Western decks print their jokers so (a harlequin's figure, the star in a ringed disc at the
corner), and a joker's strip under a fan then shows picture, not paper."""


def joker_full_bleed(style: ProceduralStyle) -> bool:
    """Whether the deck ``style`` draws full-bleed jokers: fixed by the style (both jokers of a
    deck alike) without drawing from the deck's random stream."""
    return _style_hash(style, style.margin_x, style.suit_gap) % 1000 < JOKER_FULL_BLEED_SHARE * 1000


def _draw_full_bleed_art(
    img: np.ndarray, style: ProceduralStyle, big: bool, rng: np.random.Generator
) -> None:
    """Fill the face to a thin margin with a joker's picture: a patterned ground (harlequin
    diamonds, stripes or scattered shapes) in the big joker's colours or the small one's greys,
    a large jester or emblem over it, drawn double-ended half the time as court cards are."""
    h, w = img.shape[:2]
    m = round(w * rng.uniform(0.025, 0.07))
    art = np.ascontiguousarray(img[m : h - m, m : w - m])
    ah, aw = art.shape[:2]
    greys = ((25, 25, 25), (80, 80, 80), (130, 130, 130), (185, 185, 185))
    colours = (*style.joker_colors, (25, 25, 25)) if big else greys
    art[..., :3] = (
        style.paper if rng.random() < 0.5 else tuple(int(v) for v in rng.integers(150, 240, 3))
    )
    pattern = int(rng.integers(3))
    step = max(4, round(aw * rng.uniform(0.12, 0.3)))
    if pattern == 0:  # harlequin diamonds
        for row, cy in enumerate(range(-step, ah + step, step)):
            for col, cx in enumerate(range(-step, aw + step, step)):
                colour = colours[(row + col) % len(colours)]
                cx1 = cx + (step // 2 if row % 2 else 0)
                diamond = [
                    (cx1, cy - step),
                    (cx1 + step // 2, cy),
                    (cx1, cy + step),
                    (cx1 - step // 2, cy),
                ]
                cv2.fillPoly(art, [np.array(diamond, np.int32)], (*colour, 255), cv2.LINE_AA)
    elif pattern == 1:  # stripes
        for k, x in enumerate(range(-ah, aw + ah, step)):
            colour = colours[k % len(colours)]
            band = [(x, 0), (x + step // 2, 0), (x + step // 2 + ah // 2, ah), (x + ah // 2, ah)]
            cv2.fillPoly(art, [np.array(band, np.int32)], (*colour, 255), cv2.LINE_AA)
    else:  # scattered shapes
        for _ in range(int(rng.integers(6, 14))):
            centre = (int(rng.integers(0, aw)), int(rng.integers(0, ah)))
            _draw_emblem(art, style, big, centre, round(aw * rng.uniform(0.1, 0.3)), False, rng)
    centre = (aw // 2, round(ah * rng.uniform(0.4, 0.6)))
    if rng.random() < 0.5:
        _draw_jester(art, style, big, centre, round(aw * rng.uniform(0.2, 0.3)), outline=False)
    else:
        _draw_emblem(art, style, big, centre, round(aw * rng.uniform(0.3, 0.45)), False, rng)
    if rng.random() < 0.5:  # double-ended
        art[ah - ah // 2 :] = art[: ah // 2][::-1, ::-1]
    cv2.rectangle(art, (0, 0), (aw - 1, ah - 1), (25, 25, 25, 255), max(1, h // 250))
    art[..., 3] = img[m : h - m, m : w - m, 3]
    img[m : h - m, m : w - m] = art


def _draw_vertical_joker(
    img: np.ndarray,
    style: ProceduralStyle,
    big: bool,
    grey: tuple[int, ...],
    ground: MarkGround | None = None,
) -> tuple[float, float, float, float]:
    """Draw the Chinese-style vertical "JOKER" at the top-left corner over its ``ground``; its
    box."""
    h, w = img.shape[:2]
    lh = round(h * style.rank_h * 0.55)
    x, y = round(style.margin_x * w), round(style.margin_y * h)
    letters = [text_mask(ch, style.font, lh, style.squeeze, style.thickness) for ch in "JOKER"]
    step = lh + max(1, lh // 6)
    box = (
        float(x),
        float(y),
        float(max([x, *(x + m.shape[1] for m in letters)])),
        float(y + step * len(letters) - max(1, lh // 6)),
    )
    if ground:
        ground(box)
    for i, m in enumerate(letters):
        col = style.joker_colors[i % len(style.joker_colors)] if big else grey
        paste(img, m, x, y + i * step, col)
    return box


def _clear_under_mark(
    img: np.ndarray,
    style: ProceduralStyle,
    box: tuple[float, float, float, float],
    round_: bool,
    ringed: bool,
) -> None:
    """A patch of paper under a corner mark drawn over a picture (a deck keeps its index
    legible): a disc for a star, else a rectangle; ``ringed`` in ink."""
    h = img.shape[0]
    pad = max(2, round(0.012 * h))
    x0, y0, x1, y1 = (round(v) for v in box)
    paper, ink = (*style.paper, 255), (25, 25, 25, 255)
    line = max(1, h // 200)
    if round_:
        centre, r = ((x0 + x1) // 2, (y0 + y1) // 2), max(x1 - x0, y1 - y0) // 2 + pad
        cv2.circle(img, centre, r, paper, -1, cv2.LINE_AA)
        if ringed:
            cv2.circle(img, centre, r, ink, line, cv2.LINE_AA)
    else:
        cv2.rectangle(img, (x0 - pad, y0 - pad), (x1 + pad, y1 + pad), paper, -1)
        if ringed:
            cv2.rectangle(img, (x0 - pad, y0 - pad), (x1 + pad, y1 + pad), ink, line)


def _draw_joker(
    img: np.ndarray, style: ProceduralStyle, big: bool, rng: np.random.Generator
) -> tuple[float, float, float, float]:
    """Draw a joker with a corner mark (:func:`joker_mark`: the Chinese-style vertical "JOKER",
    the word across, or a star) over a small jester or, in full-bleed decks
    (:func:`joker_full_bleed`), over a picture filling the face; return the top-left index
    box."""
    h, w = img.shape[:2]
    grey = tuple(int(v) for v in rng.integers(0, 90, 3)) if rng.random() < 0.5 else (20, 20, 20)
    mark = joker_mark(style)

    def draw_mark(ground: MarkGround | None = None) -> tuple[float, float, float, float]:
        if mark == "vertical":
            return _draw_vertical_joker(img, style, big, grey, ground)
        colour = style.joker_colors[0] if big else grey
        return _draw_joker_corner(img, style, mark, colour, ground)

    if joker_full_bleed(style):
        _draw_full_bleed_art(img, style, big, rng)
        ringed = bool(rng.random() < 0.5)
        return draw_mark(lambda box: _clear_under_mark(img, style, box, "star" in mark, ringed))
    box = draw_mark()
    _draw_jester(img, style, big, (w // 2, round(h * 0.55)), round(w * 0.2), outline=False)
    return box


def _draw_picture_joker(
    img: np.ndarray, style: ProceduralStyle, big: bool, rng: np.random.Generator
) -> None:
    """A joker with no corner index, only a large jester (coloured: big; black or grey: small)
    or, in full-bleed decks (:func:`joker_full_bleed`), a picture filling the face.

    Many Western decks print their jokers this way; the label is then the whole face. The small
    joker is drawn as black line art half the time, the way one-colour printing does it.
    """
    if joker_full_bleed(style):
        _draw_full_bleed_art(img, style, big, rng)
        return
    h, w = img.shape[:2]
    centre = (round(w * rng.uniform(0.45, 0.55)), round(h * rng.uniform(0.5, 0.6)))
    outline = not big and rng.random() < 0.5
    if rng.random() < 0.5:
        _draw_jester(img, style, big, centre, round(w * rng.uniform(0.22, 0.3)), outline)
    else:
        _draw_emblem(img, style, big, centre, round(w * rng.uniform(0.2, 0.42)), outline, rng)


def _draw_emblem(
    img: np.ndarray,
    style: ProceduralStyle,
    big: bool,
    centre: tuple[int, int],
    r: int,
    outline: bool,
    rng: np.random.Generator,
) -> None:
    """An abstract joker figure: stacked stars, rings, rays and polygons (so that the picture
    jokers of decks never seen are not all jesters)."""
    h = img.shape[0]
    line = max(1, h // 200)
    colours = style.joker_colors if big else ((20, 20, 20), (90, 90, 90), (150, 150, 150))
    cx, cy = centre
    for layer in range(int(rng.integers(2, 5))):
        radius = max(4, round(r * (1 - layer * rng.uniform(0.15, 0.3))))
        colour = (*colours[int(rng.integers(len(colours)))], 255)
        kind = int(rng.integers(4))
        if kind == 0:  # a star or a burst of rays
            points = int(rng.integers(5, 17))
            inner = rng.uniform(0.35, 0.75)
            angles = np.linspace(0, 2 * np.pi, 2 * points, endpoint=False) + rng.uniform(0, 1)
            radii = np.where(np.arange(2 * points) % 2 == 0, radius, radius * inner)
            shape = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 1)
        elif kind == 1:  # a ring or a disc
            shape = np.stack(
                [
                    cx + radius * np.cos(np.linspace(0, 2 * np.pi, 40)),
                    cy + radius * rng.uniform(0.8, 1.3) * np.sin(np.linspace(0, 2 * np.pi, 40)),
                ],
                1,
            )
        elif kind == 2:  # a regular polygon
            sides = int(rng.integers(3, 8))
            angles = np.linspace(0, 2 * np.pi, sides, endpoint=False) + rng.uniform(0, 1)
            shape = np.stack([cx + radius * np.cos(angles), cy + radius * np.sin(angles)], 1)
        else:  # a random blob (a figure's silhouette)
            angles = np.sort(rng.uniform(0, 2 * np.pi, int(rng.integers(6, 12))))
            radii = radius * rng.uniform(0.5, 1.0, len(angles))
            shape = np.stack([cx + radii * np.cos(angles), cy + radii * np.sin(angles)], 1)
        pts = shape.round().astype(np.int32)
        if outline or rng.random() < 0.2:
            cv2.polylines(img, [pts], True, colour, line * int(rng.integers(1, 3)), cv2.LINE_AA)
        else:
            cv2.fillPoly(img, [pts], colour, cv2.LINE_AA)


def _draw_jester(
    img: np.ndarray,
    style: ProceduralStyle,
    big: bool,
    centre: tuple[int, int],
    r: int,
    outline: bool,
) -> None:
    """A round face under a three-pointed jester's hat; ``outline`` draws black line art."""
    h = img.shape[0]
    cx, cy = centre
    ink = (20, 20, 20, 255)
    line = max(1, h // 200)
    skin = (245, 200, 60) if big else (235, 235, 235)
    hat = style.joker_colors if big else ((60, 60, 60), (140, 140, 140))
    for i in range(3):
        tip = (cx + (i - 1) * r, cy - round(2.2 * r))
        pts = np.array([[cx - r, cy - r // 2], [cx + r, cy - r // 2], tip], dtype=np.int32)
        bell = max(2, r // 6)
        if outline:
            cv2.fillPoly(img, [pts], (*style.paper, 255), cv2.LINE_AA)
            cv2.polylines(img, [pts], True, ink, line, cv2.LINE_AA)
            cv2.circle(img, tip, bell, ink, line, cv2.LINE_AA)
        else:
            cv2.fillPoly(img, [pts], (*hat[i % len(hat)], 255), cv2.LINE_AA)
            cv2.circle(img, tip, bell, (*hat[(i + 1) % len(hat)], 255), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy), r, (*style.paper, 255) if outline else (*skin, 255), -1, cv2.LINE_AA)
    cv2.circle(img, (cx, cy), r, (30, 30, 30, 255), line, cv2.LINE_AA)
    for ex in (-1, 1):
        cv2.circle(img, (cx + ex * r // 3, cy - r // 5), max(1, r // 9), ink, -1)
    cv2.ellipse(
        img, (cx, cy + r // 5), (r // 2, r // 3), 0, 20, 160, ink, max(1, h // 150), cv2.LINE_AA
    )


def render_procedural(
    style: ProceduralStyle, identity: str, height: int = FACE_H, seed: int = 0
) -> CardFace:
    """One identity drawn in a procedural style, ``height`` pixels tall."""
    rng = np.random.default_rng(seed)
    h = height
    w = round(h * CARD_ASPECT)
    img = _blank(style, w, h)
    if identity in ("BJ", "SJ"):
        if not style.joker_index:
            _draw_picture_joker(img, style, identity == "BJ", rng)
            return CardFace(identity, PROCEDURAL, img, (), whole_face=True)
        box = _draw_joker(img, style, identity == "BJ", rng)
    else:
        rank, suit = identity[:-1], identity[-1]
        col = style.colors[suit]
        _draw_centre(img, style, identity, rng)
        # Its own draws, so that every other face of a seed is drawn as it always was.
        ornate = np.random.default_rng((seed, 1))
        if identity == "AS" and ornate.random() < ORNATE_ACE_SHARE:
            _draw_ornate_spade(img, style, ornate)
        if identity == "AS" and rng.random() < MAKER_LETTERING_SHARE:
            _draw_maker_lettering(img, style, rng, small_print_only=False)
        elif rank in ("J", "Q", "K") and rng.random() < COURT_SMALL_PRINT_SHARE:
            _draw_maker_lettering(img, style, rng, small_print_only=True)
        rh = max(4, round(style.rank_h * h))
        rm = _rank_mask(style, rank, rh)
        x, y = round(style.margin_x * w), round(style.margin_y * h)
        paste(img, rm, x, y, col)
        x1, y1 = x + rm.shape[1], y + rh
        sh = max(3, round(rh * style.suit_ratio))
        sm = styled_suit_mask(style, suit, max(3, round(sh * 0.85)), sh)
        sx = x + (rm.shape[1] - sm.shape[1]) // 2
        sy = y1 + max(1, round(rh * style.suit_gap))
        paste(img, sm, sx, sy, col)
        x1, y1 = max(x1, sx + sm.shape[1]), sy + sh
        x = min(x, sx)
        box = (float(x), float(y), float(x1), float(y1))
    tl = pad_box(box, w, h)
    # The bottom-right index is the top-left one turned 180°.
    bx0, by0 = (int(v) for v in np.floor(tl[0]))
    bx1, by1 = (int(v) for v in np.ceil(tl[2]))
    patch = img[by0:by1, bx0:bx1, :3][::-1, ::-1]
    img[h - by1 : h - by0, w - bx1 : w - bx0, :3] = patch
    quads = (tl, rot180(tl, w, h))
    return CardFace(identity, PROCEDURAL, img, quads)


def make_back(rng: np.random.Generator, height: int = FACE_H) -> np.ndarray:
    """A random card back (patterned, blue/red/green, or an artwork back) as RGBA."""
    if rng.random() < 0.25:
        backs = load_art_backs("adrian_kennard")
        art = backs[int(rng.choice(len(backs)))] if backs else None
        if art is not None:
            return (
                art
                if art.shape[0] == height
                else cv2.resize(art, (round(height * art.shape[1] / art.shape[0]), height))
            )
    h, w = height, round(height * CARD_ASPECT)
    col = [(30, 60, 160), (170, 30, 40), (30, 110, 60), (40, 40, 60)][int(rng.integers(4))]
    col = _rgb(np.clip(c + rng.integers(-25, 25), 0, 255) for c in col)
    light = tuple(min(255, c + 90) for c in col)
    img = np.empty((h, w, 4), np.uint8)
    img[..., :3] = (245, 245, 245)
    img[..., 3] = _rounded_alpha(w, h, max(2, round(0.06 * w)))
    m = round(w * rng.uniform(0.04, 0.1))
    inner = np.empty((h - 2 * m, w - 2 * m, 3), np.uint8)
    inner[:] = col
    step = int(rng.integers(6, 18))
    ih, iw = inner.shape[:2]
    kind = rng.integers(3)
    for k in range(-ih, iw + ih, step):
        if kind in (0, 2):
            cv2.line(inner, (k, 0), (k + ih, ih), light, 1, cv2.LINE_AA)
        if kind in (1, 2):
            cv2.line(inner, (k, ih), (k + ih, 0), light, 1, cv2.LINE_AA)
    img[m : h - m, m : w - m, :3] = inner
    return img


def make_face(
    design: str, identity: str, rng: np.random.Generator, height: int = FACE_H
) -> CardFace:
    """A face of ``identity`` in ``design`` (a random deck style for ``procedural``)."""
    if identity not in CLASS_NAMES:
        raise ValueError(f"unknown card identity {identity!r}")
    if design == PROCEDURAL:
        style = random_style(rng)
        return render_procedural(style, identity, height, int(rng.integers(2**31)))
    return load_art_face(design, identity).scaled(height)
