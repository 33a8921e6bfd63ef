"""Corner-index crops: the one crop geometry shared by the classifier's data and its runtime.

The detector is used as a *localiser* (where are corner indices?) and a small classifier reads
each one (which card is it, or none?) from a crop of the full-resolution frame. Reading from the
frame rather than from the detector's downscaled tile sees the index at its real resolution, and
a 55-way classifier on 64 px crops trains in minutes on the CPU, where a 54-class detector needs
days to separate look-alike indices (6/9 upside down, ♥/♦ in four-colour decks, 10/Q).

This module owns the crop: a square around the box's centre, :data:`CROP_MARGIN` times its long
side (the margin shows whether the rank sits above or below the suit, which is what tells an
upside-down 6 from a 9), resampled to :data:`CROP_SIZE` pixels with the border replicated.
The classifier's training data (:mod:`vision.synth.crop_data`) cuts the same crops.

A :class:`ReadingSource` lets the crop come from another, finer image than the one the boxes
were found in: the table pipeline localises on its top-down decision frame (12 px a cm) and
reads each index straight from the camera frame through the calibration's homography
(:func:`crop_mapped`), so a camera that resolves the table finer than the decision frame gives
the classifier its full resolution without warping the whole table at it.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

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
