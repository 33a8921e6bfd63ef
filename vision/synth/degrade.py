"""What a camera does to a crop: lost resolution and JPEG artefacts, applied at random."""

from __future__ import annotations

import cv2
import numpy as np

from vision.crops import CROP_SIZE


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
