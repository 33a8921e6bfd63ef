"""Zone reads: each zone of the table looked at on its own, finely, and only when it changed.

This module owns *where and when* the detector looks on a decision frame when it can look at
an image at its own scale (``CardDetector.reads_native``). The localiser must see a fanned
card's 1.3 cm strip of index at about 10 px a cm to box it (measured on rendered hands, plays
exactly right from one still frame before each sweep: 77 % at 6.4 px a cm, 88 % at 8, 95 % at
10, 93 % at 12), and the whole 80 × 80 cm reading region at 10 px a cm costs three times the
decision budget. But a zone only changes when a card lands in it or the trick is swept, so:

* every zone (the four seats' play areas and the centre) has a rectangle: its bounds grown by
  ``margin_cm`` (:data:`vision.zones.READING_MARGIN_CM`), clipped to the table;
* on each decision frame a small grey *thumbnail* of every zone (``thumb_px_per_cm``) is
  compared with the one taken at that zone's last read. Unchanged (fewer than
  ``min_changed_cm2`` of pixels differ by more than ``change_threshold`` grey levels): the
  last read stands. Matching the thumbnail of the zone's last *empty* read: the zone is empty
  again (a swept trick costs no detector pass);
* changed zones are read: warped top-down at ``px_per_cm`` from the camera frame, localised in
  one pass at that scale (``native``), each index read from the camera frame itself
  (``source``), grouped into cards; a card counts for the zone its centre lies in, and only
  the zone being read keeps it (the rectangles overlap at the corners);
* at most ``max_reads`` zones are read a frame (the least recently read first), which bounds
  the worst frame; a changed zone left unread, or one a hand occludes (``skip``), is reported
  in ``unread`` and the caller must not count it as seen this frame.

A zone that changed without the reader seeing it change cannot keep a stale read for long:
every read's thumbnail is compared with the current one, so slow drift (light) accumulates
until it crosses the threshold and the zone is read again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import Protocol

import cv2
import numpy as np

from chaodipi.config import Calibration
from vision.calibration import top_down_view
from vision.crops import ReadingSource
from vision.grouping import BoxLike, CardSighting, group_cards
from vision.zones import CENTRE, READING_MARGIN_CM, SEATS, Zones

ZONE_NAMES: tuple[str, ...] = (*SEATS, CENTRE)
PX_PER_CM = 10.0
THUMB_PX_PER_CM = 3.0
CHANGE_THRESHOLD = 25  # grey levels
MIN_CHANGED_CM2 = 1.0  # a fanned card's new strip is ≥ 1.3 × 8 cm
MAX_READS = 2

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in table cm
Timer = Callable[[str], AbstractContextManager[None]]


class NativeDetector(Protocol):
    """A detector that looks at an image at its own scale (``CardDetector`` fits)."""

    reads_native: bool
    reads_source: bool

    def detect(
        self,
        image_bgr: np.ndarray,
        tiles: int | None = None,
        source: ReadingSource | None = None,
        native: bool = False,
    ) -> Sequence[BoxLike]: ...


@dataclass
class _Memo:
    """What the reader remembers of one zone."""

    thumb: np.ndarray | None = None  # the thumbnail at the last read
    empty_thumb: np.ndarray | None = None  # the thumbnail at the last read that found nothing
    cards: list[CardSighting] = field(default_factory=list)
    read_t: float = float("-inf")


@dataclass(frozen=True)
class ZoneReads:
    """One decision frame's cards per zone (``ZONE_NAMES``) and how each zone was had."""

    cards: dict[str, list[CardSighting]]
    read: tuple[str, ...]  # zones the detector looked at
    kept: tuple[str, ...]  # unchanged zones: the last read stands (or empty again)
    unread: tuple[str, ...]  # changed or occluded zones not read: not seen this frame


def zone_rects(zones: Zones, margin_cm: float = READING_MARGIN_CM) -> dict[str, Rect]:
    """Each zone's bounds grown by ``margin_cm`` and clipped to the table, in table cm."""
    polygons = zones.polygons_cm()
    rects: dict[str, Rect] = {}
    for name in ZONE_NAMES:
        (x0, y0), (x1, y1) = polygons[name].min(axis=0), polygons[name].max(axis=0)
        rects[name] = (
            max(0.0, float(x0) - margin_cm),
            max(0.0, float(y0) - margin_cm),
            min(zones.width_cm, float(x1) + margin_cm),
            min(zones.height_cm, float(y1) + margin_cm),
        )
    return rects


def _changed(a: np.ndarray, b: np.ndarray, threshold: int, min_pixels: int) -> bool:
    _, moved = cv2.threshold(cv2.absdiff(a, b), threshold, 255, cv2.THRESH_BINARY)
    return bool(cv2.countNonZero(moved) >= min_pixels)


class ZoneReader:
    """Reads the zones of one calibrated table (see the module docstring)."""

    def __init__(
        self,
        detector: NativeDetector,
        zones: Zones,
        *,
        px_per_cm: float = PX_PER_CM,
        thumb_px_per_cm: float = THUMB_PX_PER_CM,
        max_reads: int = MAX_READS,
        change_threshold: int = CHANGE_THRESHOLD,
        min_changed_cm2: float = MIN_CHANGED_CM2,
        margin_cm: float = READING_MARGIN_CM,
    ) -> None:
        if max_reads < 1:
            raise ValueError(f"max_reads must be ≥ 1 (got {max_reads}): use e.g. {MAX_READS}")
        self.detector = detector
        self.zones = zones
        self.px_per_cm = px_per_cm
        self.thumb_px_per_cm = thumb_px_per_cm
        self.max_reads = max_reads
        self.change_threshold = change_threshold
        self.min_changed_px = max(1, round(min_changed_cm2 * thumb_px_per_cm**2))
        self.rects = zone_rects(zones, margin_cm)
        self._memo = {name: _Memo() for name in ZONE_NAMES}

    def reset(self) -> None:
        """Forget every zone's last read (e.g. after a new calibration)."""
        self._memo = {name: _Memo() for name in ZONE_NAMES}

    def read(
        self,
        image_bgr: np.ndarray,
        calibration: Calibration,
        t: float,
        skip: Collection[str] = (),
        timed: Timer | None = None,
    ) -> ZoneReads:
        """The cards in every zone of the camera frame ``image_bgr`` taken at ``t``."""
        timer: Timer = timed or (lambda _stage: nullcontext())
        kept: list[str] = []
        changed: list[tuple[str, np.ndarray]] = []
        with timer("warp"):
            for name in ZONE_NAMES:
                if name in skip:
                    continue
                memo = self._memo[name]
                thumb = self._thumb(image_bgr, calibration, name)
                if memo.thumb is not None and not self._differs(thumb, memo.thumb):
                    kept.append(name)
                elif memo.empty_thumb is not None and not self._differs(thumb, memo.empty_thumb):
                    memo.thumb, memo.cards = thumb, []
                    kept.append(name)
                else:
                    changed.append((name, thumb))
        changed.sort(key=lambda nt: self._memo[nt[0]].read_t)
        now, later = changed[: self.max_reads], changed[self.max_reads :]
        for name, thumb in now:
            memo = self._memo[name]
            memo.cards = self._read_zone(image_bgr, calibration, name, timer)
            memo.thumb, memo.read_t = thumb, t
            if not memo.cards:
                memo.empty_thumb = thumb
        unread = [name for name in ZONE_NAMES if name in skip] + [name for name, _ in later]
        return ZoneReads(
            cards={name: list(self._memo[name].cards) for name in ZONE_NAMES},
            read=tuple(name for name, _ in now),
            kept=tuple(kept),
            unread=tuple(unread),
        )

    def _differs(self, a: np.ndarray, b: np.ndarray) -> bool:
        return _changed(a, b, self.change_threshold, self.min_changed_px)

    def _thumb(self, image_bgr: np.ndarray, calibration: Calibration, name: str) -> np.ndarray:
        # Warped at twice the scale and area-halved: a warp samples, it does not average, and
        # single camera pixels would let noise and wood grain through.
        to_thumb, (w, h) = top_down_view(calibration, 2 * self.thumb_px_per_cm, self.rects[name])
        fine = cv2.warpPerspective(image_bgr, to_thumb, (w, h), flags=cv2.INTER_LINEAR)
        grey = cv2.cvtColor(fine, cv2.COLOR_BGR2GRAY) if fine.ndim == 3 else fine
        return cv2.resize(grey, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)

    def _read_zone(
        self, image_bgr: np.ndarray, calibration: Calibration, name: str, timer: Timer
    ) -> list[CardSighting]:
        rect = self.rects[name]
        with timer("warp"):
            to_view, size = top_down_view(calibration, self.px_per_cm, rect)
            view = cv2.warpPerspective(image_bgr, to_view, size, flags=cv2.INTER_LINEAR)
        with timer("detect"):
            source = ReadingSource(image_bgr, np.linalg.inv(to_view))
            reads_source = getattr(self.detector, "reads_source", False)
            detections = self.detector.detect(
                view, tiles=1, source=source if reads_source else None, native=True
            )
        with timer("zones"):
            cards = []
            for card in group_cards(detections):
                xs = [(b[0] + b[2]) / 2 for b in card.boxes]
                ys = [(b[1] + b[3]) / 2 for b in card.boxes]
                k = self.px_per_cm * len(card.boxes)
                centre = (rect[0] + sum(xs) / k, rect[1] + sum(ys) / k)
                if (self.zones.seat_of(centre) or "") == name:
                    cards.append(card)
        return cards
