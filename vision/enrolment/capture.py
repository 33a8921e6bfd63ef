"""Reading a deck off photographs of the enrolment mat, and writing it as a deck folder.

This module owns turning calibrated camera frames of the mat (:mod:`vision.enrolment.mat`) into
card faces. Each slot's pad, with a ring of the paper around it, is warped to a top-down view at
:data:`DETECT_PX_PER_CM`. The card is every sizeable piece brighter than halfway from the pad's
grey to the paper's (ink running off a face's edge cuts its white into several), and its place
the smallest rectangle around them. A slot is read only when that is one card lying wholly on
the pad, clean; otherwise the slot's mat is hidden or the slot is *empty*, *blurred* (the
view's edges rise too slowly for their height, at the camera's own scale: judged before the
shape, which blur frays), holds *two cards* (more than a card's extent), is *off its slot* (the
card runs onto the pad's rim) or is *covered* (the rectangle is not a card's size, a side of
the card is dark over a long stretch, or something bright lies on the pad around it). The
rectangle, its long side up, maps the camera frame straight to an upright face
:data:`FACE_HEIGHT_PX` tall, its aspect the card's.

Several frames of one mat are pooled (each slot takes its sharpest clean read). The deck folder
(:mod:`vision.synth.decks`' format: ``AS.png`` … and a ``deck.toml``) is built in a temporary
folder beside it and renamed into place only when every card is there; when any slot is
unreadable nothing is written and :class:`CaptureResult` lists one line per slot. Two half-mats
are captured one after the other into the same folder: a half's faces wait in
``DECK/.partial/`` until the other half joins them. Both joker slots empty make a 52-card deck.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

import cv2
import numpy as np

from vision.calibration import check_drift, top_down_view, warp_view, write_folder_atomic
from vision.classes import CLASS_NAMES, JOKERS
from vision.enrolment.mat import EnrolmentError, MatLayout, Slot, half_cards, mat_layout
from vision.table_geometry import Calibration, TableGeometry
from vision.zones import CARD_H_CM, CARD_W_CM

DETECT_PX_PER_CM = 20.0  # the top-down view a slot's card is found in (a card: 126 × 176 px)
RING_CM = 0.4  # paper around the pad in that view: the bright reference
PAD_EDGE_CM = 0.15  # the pad's rim, brightened by the paper beside it in a soft photograph
FACE_HEIGHT_PX = 500
PARTIAL = ".partial"  # where one half-mat's faces wait for the other's (hidden from load_deck)

MIN_CONTRAST = 40.0  # grey levels between the mat's paper and its pads: less, the mat is hidden
THRESHOLD_AT = 0.45  # the card threshold, this far from the pad's grey to the paper's
PIECE_MIN_CM2 = 0.5  # bright pieces smaller than this are specks, not card
EMPTY_BELOW = 0.25  # bright area / one card's: less is an empty slot
MORE_THAN_ONE = 1.15  # the bright pieces' convex hull / one card: more is two cards
MORE_THAN_ONE_OFF = 1.05  # the same where it runs over the pad (one card off it has less)
LONGER, WIDER = 1.08, 1.12  # a side this much beyond a card's: something besides the card
SMALLER = 0.8  # a side this much short of a card's: part of the card is hidden
OFF_EDGE_CM = 0.5  # more bright than this along the pad's edge: the card lies off the pad
EDGE_BAND_CM = (0.05, 0.25)  # inside each side of the card: mostly bright, unless covered
DARK_RUN_MAX_CM = 1.5  # dark longer along a side: covered (ink off the edge is a letter long)
OUTSIDE_BAND_CM = (0.1, 0.3)  # around the card: the bare pad, unless something lies there
OUTSIDE_BRIGHT_MAX = 0.05
SHARP_PX_PER_CM_MAX = 20.0  # sharpness is measured at the camera's scale, at most this
EDGE_HEIGHT_MIN = 0.25  # a step of a quarter of black to white counts as an edge
SHARPNESS_MIN = 0.18  # see _sharpness: a blur of about 2.2 px (σ) at the camera's scale

PROBLEMS: dict[str, str] = {
    "empty": "empty: lay the {card} face up in it",
    "two cards": "two cards: leave only the {card} in it",
    "off its slot": "off its slot: push the {card} inside the dark pad",
    "covered": "covered: something lies over the {card}; clear it",
    "mat hidden": "covered: the mat is hidden here; clear it",
    "blurred": "blurred: hold the camera still and in focus, and capture again",
    "lone joker": "empty: lay the {card} in it too, or take the other joker out (52 cards)",
}


@dataclass(frozen=True, eq=False)
class SlotRead:
    """What one frame shows in one slot: a face (BGR, upright) or the problem that kept it."""

    slot: Slot
    problem: str | None  # a key of PROBLEMS; None: read
    face: np.ndarray | None = field(default=None, repr=False)
    sharpness: float = 0.0
    quad_cm: np.ndarray | None = field(default=None, repr=False)  # TL TR BR BL in table cm

    def line(self) -> str:
        """``slot 12 (4C): empty: lay the 4C face up in it`` (or ``…: read``)."""
        problem = "read" if self.problem is None else PROBLEMS[self.problem]
        return f"{self.slot.name()}: {problem.format(card=self.slot.card)}"


@dataclass(frozen=True)
class CaptureResult:
    """What :func:`capture_deck` did: every slot's read, one line per unreadable slot (then
    nothing was written), the deck folder once complete, and the halves still to capture."""

    reads: tuple[SlotRead, ...]
    problems: tuple[str, ...]
    faces: int  # faces written by this capture
    folder: Path | None  # the complete deck folder, None until every card is in
    waiting_for: tuple[int, ...] = ()  # half-mats not captured yet


# ---------------------------------------------------------------- one slot


def _px_per_cm_at(calibration: Calibration, x: float, y: float) -> float:
    """The camera's pixels a table cm around (x, y): the smaller of its two directions."""
    inverse = np.linalg.inv(calibration.matrix)
    pts = np.array([[[x, y]], [[x + 1, y]], [[x, y + 1]]], dtype=np.float64)
    p = cv2.perspectiveTransform(pts, inverse).reshape(3, 2)
    return float(min(np.linalg.norm(p[1] - p[0]), np.linalg.norm(p[2] - p[0])))


def _sharpness(image: np.ndarray, image_px_per_cm: float, camera_px_per_cm: float) -> float:
    """How sharp a warped view is, about 0.35 sharp to 0.17 blurred over 2.5 pixels (σ): at
    its edges, the steepest slope over the step's height. The view is first brought to the
    camera's own scale (so upsampling a coarse photograph does not count as blur). The slope
    is taken over the contrast of the pixel's own neighbourhood, so neither the light nor the
    ink's darkness counts, and only where that contrast is large, so noise does not."""
    scale = min(camera_px_per_cm, SHARP_PX_PER_CM_MAX) / image_px_per_cm
    size = (max(16, round(image.shape[1] * scale)), max(16, round(image.shape[0] * scale)))
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY) if image.ndim == 3 else image
    small = cv2.resize(gray, size, interpolation=cv2.INTER_AREA).astype(np.float32) / 255
    gx = cv2.Sobel(small, cv2.CV_32F, 1, 0, ksize=3) / 8  # a unit slope gives 8
    gy = cv2.Sobel(small, cv2.CV_32F, 0, 1, ksize=3) / 8
    window = np.ones((9, 9), np.uint8)
    height = cv2.dilate(small, window) - cv2.erode(small, window)
    inner = (slice(4, size[1] - 4), slice(4, size[0] - 4))  # the filters' own margins
    edges = height[inner] > EDGE_HEIGHT_MIN
    if int(edges.sum()) < 20:
        return 1.0  # nothing to judge by
    slope = np.hypot(gx, gy)[inner][edges] / height[inner][edges]
    return float(np.percentile(slope, 90))


def _upright(box: np.ndarray) -> np.ndarray:
    """The corners of a ``cv2.boxPoints`` rectangle as TL, TR, BR, BL with its long side
    vertical (a card lying upright; one turned half round reads as itself)."""
    centre = box.mean(axis=0)
    e1, e2 = box[1] - box[0], box[2] - box[1]
    long_side, short_side = (e1, e2) if np.linalg.norm(e1) >= np.linalg.norm(e2) else (e2, e1)
    if long_side[1] < 0:
        long_side = -long_side
    if short_side[0] < 0:
        short_side = -short_side
    down, right = long_side / 2, short_side / 2
    return np.array(
        [centre - down - right, centre - down + right, centre + down + right, centre + down - right]
    )


def _grow(box: np.ndarray, by: float) -> np.ndarray:
    """A rectangle (TL TR BR BL) with each side moved ``by`` outward (the card's outermost
    bright pixels' centres lie half a pixel inside the edge the threshold crosses)."""
    right, down = box[1] - box[0], box[3] - box[0]
    right, down = right / np.linalg.norm(right) * by, down / np.linalg.norm(down) * by
    grown: np.ndarray = box + np.array([-right - down, right - down, right + down, -right + down])
    return grown


def _rectify(frame: np.ndarray, calibration: Calibration, quad_cm: np.ndarray) -> np.ndarray:
    """The card inside ``quad_cm`` (TL TR BR BL, table cm) as an upright face image."""
    width_cm = float(np.linalg.norm(quad_cm[1] - quad_cm[0]))
    height_cm = float(np.linalg.norm(quad_cm[3] - quad_cm[0]))
    h = FACE_HEIGHT_PX
    w = max(1, round(h * width_cm / height_cm))
    # face pixel centres: the face's edges lie half a pixel outside the first and last ones
    face_px = np.array([[-0.5, -0.5], [w - 0.5, -0.5], [w - 0.5, h - 0.5], [-0.5, h - 0.5]])
    cm_to_face = cv2.getPerspectiveTransform(quad_cm.astype(np.float32), face_px.astype(np.float32))
    to_face = np.asarray(cm_to_face, dtype=np.float64) @ calibration.matrix
    return warp_view(frame, to_face, (w, h))


def _edge_bands(
    shape: tuple[int, ...], box: np.ndarray
) -> tuple[list[tuple[np.ndarray, np.ndarray]], np.ndarray]:
    """Masks in the detection view of a found card (``box``: TL TR BR BL, view px): a band
    just inside each of its four sides (their middles: real cards have round corners), each
    with every pixel's place along that side, and one ring just outside the card."""
    d = DETECT_PX_PER_CM
    centre = box.mean(axis=0)
    right, down = box[1] - box[0], box[3] - box[0]
    a, b = float(np.linalg.norm(right)) / 2, float(np.linalg.norm(down)) / 2
    yy, xx = np.mgrid[0 : shape[0], 0 : shape[1]]
    p = np.stack([xx, yy], axis=-1) - centre
    u, v = p @ (right / (2 * a)), p @ (down / (2 * b))
    lo, hi = EDGE_BAND_CM[0] * d, EDGE_BAND_CM[1] * d
    along_u, along_v = np.abs(u) < 0.8 * a, np.abs(v) < 0.8 * b
    sides = [
        ((u > -a + lo) & (u < -a + hi) & along_v, v),
        ((u < a - lo) & (u > a - hi) & along_v, v),
        ((v > -b + lo) & (v < -b + hi) & along_u, u),
        ((v < b - lo) & (v > b - hi) & along_u, u),
    ]
    beyond = np.maximum(np.abs(u) - a, np.abs(v) - b)
    outside = (beyond > OUTSIDE_BAND_CM[0] * d) & (beyond < OUTSIDE_BAND_CM[1] * d)
    return sides, outside


def _longest_dark_run(bright: np.ndarray, band: np.ndarray, along: np.ndarray) -> float:
    """The longest stretch of a side band, in view pixels, where the card is not bright."""
    t = along[band]
    bins = np.floor(t - t.min()).astype(np.int64)
    total = np.bincount(bins)
    lit = np.bincount(bins, weights=bright[band].astype(np.float64), minlength=total.size)
    dark = (lit < 0.5 * total) & (total > 0)
    longest = run = 0
    for is_dark in dark:
        run = run + 1 if is_dark else 0
        longest = max(longest, run)
    return float(longest)


def _slot_view(
    frame: np.ndarray, calibration: Calibration, slot: Slot
) -> tuple[np.ndarray, tuple[float, float]]:
    """The slot's pad with a ring of paper, top-down at :data:`DETECT_PX_PER_CM` (grayscale),
    and the table cm of the view's pixel (0, 0)."""
    x0, y0, x1, y1 = slot.pad_cm
    region = (x0 - RING_CM, y0 - RING_CM, x1 + RING_CM, y1 + RING_CM)
    to_view, size = top_down_view(calibration, DETECT_PX_PER_CM, region)
    view = warp_view(frame, to_view, size)
    gray = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY) if view.ndim == 3 else view
    return gray, (region[0], region[1])


def read_slot(frame: np.ndarray, calibration: Calibration, slot: Slot) -> SlotRead:
    """Find, check and rectify the card in one slot of a calibrated frame of the mat."""
    d = DETECT_PX_PER_CM
    gray, origin = _slot_view(frame, calibration, slot)
    ring, rim = round(RING_CM * d), round((RING_CM + PAD_EDGE_CM) * d)
    pad = np.zeros(gray.shape, dtype=bool)
    pad[ring:-ring, ring:-ring] = True
    inner = np.zeros(gray.shape, dtype=bool)  # the pad without its rim
    inner[rim:-rim, rim:-rim] = True
    paper = float(np.percentile(gray[~pad], 75))
    dark = float(np.percentile(gray[pad], 5))
    if paper - dark < MIN_CONTRAST:
        return SlotRead(slot, "mat hidden")
    above = ((gray > dark + THRESHOLD_AT * (paper - dark)) & inner).astype(np.uint8)
    bright = cv2.morphologyEx(above, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # The card is every sizeable bright piece together: dark ink running off a face's edge
    # (an index, a court's frame) cuts its white into several.
    n, labels, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=8)
    keep = [k for k in range(1, n) if stats[k, cv2.CC_STAT_AREA] >= PIECE_MIN_CM2 * d * d]
    card = np.isin(labels, keep)
    area = float(card.sum()) / (CARD_W_CM * CARD_H_CM * d * d)  # in cards
    if area < EMPTY_BELOW:
        return SlotRead(slot, "empty")
    centre = ((slot.pad_cm[0] + slot.pad_cm[2]) / 2, (slot.pad_cm[1] + slot.pad_cm[3]) / 2)
    sharpness = _sharpness(gray, d, _px_per_cm_at(calibration, *centre))
    if sharpness < SHARPNESS_MIN:  # before the shape: blur frays every outline looked at below
        return SlotRead(slot, "blurred", sharpness=sharpness)
    points = np.column_stack(np.nonzero(card)[::-1]).astype(np.float32)
    hull = cv2.convexHull(points)
    extent = cv2.contourArea(hull) / (CARD_W_CM * CARD_H_CM * d * d)  # ink and all, in cards
    on_rim = int(card[inner].sum()) - int(card[rim + 1 : -rim - 1, rim + 1 : -rim - 1].sum())
    off = on_rim > OFF_EDGE_CM * d  # bright pixels on the outermost row and column looked at
    if extent > MORE_THAN_ONE or (off and extent > MORE_THAN_ONE_OFF):
        return SlotRead(slot, "two cards", sharpness=sharpness)
    if off:
        return SlotRead(slot, "off its slot", sharpness=sharpness)
    rect = cv2.minAreaRect(hull)
    long_cm, short_cm = max(rect[1]) / d, min(rect[1]) / d
    box = _upright(np.asarray(cv2.boxPoints(rect), dtype=np.float64))
    quad_cm = _grow(box, 0.5) / d + np.array(origin)
    sides, outside = _edge_bands(gray.shape, box)
    covered = (
        long_cm > LONGER * CARD_H_CM
        or short_cm > WIDER * CARD_W_CM
        or long_cm < SMALLER * CARD_H_CM
        or short_cm < SMALLER * CARD_W_CM
        or max(_longest_dark_run(bright, m, t) for m, t in sides) > DARK_RUN_MAX_CM * d
        or float(bright[outside & inner].sum()) > OUTSIDE_BRIGHT_MAX * (outside & inner).sum()
    )
    if covered:
        return SlotRead(slot, "covered", sharpness=sharpness, quad_cm=quad_cm)
    return SlotRead(slot, None, _rectify(frame, calibration, quad_cm), sharpness, quad_cm)


# ---------------------------------------------------------------- frames


def check_frame(
    frame: np.ndarray, calibration: Calibration, geometry: TableGeometry, name: str
) -> None:
    """A frame must have the calibration's size and show the corner markers where the
    calibration put them; a one-line :class:`EnrolmentError` otherwise."""
    w, h = int(frame.shape[1]), int(frame.shape[0])
    cw, ch = calibration.image_size
    if (w, h) != (cw, ch):
        raise EnrolmentError(
            f"{name} is {w}x{h} but the calibration was made at {cw}x{ch}: photograph the mat "
            "at that size (the camera's full resolution), or run chaodipi calibrate again"
        )
    report = check_drift(frame, calibration, geometry)
    if not report.ok:
        raise EnrolmentError(f"{name}: {report.message()} (keep the markers clear of the mat)")


def read_frame(
    frame: np.ndarray,
    calibration: Calibration,
    layout: MatLayout,
    name: str = "the frame",
) -> list[SlotRead]:
    """Every slot of ``layout`` read in one frame (checked with :func:`check_frame`). A frame
    in which most pads are hidden shows no mat: a one-line :class:`EnrolmentError`."""
    check_frame(frame, calibration, layout.table, name)
    reads = [read_slot(frame, calibration, slot) for slot in layout.slots]
    hidden = sum(r.problem == "mat hidden" for r in reads)
    if hidden > len(reads) // 2:
        which = "the mat" if layout.half is None else f"half-mat {layout.half}"
        raise EnrolmentError(
            f"{name} shows no mat where the layout puts it ({hidden} of {len(reads)} slots "
            f"hidden): lay {which} from chaodipi deck sheet square between the markers, "
            "uncovered"
        )
    return reads


def best_reads(per_frame: Sequence[Sequence[SlotRead]]) -> list[SlotRead]:
    """Each slot's sharpest clean read over several frames, else its read in the first."""
    out = []
    for reads in zip(*per_frame, strict=True):
        clean = [r for r in reads if r.problem is None]
        out.append(max(clean, key=lambda r: r.sharpness) if clean else reads[0])
    return out


def _jokers(reads: list[SlotRead]) -> list[SlotRead]:
    """Both joker slots empty make a 52-card deck; one empty beside a read one is a problem."""
    jokers = [r for r in reads if r.slot.card in JOKERS]
    if len(jokers) != 2 or all(r.problem is None for r in jokers):
        return reads
    if all(r.problem == "empty" for r in jokers):
        return [r for r in reads if r.slot.card not in JOKERS]
    if any(r.problem is None for r in jokers):
        return [
            SlotRead(r.slot, "lone joker") if r.problem == "empty" and r.slot.card in JOKERS else r
            for r in reads
        ]
    return reads


# ---------------------------------------------------------------- the deck folder


def _check_out(out: Path, half: int | None) -> None:
    if out.exists() and not out.is_dir():
        raise EnrolmentError(f"{out} is a file: give a folder for the deck")
    if out.is_dir():
        kept = [p.name for p in out.iterdir() if p.name != PARTIAL]
        if kept:
            raise EnrolmentError(
                f"{out} already holds {kept[0]}: give a new deck folder, or delete that one"
            )
        if half is None and (out / PARTIAL).is_dir():
            raise EnrolmentError(
                f"{out} holds half a deck in {PARTIAL}: capture the other --half, or delete "
                f"{out / PARTIAL} to capture the whole mat"
            )


def _write_png(path: Path, image: np.ndarray) -> None:
    ok, buf = cv2.imencode(".png", image)
    if not ok:
        raise EnrolmentError(f"cannot encode {path.name} as PNG")
    path.write_bytes(buf.tobytes())


def _deck_toml(name: str, layout: MatLayout) -> str:
    when = datetime.now(UTC).replace(microsecond=0).isoformat()
    how = "whole mat" if layout.half is None else "two half-mats"
    source = f"photographed on the enrolment mat ({how}) by chaodipi deck capture, {when}"
    # json's string escapes are TOML's basic-string escapes
    return f"name = {json.dumps(name, ensure_ascii=False)}\nsource = {json.dumps(source)}\n"


def _publish(out: Path, faces: dict[str, Path | np.ndarray], toml: str) -> None:
    """Build the deck in a folder beside ``out`` and rename it into place (faces given as
    files, a finished ``.partial``, are copied: they stay until the rename; ``out`` itself is
    only ever an empty folder or such a ``.partial``, checked before)."""

    def fill(folder: Path) -> None:
        for card, face in faces.items():
            if isinstance(face, Path):
                shutil.copyfile(face, folder / f"{card}.png")
            else:
                _write_png(folder / f"{card}.png", face)
        (folder / "deck.toml").write_text(toml, encoding="utf-8")

    write_folder_atomic(out, fill)


def _stash_half(out: Path, half: int, faces: dict[str, np.ndarray]) -> Path:
    """Put one half-mat's faces into ``out/.partial`` (replacing that half's earlier ones)."""
    partial = out / PARTIAL
    partial.mkdir(parents=True, exist_ok=True)
    for card in half_cards(half):
        (partial / f"{card}.png").unlink(missing_ok=True)
    for card, face in faces.items():
        tmp = partial / f".{card}.png.tmp"
        _write_png(tmp, face)
        os.replace(tmp, partial / f"{card}.png")
    return partial


def capture_deck(
    frames: Sequence[tuple[str, np.ndarray]],
    calibration: Calibration,
    geometry: TableGeometry,
    out: Path,
    *,
    half: int | None = None,
    name: str | None = None,
) -> CaptureResult:
    """Read the whole mat (or half-mat ``half``) from ``frames`` (name, BGR image) and write
    the deck folder ``out``; see the module's description. Bad input (a frame of the wrong
    size, markers moved, no mat in view, ``out`` already a deck) raises a one-line
    :class:`EnrolmentError` before anything is written."""
    if not frames:
        raise EnrolmentError("no frame to read: give --image FRAME.jpg or --source")
    out = Path(out)
    layout = mat_layout(geometry, half)
    _check_out(out, half)
    reads = best_reads([read_frame(image, calibration, layout, what) for what, image in frames])
    kept = _jokers(reads)
    problems = tuple(r.line() for r in kept if r.problem is not None)
    if problems:
        return CaptureResult(tuple(reads), problems, 0, None, () if half is None else (half,))
    faces = {r.slot.card: r.face for r in kept if r.face is not None}
    toml = _deck_toml(name or out.name, layout)
    if half is None:
        _publish(out, dict(faces), toml)
        return CaptureResult(tuple(reads), (), len(faces), out)
    partial = _stash_half(out, half, faces)
    have = {p.stem: p for p in partial.glob("*.png")}
    waiting = tuple(
        k for k in (1, 2) if not all(c in have for c in half_cards(k) if c not in JOKERS)
    )
    if waiting:
        return CaptureResult(tuple(reads), (), len(faces), None, waiting)
    ordered: dict[str, Path | np.ndarray] = {c: have[c] for c in CLASS_NAMES if c in have}
    _publish(out, ordered, toml)
    return CaptureResult(tuple(reads), (), len(faces), out)
