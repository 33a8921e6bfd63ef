"""Card detector runtime: an ultralytics YOLO ONNX model run with onnxruntime on the CPU.

This module owns everything between a BGR image and a list of :class:`Detection` s: loading the
model (``models/card_detector.onnx`` by default) and its optional confidence calibration
(``models/card_detector.calibration.json``), letterboxing, tiling big frames into overlapping
squares, decoding the YOLO output, non-maximum suppression and mapping boxes back to image
pixels. A detection is one *corner index* (rank + suit printed in a card's corner; a whole joker
for joker designs without an index); turning those into physical cards is ``vision.grouping``.

It needs only onnxruntime, OpenCV and numpy (never ultralytics or torch).
"""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import numpy.typing as npt

from vision.classes import CLASS_NAMES, JOKERS
from vision.crops import ReadingSource
from vision.onnx_model import (
    REPO_ROOT,
    ModelError,
    open_session,
    read_metadata_imgsz,
    read_metadata_names,
    shown_path,
    to_blob,
)

DEFAULT_MODEL = REPO_ROOT / "models" / "card_detector.onnx"
CONF = 0.5  # a read's confidence threshold (see ``CardDetector.conf``)
PAD_VALUE = 114
MAX_TILES = 4  # the most tiles an automatic tiling of a big frame uses
TILE_OVERLAP = 0.2  # fraction of a tile shared with its neighbour (≥ 15% by design)
SINGLE_PASS_FACTOR = 1.6  # short side ≤ 1.6 × model size → one letterboxed pass
JOKER_SIZE_RATIO = 2.0  # a whole picture joker's box side ÷ a corner index's (≈ 4 on a card)
WHOLE_CARD_RATIO = 3.0  # a box this many index sides long is a whole card (the bundled pair's)
JOKER_READ_CONF = 0.95
"""How sure the classifier must be of a weakly localised box read as a (picture) joker. 0.9
until the phantom-card set's last two reads (a score sheet's "3 E" and a page's "Score" read as
the small joker at 0.93 and 0.91) were measured: at 0.95 that set reads nothing, the real photos
and the validation decks' stills read as before, the held-out design's jesters 2 fewer
(``docs/detector/candidates.md``, "A weakly localised joker read at 0.95")."""
JOKER_LOC_CONF = 0.05  # the least localiser score a whole-card box is read at (a joker)
WEAK_MARK_JOKER_CONF = 0.75
"""The most a joker read from a weakly localised box shorter than a whole card
(``WHOLE_CARD_RATIO`` index sides; a pair adapted to a deck's star-marked jokers reads weak
boxes of any size, one carrying no ratio from ``JOKER_SIZE_RATIO``) is kept at: under the
table's doubt bar (``vision.zone_reads.UNSURE_READ``), so what rests on it is asked, not
asserted. Neither model is sure of such a box, and a joker where none lies is a trump in the
play: atlasnye's own pair read a fanned KC's court art, boxed weakly 2–3 index sides long, as
the small joker at 0.95 or more, and a clubs throw with it was asserted failed (validation hand
9051). The bundled pair, which reads picture jokers from ``WHOLE_CARD_RATIO``, is not affected,
and no stills figure changes (it is still a read)."""
WEAK_INDEX_LOC_CONF = 0.15
"""The least localiser score a box is read at as a card (kept at ``JOKER_READ_CONF``): a deck's
own localiser, adapted for a few minutes, scores some of its indices just under ``loc_conf``.
Measured (``vision eval --weak-index-loc-conf``, identity precision / recall, 1 → 0.15): the
12-minute adapted pairs on their decks' 100 held-out stills, atlasnye 0.962 / 0.890 → 0.960 /
0.924, orell 0.993 / 0.934 → 0.993 / 0.944; the bundled pair on the real photos 0.993 / 0.993
and the phantom-card set's no read alike, the validation decks at the camera's scale 0.971 /
0.913 → 0.971 / 0.915, the held-out design 0.967 / 0.925 → 0.967 / 0.926. Jokers are left to
the whole-card rule: kept as jokers too, such boxes read a second joker on the real photos
(precision 0.986). ``models/README.md``, "A deck's own pair", has the hands."""
JOKER_CONF_KEY = "chaodipi_joker_conf"
"""The localiser ONNX's metadata key for the joker bar its pair reads at (``joker_conf``)."""
JOKER_SIZE_KEY = "chaodipi_joker_size_ratio"
"""The localiser ONNX's metadata key for its pair's ``joker_size_ratio``."""
WEAK_READ_CONF = 0.25  # a sure index read under ``conf`` but at least this: a weak read
STRIDE = 32  # a YOLO input side must be a multiple of the network's largest stride

Box = tuple[float, float, float, float]
FloatArray = npt.NDArray[np.float32]


@dataclass(frozen=True)
class Detection:
    """One detected corner index: the card identity, its box (x1, y1, x2, y2 in image pixels),
    the model's raw ``score`` and the calibrated ``confidence`` (equal to it when uncalibrated).
    ``runner_up`` is the classifier's next likeliest card for the box (empty: none, or no
    classifier), read at ``runner_up_confidence``.
    """

    identity: str
    box: Box
    score: float
    confidence: float = -1.0
    runner_up: str = ""
    runner_up_confidence: float = 0.0

    def __post_init__(self) -> None:
        if self.confidence < 0:
            object.__setattr__(self, "confidence", self.score)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "identity": self.identity,
            "box": [round(v, 1) for v in self.box],
            "score": round(self.score, 4),
            "confidence": round(self.confidence, 4),
        }
        if self.runner_up:
            out["runner_up"] = self.runner_up
            out["runner_up_confidence"] = round(self.runner_up_confidence, 4)
        return out


# --------------------------------------------------------------------------- calibration


def _logit(p: npt.ArrayLike) -> npt.NDArray[np.float64]:
    q = np.clip(np.asarray(p, dtype=np.float64), 1e-6, 1 - 1e-6)
    return np.log(q / (1 - q))


@dataclass(frozen=True)
class Calibration:
    """Platt scaling of raw scores: ``p = sigmoid(a · logit(score) + b)``, monotone when a > 0.

    The identity map (a=1, b=0) is used when no calibration file exists.
    """

    a: float = 1.0
    b: float = 0.0

    @property
    def is_identity(self) -> bool:
        return self.a == 1.0 and self.b == 0.0

    def apply(self, scores: npt.ArrayLike) -> npt.NDArray[np.float64]:
        z = self.a * _logit(scores) + self.b
        return np.asarray(1.0 / (1.0 + np.exp(-z)), dtype=np.float64)

    def __call__(self, score: float) -> float:
        if self.is_identity:
            return float(score)
        return float(self.apply([score])[0])

    @classmethod
    def fit(
        cls, scores: npt.ArrayLike, correct: npt.ArrayLike, l2: float = 1e-3, iters: int = 100
    ) -> Calibration:
        """Logistic regression of ``correct`` (0/1) on ``logit(score)`` by Newton's method.

        A slope that comes out ≤ 0 (scores carry no ranking information) is refused: the
        identity map is returned instead, so the map always stays monotone increasing.
        """
        x = _logit(scores)
        y = np.asarray(correct, dtype=np.float64)
        if x.size == 0 or x.shape != y.shape or y.min() == y.max():
            return cls()
        w = np.array([1.0, 0.0])
        design = np.stack([x, np.ones_like(x)], axis=1)
        for _ in range(iters):
            p = 1.0 / (1.0 + np.exp(-(design @ w)))
            grad = design.T @ (p - y) + l2 * w
            hess = (design * (p * (1 - p))[:, None]).T @ design + l2 * np.eye(2)
            step = np.linalg.solve(hess, grad)
            w -= step
            if float(np.abs(step).max()) < 1e-9:
                break
        a, b = float(w[0]), float(w[1])
        if not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
            return cls()
        return cls(a, b)

    @staticmethod
    def path_for(model_path: Path) -> Path:
        """``models/card_detector.onnx`` → ``models/card_detector.calibration.json``."""
        return model_path.with_suffix(".calibration.json")

    @classmethod
    def load(cls, path: Path) -> Calibration:
        """The calibration stored at ``path``; the identity map when the file does not exist."""
        if not path.exists():
            return cls()
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
            a, b = float(data["a"]), float(data["b"])
        except (OSError, ValueError, KeyError, TypeError) as e:
            raise ModelError(
                f"calibration file {shown_path(path)} is unreadable ({type(e).__name__}): "
                "delete it or refit it with `chaodipi vision eval --calibrate`"
            ) from None
        if not (math.isfinite(a) and math.isfinite(b)) or a <= 0:
            raise ModelError(
                f"calibration file {shown_path(path)} has a non-increasing map (a={a}): delete it"
            )
        return cls(a, b)

    def save(self, path: Path, **extra: Any) -> None:
        data = {"method": "platt", "a": self.a, "b": self.b, **extra}
        path.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")


# --------------------------------------------------------------------------- pre/post-processing


@dataclass(frozen=True)
class Letterbox:
    """How an image was fitted into the model input: ``input = image · ratio + (pad_x, pad_y)``."""

    ratio: float
    pad_x: float
    pad_y: float

    def to_image(self, boxes: FloatArray) -> FloatArray:
        """Map (n, 4) x1,y1,x2,y2 boxes from model-input pixels back to image pixels."""
        out = boxes.astype(np.float32, copy=True)
        out[:, [0, 2]] = (out[:, [0, 2]] - self.pad_x) / self.ratio
        out[:, [1, 3]] = (out[:, [1, 3]] - self.pad_y) / self.ratio
        return out


def letterbox(image_bgr: np.ndarray, size: int) -> tuple[np.ndarray, Letterbox]:
    """Resize keeping the aspect ratio and pad with grey 114 to ``size × size`` (as ultralytics).

    Returns the padded BGR image and the :class:`Letterbox` mapping.
    """
    h, w = image_bgr.shape[:2]
    ratio = min(size / h, size / w)
    new_w, new_h = round(w * ratio), round(h * ratio)
    if (new_w, new_h) != (w, h):
        # Linear like ultralytics' own letterbox (what the model saw in training) and 7× faster
        # than area averaging here; area only when shrinking so much that linear would alias.
        interp = cv2.INTER_AREA if ratio < 0.5 else cv2.INTER_LINEAR
        image_bgr = cv2.resize(image_bgr, (new_w, new_h), interpolation=interp)
    dw, dh = (size - new_w) / 2, (size - new_h) / 2
    top, bottom = round(dh - 0.1), round(dh + 0.1)
    left, right = round(dw - 0.1), round(dw + 0.1)
    padded = cv2.copyMakeBorder(
        image_bgr, top, bottom, left, right, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )
    return padded, Letterbox(ratio, float(left), float(top))


def _pair_setting(given: float | None, carried: str | None, default: float) -> float:
    """A setting a pair may carry in its localiser's metadata: the one given, else the one
    carried, else ``default``."""
    if given is not None:
        return given
    return float(carried or default)


def _frames_a_card(boxes: FloatArray, indices: FloatArray) -> npt.NDArray[np.bool_]:
    """Which ``boxes`` hold corner ``indices`` in two opposite quarters: an ordinary card seen
    whole (its two printed corners), never a picture joker, which has no index (an ace of
    spades' big central pip reads like a black joker)."""
    cx = (indices[:, 0] + indices[:, 2]) / 2
    cy = (indices[:, 1] + indices[:, 3]) / 2
    out = np.zeros(len(boxes), dtype=bool)
    for i, (x1, y1, x2, y2) in enumerate(boxes):
        inside = (cx > x1) & (cx < x2) & (cy > y1) & (cy < y2)
        left, top = cx[inside] < (x1 + x2) / 2, cy[inside] < (y1 + y2) / 2
        out[i] = bool(((left & top).any() and (~left & ~top).any()) or
                      ((left & ~top).any() and (~left & top).any()))  # fmt: skip
    return out


def pad_to_stride(image_bgr: np.ndarray, stride: int = STRIDE) -> tuple[np.ndarray, Letterbox]:
    """Pad (never resize) with grey 114 to sides that are multiples of ``stride``, the image
    centred: a model with a free input size then sees the image at its own scale."""
    h, w = image_bgr.shape[:2]
    dw, dh = -w % stride, -h % stride
    left, top = dw // 2, dh // 2
    padded = cv2.copyMakeBorder(
        image_bgr, top, dh - top, left, dw - left, cv2.BORDER_CONSTANT, value=(PAD_VALUE,) * 3
    )
    return padded, Letterbox(1.0, float(left), float(top))


def nms(boxes: FloatArray, scores: FloatArray, iou: float = 0.5) -> npt.NDArray[np.intp]:
    """Indices of the boxes kept by greedy non-maximum suppression, best score first."""
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.intp)
    x1, y1, x2, y2 = boxes[:, 0], boxes[:, 1], boxes[:, 2], boxes[:, 3]
    areas = np.maximum(x2 - x1, 0) * np.maximum(y2 - y1, 0)
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        i = int(order[0])
        keep.append(i)
        rest = order[1:]
        w = np.maximum(0, np.minimum(x2[i], x2[rest]) - np.maximum(x1[i], x1[rest]))
        h = np.maximum(0, np.minimum(y2[i], y2[rest]) - np.maximum(y1[i], y1[rest]))
        inter = w * h
        union = areas[i] + areas[rest] - inter
        overlap = np.where(union > 0, inter / np.maximum(union, 1e-9), 0)
        order = rest[overlap <= iou]
    return np.asarray(keep, dtype=np.intp)


def class_nms(
    boxes: FloatArray, scores: FloatArray, classes: npt.NDArray[np.intp], iou: float = 0.5
) -> npt.NDArray[np.intp]:
    """Class-aware NMS: boxes of different classes never suppress each other."""
    if len(boxes) == 0:
        return np.zeros(0, dtype=np.intp)
    span = float(np.abs(boxes).max()) + 1.0
    shifted = boxes + (classes.astype(np.float32) * np.float32(span * 2))[:, None]
    return nms(shifted, scores, iou)


@dataclass(frozen=True)
class RawDetections:
    """Decoded boxes of one model input (model-input pixels), before mapping to the image."""

    boxes: FloatArray  # (n, 4) x1, y1, x2, y2
    scores: FloatArray  # (n,)
    classes: npt.NDArray[np.intp]  # (n,)


def decode_output(
    output: np.ndarray,
    num_classes: int,
    conf: float = 0.25,
    iou: float = 0.5,
    max_det: int = 300,
    agnostic: bool = False,
) -> list[RawDetections]:
    """Decode a YOLO ONNX output batch into per-image detections after class-aware NMS.

    ``agnostic`` uses the model as a localiser: a box's score is the sum of its class scores
    (capped at 1: how much it looks like *some* corner index), every class is 0 and NMS is
    plain.

    Accepts the ultralytics YOLOv8/11 layout ``(B, 4 + nc, N)`` (cx, cy, w, h in input pixels,
    then one score per class, no objectness) and the end-to-end layout ``(B, N, 6)``
    (x1, y1, x2, y2, score, class).
    """
    if output.ndim != 3:
        raise ModelError(f"unexpected model output shape {output.shape}: expected (B, 4+nc, N)")
    results: list[RawDetections] = []
    end2end = output.shape[1] != 4 + num_classes and output.shape[2] == 6
    for pred in output:
        if end2end:
            keep = pred[:, 4] >= conf
            boxes = pred[keep, :4].astype(np.float32)
            scores = pred[keep, 4].astype(np.float32)
            classes = pred[keep, 5].astype(np.intp)
        else:
            if pred.shape[0] != 4 + num_classes:
                raise ModelError(
                    f"model output has {pred.shape[0] - 4} classes but {num_classes} names"
                )
            cls_scores = pred[4:]
            if agnostic:
                scores = np.minimum(cls_scores.sum(axis=0), 1.0).astype(np.float32)
                classes = np.zeros(cls_scores.shape[1], dtype=np.intp)
            else:
                classes = cls_scores.argmax(axis=0).astype(np.intp)
                scores = cls_scores[classes, np.arange(cls_scores.shape[1])].astype(np.float32)
            keep = scores >= conf
            cxcywh = pred[:4, keep].T.astype(np.float32)
            scores, classes = scores[keep], classes[keep]
            boxes = np.empty_like(cxcywh)
            boxes[:, :2] = cxcywh[:, :2] - cxcywh[:, 2:] / 2
            boxes[:, 2:] = cxcywh[:, :2] + cxcywh[:, 2:] / 2
        if len(scores) > 3 * max_det:
            top = np.argsort(-scores)[: 3 * max_det]
            boxes, scores, classes = boxes[top], scores[top], classes[top]
        kept = class_nms(boxes, scores, classes, iou)[:max_det]
        results.append(RawDetections(boxes[kept], scores[kept], classes[kept]))
    return results


# --------------------------------------------------------------------------- tiling


@dataclass(frozen=True)
class Tile:
    """A window ``[x, x + w) × [y, y + h)`` of the image; the model sees it letterboxed."""

    x: int
    y: int
    w: int
    h: int


def _starts(length: int, side: int, count: int) -> list[int]:
    if count <= 1 or side >= length:
        return [0]
    return [round(i * (length - side) / (count - 1)) for i in range(count)]


def plan_tiles(
    width: int,
    height: int,
    model_size: int,
    max_tiles: int = MAX_TILES,
    overlap: float = TILE_OVERLAP,
) -> list[Tile]:
    """Overlapping square tiles covering the image, as fine as ``max_tiles`` allows.

    Among grids of nx × ny ≤ ``max_tiles`` tiles whose neighbours share at least ``overlap`` of a
    tile, the one with the smallest tile side (highest resolution) wins, but tiles are never
    made smaller than the model input (that would only upscale); ties go to fewer tiles. A tile
    never exceeds the image (on a long thin image it is a rectangle, letterboxed by the model).
    """
    best: tuple[int, int, int, int] | None = None
    for nx in range(1, max_tiles + 1):
        for ny in range(1, max_tiles // nx + 1):
            need_x = width / (nx - overlap * (nx - 1))
            need_y = height / (ny - overlap * (ny - 1))
            side = max(need_x, need_y, float(model_size))
            key = (math.ceil(side), nx * ny, nx, ny)
            if best is None or key[:2] < best[:2]:
                best = key
    assert best is not None
    side, _, nx, ny = best
    tw, th = min(side, width), min(side, height)
    return [Tile(x, y, tw, th) for y in _starts(height, th, ny) for x in _starts(width, tw, nx)]


def _overlaps(plan: Sequence[Tile]) -> tuple[float, float]:
    """The smallest overlap, in pixels, between horizontal and between vertical neighbours."""

    def along(starts: set[int], side: int) -> float:
        ordered = sorted(starts)
        gaps = [b - a for a, b in itertools.pairwise(ordered)]
        return float(side - max(gaps)) if gaps else 0.0

    return along({t.x for t in plan}, plan[0].w), along({t.y for t in plan}, plan[0].h)


# --------------------------------------------------------------------------- the detector


@dataclass
class CardDetector:
    """The card detector: ``CardDetector().detect(frame_bgr)`` → list of :class:`Detection`.

    ``threads`` is onnxruntime's intra-op thread count (default 1: the Pi budgets one core for
    it); ``conf`` the raw-score threshold, ``iou`` the NMS overlap, ``max_tiles`` the most tiles
    an automatic tiling of a big frame may use.

    Two stages when a classifier model lies beside the detector (``card_classifier.onnx``, or
    ``classifier_path``; ``None`` turns it off): the detector only *localises* corner indices
    (boxes whose summed class score reaches ``loc_conf``) and :class:`vision.classifier.
    CardClassifier` reads each from the full-resolution frame; the raw ``score`` is then the
    classifier's probability and ``conf`` applies to it. Boxes read as ``none`` are dropped.
    """

    model_path: Path = DEFAULT_MODEL
    threads: int = 1
    conf: float = CONF
    """The threshold on a read's confidence (with a classifier, its probability). Measured with
    the committed pair on the replay-eval's twenty rendered hands (seeds 1000–1009 and
    2000–2009, 1,504 plays): 1,489 exactly right and 62 false infractions at 0.25, 1,490 and 48
    at 0.5 (reads of 0.25–0.5 were mostly parts of a picture joker read as an index, and a second
    box of one index read as another card); the still-image evals use 0.5 too."""
    iou: float = 0.5
    max_tiles: int = MAX_TILES
    calibration: Calibration | None = None
    classifier_path: Path | str | None = "auto"
    loc_conf: float = 0.3
    """The localiser's threshold. Measured (conf 0.5, one-class localiser ``loc_v9`` exported at
    576 px + classifier ``cls_v8``; identity precision / recall): real
    photos 0.972 / 0.986 at 0.3, 0.959 / 0.986 at 0.2; synthetic held-out design 0.900 / 0.747
    at 0.3, 0.889 / 0.755 at 0.2; the bundled demo clip's plays (the table camera's scale, where
    fanned cards show slivers of index the localiser boxes weakly) 13/20 exactly right at 0.3,
    14/20 at 0.2. With a 54-class localiser (and ``cls_v6``): real 0.859 / 0.937 at 0.15,
    0.899 / 0.937 at 0.3 — weak boxes were then mostly printed text."""
    joker_loc_conf: float = JOKER_LOC_CONF
    """A box the localiser scores from here up to ``loc_conf`` is read too when it is whole-card
    sized (at least ``joker_size`` × the median side of the sure boxes), and kept only as
    a joker read at ``JOKER_READ_CONF``: a picture joker has no corner index, is labelled whole,
    and is rare in the localiser's training, so it scores low there even when the classifier
    knows it at once. 1.0 turns this off. Measured (conf 0.5, ``loc_v9`` at 512 px + ``cls_v10``;
    identity precision / recall): real photos 0.986 / 1.000 at 1.0, 0.1, 0.05 and 0.02 alike;
    the held-out design at 640 px 0.929 / 0.896 at 1.0, 0.929 / 0.901 at 0.1, 0.929 / 0.903 at
    0.05, 0.929 / 0.907 at 0.02."""
    weak_index_loc_conf: float = WEAK_INDEX_LOC_CONF
    """A box the localiser scores from here up to ``loc_conf`` is read too, whatever its size,
    and kept only when the classifier reads it as a card, not a joker, at ``JOKER_READ_CONF``
    (a whole card framing two sure indices is not read; a weak box is a joker only by
    ``joker_loc_conf``'s rule). 1.0 turns this off; see :data:`WEAK_INDEX_LOC_CONF`."""
    joker_size_ratio: float | None = None
    """How much longer than the median sure box a weakly localised box's side must be to be read
    as a picture joker (``joker_loc_conf``); None: the ratio the localiser's ONNX carries
    (metadata :data:`JOKER_SIZE_KEY`, written by :func:`vision.training.train.set_joker_size`),
    else :data:`JOKER_SIZE_RATIO`. A whole card is about four indices long; a localiser that
    boxes a maker's lettering or a packet's print weakly as a card wants a higher ratio
    (``docs/detector/candidates.md``)."""
    joker_conf: float | None = None
    """How sure the classifier must be of any joker read (at least ``conf``); None: the bar the
    localiser's ONNX carries (metadata :data:`JOKER_CONF_KEY`, written with the pair by
    :func:`vision.training.train.set_joker_conf`: a pair's bar is measured with that pair),
    else ``conf``. Measured with an earlier bundled pair (identity precision / recall; ``vision
    eval --joker-conf``): real photos 0.993 / 0.993 at 0.5, 1.000 / 0.993 at 0.9; the
    phantom-card set 15 false reads (8 jokers) at 0.5, 9 (2) at 0.9; validation decks at the
    camera's scale 0.909 / 0.740 at 0.5, 0.911 / 0.733 at 0.9 (``models/README.md``)."""
    joker_bar: float = field(init=False)
    """The joker bar in use: ``joker_conf``, the model's own, or ``conf``."""
    joker_size: float = field(init=False)
    """The picture-joker size ratio in use: ``joker_size_ratio``, the model's own, or the
    default."""
    max_boxes: int = 120
    names: tuple[str, ...] = field(init=False)
    """The identities detections carry: the model's classes, or with a classifier our 54."""
    localiser_classes: int = field(init=False)
    size: int = field(init=False)
    dynamic_batch: bool = field(init=False)
    reads_native: bool = field(init=False)
    """Whether the model takes any input size, so ``detect(..., native=True)`` can look at an
    image at its own scale instead of fitting it into ``size × size``."""

    def __post_init__(self) -> None:
        self.model_path = Path(self.model_path)
        shown = shown_path(self.model_path)
        self.session = open_session(self.model_path, self.threads, "model", "train")
        meta = dict(self.session.get_modelmeta().custom_metadata_map)
        model_input = self.session.get_inputs()[0]
        self.input_name = model_input.name
        shape = list(model_input.shape)
        if len(shape) != 4:
            raise ModelError(f"model file {shown} takes input {shape}, not an image batch NCHW")
        h, w = shape[2], shape[3]
        if isinstance(h, int) and isinstance(w, int):
            if h != w:
                raise ModelError(f"model file {shown} takes {w}×{h} inputs: export it square")
            self.size = h
        else:
            self.size = read_metadata_imgsz(meta) or 640
        self.reads_native = not isinstance(h, int) and not isinstance(w, int)
        self.dynamic_batch = not isinstance(shape[0], int)
        self.names = read_metadata_names(meta) or CLASS_NAMES
        self.joker_bar = _pair_setting(self.joker_conf, meta.get(JOKER_CONF_KEY), self.conf)
        self.joker_size = _pair_setting(
            self.joker_size_ratio, meta.get(JOKER_SIZE_KEY), JOKER_SIZE_RATIO
        )
        out_shape = self.session.get_outputs()[0].shape
        classes_out = out_shape[1] if len(out_shape) == 3 else None
        end2end = (len(out_shape) == 3 and out_shape[2] == 6) or meta.get("end2end") == "True"
        if isinstance(classes_out, int) and not end2end and classes_out - 4 != len(self.names):
            raise ModelError(
                f"model file {shown} predicts {out_shape[1] - 4} classes but names "
                f"{len(self.names)}: re-export it"
            )
        if self.calibration is None:
            self.calibration = Calibration.load(Calibration.path_for(self.model_path))
        self.classifier: Any = None
        path = self.classifier_path
        if path == "auto":
            beside = self.model_path.with_name("card_classifier.onnx")
            path = beside if beside.is_file() else None
        if path is not None:
            from vision.classifier import CardClassifier

            self.classifier = CardClassifier(Path(path), threads=self.threads)
        self.localiser_classes = len(self.names)
        if self.classifier is not None:
            # A one-class localiser's name ("item") names no card: the classifier reads them.
            self.names = CLASS_NAMES
        if self.classifier is None and len(self.names) == 1:
            raise ModelError(
                f"model file {shown} is a localiser (one class): put card_classifier.onnx "
                "beside it or pass the classifier's path"
            )

    # ---------------------------------------------------------------- inference

    def _infer(self, blob: FloatArray) -> np.ndarray:
        outputs = self.session.run(None, {self.input_name: blob})
        return np.asarray(outputs[0])

    def _run(
        self, crops: list[np.ndarray], native: bool = False
    ) -> list[tuple[RawDetections, Letterbox]]:
        boxed = [pad_to_stride(c) if native else letterbox(c, self.size) for c in crops]
        images = [b[0] for b in boxed]
        if self.dynamic_batch and len(images) > 1 and not native:
            outputs = [self._infer(to_blob(images))]
        else:
            outputs = [self._infer(to_blob([img])) for img in images]
        raw: list[RawDetections] = []
        two_stage = self.classifier is not None
        threshold = (
            min(self.loc_conf, self.joker_loc_conf, self.weak_index_loc_conf)
            if two_stage
            else self.conf
        )
        for out in outputs:
            raw.extend(
                decode_output(out, self.localiser_classes, threshold, self.iou, agnostic=two_stage)
            )
        return [(r, b[1]) for r, b in zip(raw, boxed, strict=True)]

    def plan(self, width: int, height: int, tiles: int | None = None) -> list[Tile]:
        """The tiles ``detect`` would use for a ``width × height`` image (see ``detect``)."""
        if tiles is None:
            if min(width, height) <= SINGLE_PASS_FACTOR * self.size:
                return [Tile(0, 0, width, height)]
            tiles = self.max_tiles
        if tiles <= 1:
            return [Tile(0, 0, width, height)]
        return plan_tiles(width, height, self.size, tiles)

    @property
    def reads_source(self) -> bool:
        """Whether ``detect`` can read indices from a finer ``source`` (it has a classifier)."""
        return self.classifier is not None

    def detect(
        self,
        image_bgr: np.ndarray,
        tiles: int | None = None,
        source: ReadingSource | None = None,
        native: bool = False,
        unread: list[Box] | None = None,
        weak: list[Detection] | None = None,
    ) -> list[Detection]:
        """Detect corner indices in a BGR image (H × W × 3 uint8; grey images are accepted).

        ``tiles=None`` chooses: one letterboxed pass when the short side is at most 1.6 × the
        model size, else up to ``max_tiles`` overlapping tiles; ``tiles=1`` forces one pass and
        ``tiles=n`` tiling with at most n tiles. Sorted by confidence, best first. ``source``
        (a :class:`vision.crops.ReadingSource`) has the classifier read each box from a finer
        image than ``image_bgr``, e.g. the camera frame a top-down view was warped from.
        ``native=True`` (a model that ``reads_native``) looks at the whole image in one pass at
        its own scale, only padded to the stride: the caller chose its pixels a cm. ``unread``,
        when given, receives the boxes the localiser was sure of that the classifier did not
        read surely (an index is there, which one is not known); ``weak``, when given, receives
        those of them read as a card at ``WEAK_READ_CONF`` or more, as detections (for
        :class:`vision.index_tracks.IndexTracks`, which lets them extend a track).
        """
        if image_bgr.ndim == 2:
            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
        elif image_bgr.shape[2] == 4:
            image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_BGRA2BGR)
        height, width = image_bgr.shape[:2]
        native = native and self.reads_native
        plan = [Tile(0, 0, width, height)] if native else self.plan(width, height, tiles)
        crops = [image_bgr[t.y : t.y + t.h, t.x : t.x + t.w] for t in plan]
        overlap_x, overlap_y = _overlaps(plan)
        all_boxes, all_scores, all_classes = [], [], []
        for tile, (raw, lb) in zip(plan, self._run(crops, native), strict=True):
            boxes = lb.to_image(raw.boxes)
            keep = np.ones(len(boxes), dtype=bool)
            if len(plan) > 1:
                # A small box touching an inner tile edge may be cut there; the overlap holds it
                # whole in the neighbour, so it is dropped here. Bigger boxes are left to NMS.
                margin = 2.0 / lb.ratio
                bw, bh = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
                if tile.x > 0:
                    keep &= (boxes[:, 0] > margin) | (bw >= overlap_x)
                if tile.y > 0:
                    keep &= (boxes[:, 1] > margin) | (bh >= overlap_y)
                if tile.x + tile.w < width:
                    keep &= (boxes[:, 2] < tile.w - margin) | (bw >= overlap_x)
                if tile.y + tile.h < height:
                    keep &= (boxes[:, 3] < tile.h - margin) | (bh >= overlap_y)
            boxes = boxes[keep] + np.array([tile.x, tile.y, tile.x, tile.y], dtype=np.float32)
            all_boxes.append(boxes)
            all_scores.append(raw.scores[keep])
            all_classes.append(raw.classes[keep])
        boxes = np.concatenate(all_boxes) if all_boxes else np.zeros((0, 4), np.float32)
        scores = np.concatenate(all_scores) if all_scores else np.zeros(0, np.float32)
        classes = np.concatenate(all_classes) if all_classes else np.zeros(0, np.intp)
        if len(plan) > 1:
            kept = class_nms(boxes, scores, classes, self.iou)
            boxes, scores, classes = boxes[kept], scores[kept], classes[kept]
        boxes[:, [0, 2]] = np.clip(boxes[:, [0, 2]], 0, width)
        boxes[:, [1, 3]] = np.clip(boxes[:, [1, 3]], 0, height)
        runners_up: list[tuple[str, float]] = [("", 0.0)] * len(boxes)
        if self.classifier is not None:
            boxes, scores, classes, runners_up = self._read_indices(
                image_bgr, boxes, scores, source, unread, weak
            )
        calibration = self.calibration or Calibration()
        if weak and not calibration.is_identity:
            weak[:] = [replace(d, confidence=calibration(d.score)) for d in weak]
        confidences = calibration.apply(scores) if len(scores) else np.zeros(0)
        if calibration.is_identity:
            confidences = scores.astype(np.float64)
        detections = [
            Detection(
                identity=self.names[int(c)] if 0 <= int(c) < len(self.names) else str(int(c)),
                box=(float(b[0]), float(b[1]), float(b[2]), float(b[3])),
                score=float(s),
                confidence=float(p),
                runner_up=second,
                runner_up_confidence=second_p,
            )
            for b, s, c, p, (second, second_p) in zip(
                boxes, scores, classes, confidences, runners_up, strict=True
            )
        ]
        detections.sort(key=lambda d: -d.confidence)
        return detections

    def _read_indices(
        self,
        image_bgr: np.ndarray,
        boxes: FloatArray,
        loc_scores: FloatArray,
        source: ReadingSource | None = None,
        unread: list[Box] | None = None,
        weak: list[Detection] | None = None,
    ) -> tuple[FloatArray, FloatArray, npt.NDArray[np.intp], list[tuple[str, float]]]:
        """Second stage: the classifier reads each localised box; ``none`` and weak reads go
        (the sure boxes among them into ``unread``, those read as a card at ``WEAK_READ_CONF``
        into ``weak`` too). Also each kept box's runner-up read."""
        sure = loc_scores >= self.loc_conf
        sides = np.maximum(boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1])
        index_side = np.median(sides[sure]) if sure.any() else 0.0
        big = sides >= self.joker_size * index_side
        weak_box = ~sure
        if weak_box.any() and sure.any():
            weak_box &= ~_frames_a_card(boxes, boxes[sure])
        maybe_joker = weak_box & big
        whole_card = sides >= WHOLE_CARD_RATIO * index_side
        maybe_index = weak_box & (loc_scores >= self.weak_index_loc_conf)
        order = np.argsort(-loc_scores, kind="stable")
        order = order[(sure | maybe_joker | maybe_index)[order]][: self.max_boxes]
        boxes, maybe_joker, maybe_index = boxes[order], maybe_joker[order], maybe_index[order]
        weak_mark = maybe_joker & ~whole_card[order]
        reads = self.classifier.read(
            image_bgr, [tuple(map(float, b)) for b in boxes], source=source
        )
        index = {name: i for i, name in enumerate(self.names)}
        weak_box_conf = max(self.conf, JOKER_READ_CONF)
        surely_boxed = ~maybe_joker & ~maybe_index
        keep = [
            i
            for i, (name, prob, *_) in enumerate(reads)
            if name in index  # "none" is not among the names
            and prob >= self.conf
            and (name not in JOKERS or prob >= self.joker_bar)
            and (
                surely_boxed[i]
                or (prob >= weak_box_conf and (maybe_joker if name in JOKERS else maybe_index)[i])
            )
        ]
        kept = set(keep)
        if unread is not None:
            unread += [
                (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
                for i, b in enumerate(boxes)
                if i not in kept and surely_boxed[i]
            ]
        if weak is not None:
            weak += [
                Detection(
                    identity=name,
                    box=(float(b[0]), float(b[1]), float(b[2]), float(b[3])),
                    score=prob,
                    confidence=prob,
                    runner_up=second if second in index else "",
                    runner_up_confidence=second_prob if second in index else 0.0,
                )
                for i, (b, (name, prob, second, second_prob)) in enumerate(
                    zip(boxes, reads, strict=True)
                )
                if i not in kept and surely_boxed[i] and name in index and prob >= WEAK_READ_CONF
            ]
        scores = np.array(
            [min(reads[i][1], WEAK_MARK_JOKER_CONF) if weak_mark[i] else reads[i][1] for i in keep],
            dtype=np.float32,
        )
        classes = np.array([index[reads[i][0]] for i in keep], dtype=np.intp)
        runners_up = [
            (reads[i].runner_up, reads[i].runner_up_probability)
            if reads[i].runner_up in index
            else ("", 0.0)
            for i in keep
        ]
        return boxes[keep].reshape(-1, 4), scores, classes, runners_up
