"""The classifier's training crops, cut from synthetic scenes with the runtime's crop geometry.

``chaodipi vision crops`` cuts each labelled corner index of a synthetic scene
(:mod:`vision.synth.scenes`) with :func:`vision.crops.crop`, its box jittered the way a localiser
misses (scale, shift, a few degrees), plus "none" crops from everywhere else on the table (pips,
court figures, card backs, cloth, hands) and printed text (:mod:`vision.synth.text_negatives`),
so the classifier also rejects the localiser's false alarms. Given a pair to mine with, every box
that pair reads or localises where no corner index shows even a glimpse becomes a "none" crop
too: the false alarms it actually makes (a maker's lettering, court art), not only look-alikes.
Folders follow the ultralytics classification layout ``OUT/<split>/<class>/sSEED_NNNNNN_K.png``.
"""

from __future__ import annotations

import functools
import math
import multiprocessing
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.classes import CLASS_NAMES, JOKERS
from vision.crops import CLASSIFIER_NAMES, NONE_CLASS, Box, crop
from vision.fan_strips import card_corner_marks
from vision.grouping import iou
from vision.synth.degrade import blur_down, jpeg_artefacts
from vision.synth.scenes import SMALL_SHARE, progress, render_scene, scene_name
from vision.synth.text_negatives import text_negative
from vision.zones import CARD_H_CM


def _shows_any(cand: Box, labelled: Sequence[Box], max_iou: float) -> bool:
    """Whether a labelled box is the main thing in the square ``cand``: it overlaps it by more
    than ``max_iou``, or its centre lies in the candidate's middle."""
    cx, cy, side = (cand[0] + cand[2]) / 2, (cand[1] + cand[3]) / 2, cand[2] - cand[0]
    return any(
        iou(cand, g) > max_iou
        or (abs((g[0] + g[2]) / 2 - cx) < side * 0.35 and abs((g[1] + g[3]) / 2 - cy) < side * 0.35)
        for g in labelled
    )


def false_alarms(found: Sequence[Box], glimpses: Sequence[Box]) -> list[Box]:
    """The boxes of ``found`` (what a pair boxed in a scene) that touch no corner index of
    which even a glimpse shows (``glimpses``: :func:`vision.synth.scenes.render_scene`): its
    false alarms, each a ``none`` crop. One touching an index, however little of it shows, is
    left out: that may be a real index's strip."""
    return [b for b in found if all(iou(b, g) == 0 for g in glimpses)]


@functools.lru_cache(maxsize=2)
def _miner(model: str) -> Any:
    """The pair that mines false alarms, loaded once per rendering process."""
    from vision.detector import CardDetector

    return CardDetector(Path(model))


def mined_boxes(model: str, image_bgr: np.ndarray) -> list[Box]:
    """Every box the pair ``model`` (a ``card_detector.onnx`` with its classifier beside it)
    reads as a card in ``image_bgr``, and every box its localiser was sure of that the
    classifier left unread."""
    unread: list[Box] = []
    found = [d.box for d in _miner(model).detect(image_bgr, unread=unread)]
    return found + unread


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


def corner_marks_of(
    identity: str,
    corners: np.ndarray,
    boxes: Sequence[tuple[int, float, float, float, float]],
) -> list[tuple[str, Box]]:
    """The four corner-mark boxes the table's zone reader reads on a card lying alone
    (:func:`vision.fan_strips.card_corner_marks`, from the card's ``corners`` in px), each
    labelled the card's ``identity`` when one of its labelled indices (``boxes``) lies in it
    (a joker's corner mark, an index card's index), else ``none`` (a picture corner)."""
    x0, y0 = np.floor(corners.min(axis=0)).astype(int)
    x1, y1 = np.ceil(corners.max(axis=0)).astype(int) + 1
    mask = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillConvexPoly(mask, np.round(corners - (x0, y0)).astype(np.int32), 1)
    long_side = max(float(np.linalg.norm(corners[k] - corners[k - 1])) for k in range(4))
    out: list[tuple[str, Box]] = []
    for bx0, by0, bx1, by1 in card_corner_marks(mask, long_side / CARD_H_CM):
        box = (bx0 + x0, by0 + y0, bx1 + x0, by1 + y0)
        shows = any(
            CLASS_NAMES[c] == identity
            and box[0] <= (g0 + g2) / 2 <= box[2]
            and box[1] <= (g1 + g3) / 2 <= box[3]
            for c, g0, g1, g2, g3 in boxes
        )
        out.append((identity if shows else NONE_CLASS, box))
    return out


def scene_crops(
    rng: np.random.Generator,
    image: np.ndarray,
    boxes: Sequence[tuple[int, float, float, float, float]],
    jitters: int = 2,
    negatives: int = 3,
    pictures: int = 0,
    faces: Sequence[tuple[str, Box]] = (),
    face_crops: int = 0,
    alarms: Sequence[Box] = (),
    lone: Sequence[tuple[str, np.ndarray]] = (),
    corner_crops: int = 0,
    ace_crops: int = 0,
) -> Iterator[tuple[str, np.ndarray]]:
    """Labelled crops of one scene: ``jitters`` per labelled box, ``negatives`` ``none`` crops
    at an index's size, ``pictures`` ``none`` crops at a card's size (:func:`picture_boxes`),
    up to ``face_crops`` of the cards' visible faces (``faces``: a lone card, a fan's
    strip; :func:`vision.synth.scenes.visible_faces`), jokers as jokers and every other card
    as ``none`` — what the table's whole-card and fan-strip readers ask: a joker, or no
    card to read whole — a ``none`` crop of each of a pair's false alarms (``alarms``:
    :func:`false_alarms`) and the four corner marks of up to ``corner_crops`` cards lying
    alone (``lone``: :func:`vision.synth.scenes.lone_cards`; jokers first), as the zone
    reader cuts them (:func:`corner_marks_of`), and up to ``ace_crops`` aces in view
    (:func:`ace_crops_of`)."""
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
        # An index must not be the main thing in a "none" crop.
        if _shows_any(cand, gts, 0.1):
            continue
        made += 1
        yield NONE_CLASS, blur_down(rng, crop(image, cand, angle=float(rng.uniform(-8, 8))))
    jokers = [(x0, y0, x1, y1) for c, x0, y0, x1, y1 in boxes if CLASS_NAMES[c] in JOKERS]
    for box in picture_boxes(rng, (w, h), sides, jokers, pictures):
        yield NONE_CLASS, blur_down(rng, crop(image, box, angle=float(rng.uniform(-8, 8))))
    # Every joker's face (they are few), then other cards' up to the count.
    order = sorted(rng.permutation(len(faces)), key=lambda k: faces[int(k)][0] not in JOKERS)
    for k in order[:face_crops]:
        identity, box = faces[int(k)]
        label = identity if identity in JOKERS else NONE_CLASS
        yield label, blur_down(rng, _jittered_crop(rng, image, box))
    for box in alarms:
        yield NONE_CLASS, blur_down(rng, _jittered_crop(rng, image, box))
    jokers_first = sorted(rng.permutation(len(lone)), key=lambda k: lone[int(k)][0] not in JOKERS)
    for k in jokers_first[:corner_crops]:
        for label, box in corner_marks_of(*lone[int(k)], boxes):
            yield label, blur_down(rng, crop(image, box))
    if ace_crops:
        for box in ace_crops_of(rng, faces, gts, sides, ace_crops):
            yield NONE_CLASS, blur_down(rng, _jittered_crop(rng, image, box))


def ace_crops_of(
    rng: np.random.Generator,
    faces: Sequence[tuple[str, Box]],
    indices: Sequence[Box],
    index_sides: Sequence[float],
    n: int,
) -> list[Box]:
    """``none`` boxes on up to ``n`` aces among the visible ``faces``: each face whole and two
    index-sized windows over its middle — an ace's big pip, the ace of spades' ornate spade and
    maker's lettering, what a localiser boxes there and a classifier must not read as a picture
    joker's emblem (the real photos' Bicycle ace). No window shows an index (``indices``)."""
    aces = [box for identity, box in faces if identity[:-1] == "A"]
    out: list[Box] = []
    for k in rng.permutation(len(aces))[:n]:
        x0, y0, x1, y1 = aces[int(k)]
        out.append((x0, y0, x1, y1))
        for _ in range(2):
            side = float(rng.choice(list(index_sides))) * float(rng.uniform(1.0, 2.5))
            cx = (x0 + x1) / 2 + (x1 - x0) * float(rng.uniform(-0.15, 0.15))
            cy = (y0 + y1) / 2 + (y1 - y0) * float(rng.uniform(-0.25, 0.25))
            cand = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
            if not _shows_any(cand, indices, 0.1):
                out.append(cand)
    return out


def picture_boxes(
    rng: np.random.Generator,
    size: tuple[int, int],
    index_sides: Sequence[float],
    jokers: Sequence[Box],
    n: int,
) -> list[Box]:
    """Up to ``n`` boxes at a whole card's scale (2.5–8 × an index's side) anywhere in an
    image of ``size`` (width, height): what a localiser draws around court art, a picture on
    packaging or a card's middle when it boxes a picture whole, as it does an index-less joker.
    None is centred on a joker labelled whole (``jokers``): that box is a joker, not ``none``."""
    w, h = size
    out: list[Box] = []
    tries = 0
    while len(out) < n and tries < 30 * n:
        tries += 1
        side = float(rng.choice(list(index_sides))) * float(rng.uniform(2.5, 8.0))
        side = min(side, 0.9 * min(w, h))
        cx, cy = float(rng.uniform(0, w)), float(rng.uniform(0, h))
        cand = (cx - side / 2, cy - side / 2, cx + side / 2, cy + side / 2)
        if _shows_any(cand, jokers, 0.15):
            continue
        out.append(cand)
    return out


@dataclass(frozen=True)
class _CropRecipe:
    """What every chunk of one ``synthesize_crops`` run draws (see its arguments)."""

    seed: int
    designs: tuple[str, ...]
    sizes: tuple[int, ...]
    out: Path
    split: str
    text_negatives: int
    joker_share: float
    square_bowls: float
    small_share: float
    pictures: int
    face_crops: int
    mine_with: str | None
    corner_crops: int = 0
    ace_crops: int = 0


def _render_chunk(job: tuple[int, int, _CropRecipe]) -> int:
    start, stop, r = job
    written = 0
    for i in range(start, stop):
        rng = np.random.default_rng(r.seed * 1_000_003 + i)
        imgsz = int(rng.choice(list(r.sizes)))
        faces: list[tuple[str, Box]] = []
        glimpses: list[Box] = []
        lone: list[tuple[str, np.ndarray]] = []
        image_rgb, boxes = render_scene(
            rng,
            r.designs,
            imgsz,
            r.seed,
            small_share=r.small_share,
            joker_share=r.joker_share,
            square_bowls=r.square_bowls,
            faces_seen=faces if r.face_crops or r.ace_crops else None,
            glimpses=glimpses if r.mine_with else None,
            lone_seen=lone if r.corner_crops else None,
        )
        image = cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR)
        image = jpeg_artefacts(rng, image)
        alarms = false_alarms(mined_boxes(r.mine_with, image), glimpses) if r.mine_with else []
        crops = scene_crops(
            rng,
            image,
            boxes,
            pictures=r.pictures,
            faces=faces,
            face_crops=r.face_crops,
            alarms=alarms,
            lone=lone,
            corner_crops=r.corner_crops,
            ace_crops=r.ace_crops,
        )
        for k, (label, patch) in enumerate(crops):
            folder = r.out / r.split / label
            folder.mkdir(parents=True, exist_ok=True)
            cv2.imwrite(str(folder / f"{scene_name(r.seed, i)}_{k}.png"), patch)
            written += 1
        for k in range(r.text_negatives):
            path = r.out / r.split / NONE_CLASS / f"{scene_name(r.seed, i)}_t{k}.png"
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
    picture_negatives: int = 0,
    face_crops: int = 0,
    mine_with: Path | None = None,
    small_share: float = SMALL_SHARE,
    corner_crops: int = 0,
    ace_crops: int = 0,
) -> int:
    """Render ``n_scenes`` synthetic scenes and write their crops to ``out/<split>/<class>/``,
    plus ``text_negatives`` printed-text ``none`` crops a scene
    (:mod:`vision.synth.text_negatives`), ``picture_negatives`` card-sized ones
    (:func:`picture_boxes`), up to ``face_crops`` of the cards' visible faces (a joker's
    labelled a joker, any other card's ``none``: :func:`scene_crops`) and, with ``mine_with``
    (a pair's ``card_detector.onnx``), a ``none`` crop of each box that pair finds where no
    index shows (:func:`false_alarms`), the four corner marks of up to ``corner_crops`` cards
    lying alone a scene (:func:`corner_marks_of`), up to ``ace_crops`` aces in view whole and
    at their middle as ``none`` (:func:`ace_crops_of`);
    ``joker_share`` of the card groups get jokers mixed in, ``square_bowls`` of the stroke
    fonts square their bowls and ``small_share`` of the scenes draw their cards at the table
    camera's scale (:func:`vision.synth.scenes.render_scene`).

    Deterministic per scene (seeded like :func:`vision.synth.scenes.synthesize`); ``workers``
    processes
    share the scenes. Every class folder is created, so a split always lists all 55 classes.
    Returns the number of crops written.
    """
    out = Path(out)
    for name in CLASSIFIER_NAMES:
        (out / split / name).mkdir(parents=True, exist_ok=True)
    chunk = 25
    recipe = _CropRecipe(
        seed,
        tuple(designs),
        tuple(sizes),
        out,
        split,
        text_negatives,
        joker_share,
        square_bowls,
        small_share,
        picture_negatives,
        face_crops,
        str(mine_with) if mine_with else None,
        corner_crops,
        ace_crops,
    )
    jobs = [(s, min(s + chunk, n_scenes), recipe) for s in range(0, n_scenes, chunk)]
    total = 0
    bar = iter(progress(len(jobs), f"crops {split} (×{chunk} scenes)"))
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            total += _render_chunk(job)
            next(bar, None)
        return total
    with multiprocessing.get_context("spawn").Pool(min(workers, len(jobs))) as pool:
        for written in pool.imap_unordered(_render_chunk, jobs):
            total += written
            next(bar, None)
    return total


def lettering_boxes(image: np.ndarray, rng: np.random.Generator, n: int) -> list[Box]:
    """Up to ``n`` boxes a localiser might draw on printed matter: around letter-sized ink
    blobs (one glyph, or a glyph and its neighbours), the look-alikes of a corner index."""
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    edges = cv2.Canny(gray, 60, 160)
    blobs = cv2.dilate(edges, np.ones((3, 3), np.uint8))
    count, _, stats, _ = cv2.connectedComponentsWithStats(blobs, connectivity=8)
    h = gray.shape[0]
    letters = [
        (int(x), int(y), int(bw), int(bh))
        for x, y, bw, bh, area in stats[1:count]
        if 0.015 * h <= bh <= 0.2 * h and bw <= 2.5 * bh and area >= 12
    ]
    boxes: list[Box] = []
    for k in rng.permutation(len(letters))[:n]:
        x, y, bw, bh = letters[int(k)]
        grow = float(rng.uniform(1.0, 2.6))  # one glyph, or a stack like rank over suit
        side_h, side_w = bh * grow, max(bw, bh * float(rng.uniform(0.45, 0.9)))
        cx, cy = x + bw / 2, y + bh * float(rng.uniform(0.5, grow))
        boxes.append((cx - side_w / 2, cy - side_h / 2, cx + side_w / 2, cy + side_h / 2))
    return boxes


def synthesize_phantom_crops(
    n_scenes: int,
    out: Path,
    seed: int,
    split: str = "train",
    per_scene: int = 6,
    pictures: int = 0,
    mine_with: Path | None = None,
) -> int:
    """``none`` crops cut around lettering in card-free scenes (score sheets, printed pages,
    packaging, cloths: :mod:`vision.synth.negatives`), ``per_scene`` of them, ``pictures``
    card-sized ones anywhere in the scene (:func:`picture_boxes`: packaging art, a cloth's
    pattern boxed whole) and, with ``mine_with`` (a pair's ``card_detector.onnx``), every box
    that pair finds there (no card lies there: each is a false alarm), written to
    ``out/<split>/none/`` beside the scene crops; returns how many. Each scene is drawn at 320
    or 640 px."""
    from vision.synth.negatives import render_negative

    folder = Path(out) / split / NONE_CLASS
    folder.mkdir(parents=True, exist_ok=True)
    written = 0
    for i in progress(n_scenes, f"phantom crops {split}"):
        rng = np.random.default_rng([seed, i, 91])
        image_rgb, _ = render_negative(rng, int(rng.choice([320, 640])))
        image = jpeg_artefacts(rng, cv2.cvtColor(image_rgb, cv2.COLOR_RGB2BGR))
        side = image.shape[0] / 16  # a corner index's side at the scenes' card scale
        boxes = lettering_boxes(image, rng, per_scene)
        boxes += picture_boxes(rng, (image.shape[1], image.shape[0]), [side], [], pictures)
        if mine_with is not None:
            boxes += mined_boxes(str(mine_with), image)
        for k, box in enumerate(boxes):
            patch = crop(image, box, angle=float(rng.uniform(-8, 8)))
            cv2.imwrite(str(folder / f"p{scene_name(seed, i)}_{k}.png"), blur_down(rng, patch))
            written += 1
    return written
