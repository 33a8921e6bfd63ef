"""Printed-text "none" crops: letters and digits that are not a corner index.

Real tables carry score sheets, newspapers, packaging and rule books. On the real photographs
the classifier read newspaper columns as the vertical "JOKER" of a joker and a lone printed "A"
as an ace, with full confidence: nothing in the synthetic scenes had taught it that text alone
is not a card. A corner index is a rank *with its suit glyph*; these crops are everything else
made of letters — words and lines of text, vertical stacks of letters (other than JOKER), a lone
rank letter or "10" without a suit, and whole words or lines of small print boxed at once (what
a localiser draws round a maker's name or a packet's fine print) — in the same fonts, colours and
crop geometry as the real indices (:func:`vision.crops.crop`), labelled ``none``.
"""

from __future__ import annotations

import string

import cv2
import numpy as np

from vision.crops import CROP_SIZE, crop
from vision.synth.degrade import blur_down, jpeg_artefacts
from vision.synth.lettering import HERSHEY, font_paths, text_mask

RANK_LIKE = ["A", "J", "Q", "K", "10", "2", "3", "4", "5", "6", "7", "8", "9"]
LETTERS = string.ascii_uppercase + string.digits + string.ascii_lowercase
JOKER = "JOKER"


def _word(rng: np.random.Generator, low: int, high: int) -> str:
    n = int(rng.integers(low, high + 1))
    return "".join(str(c) for c in rng.choice(list(LETTERS), n))


def _vertical_word(rng: np.random.Generator) -> str:
    while True:
        word = _word(rng, 2, 6).upper()
        if word not in JOKER:  # never a joker's own lettering, whole or in part
            return word


def _ink(rng: np.random.Generator) -> tuple[int, int, int]:
    choices = [(20, 20, 20), (200, 30, 30), (30, 40, 160), (40, 120, 50)]
    base = np.array(choices[int(rng.integers(len(choices)))], dtype=np.int64)
    r, g, b = (int(v) for v in np.clip(base + rng.integers(-20, 21, 3), 0, 255))
    return r, g, b


def _paper(rng: np.random.Generator, side: int) -> np.ndarray:
    if rng.random() < 0.75:  # newsprint, office paper, a book page: near-neutral
        tone = float(rng.uniform(170, 250)) + rng.uniform(-10, 10, 3)
    else:  # a coloured flyer or packaging
        tone = rng.uniform(60, 255, 3)
    sheet = np.empty((side, side, 3), np.float32)
    sheet[:] = tone
    sheet += rng.normal(0, 4, sheet.shape)
    return sheet


def _paragraph(rng: np.random.Generator, font: str | int, letter_h: int, side: int) -> np.ndarray:
    """A block of text filling the sheet: a newspaper column, a flyer, a rule book."""
    mask = np.zeros((side, side), np.float32)
    y = int(rng.integers(0, letter_h))
    first = True
    while y < side:
        h = int(letter_h * rng.uniform(1.8, 3.0)) if first and rng.random() < 0.4 else letter_h
        first = False
        words = [_word(rng, 1, 10) for _ in range(int(rng.integers(3, 9)))]
        line = text_mask(" ".join(words), font, h, float(rng.uniform(0.8, 1.1)), 2)
        line = line[:, :side]
        bottom = min(side, y + h)
        mask[y:bottom, : line.shape[1]] = np.maximum(
            mask[y:bottom, : line.shape[1]], line[: bottom - y]
        )
        y += int(h * rng.uniform(1.15, 1.6))
    return mask


def text_negative(rng: np.random.Generator) -> np.ndarray:
    """One 64 px BGR crop of printed text that is not a corner index."""
    side = 256
    sheet = _paper(rng, side)
    fonts: list[str | int] = [*font_paths(), *HERSHEY]
    font = fonts[int(rng.integers(len(fonts)))]
    ink = np.array(_ink(rng), np.float32)
    if rng.random() < 0.3:  # newsprint grey
        ink[:] = float(rng.uniform(30, 100))
    kind = rng.random()
    letter_h = int(rng.integers(28, 64))
    thickness = int(rng.integers(1, 4))
    if kind >= 0.5:
        letter_h = int(rng.integers(8, 40))
        mask = _paragraph(rng, font, letter_h, side)
    elif kind < 0.2:  # a vertical stack of letters, like a joker's JOKER
        word = _vertical_word(rng)
        masks = [text_mask(c, font, letter_h, 1.0, thickness) for c in word]
        width = max(m.shape[1] for m in masks)
        gap = max(1, letter_h // 6)
        stack = np.zeros((len(masks) * (letter_h + gap), width), np.float32)
        for i, m in enumerate(masks):
            x = (width - m.shape[1]) // 2
            stack[i * (letter_h + gap) : i * (letter_h + gap) + letter_h, x : x + m.shape[1]] = m
        mask = stack
    elif kind < 0.3:  # a lone rank-like letter or "10", no suit under it
        mask = text_mask(str(rng.choice(RANK_LIKE)), font, letter_h, 1.0, thickness)
    else:  # a few lines of text
        lines = [_word(rng, 1, 9) for _ in range(int(rng.integers(1, 4)))]
        masks = [text_mask(line, font, letter_h, 1.0, thickness) for line in lines]
        width = max(m.shape[1] for m in masks)
        mask = np.zeros((len(masks) * int(letter_h * 1.4), width), np.float32)
        for i, m in enumerate(masks):
            y = i * int(letter_h * 1.4)
            mask[y : y + letter_h, : m.shape[1]] = m
    mh, mw = mask.shape
    if mh > side - 8 or mw > side - 8:
        k = (side - 8) / max(mh, mw)
        mask = cv2.resize(mask, (max(1, int(mw * k)), max(1, int(mh * k))))
        mh, mw = mask.shape
    x, y = (side - mw) // 2, (side - mh) // 2
    region = sheet[y : y + mh, x : x + mw]
    sheet[y : y + mh, x : x + mw] = region * (1 - mask[..., None]) + ink * mask[..., None]
    image = cv2.cvtColor(np.clip(sheet, 0, 255).astype(np.uint8), cv2.COLOR_RGB2BGR)
    # The box a localiser would draw: around one letter-sized part of the text, or around a
    # whole word or line of small print (a maker's name across an ace, a packet's fine print),
    # which puts letters a tenth of the crop high: a joker's lettering seen at a distance.
    if kind >= 0.3 and rng.random() < 0.4:
        box_h = min(letter_h * float(rng.uniform(3.0, 9.0)), 0.7 * side)
        box_w = box_h * float(rng.uniform(0.5, 1.0))
    else:
        box_h = letter_h * float(rng.uniform(1.2, 4.0 if kind >= 0.5 else 2.6))
        box_w = box_h * float(rng.uniform(0.4, 0.9))
    cx = side / 2 + float(rng.uniform(-0.25, 0.25)) * mw
    cy = side / 2 + float(rng.uniform(-0.25, 0.25)) * mh
    box = (cx - box_w / 2, cy - box_h / 2, cx + box_w / 2, cy + box_h / 2)
    patch = crop(image, box, CROP_SIZE, angle=float(rng.uniform(0, 360)))
    if rng.random() < 0.4:
        sigma = float(rng.uniform(0.3, 1.2))
        patch = cv2.GaussianBlur(patch, (0, 0), sigma)
    patch = blur_down(rng, patch)
    return jpeg_artefacts(rng, patch)
