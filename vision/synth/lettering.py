"""Lettering and suit shapes for procedural decks: suit outlines drawn from Bézier curves,
and text drawn in any of the fonts at hand — matplotlib's DejaVu/STIX/Computer Modern fonts,
the system's font families when installed (:data:`SYSTEM_FONT_DIRS`), Hershey fonts and
procedural stroke lettering (:mod:`vision.synth.stroke_font`). Nothing is downloaded.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision.synth.stroke_font import StrokeFont

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
    # Condensed, DIN-like, geometric, signage and monospace lettering (card indices are often
    # condensed; see the model card for the packages).
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


THINNED_INK_KEPT = 0.4


def text_mask(
    text: str, font: Font, height: int, squeeze: float = 1.0, thickness: int = 2
) -> np.ndarray:
    """A float32 mask (0..1) of ``text`` cropped to its ink, scaled to ``height`` pixels.

    ``font`` is a TrueType path (drawn with Pillow), an OpenCV Hershey font id or a
    :class:`StrokeFont` (its own pen weight; text it cannot draw falls back to Hershey simplex);
    ``squeeze`` scales the width (condensed or wide lettering); ``thickness`` 1–3 is the stroke
    weight (for TrueType 1 thins and 3 thickens the font's own strokes, 2 leaves them; a font
    too thin to thin, which would keep less than ``THINNED_INK_KEPT`` of its ink, is left as
    it is).
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
        kernel = np.ones((5, 5), np.uint8)
        if thickness > 2:
            m = cv2.dilate(m, kernel)
        elif thickness < 2:
            thinned = cv2.erode(m, kernel)
            # A hairline font has no stroke to spare: thinned, its letters would vanish.
            if np.count_nonzero(thinned > 40) >= THINNED_INK_KEPT * np.count_nonzero(m > 40):
                m = thinned
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


def paste(
    img: np.ndarray, mask: np.ndarray, x: int, y: int, color: Sequence[float] | np.ndarray
) -> None:
    """Paint ``color`` through ``mask`` onto ``img`` (its first three channels, any dtype) at
    (x, y), clipped."""
    h, w = mask.shape
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x), max(0, y), min(W, x + w), min(H, y + h)
    if x0 >= x1 or y0 >= y1:
        return
    m = mask[y0 - y : y1 - y, x0 - x : x1 - x, None]
    roi = img[y0:y1, x0:x1, :3].astype(np.float32)
    ink = np.array(color[:3], dtype=np.float32)
    img[y0:y1, x0:x1, :3] = (roi * (1 - m) + ink * m).astype(img.dtype)
