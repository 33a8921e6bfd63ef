"""Detector evaluation on a YOLO-format dataset: which card identities each image shows.

This module owns reading a labelled dataset (``images/`` with any sub-folders, ``labels/``
mirroring it, class names from ``data.yaml`` or ``classes.txt`` in the project notation), scoring
a detector by the *set* of identities per image (what the referee needs: which cards are on the
table, not where), drawing the images it got wrong and a per-class recall chart, and collecting
the (raw score, correct) pairs that fit the detector's confidence calibration.

A detection is counted correct when its identity is among the image's labelled identities; box
positions are not compared (label boxes may be whole cards while the detector boxes corners).
A synthetic dataset's ``hidden/`` folder names the labelled indices whose rank or suit hardly
shows; the scores are also given with the identities no index of which shows both set aside
(``legible``), as they are with the identities at the image border (``away_from_border``).
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import cv2
import numpy as np

from vision.classes import CLASS_ID, JOKERS
from vision.grouping import iou

IMAGE_SUFFIXES = {".jpg", ".jpeg", ".png", ".bmp", ".webp", ".tif", ".tiff"}
GREEN, RED, ORANGE, WHITE = (0, 160, 0), (0, 0, 220), (0, 140, 255), (255, 255, 255)

Box = tuple[float, float, float, float]


class DatasetError(ValueError):
    """The dataset cannot be read; the message is one line naming the file and the problem."""


class DetectionLike(Protocol):
    @property
    def identity(self) -> str: ...

    @property
    def box(self) -> Box: ...

    @property
    def score(self) -> float: ...

    @property
    def confidence(self) -> float: ...


class DetectorLike(Protocol):
    def detect(self, image_bgr: np.ndarray) -> Sequence[DetectionLike]: ...


# --------------------------------------------------------------------------- reading the dataset


def _parse_yaml_names(text: str, path: Path) -> list[str]:
    """The ``names:`` of an ultralytics data.yaml (inline list/dict or block list/dict).

    A small reader, so the runtime needs no YAML library.
    """
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^names\s*:\s*(.*?)\s*(#.*)?$", line)
        if not m:
            continue
        inline = m.group(1)
        if inline:
            try:
                value = ast.literal_eval(
                    re.sub(r"(?<=[\[{,:])\s*([^'\"\s,\[\]{}:]+)", r"'\1'", inline)
                )
            except (ValueError, SyntaxError):
                raise DatasetError(f"{path}: cannot read the inline names: {inline[:60]}") from None
            if isinstance(value, dict):
                return [str(value[k]) for k in sorted(value, key=int)]
            return [str(v) for v in value]
        block: dict[int, str] = {}
        items: list[str] = []
        for item in lines[i + 1 :]:
            if not item.strip() or item.lstrip().startswith("#"):
                continue
            if not item[0].isspace() and not item.startswith("-"):
                break
            entry = item.split("#", 1)[0].strip()
            if entry.startswith("-"):
                items.append(entry[1:].strip().strip("'\""))
            elif ":" in entry:
                key, _, value = entry.partition(":")
                try:
                    block[int(key.strip().strip("'\""))] = value.strip().strip("'\"")
                except ValueError:
                    raise DatasetError(f"{path}: bad names entry {entry!r}") from None
        if block:
            return [block[k] for k in sorted(block)]
        return items
    raise DatasetError(f"{path} has no names: list the class names under `names:`")


def load_class_names(dataset: Path) -> list[str]:
    """The dataset's class names (label id → identity), from data.yaml or else classes.txt.

    Names must be card identities in the project notation (case-insensitive: ``as`` = ``AS``).
    """
    yaml_path, txt_path = dataset / "data.yaml", dataset / "classes.txt"
    if yaml_path.is_file():
        raw = _parse_yaml_names(yaml_path.read_text(encoding="utf-8"), yaml_path)
        source = yaml_path
    elif txt_path.is_file():
        raw = [ln.strip() for ln in txt_path.read_text(encoding="utf-8").splitlines() if ln.strip()]
        source = txt_path
    else:
        raise DatasetError(
            f"{dataset} has neither data.yaml nor classes.txt: add one naming the classes"
        )
    names = [n.strip().upper() for n in raw]
    unknown = [r for r, n in zip(raw, names, strict=True) if n not in CLASS_ID]
    if unknown:
        shown = ", ".join(repr(u) for u in unknown[:5]) + (" …" if len(unknown) > 5 else "")
        raise DatasetError(
            f"{source}: unknown class names {shown}: use card identities like 10H, AS, BJ, SJ"
        )
    return names


def list_images(dataset: Path) -> list[Path]:
    """All images under ``dataset/images`` (sub-folders included), sorted."""
    root = dataset / "images"
    if not root.is_dir():
        raise DatasetError(f"{dataset} has no images/ folder: expected a YOLO-format dataset")
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in IMAGE_SUFFIXES and p.is_file())


def label_path(dataset: Path, image: Path, folder: str = "labels") -> Path:
    """``images/val/x.jpg`` → ``labels/val/x.txt`` (or the same in another ``folder``)."""
    return dataset / folder / image.relative_to(dataset / "images").with_suffix(".txt")


HIDDEN_DIR = "hidden"
"""A dataset's folder listing, beside ``labels/``, the labelled indices whose rank or suit
hardly shows (written by ``vision synth``; a dataset without it has none)."""


def half_hidden(
    labels: Sequence[tuple[str, Box]], hidden: Sequence[tuple[str, Box]]
) -> frozenset[str]:
    """The identities every labelled index of which is among ``hidden``: a card no index of
    which shows both its rank and its suit."""
    return frozenset(
        name
        for name in {n for n, _ in hidden}
        if sum(n == name for n, _ in labels) <= sum(n == name for n, _ in hidden)
    )


def read_labels(path: Path, names: Sequence[str]) -> list[tuple[str, Box]]:
    """``(identity, normalised cx,cy,w,h box)`` per line of a YOLO label file; none if absent."""
    if not path.is_file():
        return []
    out: list[tuple[str, Box]] = []
    for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        parts = line.split()
        if not parts:
            continue
        try:
            cls = int(parts[0])
            coords = [float(v) for v in parts[1:5]]
        except ValueError:
            raise DatasetError(f"{path}:{n}: not a YOLO label line: {line.strip()[:60]}") from None
        if not 0 <= cls < len(names):
            raise DatasetError(f"{path}:{n}: class id {cls} outside the {len(names)} names")
        box = (coords[0], coords[1], coords[2], coords[3]) if len(coords) == 4 else (0, 0, 0, 0)
        out.append((names[cls], box))
    return out


def read_image(path: Path) -> np.ndarray:
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise DatasetError(f"cannot decode image {path}: remove it or replace it")
    return image


# --------------------------------------------------------------------------- results


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 4)


@dataclass
class ClassCounts:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    @property
    def precision(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fp)

    @property
    def recall(self) -> float | None:
        return _ratio(self.tp, self.tp + self.fn)

    def to_json(self) -> dict[str, Any]:
        return {
            "tp": self.tp,
            "fp": self.fp,
            "fn": self.fn,
            "precision": _round(self.precision),
            "recall": _round(self.recall),
        }


BORDER_PX = 3
"""A box within this many pixels of the image's edge touches the border (it may be cut there)."""


@dataclass(frozen=True)
class ImageResult:
    image: str  # path relative to the dataset's images/ folder
    labelled: frozenset[str]
    predicted: frozenset[str]
    at_border: frozenset[str] = frozenset()
    """Identities every labelled and predicted box of which touches the image border: an index
    the frame cuts, which a label keeps or drops by how much of it shows (the table camera
    sees the whole table, so it never meets one)."""
    localised: frozenset[str] = frozenset()
    """Labelled identities one of whose boxes a box of the localiser's overlaps (read, or left
    unread by the classifier): a missed one among them is the classifier's miss, the others the
    localiser's. Boxes left unread are known only of a two-stage detector (``reads_source``)."""
    half_hidden: frozenset[str] = frozenset()
    """Labelled identities no index of which shows both its rank and its suit (at least 60 %
    of each; :func:`half_hidden`): the index shows, what it says may not."""

    @property
    def perfect(self) -> bool:
        return self.labelled == self.predicted

    def inside(self) -> ImageResult:
        """The same image with the identities at the border set aside."""
        return ImageResult(
            self.image, self.labelled - self.at_border, self.predicted - self.at_border
        )

    def legible(self) -> ImageResult:
        """The same image with the half-hidden identities set aside (read or not)."""
        return ImageResult(
            self.image, self.labelled - self.half_hidden, self.predicted - self.half_hidden
        )


def label_pixels(box: Box, width: int, height: int) -> Box:
    """A label's normalised (cx, cy, w, h) box as (x1, y1, x2, y2) image pixels."""
    cx, cy, w, h = box
    return (
        (cx - w / 2) * width,
        (cy - h / 2) * height,
        (cx + w / 2) * width,
        (cy + h / 2) * height,
    )


def _touches_border(box: Box, width: int, height: int) -> bool:
    x1, y1, x2, y2 = box
    return x1 <= BORDER_PX or y1 <= BORDER_PX or x2 >= width - BORDER_PX or y2 >= height - BORDER_PX


def at_border(
    labels: Sequence[tuple[str, Box]],
    detections: Sequence[DetectionLike],
    width: int,
    height: int,
) -> frozenset[str]:
    """The identities (labelled or predicted) all of whose boxes touch the image border (a
    label without a box is not known to, so its identity is never set aside)."""
    boxes: dict[str, list[Box]] = {}
    unplaced: set[str] = set()
    for name, box in labels:
        if box[2] > 0 and box[3] > 0:
            boxes.setdefault(name, []).append(label_pixels(box, width, height))
        else:
            unplaced.add(name)
    for d in detections:
        boxes.setdefault(d.identity, []).append(d.box)
    return frozenset(
        name
        for name, bs in boxes.items()
        if name not in unplaced and all(_touches_border(b, width, height) for b in bs)
    )


@dataclass
class EvalResult:
    """Identity-set scores over a dataset; ``scored`` holds (raw score, correct) per detection."""

    images: list[ImageResult] = field(default_factory=list)
    per_class: dict[str, ClassCounts] = field(default_factory=dict)
    scored: list[tuple[float, bool]] = field(default_factory=list)

    def _total(self) -> ClassCounts:
        total = ClassCounts()
        for c in self.per_class.values():
            total.tp, total.fp, total.fn = total.tp + c.tp, total.fp + c.fp, total.fn + c.fn
        return total

    @property
    def identity_precision(self) -> float | None:
        return self._total().precision

    @property
    def identity_recall(self) -> float | None:
        return self._total().recall

    @property
    def perfect_images(self) -> float | None:
        return _ratio(sum(r.perfect for r in self.images), len(self.images))

    def add(self, result: ImageResult) -> None:
        self.images.append(result)
        for name in result.labelled | result.predicted:
            counts = self.per_class.setdefault(name, ClassCounts())
            if name in result.labelled and name in result.predicted:
                counts.tp += 1
            elif name in result.predicted:
                counts.fp += 1
            else:
                counts.fn += 1

    def mistakes(self) -> dict[str, dict[str, int]]:
        """The identities missed and read falsely, told apart as cards or jokers, and how many
        of each kind lay only at the image border (where what to label is a matter of how much
        of the index shows); of the missed, how many the localiser boxed (``localised``: the
        classifier did not read them as that card)."""
        counts = {kind: {"cards": 0, "jokers": 0, "at_border": 0} for kind in ("missed", "false")}
        counts["missed"]["localised"] = 0
        for image in self.images:
            for kind, names in (
                ("missed", image.labelled - image.predicted),
                ("false", image.predicted - image.labelled),
            ):
                for name in names:
                    counts[kind]["jokers" if name in JOKERS else "cards"] += 1
                    counts[kind]["at_border"] += name in image.at_border
            counts["missed"]["localised"] += len(
                (image.labelled - image.predicted) & image.localised
            )
        return counts

    def inside(self) -> EvalResult:
        """The same scores with the identities at each image's border set aside."""
        inside = EvalResult()
        for image in self.images:
            inside.add(image.inside())
        return inside

    def legible(self) -> EvalResult:
        """The same scores with each image's half-hidden identities set aside."""
        legible = EvalResult()
        for image in self.images:
            legible.add(image.legible())
        return legible

    def to_json(self) -> dict[str, Any]:
        order = sorted(self.per_class, key=lambda n: CLASS_ID.get(n, len(CLASS_ID)))
        inside, legible = self.inside(), self.legible()
        return {
            "images": len(self.images),
            "identity_precision": _round(self.identity_precision),
            "identity_recall": _round(self.identity_recall),
            "perfect_images": _round(self.perfect_images),
            "per_class": {n: self.per_class[n].to_json() for n in order},
            "mistakes": self.mistakes(),
            "away_from_border": {
                "border_px": BORDER_PX,
                "set_aside": sum(len(r.at_border) for r in self.images),
                "identity_precision": _round(inside.identity_precision),
                "identity_recall": _round(inside.identity_recall),
                "perfect_images": _round(inside.perfect_images),
            },
            "legible": {
                "set_aside": sum(len(r.half_hidden) for r in self.images),
                "identity_precision": _round(legible.identity_precision),
                "identity_recall": _round(legible.identity_recall),
                "perfect_images": _round(legible.perfect_images),
            },
        }


# --------------------------------------------------------------------------- drawing


def _text(img: np.ndarray, text: str, org: tuple[int, int], scale: float, color: Any) -> None:
    """``text`` with its baseline at ``org``, in white on a filled ``color`` label."""
    font, thick = cv2.FONT_HERSHEY_SIMPLEX, max(1, round(scale * 1.5))
    (w, h), base = cv2.getTextSize(text, font, scale, thick)
    x, y = org
    cv2.rectangle(img, (x, y - h - 3), (x + w + 4, y + base), color, -1)
    cv2.putText(img, text, (x + 2, y - 1), font, scale, WHITE, thick, cv2.LINE_AA)


def draw_detections(
    image: np.ndarray,
    detections: Sequence[DetectionLike],
    correct: frozenset[str] | None = None,
) -> np.ndarray:
    """A copy of ``image`` with boxes and ``identity confidence`` labels; with ``correct`` given,
    boxes of those identities are green and the others red (else all green)."""
    out = image.copy()
    scale = max(0.4, min(out.shape[:2]) / 900)
    for d in detections:
        color = GREEN if correct is None or d.identity in correct else RED
        x1, y1, x2, y2 = (round(v) for v in d.box)
        cv2.rectangle(out, (x1, y1), (x2, y2), color, max(1, round(scale * 2)))
        _text(out, f"{d.identity} {d.confidence:.2f}", (x1, max(20, y1 - 2)), scale, color)
    return out


def draw_mistake(
    image: np.ndarray,
    detections: Sequence[DetectionLike],
    result: ImageResult,
    labels: Sequence[tuple[str, Box]],
) -> np.ndarray:
    """The image with predictions (green right, red wrong), the labelled boxes of missed
    identities in orange, and a banner listing missing and unexpected identities."""
    out = draw_detections(image, detections, result.labelled)
    h, w = out.shape[:2]
    missing = sorted(result.labelled - result.predicted, key=lambda n: CLASS_ID.get(n, 99))
    extra = sorted(result.predicted - result.labelled, key=lambda n: CLASS_ID.get(n, 99))
    for name, box in labels:
        if name in missing and box[2] > 0:
            x1, y1, x2, y2 = label_pixels(box, w, h)
            cv2.rectangle(out, (round(x1), round(y1)), (round(x2), round(y2)), ORANGE, 1)
    scale = max(0.45, w / 1400)
    line_h = round(30 * scale) + 6
    banner = np.full((2 * line_h + 6, w, 3), 30, dtype=np.uint8)
    _text(banner, f"missing: {' '.join(missing) or '-'}", (5, line_h - 2), scale, ORANGE)
    _text(banner, f"wrong: {' '.join(extra) or '-'}", (5, 2 * line_h + 2), scale, RED)
    return np.vstack([banner, out])


def draw_recall_chart(per_class: dict[str, ClassCounts]) -> np.ndarray | None:
    """Horizontal bars of recall for every class with labelled instances, in class order."""
    rows = [
        (n, c)
        for n, c in sorted(per_class.items(), key=lambda kv: CLASS_ID.get(kv[0], 99))
        if c.tp + c.fn > 0
    ]
    if not rows:
        return None
    row_h, left, bar_w, top = 18, 50, 400, 30
    img = np.full((top + row_h * len(rows) + 10, left + bar_w + 120, 3), 255, dtype=np.uint8)
    cv2.putText(img, "recall per class", (left, 20), cv2.FONT_HERSHEY_SIMPLEX, 0.55, (0,) * 3, 1)
    for i, (name, counts) in enumerate(rows):
        y = top + i * row_h
        recall = counts.recall or 0.0
        color = (0, 170, 0) if recall >= 0.9 else (0, 140, 255) if recall >= 0.5 else (0, 0, 220)
        cv2.rectangle(img, (left, y + 2), (left + round(bar_w * recall), y + row_h - 3), color, -1)
        cv2.rectangle(img, (left, y + 2), (left + bar_w, y + row_h - 3), (180,) * 3, 1)
        font = cv2.FONT_HERSHEY_SIMPLEX
        cv2.putText(img, name, (5, y + row_h - 5), font, 0.45, (0,) * 3, 1, cv2.LINE_AA)
        label = f"{recall:.2f} ({counts.tp}/{counts.tp + counts.fn})"
        cv2.putText(img, label, (left + bar_w + 6, y + row_h - 5), font, 0.4, (0,) * 3, 1)
    return img


def _write(path: Path, image: np.ndarray) -> None:
    ok, data = cv2.imencode(path.suffix, image)
    if not ok:
        raise DatasetError(f"cannot encode {path}")
    path.write_bytes(data.tobytes())


# --------------------------------------------------------------------------- evaluation


def progress(done: int, total: int, label: str = "eval") -> None:
    """A one-line progress bar on stderr (redrawn on a terminal, printed once at the end else)."""
    if total <= 0 or not (sys.stderr.isatty() or done == total):
        return
    bar = "#" * (30 * done // total)
    print(f"\r{label} [{bar:<30}] {done}/{total}", end="", file=sys.stderr, flush=True)
    if done == total:
        print(file=sys.stderr)


LOCALISED_IOU = 0.3
"""A localiser's box overlapping a label's this much (intersection over union) boxed it."""


def localised(
    labels: Sequence[tuple[str, Box]], boxes: Sequence[Box], width: int, height: int
) -> frozenset[str]:
    """The labelled identities one of whose boxes one of ``boxes`` (image pixels) overlaps by
    ``LOCALISED_IOU`` or more."""
    return frozenset(
        name
        for name, box in labels
        if box[2] > 0
        and box[3] > 0
        and any(iou(label_pixels(box, width, height), b) >= LOCALISED_IOU for b in boxes)
    )


def _detect(detector: DetectorLike, image: np.ndarray) -> tuple[list[DetectionLike], list[Box]]:
    """The detector's reads of ``image``, and the boxes its localiser was sure of that its
    classifier did not read (a two-stage detector's ``unread``; none from any other)."""
    if not getattr(detector, "reads_source", False):
        return list(detector.detect(image)), []
    unread: list[Box] = []
    detections = list(detector.detect(image, unread=unread))  # type: ignore[call-arg]
    return detections, unread


def evaluate(
    dataset: Path,
    detector: DetectorLike,
    draw_mistakes_to: Path | None = None,
    show_progress: bool = True,
) -> EvalResult:
    """Score ``detector`` on the YOLO dataset at ``dataset`` by identity sets per image.

    With ``draw_mistakes_to``, each imperfect image is drawn there (JPG) and the per-class recall
    chart is written as ``recall_per_class.png``.
    """
    dataset = Path(dataset)
    if not dataset.is_dir():
        raise DatasetError(f"dataset folder {dataset} does not exist")
    names = load_class_names(dataset)
    images = list_images(dataset)
    if not images:
        raise DatasetError(f"{dataset}/images holds no images")
    if draw_mistakes_to is not None:
        draw_mistakes_to.mkdir(parents=True, exist_ok=True)
    result = EvalResult()
    root = dataset / "images"
    for i, path in enumerate(images, 1):
        labels = read_labels(label_path(dataset, path), names)
        image = read_image(path)
        detections, unread = _detect(detector, image)
        labelled = frozenset(n for n, _ in labels)
        height, width = image.shape[:2]
        boxes = [d.box for d in detections] + unread
        item = ImageResult(
            path.relative_to(root).as_posix(),
            labelled,
            frozenset(d.identity for d in detections),
            at_border(labels, detections, width, height),
            localised(labels, boxes, width, height),
            half_hidden(labels, read_labels(label_path(dataset, path, HIDDEN_DIR), names)),
        )
        result.add(item)
        result.scored.extend((float(d.score), d.identity in labelled) for d in detections)
        if draw_mistakes_to is not None and not item.perfect:
            name = item.image.replace("/", "__").rsplit(".", 1)[0] + ".jpg"
            _write(draw_mistakes_to / name, draw_mistake(image, detections, item, labels))
        if show_progress:
            progress(i, len(images))
    if draw_mistakes_to is not None:
        chart = draw_recall_chart(result.per_class)
        if chart is not None:
            _write(draw_mistakes_to / "recall_per_class.png", chart)
    return result
