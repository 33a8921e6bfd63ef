"""Classifier evaluation on a crops folder: how often the card classifier alone reads an index.

This module owns ``chaodipi vision eval-crops``: a folder in the layout ``chaodipi vision crops``
writes (``DIR/<class>/*.png``, or ``DIR/<split>/<class>/*.png`` with ``--split``), each crop
given to the classifier exactly as it was trained (the crop resized to its input), and the
share read right overall, per class, and the commonest confusions. It measures the second
stage alone, apart from the localiser's boxes and the grouping: e.g. on the held-out design's
crops (``chaodipi vision crops --designs adrian_kennard --split test``).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.classifier import CardClassifier
from vision.crops import CLASSIFIER_NAMES

BATCH = 64


class CropsError(ValueError):
    """The crops folder cannot be read; one line naming the folder and the fix."""


def crop_files(folder: Path) -> list[tuple[str, Path]]:
    """``(class, path)`` of every crop under ``folder/<class>/`` (our 55 class names)."""
    if not folder.is_dir():
        raise CropsError(f"crops folder {folder} does not exist: give DIR/<class>/*.png")
    found = [
        (d.name, f)
        for d in sorted(folder.iterdir())
        if d.is_dir() and d.name in CLASSIFIER_NAMES
        for f in sorted(d.iterdir())
        if f.suffix.lower() in (".png", ".jpg", ".jpeg")
    ]
    if not found:
        raise CropsError(
            f"crops folder {folder} holds no <class>/ folders of crops: "
            "write one with chaodipi vision crops (add --split if it has split folders)"
        )
    return found


def evaluate_crops(
    folder: Path,
    classifier: CardClassifier,
    top: int = 15,
    progress: Callable[[int, str], Iterable[int]] | None = None,
) -> dict[str, Any]:
    """``{"crops", "accuracy", "per_class": {class: {"n", "right", "accuracy"}},
    "confusions": [{"true", "read", "n"}]}`` (the ``top`` commonest). ``progress(n, label)``
    wraps the batches (a progress bar)."""
    files = crop_files(folder)
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    confused: Counter[tuple[str, str]] = Counter()
    batches = (len(files) + BATCH - 1) // BATCH
    for b in progress(batches, "eval-crops") if progress else range(batches):
        chunk = files[b * BATCH : (b + 1) * BATCH]
        images = [_load(path, classifier.size) for _, path in chunk]
        for (truth, _), read in zip(chunk, classifier.read_crops(images), strict=True):
            total[truth] += 1
            if read.identity == truth:
                right[truth] += 1
            else:
                confused[(truth, read.identity)] += 1
    n = sum(total.values())
    return {
        "crops": n,
        "accuracy": round(sum(right.values()) / n, 4),
        "per_class": {
            c: {"n": total[c], "right": right[c], "accuracy": round(right[c] / total[c], 4)}
            for c in CLASSIFIER_NAMES
            if total[c]
        },
        "confusions": [{"true": t, "read": r, "n": k} for (t, r), k in confused.most_common(top)],
    }


def _load(path: Path, size: int) -> np.ndarray:
    image = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if image is None:
        raise CropsError(f"crop {path} is not an image: delete it or write the crops again")
    return cv2.resize(image, (size, size), interpolation=cv2.INTER_AREA)


def summary_text(result: dict[str, Any], weakest: int = 8) -> str:
    """A few lines: the accuracy, the weakest classes, the commonest confusions."""
    per: Sequence[tuple[str, dict[str, Any]]] = sorted(
        result["per_class"].items(), key=lambda kv: kv[1]["accuracy"]
    )
    lines = [f"{result['crops']} crops, read right {100 * result['accuracy']:.1f}%"]
    lines.append(
        "weakest: "
        + ", ".join(f"{c} {100 * v['accuracy']:.0f}% of {v['n']}" for c, v in per[:weakest])
    )
    lines.append(
        "confusions: "
        + ", ".join(f"{x['true']}→{x['read']} ×{x['n']}" for x in result["confusions"])
    )
    return "\n".join(lines)
