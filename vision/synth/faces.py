"""Card faces for synthetic data: deck artwork and procedural decks, with corner-index boxes.

This module owns what one card looks like before it is put on a table: a :class:`CardFace` is
an RGBA image of one card identity (a class name of :mod:`vision.classes`) plus the
quadrilaterals, in face pixels, of its corner indices (the rank + small suit printed at the top
left and, rotated 180°, at the bottom right). Those quads become the detector's boxes.

Designs (:func:`designs`):

* ``byron_knoll`` and ``adrian_kennard``: the public-domain / CC0 decks in
  ``shared/data/card_faces/*/png_500w``. Their index boxes are found automatically per card by
  grouping the ink components nearest to the top-left corner (and, on the card turned 180°,
  the bottom-right one). The adrian_kennard jokers have no corner index: their face has
  ``whole_face`` set and is labelled as a whole.
* ``procedural``: decks drawn here with OpenCV and Pillow (matplotlib's DejaVu/STIX/Computer
  Modern fonts, the system's font families when installed (:data:`SYSTEM_FONT_DIRS`), Hershey
  fonts and procedural stroke lettering, procedural suit shapes, paper tints, 2- or 4-colour suits,
  pips or simple court art, Chinese-style jokers with vertical "JOKER" lettering, or in a
  quarter of the decks picture-only jokers labelled whole like adrian_kennard's), so that the
  detector does not learn one deck's look. A :class:`ProceduralStyle` fixes one deck's look;
  :func:`render_procedural` draws one identity in it.

Card backs (:func:`make_back`) are face-down distractors. Nothing is downloaded: fonts come
from matplotlib's data folder and the system's font folders, artwork from the shared data
folder.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import SupportsFloat, SupportsInt

import cv2
import numpy as np

from vision.classes import CLASS_NAMES
from vision.synth.stroke_font import StrokeFont

FACE_H = 350
"""Height in pixels of cached faces (a 110%-of-frame card at 320 px is ~350 px tall)."""

CARD_ASPECT = 0.7
"""Width / height of a procedural card (poker size 63 × 88 mm is 0.716)."""

_REPO = Path(__file__).resolve().parents[2]


def _find_card_faces() -> Path:
    """The shared artwork: ``$CHAODIPI_CARD_FACES``, else ``shared/`` in or beside the repo."""
    override = os.environ.get("CHAODIPI_CARD_FACES")
    if override:
        return Path(override)
    for shared in (_REPO / "shared", _REPO.parent / "shared"):
        if (shared / "data" / "card_faces").is_dir():
            return shared / "data" / "card_faces"
    return _REPO.parent / "shared" / "data" / "card_faces"


_CARD_FACES = _find_card_faces()

ART_DIRS: dict[str, str] = {
    "byron_knoll": "vector_playing_cards_byron_knoll",
    "adrian_kennard": "adrian_kennard_cc0",
}
PROCEDURAL = "procedural"

Quad = np.ndarray
"""A (4, 2) float32 array of corner points (top-left, top-right, bottom-right, bottom-left)."""


@dataclass(frozen=True)
class CardFace:
    """One card identity drawn in one design, with its corner-index quads in face pixels."""

    identity: str
    design: str
    image: np.ndarray = field(repr=False)  # H × W × 4 uint8, RGBA, straight alpha
    corners: tuple[Quad, ...] = field(repr=False)
    whole_face: bool = False  # no corner index: the whole visible face is the label

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.image.shape[1], self.image.shape[0]

    def scaled(self, height: int) -> CardFace:
        """The same face resized to ``height`` pixels (area-averaged when shrinking)."""
        h, w = self.image.shape[:2]
        if height == h:
            return self
        s = height / h
        new_w = max(2, round(w * s))
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        img = cv2.resize(self.image, (new_w, height), interpolation=interp)
        sx, sy = new_w / w, height / h
        quads = tuple(
            (q * np.array([sx, sy], dtype=np.float32)).astype(np.float32) for q in self.corners
        )
        return CardFace(self.identity, self.design, img, quads, self.whole_face)


def designs() -> list[str]:
    """Names of the available deck designs (artwork decks only where their files exist)."""
    out = [d for d, sub in ART_DIRS.items() if (_CARD_FACES / sub / "png_500w").is_dir()]
    return [*out, PROCEDURAL]


def rect_quad(x0: float, y0: float, x1: float, y1: float) -> Quad:
    """The quad of an axis-aligned rectangle."""
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


def rot180(q: Quad, w: int, h: int) -> Quad:
    """A quad turned 180° about the centre of a ``w`` × ``h`` face."""
    turned: Quad = (np.array([w, h], dtype=np.float32) - q)[[2, 3, 0, 1]].astype(np.float32)
    return turned


# --------------------------------------------------------------------------- artwork decks


def _ink_mask(rgba: np.ndarray) -> np.ndarray:
    """Printed pixels of a face, excluding the outline at the card's edge."""
    rgb = rgba[..., :3].astype(np.int16)
    dark = rgb.min(axis=2) < 170
    sat = (rgb.max(axis=2) - rgb.min(axis=2)) > 70
    opaque = (rgba[..., 3] > 200).astype(np.uint8)
    inside: np.ndarray = (
        cv2.erode(
            opaque, np.ones((15, 15), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0
        )
        > 0
    )
    ink: np.ndarray = (dark | sat) & inside
    return ink


def find_corner_index(rgba: np.ndarray) -> tuple[float, float, float, float] | None:
    """Bounds ``(x0, y0, x1, y1)`` of the top-left corner index of an artwork face.

    Ink components in the top-left region are grouped, starting from the topmost small one
    near the left edge and adding small components within a short gap (the suit under the
    rank, the "0" of "10", the letters of a vertical "Joker"). Large components (the court
    art's frame) are never added.
    """
    h, w = rgba.shape[:2]
    ink = _ink_mask(rgba)[: int(0.55 * h), : int(0.3 * w)].astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, cw, ch, area = (int(v) for v in stats[i])
        if area < 12 or ch > 0.16 * h or cw > 0.2 * w:
            continue
        comps.append((x, y, x + cw, y + ch))
    seeds = [c for c in comps if c[0] < 0.12 * w and c[1] < 0.15 * h]
    if not seeds:
        return None
    seed = min(seeds, key=lambda c: c[1])
    group = list(seed)
    row_h = seed[3] - seed[1]
    gap_x, gap_y = 0.03 * w, 0.03 * h
    used = {seed}
    grown = True
    while grown:
        grown = False
        for c in comps:
            if c in used:
                continue
            dx = max(group[0] - c[2], c[0] - group[2], 0)
            dy = max(group[1] - c[3], c[1] - group[3], 0)
            overlap_x = min(group[2], c[2]) - max(group[0], c[0])
            overlap_row = min(seed[3], c[3]) - max(seed[1], c[1])
            stacked = overlap_x > 0 and dy <= gap_y  # suit under the rank, joker letters
            beside = (
                dx <= gap_x and overlap_row >= 0.6 * (c[3] - c[1]) and c[3] - c[1] <= 1.3 * row_h
            )  # the "0" of "10"
            if stacked or beside:
                used.add(c)
                group = [
                    min(group[0], c[0]),
                    min(group[1], c[1]),
                    max(group[2], c[2]),
                    max(group[3], c[3]),
                ]
                grown = True
    return float(group[0]), float(group[1]), float(group[2]), float(group[3])


def _pad_box(box: tuple[float, float, float, float], w: int, h: int) -> Quad:
    """The quad of an index box with the standard padding (6% of its height, at least 1 px)."""
    x0, y0, x1, y1 = box
    p = max(1.0, 0.06 * (y1 - y0))
    return rect_quad(max(0.0, x0 - p), max(0.0, y0 - p), min(w, x1 + p), min(h, y1 + p))


@functools.lru_cache(maxsize=256)
def load_art_face(design: str, identity: str) -> CardFace:
    """An artwork deck's face at :data:`FACE_H`, with its measured corner-index quads."""
    path = _CARD_FACES / ART_DIRS[design] / "png_500w" / f"{identity}.png"
    bgra = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if bgra is None:
        raise FileNotFoundError(path)
    rgba = cv2.cvtColor(bgra, cv2.COLOR_BGRA2RGBA)
    h, w = rgba.shape[:2]
    quads: list[Quad] = []
    whole = design == "adrian_kennard" and identity in ("BJ", "SJ")
    if design == "byron_knoll" and identity in ("BJ", "SJ"):
        # The slanted "Joker" letters touch each other, the card edge and the big heart, so
        # their box was measured once by eye on the 500 × 726 render.
        box = _pad_box((2.0, 10.0, 92.0, 362.0), w, h)
        quads += [box, rot180(box, w, h)]
    elif not whole:
        tl = find_corner_index(rgba)
        br = find_corner_index(rgba[::-1, ::-1].copy())
        if tl is not None:
            quads.append(_pad_box(tl, w, h))
        if br is not None:
            quads.append(rot180(_pad_box(br, w, h), w, h))
    face = CardFace(identity, design, rgba, tuple(quads), whole)
    return face.scaled(FACE_H)


@functools.lru_cache(maxsize=8)
def load_art_back(name: str) -> np.ndarray | None:
    """An artwork card back (``adrian_kennard_cc0/png_500w/back_*.png``) as RGBA, or None."""
    path = _CARD_FACES / ART_DIRS["adrian_kennard"] / "png_500w" / f"{name}.png"
    bgra = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if bgra is None:
        return None
    rgba = cv2.cvtColor(bgra, cv2.COLOR_BGRA2RGBA)
    w = round(FACE_H * rgba.shape[1] / rgba.shape[0])
    return cv2.resize(rgba, (w, FACE_H), interpolation=cv2.INTER_AREA)


# --------------------------------------------------------------------------- suit shapes


def _bezier(
    p0: np.ndarray, p1: np.ndarray, p2: np.ndarray, p3: np.ndarray, n: int = 12
) -> np.ndarray:
    t = np.linspace(0.0, 1.0, n)[:, None]
    curve: np.ndarray = (
        ((1 - t) ** 3) * p0 + 3 * ((1 - t) ** 2) * t * p1 + 3 * (1 - t) * t**2 * p2 + t**3 * p3
    )
    return curve


def _stem(b: float, top: float, flare: float = 1.0) -> np.ndarray:
    """The stem under a spade or club, its width varied by ``b``: a wide triangle (``flare``
    1) down to a thin straight stem on a small foot (``flare`` 0)."""
    sw = 0.05 + 0.1 * b
    foot = sw * (0.6 + 1.6 * flare)
    waist = 1.0 - 0.12 * (1.0 - flare)  # a thin stem widens only at its foot
    return np.array(
        [
            [0.5 - sw * 0.4, top],
            [0.5 + sw * 0.4, top],
            [0.5 + sw * 0.4, waist],
            [0.5 + foot, 1.0],
            [0.5 - foot, 1.0],
            [0.5 - sw * 0.4, waist],
        ],
        dtype=np.float32,
    )


def suit_polygons(suit: str, shape: Sequence[float]) -> list[np.ndarray]:
    """Polygons (in a 0..1 × 0..1 box, y down) of a suit glyph; ``shape`` holds 4 variations.

    ``shape``: lobe roundness, waist/stem width, point sharpness (and the stem's flare), body
    width (a narrow spade on a thin stem reads like a club at a few pixels unless trained on),
    all in 0..1. Circles are returned as polygons too, so every glyph is a list of filled
    polygons.
    """
    a, b, c, d = shape
    narrow = 1.0 - 0.4 * d  # the body's width, a fraction of the box
    polys: list[np.ndarray] = []
    if suit == "H" or suit == "S":
        # Parametric heart, lobe depth and point sharpness varied.
        t = np.linspace(0, 2 * np.pi, 72)
        x = np.sin(t) ** 3
        y = (
            13 * np.cos(t) - (4 + 2 * a) * np.cos(2 * t) - (2 + c) * np.cos(3 * t) - np.cos(4 * t)
        ) / 17.0
        width = narrow if suit == "S" else 1.0 - 0.2 * d
        pts = np.stack([0.5 + 0.5 * width * x, 0.5 - 0.5 * y], axis=1)
        if suit == "S":
            pts = pts.copy()
            pts[:, 1] = 1.0 - pts[:, 1]
            pts[:, 1] = 0.05 + 0.72 * (pts[:, 1] - pts[:, 1].min()) / np.ptp(pts[:, 1])
            polys.append(_stem(b * narrow, top=0.6, flare=c))
        else:
            pts[:, 1] = (pts[:, 1] - pts[:, 1].min()) / np.ptp(pts[:, 1])
        polys.append(pts.astype(np.float32))
    elif suit == "D":
        # Rhombus with sides bowed inward by a varied amount.
        k = 0.02 + 0.14 * a
        top, right, bot, left = (
            np.array(p, dtype=np.float32) for p in ([0.5, 0], [1, 0.5], [0.5, 1], [0, 0.5])
        )
        sides: list[np.ndarray] = []
        for p, q in ((top, right), (right, bot), (bot, left), (left, top)):
            mid = (p + q) / 2
            inward = (np.array([0.5, 0.5], dtype=np.float32) - mid) * k * 2
            sides.append(_bezier(p, p + (q - p) / 3 + inward, p + 2 * (q - p) / 3 + inward, q))
        polys.append(np.concatenate(sides).astype(np.float32))
    else:  # clubs: three circles and a stem
        r = (0.2 + 0.06 * a) * (0.75 + 0.25 * narrow)
        t = np.linspace(0, 2 * np.pi, 36)
        for cx, cy in (
            (0.5, 0.05 + r),
            (0.5 - 1.05 * r, 0.62 - r * 0.3),
            (0.5 + 1.05 * r, 0.62 - r * 0.3),
        ):
            polys.append(np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], 1).astype(np.float32))
        polys.append(
            np.array([[0.44, 0.35], [0.56, 0.35], [0.56, 0.6], [0.44, 0.6]], dtype=np.float32)
        )
        polys.append(_stem(b, top=0.55, flare=c))
    return polys


def suit_mask(suit: str, shape: Sequence[float], w: int, h: int) -> np.ndarray:
    """An anti-aliased float32 mask (h × w, 0..1) of a suit glyph filling its box."""
    ss = 4
    mask = np.zeros((h * ss, w * ss), np.uint8)
    for poly in suit_polygons(suit, shape):
        scale = np.array([w * ss - 1, h * ss - 1], dtype=np.float32)
        pts = (poly * scale).round().astype(np.int32)
        cv2.fillPoly(mask, [pts], 255, lineType=cv2.LINE_8)
    return cv2.resize(mask, (w, h), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0


# --------------------------------------------------------------------------- text


SYSTEM_FONT_DIRS = (
    Path("/usr/share/fonts/truetype/liberation"),
    Path("/usr/share/fonts/truetype/dejavu"),
    Path("/usr/share/fonts/truetype/freefont"),
    Path("/usr/share/fonts/truetype/lato"),
    Path("/usr/share/fonts/truetype/noto"),
    Path("/usr/share/fonts/truetype/open-sans"),
    Path("/usr/share/fonts/truetype/roboto"),
    Path("/usr/share/fonts/truetype/crosextra"),
    Path("/usr/share/fonts/opentype/urw-base35"),
    Path("/usr/share/fonts/opentype/linux-libertine"),
    Path("/usr/share/fonts/opentype/cantarell"),
    # Thirteenth session: condensed, DIN-like, geometric, signage and monospace lettering
    # (card indices are often condensed; see the model card for the packages).
    Path("/usr/share/fonts/opentype/bebas-neue"),
    Path("/usr/share/fonts/truetype/opendin"),
    Path("/usr/share/fonts/opentype/yanone-kaffeesatz"),
    Path("/usr/share/fonts/opentype/league-spartan"),
    Path("/usr/share/fonts/truetype/roadgeek"),
    Path("/usr/share/fonts/opentype/b612"),
    Path("/usr/share/fonts/opentype/inter"),
    Path("/usr/share/fonts/truetype/manrope"),
    Path("/usr/share/fonts/opentype/sora"),
    Path("/usr/share/fonts/truetype/tuffy"),
    Path("/usr/share/fonts/opentype/jura"),
    Path("/usr/share/fonts/opentype/dosis"),
    Path("/usr/share/fonts/truetype/play"),
    Path("/usr/share/fonts/fonts-go"),
    Path("/usr/share/fonts/truetype/clear-sans"),
    Path("/usr/share/texmf/fonts/opentype/public/tex-gyre"),
    Path("/usr/share/fonts/truetype/paratype"),
    Path("/usr/share/fonts/opentype/cabin"),
    Path("/usr/share/fonts/truetype/karla"),
    Path("/usr/share/fonts/opentype/national-park"),
    Path("/usr/share/fonts/truetype/routed-gothic"),
    Path("/usr/share/fonts/truetype/smiley-sans"),
    Path("/usr/share/fonts/truetype/oxygen"),
    Path("/usr/share/fonts/truetype/ubuntu-title"),
    Path("/usr/share/fonts/truetype/quicksand"),
    Path("/usr/share/fonts/truetype/comfortaa"),
    Path("/usr/share/fonts/truetype/hack"),
    Path("/usr/share/fonts/truetype/jetbrains-mono"),
    Path("/usr/share/fonts/opentype/ocr-b"),
    Path("/usr/share/fonts/opentype/courier-prime"),
    Path("/usr/share/fonts/truetype/croscore"),
    Path("/usr/share/fonts/truetype/tiresias"),
    Path("/usr/share/fonts/truetype/rampart"),
)
"""Debian's font families, used when installed (the model card's data recipe names the
packages): the more index lettering the classifier sees, the better it reads a deck it has
never seen. Only the fonts that draw every index character are kept (:func:`draws_index`)."""

INDEX_CHARACTERS = "0123456789AJQKIO"
NOT_LETTERING = ("Symbol", "Math", "Nushu", "D050000L", "Dingbat", "LinBiolinum_K", "OCRBX")
"""Font names that map the Latin characters to symbols, key caps or another script: never an
index."""


@functools.lru_cache(maxsize=512)
def draws_index(path: str) -> bool:
    """Whether the font at ``path`` draws every index character as a glyph of its own (a
    symbol font or another script's font draws its "missing" box, the same for all)."""
    from PIL import ImageFont

    try:
        font = ImageFont.truetype(path, 32)
        masks = {bytes(font.getmask(ch)) for ch in INDEX_CHARACTERS}
    except OSError:
        return False
    return len(masks) == len(INDEX_CHARACTERS)


@functools.lru_cache(maxsize=1)
def font_paths() -> tuple[str, ...]:
    """TrueType and OpenType fonts that draw Latin letters and digits: matplotlib's, plus the
    system's families of :data:`SYSTEM_FONT_DIRS` when present (sorted, so a seed picks the
    same font on every machine with the same fonts). Looked up once a process."""
    system = sorted(
        str(f)
        for d in SYSTEM_FONT_DIRS
        if d.is_dir()
        for f in d.rglob("*")
        if f.suffix in (".ttf", ".otf")
        and not any(word in f.stem for word in NOT_LETTERING)
        and draws_index(str(f))
    )
    try:
        import matplotlib
    except ImportError:
        return tuple(system)
    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    names = [
        "DejaVuSans.ttf",
        "DejaVuSans-Bold.ttf",
        "DejaVuSans-Oblique.ttf",
        "DejaVuSans-BoldOblique.ttf",
        "DejaVuSerif.ttf",
        "DejaVuSerif-Bold.ttf",
        "DejaVuSerif-Italic.ttf",
        "DejaVuSansMono.ttf",
        "DejaVuSansMono-Bold.ttf",
        "STIXGeneral.ttf",
        "STIXGeneralBol.ttf",
        "cmr10.ttf",
        "cmss10.ttf",
        "cmb10.ttf",
    ]
    bundled = [str(folder / n) for n in names if (folder / n).is_file()]
    seen = {Path(p).name for p in bundled}
    return (*bundled, *(p for p in system if Path(p).name not in seen))


HERSHEY = [
    cv2.FONT_HERSHEY_SIMPLEX,
    cv2.FONT_HERSHEY_DUPLEX,
    cv2.FONT_HERSHEY_COMPLEX,
    cv2.FONT_HERSHEY_TRIPLEX,
    cv2.FONT_HERSHEY_PLAIN,
]
STROKE_FONT_SHARE = 0.4
"""Share of procedural decks lettered with a :class:`StrokeFont` (one glyph shape mix each)."""
Font = str | int | StrokeFont
"""A TrueType font's path, an OpenCV Hershey font id or a stroke font."""


@functools.lru_cache(maxsize=64)
def _pil_font(path: str, size: int):  # type: ignore[no-untyped-def]
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def text_mask(
    text: str, font: Font, height: int, squeeze: float = 1.0, thickness: int = 2
) -> np.ndarray:
    """A float32 mask (0..1) of ``text`` cropped to its ink, scaled to ``height`` pixels.

    ``font`` is a TrueType path (drawn with Pillow), an OpenCV Hershey font id or a
    :class:`StrokeFont` (its own pen weight; text it cannot draw falls back to Hershey simplex);
    ``squeeze`` scales the width (condensed or wide lettering); ``thickness`` 1–3 is the stroke
    weight (for TrueType 1 thins and 3 thickens the font's own strokes, 2 leaves them).
    """
    if isinstance(font, StrokeFont):
        if font.draws(text):
            m = font.render(text)
        else:
            return text_mask(text, cv2.FONT_HERSHEY_SIMPLEX, height, squeeze, thickness)
    elif isinstance(font, str):
        from PIL import Image, ImageDraw

        f = _pil_font(font, 96)
        x0, y0, x1, y1 = f.getbbox(text)
        img = Image.new("L", (x1 - x0 + 8, y1 - y0 + 8), 0)
        ImageDraw.Draw(img).text((4 - x0, 4 - y0), text, font=f, fill=255)
        m = np.asarray(img)
        if thickness != 2:
            kernel = np.ones((5, 5), np.uint8)
            m = cv2.erode(m, kernel) if thickness < 2 else cv2.dilate(m, kernel)
    else:
        (tw, th), base = cv2.getTextSize(text, font, 3.0, thickness * 3)
        m = np.zeros((th + base + 16, tw + 16), np.uint8)
        cv2.putText(m, text, (8, th + 8), font, 3.0, 255, thickness * 3, cv2.LINE_AA)
    ys, xs = np.nonzero(m > 40)
    if len(xs) == 0:
        return np.zeros((height, max(1, height // 2)), np.float32)
    m = m[ys.min() : ys.max() + 1, xs.min() : xs.max() + 1]
    w = max(1, round(m.shape[1] * height / m.shape[0] * squeeze))
    out = cv2.resize(m, (w, height), interpolation=cv2.INTER_AREA)
    return out.astype(np.float32) / 255.0


def _paste(img: np.ndarray, mask: np.ndarray, x: int, y: int, color: Sequence[int]) -> None:
    """Paint ``color`` through ``mask`` onto ``img`` (RGBA) at (x, y), clipped."""
    h, w = mask.shape
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x0 >= x1 or y0 >= y1:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x, None]
    roi = img[y0:y1, x0:x1, :3].astype(np.float32)
    img[y0:y1, x0:x1, :3] = (roi * (1 - m) + np.array(color[:3], dtype=np.float32) * m).astype(
        np.uint8
    )


# --------------------------------------------------------------------------- procedural decks


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
    colors = {
        "H": red,
        "D": (20, 60, int(rng.integers(160, 220))) if four_colour else red,
        "S": black,
        "C": (20, int(rng.integers(110, 150)), 40) if four_colour else black,
    }
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
            _paste(img, m, round(cx - m.shape[1] / 2), round(cy - m.shape[0] / 2), col)
    elif rank in _PIPS or rank == "A":
        ps = round(h * (0.35 if rank == "A" else 0.25))
        m = styled_suit_mask(style, suit, round(ps * 0.85), ps)
        _paste(img, m, (w - m.shape[1]) // 2, (h - m.shape[0]) // 2, col)
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
        _paste(img, letter, (w - letter.shape[1]) // 2, (h - letter.shape[0]) // 2, col)
        if rng.random() < 0.6:
            # A big suit pip in the frame's corners, right beside the index, as on most decks
            # (the index must be read next to it).
            ps = round(h * float(rng.uniform(0.08, 0.13)))
            pip = styled_suit_mask(style, suit, round(ps * 0.85), ps)
            gap = max(1, h // 100)
            _paste(img, pip, fx0 + gap, fy0 + gap, col)
            _paste(img, pip[::-1, ::-1], fx1 - gap - pip.shape[1], fy1 - gap - pip.shape[0], col)


def _draw_joker(
    img: np.ndarray, style: ProceduralStyle, big: bool, rng: np.random.Generator
) -> tuple[float, float, float, float]:
    """Draw a Chinese-style joker; return the top-left index box (vertical "JOKER")."""
    h, w = img.shape[:2]
    lh = round(h * style.rank_h * 0.55)
    x, y = round(style.margin_x * w), round(style.margin_y * h)
    grey = tuple(int(v) for v in rng.integers(0, 90, 3)) if rng.random() < 0.5 else (20, 20, 20)
    x1 = x
    for i, ch in enumerate("JOKER"):
        m = text_mask(ch, style.font, lh, style.squeeze, style.thickness)
        col = style.joker_colors[i % len(style.joker_colors)] if big else grey
        _paste(img, m, x, y, col)
        x1 = max(x1, x + m.shape[1])
        y += lh + max(1, lh // 6)
    box = (
        float(round(style.margin_x * w)),
        float(round(style.margin_y * h)),
        float(x1),
        float(y - max(1, lh // 6)),
    )
    _draw_jester(img, style, big, (w // 2, round(h * 0.55)), round(w * 0.2), outline=False)
    return box


def _draw_picture_joker(
    img: np.ndarray, style: ProceduralStyle, big: bool, rng: np.random.Generator
) -> None:
    """A joker with no corner index, only a large jester (coloured: big; black or grey: small).

    Many Western decks print their jokers this way; the label is then the whole face. The small
    joker is drawn as black line art half the time, the way one-colour printing does it.
    """
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
        rh = max(4, round(style.rank_h * h))
        rm = _rank_mask(style, rank, rh)
        x, y = round(style.margin_x * w), round(style.margin_y * h)
        _paste(img, rm, x, y, col)
        x1, y1 = x + rm.shape[1], y + rh
        sh = max(3, round(rh * style.suit_ratio))
        sm = styled_suit_mask(style, suit, max(3, round(sh * 0.85)), sh)
        sx = x + (rm.shape[1] - sm.shape[1]) // 2
        sy = y1 + max(1, round(rh * style.suit_gap))
        _paste(img, sm, sx, sy, col)
        x1, y1 = max(x1, sx + sm.shape[1]), sy + sh
        x = min(x, sx)
        box = (float(x), float(y), float(x1), float(y1))
    tl = _pad_box(box, w, h)
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
        art = load_art_back(str(rng.choice(["back_1", "back_2"])))
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
    if design not in ART_DIRS:
        raise ValueError(f"unknown design {design!r}; known: {designs()}")
    return load_art_face(design, identity).scaled(height)
