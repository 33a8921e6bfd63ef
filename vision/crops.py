"""Corner-index crops: the one crop geometry shared by the classifier's data and its runtime.

The detector is used as a *localiser* (where are corner indices?) and a small classifier reads
each one (which card is it, or none?) from a crop of the full-resolution frame. Reading from the
frame rather than from the detector's downscaled tile sees the index at its real resolution, and
a 55-way classifier on 64 px crops trains in minutes on the CPU, where a 54-class detector needs
days to separate look-alike indices (6/9 upside down, ♥/♦ in four-colour decks, 10/Q).

This module owns the crop: a square around the box's centre, :data:`CROP_MARGIN` times its long
side (the margin shows whether the rank sits above or below the suit, which is what tells an
upside-down 6 from a 9), resampled to :data:`CROP_SIZE` pixels with the border replicated.
Training data (``chaodipi vision crops``) cuts the same crops from synthetic scenes, with the
box jittered the way a localiser misses (scale, shift, a few degrees), plus "none" crops from
everywhere else on the table (pips, court figures, card backs, cloth, hands), so the classifier
also rejects the localiser's false alarms. Folders follow the ultralytics classification layout
``OUT/<split>/<class>/NNNNNN_K.png``.

A :class:`ReadingSource` lets the crop come from another, finer image than the one the boxes
were found in: the table pipeline localises on its top-down decision frame (10 px a cm) and
reads each index straight from the camera frame through the calibration's homography
(:func:`crop_mapped`), so a camera that resolves the table finer than the decision frame gives
the classifier its full resolution without warping the whole table at it.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_NAMES

CROP_SIZE = 64
CROP_MARGIN = 1.3
NONE_CLASS = "none"
CLASSIFIER_NAMES: tuple[str, ...] = (*CLASS_NAMES, NONE_CLASS)
"""The classifier's classes: the 54 identities, then ``none`` (not a corner index)."""

Box = tuple[float, float, float, float]


def crop_matrix(
    box: Box,
    size: int = CROP_SIZE,
    margin: float = CROP_MARGIN,
    scale: float = 1.0,
    shift: tuple[float, float] = (0.0, 0.0),
    angle: float = 0.0,
) -> np.ndarray:
    """The 2×3 affine map from image pixels to the crop of ``box`` (see the module docstring).

    ``scale``, ``shift`` (fractions of the side) and ``angle`` (degrees) jitter the square; the
    runtime uses the defaults.
    """
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 1.0) * margin * scale
    cx = (x0 + x1) / 2 + shift[0] * side
    cy = (y0 + y1) / 2 + shift[1] * side
    k = size / side
    a = math.radians(angle)
    cos, sin = math.cos(a) * k, math.sin(a) * k
    # Rotate about the centre, scale to the crop, move the centre to the crop's centre.
    return np.array(
        [
            [cos, sin, size / 2 - cos * cx - sin * cy],
            [-sin, cos, size / 2 + sin * cx - cos * cy],
        ],
        dtype=np.float64,
    )


def crop(
    image: np.ndarray,
    box: Box,
    size: int = CROP_SIZE,
    scale: float = 1.0,
    shift_x: float = 0.0,
    shift_y: float = 0.0,
    angle: float = 0.0,
) -> np.ndarray:
    """The ``size × size`` crop of ``box`` from ``image`` (uint8; jitter: :func:`crop_matrix`)."""
    matrix = crop_matrix(box, size, scale=scale, shift=(shift_x, shift_y), angle=angle)
    x0, y0, x1, y1 = box
    side = max(x1 - x0, y1 - y0, 1.0) * CROP_MARGIN * scale
    if side > 2 * size:
        # Shrinking a lot: area-average a region around the square first (warpAffine has no
        # area mode and small text would alias into other glyphs), then warp that.
        h, w = image.shape[:2]
        cx, cy = (x0 + x1) / 2 + shift_x * side, (y0 + y1) / 2 + shift_y * side
        r = side * 0.75  # covers the square at any angle (half-diagonal ≈ 0.71 side)
        rx0, ry0 = max(0, math.floor(cx - r)), max(0, math.floor(cy - r))
        rx1, ry1 = min(w, math.ceil(cx + r)), min(h, math.ceil(cy + r))
        if rx1 > rx0 and ry1 > ry0:
            factor = 2 * size / side
            region = image[ry0:ry1, rx0:rx1]
            dw = max(1, round((rx1 - rx0) * factor))
            dh = max(1, round((ry1 - ry0) * factor))
            image = cv2.resize(region, (dw, dh), interpolation=cv2.INTER_AREA)
            fx, fy = (rx1 - rx0) / dw, (ry1 - ry0) / dh
            matrix = matrix @ np.array([[fx, 0, rx0], [0, fy, ry0], [0, 0, 1]])
    return cv2.warpAffine(
        image, matrix, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


@dataclass(frozen=True)
class ReadingSource:
    """The image to read indices from and the homography from detection-frame pixels to it."""

    image: np.ndarray
    from_frame: np.ndarray  # 3 × 3: detection-frame pixel → source pixel

    @functools.cached_property
    def to_frame(self) -> np.ndarray:
        """Source pixel → detection-frame pixel (inverted once, used for every crop)."""
        return np.linalg.inv(self.from_frame)


def crop_mapped(
    source: ReadingSource, box: Box, size: int = CROP_SIZE, scale: float = 1.0, angle: float = 0.0
) -> np.ndarray:
    """:func:`crop` of a detection-frame ``box``, resampled from ``source.image`` directly."""
    frame_to_crop = np.vstack([crop_matrix(box, size, scale=scale, angle=angle), [0, 0, 1]])
    to_crop = frame_to_crop @ source.to_frame
    square = np.array([[[0, 0], [size, 0], [size, size], [0, size]]], np.float64)
    corners = cv2.perspectiveTransform(square, np.linalg.inv(to_crop))[0]
    image = source.image
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    side = max(x1 - x0, y1 - y0)
    if side > 2 * size:
        # A much finer source: area-average the region first (as :func:`crop` does).
        h, w = image.shape[:2]
        rx0, ry0 = max(0, math.floor(x0)), max(0, math.floor(y0))
        rx1, ry1 = min(w, math.ceil(x1)), min(h, math.ceil(y1))
        if rx1 > rx0 and ry1 > ry0:
            factor = 2 * size / side
            dw, dh = max(1, round((rx1 - rx0) * factor)), max(1, round((ry1 - ry0) * factor))
            image = cv2.resize(image[ry0:ry1, rx0:rx1], (dw, dh), interpolation=cv2.INTER_AREA)
            scale_back = [[(rx1 - rx0) / dw, 0, rx0], [0, (ry1 - ry0) / dh, ry0], [0, 0, 1]]
            to_crop = to_crop @ np.array(scale_back)
    return cv2.warpPerspective(
        image, to_crop, (size, size), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def _iou(a: Box, b: Box) -> float:
    w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _jittered_crop(rng: np.random.Generator, image: np.ndarray, box: Box) -> np.ndarray:
    """A crop of ``box`` as a localiser might miss it: scaled, shifted, a few degrees turned."""
    return crop(
        image,
        box,
        scale=float(rng.uniform(0.85, 1.25)),
        shift_x=float(rng.uniform(-0.12, 0.12)),
        shift_y=float(rng.uniform(-0.12, 0.12)),
        angle=float(rng.uniform(-8, 8)),
    )


def blur_down(rng: np.random.Generator, patch: np.ndarray) -> np.ndarray:
    """Sometimes lose resolution: a far camera or a soft lens shows the index with few pixels
    (the table camera's binned 2304 × 1296 mode gives a crop about 34 px across, its full sensor
    about 68)."""
    if rng.random() < 0.4:
        # Not below ~28 px: smaller, a suit glyph is a few pixels and the label would be a guess.
        low = int(rng.integers(28, CROP_SIZE))
        patch = cv2.resize(patch, (low, low), interpolation=cv2.INTER_AREA)
        patch = cv2.resize(patch, (CROP_SIZE, CROP_SIZE), interpolation=cv2.INTER_LINEAR)
    return patch


def jpeg_artefacts(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """``image`` after a round trip through JPEG at a random quality (40–95), as a camera or
    a phone would save it."""
    quality = int(rng.integers(40, 96))
    ok, jpeg = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, quality])
    decoded = cv2.imdecode(jpeg, cv2.IMREAD_COLOR) if ok else None
    return image if decoded is None else decoded


def scene_crops(
    rng: np.random.Generator,
    image: np.ndarray,
    boxes: Sequence[tuple[int, float, float, float, float]],
    jitters: int = 2,
    negatives: int = 3,
) -> Iterator[tuple[str, np.ndarray]]:
    """Labelled crops of one scene: ``jitters`` per labelled box, ``negatives`` ``none`` crops."""
    gts: list[Box] = [(x0, y0, x1, y1) for _, x0, y0, x1, y1 in boxes]
    for cls, x0, y0, x1, y1 in boxes:
        for _ in range(jitters):
            patch = _jittered_crop(rng, image, (x0, y0, x1, y1))
            yield CLASS_NAMES[cls], blur_down(rng, patch)
    h, w = image.shape[:2]
    sides = [max(b[2] - b[0], b[3] - b[1]) for b in gts] or [w * 0.08]
    made = tries = 0
    while made < negatives and tries < 30 * negatives:
        tries += 1
        side = float(rng.choice(sides)) * float(rng.uniform(0.7, 1.5))
        if gts and rng.random() < 0.6:
            # Near an index: the card's pips and court figure, or its neighbour in the fan.
            g = gts[int(rng.integers(len(gts)))]
            d, a = side * float(rng.uniform(0.8, 3.0)), float(rng.uniform(0, 2 * math.pi))
            cx = min(max((g[0] + g[2]) / 2 + d * math.cos(a), 0.0), float(w))
            cy = min(max((g[1] + g[3]) / 2 + d * math.sin(a), 0.0), float(h))
        else:
            cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        cand = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
        # An index must not be the main thing in a "none" crop: its centre stays out of the
        # candidate's middle and the overlap stays small.
        if any(
            _iou(cand, g) > 0.1
            or (
                abs((g[0] + g[2]) / 2 - cx) < side * 0.35
                and abs((g[1] + g[3]) / 2 - cy) < side * 0.35
            )
            for g in gts
        ):
            continue
        made += 1
        yield NONE_CLASS, blur_down(rng, crop(image, cand, angle=float(rng.uniform(-8, 8))))


def _render_chunk(
    args: tuple[int, int, int, Sequence[str], Sequence[int], Path, str, int, float, float],
) -> int:
    start, stop, seed, designs, sizes, out, split, text_negatives, joker_share, square = args
    from vision.synth import render_scene
    from vision.text_negatives import text_negative

    written = 0
    for i in range(start, stop):
        rng = np.random.default_rng(seed * 1_000_003 + i)
        imgsz = int(rng.choice(list(sizes)))
        image_rgb, boxes = render_scene(
            rng, designs, imgsz, seed, joker_share=joker_share, square_bowls=square
        )
        image = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR)
        image = jpeg_artefacts(rng, image)
        for k, (label, patch) in enumerate(scene_crops(rng, image, boxes)):
            folder = out / split / label
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{i:06d}_{k}.png"), patch)
            written += 1
        for k in range(text_negatives):
            path = out / split / NONE_CLASS / f"{i:06d}_t{k}.png"
            cv2.imwrite(str(path), text_negative(rng))
            written += 1
    return written


def synthesize_crops(
    n_scenes: int,
    out: Path,
    seed: int,
    designs: Sequence[str],
    sizes: Sequence[int] = (320, 640),
    split: str = "train",
    workers: int = 2,
    text_negatives: int = 1,
    joker_share: float = 0.0,
    square_bowls: float = 0.0,
) -> int:
    """Render ``n_scenes`` synthetic scenes and write their crops to ``out/<split>/<class>/``,
    plus ``text_negatives`` printed-text ``none`` crops a scene (:mod:`vision.text_negatives`);
    ``joker_share`` of the card groups get jokers mixed in, ``square_bowls`` of the stroke
    fonts square their bowls (:func:`vision.synth.render_scene`).

    Deterministic per scene (seeded like :func:`vision.synth.synthesize`); ``workers`` processes
    share the scenes. Every class folder is created, so a split always lists all 55 classes.
    Returns the number of crops written.
    """
    from vision.synth import _progress

    out = Path(out)
    for name in CLASSIFIER_NAMES:
        (out / split / name).mkdir(parents=True, exist_ok=True)
    chunk = 25
    jobs = [
        (
            s,
            min(s + chunk, n_scenes),
            seed,
            tuple(designs),
            tuple(sizes),
            out,
            split,
            text_negatives,
            joker_share,
            square_bowls,
        )
        for s in range(0, n_scenes, chunk)
    ]
    total = 0
    bar = iter(_progress(len(jobs), f"crops {split} (×{chunk} scenes)"))
    if workers <= 1:
        for job in jobs:
            total += _render_chunk(job)
            next(bar, None)
        return total
    with multiprocessing.get_context("spawn").Pool(workers) as pool:
        for written in pool.imap_unordered(_render_chunk, jobs):
            total += written
            next(bar, None)
    return total
