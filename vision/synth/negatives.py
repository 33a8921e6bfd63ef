"""The phantom-card check set: table scenes with no card in them, only what real tables show
that a reader can take for one — printed pages, score sheets, card packaging with brand
lettering, patterned cloths.

Every image is a YOLO image with an empty label file, so ``chaodipi vision eval`` on the set
counts each read as false (``chaodipi vision negatives --n N --out DIR`` writes it). Letters and
digits appear at every size a corner index has on camera (A, K, Q, J, 10 among them, "JOKER"
on packaging); suit symbols appear without a rank, as on a pack's emblem. The camera is the
scenes' own (:mod:`vision.synth.scenes`: perspective, shadows, glare, blur, noise, JPEG).
"""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from vision.synth.lettering import HERSHEY, font_paths, paste, suit_mask, text_mask
from vision.synth.scenes import (
    background,
    camera_homography,
    photometric,
    progress,
    scene_name,
    smooth_noise,
    write_data_yaml,
)

KINDS = ("page", "score_sheet", "packaging", "cloth")
BRANDS = (
    "POKER",
    "PLAYING CARDS",
    "JOKER",
    "ROYAL",
    "CASINO",
    "CLUB",
    "ACE",
    "KING",
    "QUEEN",
    "BRIDGE",
    "CLASSIC",
    "DELUXE",
    "No. 10",
    "TRUMP",
    "GRAND",
    "JQK",
)
RANKS = ("A", "K", "Q", "J", "10", "2", "3", "4", "5", "6", "7", "8", "9")
SEAT_WORDS = ("N", "E", "S", "W", "NS", "EW", "Total", "Level", "Score", "Round")


def _fonts() -> list[str | int]:
    return [*font_paths(), *HERSHEY]


def _ink(rng: np.random.Generator) -> np.ndarray:
    inks = [(20, 20, 20), (30, 40, 160), (170, 30, 30), (40, 110, 50), (60, 60, 60)]
    return np.array(inks[int(rng.integers(len(inks)))], np.float32) + rng.uniform(-15, 15, 3)


def _word(rng: np.random.Generator) -> str:
    pool = [*RANKS, *SEAT_WORDS, *BRANDS]
    if rng.random() < 0.5:
        return str(pool[int(rng.integers(len(pool)))])
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
    return "".join(str(c) for c in rng.choice(list(letters), int(rng.integers(1, 9))))


def _page(rng: np.random.Generator, size: int, letter: float) -> np.ndarray:
    """A printed page: headline and columns of text, black or coloured ink on tinted paper."""
    paper = np.empty((size, size, 3), np.float32)
    paper[:] = rng.uniform(200, 250) + rng.uniform(-12, 12, 3)
    fonts = _fonts()
    ink = _ink(rng)
    y = int(rng.integers(0, int(letter) + 1))
    headline = True
    while y < size:
        h = max(6, int(letter * (rng.uniform(1.8, 3.5) if headline else rng.uniform(0.6, 1.2))))
        headline = rng.random() < 0.08
        font = fonts[int(rng.integers(len(fonts)))]
        line = " ".join(_word(rng) for _ in range(int(rng.integers(2, 8))))
        mask = text_mask(line, font, h, float(rng.uniform(0.8, 1.1)), int(rng.integers(1, 4)))
        paste(paper, mask[:, :size], int(rng.integers(0, max(1, size // 10))), y, ink)
        y += int(h * rng.uniform(1.2, 1.7))
    return paper


def _score_sheet(rng: np.random.Generator, size: int, letter: float) -> np.ndarray:
    """A score sheet: ruled grid, seat and level headings, numbers written in every cell."""
    sheet = np.empty((size, size, 3), np.float32)
    sheet[:] = rng.uniform(215, 252) + rng.uniform(-8, 8, 3)
    line_colour = tuple(float(v) for v in rng.uniform(60, 180, 3))
    cell_w = int(letter * rng.uniform(2.5, 5.0))
    cell_h = int(letter * rng.uniform(1.4, 2.2))
    for x in range(0, size, cell_w):
        cv2.line(sheet, (x, 0), (x, size), line_colour, 1, cv2.LINE_AA)
    for y in range(0, size, cell_h):
        cv2.line(sheet, (0, y), (size, y), line_colour, 1, cv2.LINE_AA)
    fonts = _fonts()
    ink = _ink(rng)
    font = fonts[int(rng.integers(len(fonts)))]
    for y in range(0, size - cell_h, cell_h):
        for x in range(0, size - cell_w, cell_w):
            if rng.random() < 0.3:
                continue
            text = (
                str(rng.choice(RANKS))
                if rng.random() < 0.4
                else str(int(rng.integers(0, 200)))
                if rng.random() < 0.7
                else str(rng.choice(SEAT_WORDS))
            )
            h = max(5, int(cell_h * rng.uniform(0.45, 0.8)))
            mask = text_mask(text, font, h, float(rng.uniform(0.8, 1.2)), int(rng.integers(1, 4)))
            paste(sheet, mask[:, : cell_w - 2], x + 2, y + (cell_h - h) // 2, ink)
    return sheet


def _packaging(rng: np.random.Generator, size: int, letter: float) -> np.ndarray:
    """A card pack or its box: a coloured panel, brand lettering, a suit emblem without rank."""
    box = np.empty((size, size, 3), np.float32)
    box[:] = rng.uniform(20, 235, 3)
    box += smooth_noise(rng, size, 4)[..., None] * 15
    fonts = _fonts()
    for _ in range(int(rng.integers(1, 4))):
        word = str(rng.choice(BRANDS))
        h = max(8, int(letter * rng.uniform(0.8, 4.0)))
        font = fonts[int(rng.integers(len(fonts)))]
        mask = text_mask(word, font, h, float(rng.uniform(0.7, 1.2)), int(rng.integers(1, 4)))
        if rng.random() < 0.3:  # lettering running down the pack, like a joker's JOKER
            mask = np.ascontiguousarray(np.rot90(mask, int(rng.choice([1, 3]))))
        colour = np.array(rng.uniform(0, 255, 3), np.float32)
        x = int(rng.integers(-mask.shape[1] // 4, max(1, size - mask.shape[1] // 2)))
        y = int(rng.integers(-mask.shape[0] // 4, max(1, size - mask.shape[0] // 2)))
        paste(box, mask, x, y, colour)
    if rng.random() < 0.7:
        side = int(letter * rng.uniform(1.5, 6.0))
        emblem = suit_mask(str(rng.choice(list("SHDC"))), (0.5, 0.5, 0.5, 0.5), side, side)
        colour = np.array(rng.choice([(200, 30, 30), (20, 20, 20), (230, 200, 60)]), np.float32)
        x, y = (int(v) for v in rng.integers(0, size, 2))
        paste(box, emblem.astype(np.float32), x, y, colour)
    return box


def _cloth(rng: np.random.Generator, size: int, letter: float) -> np.ndarray:
    """A patterned cloth: checks, stripes, polka dots or a busy print of small shapes."""
    cloth = background(rng, size)
    kind = int(rng.integers(3))
    colour = tuple(float(v) for v in rng.uniform(0, 255, 3))
    step = max(4, int(letter * rng.uniform(0.6, 3.0)))
    if kind == 0:  # polka dots
        r = max(2, int(step * rng.uniform(0.15, 0.35)))
        for y in range(0, size, step):
            for x in range((y // step % 2) * step // 2, size, step):
                cv2.circle(cloth, (x, y), r, colour, -1, cv2.LINE_AA)
    elif kind == 1:  # stripes
        width = max(1, int(step * rng.uniform(0.1, 0.5)))
        for x in range(0, 2 * size, step):
            cv2.line(cloth, (x, 0), (x - size, size), colour, width, cv2.LINE_AA)
    else:  # a busy print: small blobs, crosses and rings
        for _ in range(int((size / step) ** 2 * 0.8)):
            c = (int(rng.integers(size)), int(rng.integers(size)))
            r = max(2, int(step * rng.uniform(0.1, 0.4)))
            shape = int(rng.integers(3))
            if shape == 0:
                cv2.circle(cloth, c, r, colour, -1, cv2.LINE_AA)
            elif shape == 1:
                cv2.circle(cloth, c, r, colour, max(1, r // 3), cv2.LINE_AA)
            else:
                cv2.line(cloth, (c[0] - r, c[1]), (c[0] + r, c[1]), colour, 2, cv2.LINE_AA)
                cv2.line(cloth, (c[0], c[1] - r), (c[0], c[1] + r), colour, 2, cv2.LINE_AA)
    return cloth


def render_negative(rng: np.random.Generator, imgsz: int) -> tuple[np.ndarray, str]:
    """One card-free scene (RGB uint8, ``imgsz`` square) and its kind."""
    size = imgsz * 2
    kind = str(rng.choice(KINDS))
    # The letter height of a corner index on camera: 2–12 % of the frame.
    letter = size * float(rng.uniform(0.02, 0.12))
    drawer = {"page": _page, "score_sheet": _score_sheet, "packaging": _packaging}.get(kind)
    canvas = background(rng, size)
    if drawer is None:
        canvas = _cloth(rng, size, letter)
    else:
        sheet = drawer(rng, size, letter)
        # The sheet lies on the table, turned, covering most of the view.
        angle = float(rng.uniform(-40, 40))
        scale = float(rng.uniform(0.7, 1.2))
        m = cv2.getRotationMatrix2D((size / 2, size / 2), angle, scale)
        m[:, 2] = m[:, 2] + rng.uniform(-0.2, 0.2, 2) * size
        warped = cv2.warpAffine(sheet, m, (size, size), flags=cv2.INTER_AREA)
        mask = cv2.warpAffine(np.ones((size, size), np.float32), m, (size, size))[..., None]
        canvas = canvas * (1 - mask) + warped * mask
    canvas = cv2.warpPerspective(
        canvas.astype(np.float32),
        camera_homography(rng, size),
        (size, size),
        borderMode=cv2.BORDER_REFLECT,
    )
    image = photometric(rng, canvas)
    return cv2.resize(image, (imgsz, imgsz), interpolation=cv2.INTER_AREA), kind


def synthesize_negatives(
    n: int, out: Path, seed: int, imgsz: int = 640, split: str = "test"
) -> dict[str, int]:
    """Write ``n`` card-free scenes as a YOLO dataset (empty labels); returns counts by kind."""
    out = Path(out)
    img_dir, lbl_dir = out / "images" / split, out / "labels" / split
    img_dir.mkdir(parents=True, exist_ok=True)
    lbl_dir.mkdir(parents=True, exist_ok=True)
    counts = dict.fromkeys(KINDS, 0)
    for i in progress(n, f"negatives {split}"):
        rng = np.random.default_rng([seed, i, 77])
        image, kind = render_negative(rng, imgsz)
        counts[kind] += 1
        quality = int(rng.integers(60, 96))
        bgr = cv2.cvtColor(image, cv2.COLOR_RGB2BGR)
        name = scene_name(seed, i)
        cv2.imwrite(str(img_dir / f"{name}.jpg"), bgr, [cv2.IMWRITE_JPEG_QUALITY, quality])
        (lbl_dir / f"{name}.txt").write_text("")
    write_data_yaml(out)
    return counts
