"""Corner-index classifier runtime: which card a localised corner index shows, or none.

A small ultralytics classification model exported to ONNX (``models/card_classifier.onnx``),
run with onnxruntime on crops cut by :func:`vision.crops.crop` from the full-resolution frame —
the same crops it was trained on. Its classes are the 54 identities plus ``none`` (read from the
model's metadata; ultralytics orders them alphabetically). Needs only onnxruntime, OpenCV and
numpy.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

import numpy as np

from vision.crops import (
    CLASSIFIER_NAMES,
    CROP_SIZE,
    NONE_CLASS,
    Box,
    ReadingSource,
    crop,
    crop_mapped,
)
from vision.onnx_model import (
    REPO_ROOT,
    ModelError,
    open_session,
    read_metadata_imgsz,
    read_metadata_names,
    to_blob,
)

DEFAULT_CLASSIFIER = REPO_ROOT / "models" / "card_classifier.onnx"
MAX_BATCH = 64


class Read(NamedTuple):
    """One box's reading: the likeliest identity and its probability, and the next likeliest
    (``runner_up``: what the referee should look for when the first is in doubt)."""

    identity: str
    probability: float
    runner_up: str
    runner_up_probability: float


@dataclass
class CardClassifier:
    """``CardClassifier().classify(frame_bgr, boxes)`` → one ``(identity, probability)`` per box;
    the identity is ``"none"`` when the crop shows no corner index."""

    model_path: Path = DEFAULT_CLASSIFIER
    threads: int = 1
    views: tuple[tuple[float, float], ...] = ((1.0, 0.0), (1.0, 90.0), (1.0, 180.0), (1.0, 270.0))
    """(scale, angle°) views of a box whose probabilities are averaged (test-time augmentation).
    The classifier is trained on indices at every angle (cards lie every way round on a
    table), so the four quarter turns are four honest looks at the same index. The first view
    is always taken; the others only for unsure boxes (``second_look_below``). Measured at
    conf 0.5 with the classifier of epoch 1 of ``cls_v6``, unsure boxes looked at again:
    0° + 180°: real photos 0.828 / 0.944 identity precision / recall, synthetic held-out design
    0.788 / 0.680; four quarter turns: 0.859 / 0.937 and 0.820 / 0.686."""
    second_look_below: float = 0.9
    """Boxes whose first view's best probability reaches this are not looked at again (the
    other ``views`` are for the unsure ones); 1.0 looks at every box with every view. Measured
    at conf 0.5 with ``cls_v3`` (views 0° + 180°): real photos 0.807 / 0.909 identity precision
    / recall at 0.9 vs 0.806 / 0.902 always; synthetic held-out design 0.762 / 0.681 vs 0.766 /
    0.678 — the same reading for fewer classifier runs (most boxes are read surely at first
    sight; ≈ 0.5 ms a view of a box here)."""
    names: tuple[str, ...] = field(init=False)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        self.model_path = Path(self.model_path)
        self.session = open_session(self.model_path, self.threads, "classifier", "train-classifier")
        meta = dict(self.session.get_modelmeta().custom_metadata_map)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        side = model_input.shape[2]
        self.size = side if isinstance(side, int) else read_metadata_imgsz(meta) or CROP_SIZE
        self.names = read_metadata_names(meta) or CLASSIFIER_NAMES
        unknown = set(self.names) - set(CLASSIFIER_NAMES)
        if unknown or NONE_CLASS not in self.names:
            raise ModelError(
                f"classifier {self.model_path.name} has classes {sorted(unknown)[:3]} … "
                "that are not ours (54 identities + none): retrain it"
            )
        self.dynamic_batch = not isinstance(model_input.shape[0], int)

    def classify(
        self, image_bgr: np.ndarray, boxes: Sequence[Box], source: ReadingSource | None = None
    ) -> list[tuple[str, float]]:
        """Read each box of ``image_bgr``; from ``source`` (a finer view of it) when given."""
        return [(r.identity, r.probability) for r in self.read(image_bgr, boxes, source)]

    def read(
        self, image_bgr: np.ndarray, boxes: Sequence[Box], source: ReadingSource | None = None
    ) -> list[Read]:
        """Like :meth:`classify`, with each box's runner-up reading too."""
        if not boxes:
            return []
        first, *more = self.views
        table = self._probabilities(image_bgr, boxes, [first], source)
        unsure = [i for i, row in enumerate(table) if row.max() < self.second_look_below]
        if more and unsure:
            looks = self._probabilities(image_bgr, [boxes[i] for i in unsure], more, source)
            table[unsure] = (table[unsure] + looks * len(more)) / (1 + len(more))
        return self._ranked(table)

    def read_crops(self, crops: Sequence[np.ndarray]) -> list[Read]:
        """Read ready-made crops (BGR, ``size`` × ``size``: the layout it was trained on), one
        look each."""
        if not crops:
            return []
        return self._ranked(self._run(list(crops)))

    def _ranked(self, table: np.ndarray) -> list[Read]:
        """Each row's best and runner-up classes with their probabilities."""
        ranked = np.argsort(-table, axis=1, kind="stable")[:, :2]
        return [
            Read(self.names[int(a)], float(table[i, a]), self.names[int(b)], float(table[i, b]))
            for i, (a, b) in enumerate(ranked)
        ]

    def _run(self, crops: list[np.ndarray]) -> np.ndarray:
        """The model's class probabilities for each crop (crops × classes)."""
        probs: list[np.ndarray] = []
        step = MAX_BATCH if self.dynamic_batch else 1
        for i in range(0, len(crops), step):
            out = self.session.run(None, {self.input_name: to_blob(crops[i : i + step])})[0]
            probs.append(np.asarray(out, dtype=np.float32).reshape(-1, len(self.names)))
        return np.concatenate(probs)

    def _probabilities(
        self,
        image_bgr: np.ndarray,
        boxes: Sequence[Box],
        views: Sequence[tuple[float, float]],
        source: ReadingSource | None = None,
    ) -> np.ndarray:
        """Class probabilities of each box, averaged over ``views`` (boxes × classes)."""
        crops = [
            crop(image_bgr, box, self.size, scale=scale, angle=angle)
            if source is None
            else crop_mapped(source, box, self.size, scale=scale, angle=angle)
            for scale, angle in views
            for box in boxes
        ]
        table: np.ndarray = self._run(crops).reshape(len(views), len(boxes), -1).mean(axis=0)
        return table
