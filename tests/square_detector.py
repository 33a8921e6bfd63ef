"""A ``CardDetector`` whose onnxruntime is replaced by a "model" that boxes white squares.

For tests of everything around inference (letterbox, tiling, native passes, zone reads) on
real pixels without a trained model: each white blob of the input becomes one box, named
``AS``, or by its side in input pixels when ``names_by_side`` is given (the nearest side wins).
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.classes import CLASS_ID, CLASS_NAMES
from vision.detector import Calibration, CardDetector

NC = len(CLASS_NAMES)


class SquareModel:
    """Stands in for onnxruntime: boxes each white blob of the input (see the module doc)."""

    def __init__(self, names_by_side: dict[int, str] | None = None) -> None:
        self.batches: list[int] = []
        self.shapes: list[tuple[int, int]] = []  # each input's height, width
        self.names_by_side = names_by_side or {}

    def _name(self, side: int) -> str:
        if not self.names_by_side:
            return "AS"
        return self.names_by_side[min(self.names_by_side, key=lambda s: abs(s - side))]

    def __call__(self, blob: np.ndarray) -> np.ndarray:
        self.batches.append(blob.shape[0])
        self.shapes.append((blob.shape[2], blob.shape[3]))
        out = np.zeros((blob.shape[0], 4 + NC, 50), np.float32)
        for b, image in enumerate(blob):
            mask = (image.min(axis=0) > 0.95).astype(np.uint8)
            n, _, stats, _ = cv2.connectedComponentsWithStats(mask)
            for i in range(1, min(n, 50)):
                x, y, w, h, _ = stats[i]
                out[b, :4, i] = (x + w / 2, y + h / 2, w, h)
                out[b, 4 + CLASS_ID[self._name(max(w, h))], i] = 0.9
        return out


def square_detector(
    dynamic: bool = True,
    size: int = 320,
    native: bool = False,
    names_by_side: dict[int, str] | None = None,
) -> tuple[CardDetector, SquareModel]:
    """The detector and its stand-in model (``native``: it takes any input size)."""
    det = object.__new__(CardDetector)
    det.names, det.size, det.dynamic_batch = CLASS_NAMES, size, dynamic
    det.reads_native = native
    det.localiser_classes = len(CLASS_NAMES)
    det.conf, det.iou, det.max_tiles, det.calibration = 0.25, 0.5, 4, Calibration()
    det.classifier = None  # one stage: the square model names its boxes itself
    model = SquareModel(names_by_side)
    det._infer = model  # type: ignore[method-assign]
    return det, model
