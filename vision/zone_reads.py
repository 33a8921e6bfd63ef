"""Zone reads: each zone of the table looked at on its own, finely, and only when it changed.

This module owns *where and when* the detector looks on a decision frame when it can look at
an image at its own scale (``CardDetector.reads_native``). The localiser must see a fanned
card's 1.3 cm strip of index at about 10 px a cm to box it (``bench/fan_scale.py`` on three
rendered hands of the held-out design in the binned mode, plays exactly right from one still
frame before each sweep: 78 % at 6.4 px a cm, 88 % at 8, 95 % at 10, 94 % at 12; the zones are
read at 12, :data:`PX_PER_CM`, where the validation decks' hands read more), and the whole
80 × 80 cm reading region at 10 px a cm costs about three times the decision budget. But a zone
only changes when a card lands in it or the trick is swept, so:

* every zone (the four seats' play areas and the centre) has a rectangle: its bounds grown by
  ``margin_cm`` (:data:`vision.zones.READING_MARGIN_CM`), clipped to the table;
* on each decision frame a small grey *thumbnail* of every zone (``thumb_px_per_cm``) is
  compared with the one taken at that zone's last read, brought to the same light (the ratio
  of their medians: light drifting over the table scales the zone alike). Unchanged (fewer
  than ``min_changed_cm2`` of pixels differ by more than ``change_threshold`` grey levels):
  the last read stands. Matching the thumbnail of the zone's last confirmed *empty* read: the zone
  is empty again (a swept trick costs no detector pass);
* changed zones are read: warped top-down at ``px_per_cm`` from the camera frame, localised in
  one pass at that scale (``native``), each index read from the camera frame itself
  (``source``), pooled per index over the zone's reads (:mod:`vision.index_tracks`, which
  also takes the localiser's sure boxes the classifier read under the bar, except in the
  centre: the kitty), grouped into cards (a picture joker boxed by halves is one joker: knowing the
  scale, and on a seat's play the way it fans, :func:`one_joker_each` can tell it from a fanned
  pair); a card counts for the zone
  its centre lies in, and only the zone being read keeps it (the rectangles overlap at the
  corners);
* a read stands only once confirmed: a changed zone is read again on the next frames until two
  reads in a row, with no change between them, agree (a card the localiser boxes at the edge
  of its threshold must not be locked in, or out, by one unlucky read) — except an empty read
  of a zone with a known empty look and no card-sized blob against it (a swept trick under a
  changed light: the next lead can land within 0.6 s, there is no time for second reads);
* at most ``max_reads`` zones are read a frame (first the zones whose last read found other
  cards than they last confirmed — a play landing, a trick swept: the tracker must see them
  again soon —, then changed zones, then unconfirmed ones, each the least recently read
  first), which bounds the worst frame; a zone left unread, or
  one a hand occludes (``skip``), is reported in ``unread`` and the caller must not count it
  as seen this frame.

A picture joker has no corner index and the localiser, which has seen few of them, often misses
it; yet it is the card that wins a trick. So when a zone is read, its thumbnail is compared with
the zone's last confirmed *empty* thumbnail: a blob there *brighter* than it (card paper, not a
shadow) of one card's size (its box ``CARD_AREA_CM2`` × 0.5–2.2) that holds no card the read
found is read whole by the classifier and kept as a joker when it reads ``BJ``/``SJ`` at
``JOKER_READ_CONF`` or more — ``LONE_JOKER_CONF`` when the localiser boxed no index-sized
box on it at all, not even one it could not read (an index card lying alone shows two; a
held-out BJ read whole at 0.89 had been dropped). Its corner marks are read too
(:func:`vision.fan_strips.card_corner_marks`, as a fan's strip's are): one read as a joker at
``STRIP_JOKER_CONF`` makes the blob that joker, in doubt as to which — two reading the same
joker where an index box the localiser was sure of lies on it, which may be an index card's (a
validation deck's lone BJ, its ringed-star index never boxed once it lay still, read ``none``
whole and BJ by two corners at 0.55 and 0.69; its SJ, the star boxed but read unsurely, SJ by
two corners at 0.75); with no index box on it, one every read of which names a joker, if only
second, at a mean joker probability of at least ``LONE_RUNNER_UP_JOKER``, is that joker in
doubt (:func:`vision.fan_strips.joker_in_every_read`: the validation deck's lone SJ read ``none``
whole and at every corner, SJ second each time at 0.01–0.49 — a mean of 0.18–0.20 — was never
a play; without the floor, a card lying unread as its index went unboxed, every read ``none``
and a joker second at 0.00–0.03 as often as not, was taken for a joker: the rendering deck's
end-to-end clip read 4 plays of 12). A blob so read as a joker that is a fan step
(``FAN_STEP_CM``) or more wider than one card (as wide as the index cards seen lying alone and
whole are, :attr:`ZoneReader.card_w_cm`), and no longer than one, is a fan of two: where
the corner marks along each of its long sides name a joker, each side's card is that joker, in
doubt as to which (validation hand 9031: S's two big jokers fanned 1.2 cm apart, neither's mark
boxed, read as one; each end's mark read BJ at 0.77–0.80). Any other read of a lone blob is
dropped: it is a card the localiser missed, better unseen than guessed, yet a card lies
there, and while no read on the zone names one the zone is *glimpsed*
(:attr:`ZoneReads.glimpsed`: a seat's play there was seen, unread, so what its absence would
prove is asked about); a joker read whole and a part of
it the localiser boxed (a line-art joker's edge may lie off the paper's blob) are one joker
(:func:`one_joker_each`). A lone blob a read names nothing on, where the zone's last read
found a card surely and nothing there has moved since (the zone's thumbnail unchanged over the
blob), is still that card: a card lying still whose index the localiser boxes in one read of
three (a validation deck's lone SJ, its small star boxed and read 0.96 every third read, never
read the same three reads running, so its play was never accepted) keeps its read until a read
names another card there or the blob changes. Two jokers lying one over the other, a little
apart, make one card-sized blob that holds the joker read: the other's marks may never be boxed
(a validation deck's SJ lying over its BJ, the BJ's ringed mark boxed and read 0.93, the SJ's
black rings never boxed, so the pair was read as the BJ alone). So the corner marks of a blob
holding a joker the localiser boxed are read too, and where ``OTHER_JOKER_MARKS`` of them off
that joker's boxes name the other joker at ``STRIP_JOKER_CONF`` (9028: SJ at 0.98 and 0.83),
that joker lies there too, in doubt as to which; marks naming the joker already read tell
nothing (one joker or two). A joker under the next card of a fan shows only a
strip: on a seat's zone the ends of a fan that no card read explains are read by
:mod:`vision.fan_strips` (the localiser's unsure index boxes passed along, so an index card read
unsurely is not taken for a joker); a strip of face that is no joker is a card no read names,
and the zone's cards are then read in doubt (:func:`doubted`: their play may be short, and what
it proves is asked about). On a cloth as light as the cards nothing is brighter: no such help
there.

A part of a joker's picture the localiser boxes as an index (the held-out deck's jester hat at
a fan's strip) is read as a court card in doubt — JD at 0.5–0.7, runner-up QD or KD: the
classifier sees a picture, not which court card's index. Such a read (:func:`picture_in_doubt`:
a J/Q/K under the pipeline's unsure bar whose runner-up is a court card of another rank, a
joker or none) explains no paper, so its blob is read whole; and lying on the same paper as a
joker read surely it is dropped as a part of a picture — the strip is then the fan-strip
reader's to judge (a joker pair read "JD BJ" or a lone "JD" was the cause of eight of the
fourteen false infractions left in the thirty replayed hands). A court card's index is read
surely, or at least its rank (QS in doubt, maybe QC); a "10" read as Q has its 10 as runner-up.

A card a zone's read finds whose centre lies in no zone at all (neither a play area nor the
centre: a card dropped or shown on the table) is kept apart, with its place in table cm, as
long as that read stands: :attr:`ZoneReads.outside`, once per card however many zones' reads
saw it — what :class:`vision.tracking.ExposedCardWatcher` looks at.

A zone that changed without the reader seeing it change cannot keep a stale read for long:
every read's thumbnail is compared with the current one, so slow drift (light) accumulates
until it crosses the threshold and the zone is read again.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable, Collection, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field, replace
from functools import partial
from typing import NamedTuple, Protocol

import cv2
import numpy as np

from vision.calibration import top_down_view, warp_view
from vision.classes import JOKERS
from vision.classifier import Read
from vision.crops import ReadingSource
from vision.detector import Detection
from vision.fan_strips import (
    STRIP_CONFIDENCE,
    STRIP_JOKER_CONF,
    StripReader,
    StripReads,
    blob_sides,
    card_corner_marks,
    hidden_jokers,
    joker_in_every_read,
    other_joker,
)
from vision.grouping import (
    FAN_STEP_CM,
    BoxLike,
    CardSighting,
    UnsureCorner,
    box_centre,
    group_cards,
    index_size,
    iou,
)
from vision.index_tracks import IndexTracks
from vision.table_geometry import Calibration
from vision.zones import (
    CARD_H_CM,
    CARD_W_CM,
    CENTRE,
    READING_MARGIN_CM,
    SEATS,
    Zones,
    right_of,
)

ZONE_NAMES: tuple[str, ...] = (*SEATS, CENTRE)
PX_PER_CM = 12.0
"""How finely a zone is warped for the localiser (pixels a cm of table). Rendered hands of the
validation decks at the full sensor (``chaodipi replay-eval``, the same footage read at each
scale; models/README.md): 12 read plays the 10 of earlier versions missed (a joker pair read once,
cards in a fan unboxed) and asserted nothing more; the localiser costs ≈ 1.4 × as much a pass."""
THUMB_PX_PER_CM = 3.0
CHANGE_THRESHOLD = 25  # grey levels
MIN_CHANGED_CM2 = 1.0  # a fanned card's new strip is ≥ 1.3 × 8 cm
MAX_READS = 2  # one is too few: the sweep and the next lead outran it (replay-eval 98.6 → 20.9 %)
CARD_AREA_CM2 = CARD_W_CM * CARD_H_CM
JOKER_READ_CONF = 0.9
LONE_JOKER_CONF = 0.6  # … a blob with no index box on it at all (an index card shows two)
# … or its reads' mean joker probability, where each names a joker if only second (9014's and
# 9018's lone SJ: 0.18–0.20; any card whose index went unboxed: at most 0.03)
LONE_RUNNER_UP_JOKER = 0.1
INDEX_MAX_CM = 3.0  # a corner index's box is about 1.1 × 2.1 cm; a bigger box is no index
JOKER_SPAN_CM = (7.0, 9.6)  # one card's box, short and long side, with a little slack
FANNED_MARK_LIKENESS = 0.7  # two joker marks this alike in width and height may be copies …
FANNED_MARK_ACROSS = 0.3  # … when apart across the fan by at most this share of their step
FANNED_MARK_MAX_CM = 3.0  # … and a step of half a card (one card's two marks on an edge: 4+)
INDEX_EDGE_CM = 0.5  # an index box's outer edges lie within this of its card's edges
OTHER_JOKER_MARKS = 2  # corner marks naming the other joker, off the joker read (9028: 2 of 4)
UNSURE_READ = 0.8
"""A card read with a (pooled) confidence under this is in doubt: the pipeline names it in its
play's ``unsure`` (the referee's cue to look before acting on what it proves; ``replay-eval``
reports how the bar splits exactly-right and wrong plays), and a court card so read may be a
part of a picture (:func:`picture_in_doubt`)."""
COURT_RANKS = frozenset({"J", "Q", "K"})
SAME_PLACE_CM = 3.0  # two reads of one identity this close are one card
CARD_WIDTH_READS = 25  # the deck's card width: the median of the last so many cards seen …
CARD_WIDTH_SEEN = 3  # … once at least so many were

Rect = tuple[float, float, float, float]  # x0, y0, x1, y1 in table cm
Point = tuple[float, float]  # table cm
Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in a zone view's pixels
Timer = Callable[[str], AbstractContextManager[None]]


class NativeDetector(Protocol):
    """A detector that looks at an image at its own scale (``CardDetector`` fits)."""

    @property
    def reads_native(self) -> bool: ...

    @property
    def reads_source(self) -> bool: ...

    def detect(
        self,
        image_bgr: np.ndarray,
        tiles: int | None = None,
        source: ReadingSource | None = None,
        native: bool = False,
        unread: list[Box] | None = None,
        weak: list[Detection] | None = None,
    ) -> Sequence[BoxLike]: ...


class WholeCardReader(Protocol):
    """Reads boxes of an image (``vision.classifier.CardClassifier`` fits)."""

    def read(
        self,
        image_bgr: np.ndarray,
        boxes: Sequence[Box],
        source: ReadingSource | None = None,
    ) -> list[Read]: ...


class LoneBlob(NamedTuple):
    """A card-sized blob of card paper on a zone that no card read explains (view pixels)."""

    box: Box
    corner_marks: tuple[Box, ...]
    """Where its card would print its corner marks (:func:`vision.fan_strips.card_corner_marks`)."""
    sides_cm: tuple[float, float] = (0.0, 0.0)
    """Its least rotated rectangle's short and long side (:func:`vision.fan_strips.blob_sides`)."""


@dataclass(frozen=True)
class Thumbnail:
    """A zone's small grey look on one decision frame, with its median grey (its light: the
    cloth covers most of a zone), taken once — each thumbnail is compared up to three times a
    frame."""

    grey: np.ndarray
    median: float

    @classmethod
    def of(cls, grey: np.ndarray) -> Thumbnail:
        return cls(grey, float(np.median(grey)))


@dataclass
class _Memo:
    """What the reader remembers of one zone."""

    thumb: Thumbnail | None = None  # the thumbnail at the last read
    empty_thumb: Thumbnail | None = None  # at the last confirmed read that found nothing
    cards: list[CardSighting] = field(default_factory=list)
    read_t: float = float("-inf")
    confirmed: bool = False  # the last two reads agreed (or the zone looks empty again)
    confirmed_cards: list[str] = field(default_factory=list)  # identities when last confirmed
    outside: list[tuple[CardSighting, Point]] = field(default_factory=list)  # in no zone
    unnamed: bool = False  # the last read found a card-sized blob of paper and named no card

    @property
    def news(self) -> bool:
        """Whether the last read found other cards than the last confirmed one: a play landing
        or a trick swept, which the tracker must see again soon to accept it."""
        return _identities(self.cards) != self.confirmed_cards


@dataclass(frozen=True)
class ZoneReads:
    """One decision frame's cards per zone (``ZONE_NAMES``) and how each zone was had."""

    cards: dict[str, list[CardSighting]]
    read: tuple[str, ...]  # zones the detector looked at
    kept: tuple[str, ...]  # unchanged zones: the last read stands (or empty again)
    unread: tuple[str, ...]  # changed or occluded zones not read: not seen this frame
    outside: tuple[tuple[CardSighting, Point], ...] = ()
    """Cards lying in no zone, with their centre in table cm (each card once)."""
    glimpsed: tuple[str, ...] = ()
    """Zones whose standing read found a card-sized blob of card paper and named no card: a
    card lies there that no read names (a picture joker read whole below the joker bar)."""


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


def one_joker_each(
    cards: Sequence[CardSighting],
    px_per_cm: float,
    fan_right: tuple[float, float] | None = None,
) -> list[CardSighting]:
    """Two sightings of the same joker whose boxes together fit inside one card (at most
    ``JOKER_SPAN_CM``) are one joker the localiser boxed by parts; a fanned pair of jokers
    spans at least a card's width plus its 1.3 cm strip. Not where one is a card seen by two
    corners and the other lies off that card (past its indices' boxes by more than
    ``INDEX_EDGE_CM``): a pair of small-marked jokers fanned 1.7 cm apart, the top one seen by
    both corners, spans only 5.9 cm of index boxes (validation hand 9024, read one joker). Nor
    where, on a seat's play fanned towards ``fan_right``, one mark is the other moved a fan
    step that way (:func:`_fanned_copies`)."""
    out = list(cards)
    merged = True
    while merged:
        merged = False
        for i, j in itertools.combinations(range(len(out)), 2):
            a, b = out[i], out[j]
            if a.identity != b.identity or a.identity not in JOKERS:
                continue
            if _off_its_card(a, b, px_per_cm) or _off_its_card(b, a, px_per_cm):
                continue
            if fan_right is not None and _fanned_copies(a, b, fan_right, px_per_cm):
                continue
            x0, y0, x1, y1 = _span([*a.boxes, *b.boxes])
            short, long = sorted(((x1 - x0) / px_per_cm, (y1 - y0) / px_per_cm))
            if short <= JOKER_SPAN_CM[0] and long <= JOKER_SPAN_CM[1]:
                best = max(a.confidence, b.confidence)
                out[i] = CardSighting(a.identity, [(x0, y0, x1, y1)], best, a.ambiguous)
                del out[j]
                merged = True
                break
    return out


def _fanned_copies(
    a: CardSighting, b: CardSighting, fan_right: tuple[float, float], px_per_cm: float
) -> bool:
    """Whether two one-box joker marks are one card's mark and a fanned copy's: alike in size
    (each side within ``FANNED_MARK_LIKENESS``), index-sized (``INDEX_MAX_CM``), apart along
    the fan by a fan step (``FAN_STEP_CM``) or more with cloth or card between them but at
    most half a card's width (``FANNED_MARK_MAX_CM``), and hardly apart across it
    (``FANNED_MARK_ACROSS``). A fan shows every card's same corner a step further right; a
    joker's parts lie along its index column or over its picture, and one joker's marks at
    the two ends of an edge lie most of a card's width or length apart (validation hand 9097:
    an SJ's two rings 4.3 cm apart along W's fan; 9084: a sideways SJ's two end columns,
    7.3 cm). Validation hand 9091: W's two orell big jokers under a 2H, each showing its star
    1.7 cm from the other's, had been merged into one joker."""
    if len(a.boxes) != 1 or len(b.boxes) != 1:
        return False
    (ax0, ay0, ax1, ay1), (bx0, by0, bx1, by1) = a.boxes[0], b.boxes[0]
    sizes = ((ax1 - ax0, bx1 - bx0), (ay1 - ay0, by1 - by0))
    if any(min(p, q) < FANNED_MARK_LIKENESS * max(p, q) for p, q in sizes):
        return False
    if max(index_size(a.boxes[0]), index_size(b.boxes[0])) > INDEX_MAX_CM * px_per_cm:
        return False
    (acx, acy), (bcx, bcy) = box_centre(a.boxes[0]), box_centre(b.boxes[0])
    dx, dy = bcx - acx, bcy - acy
    along = abs(dx * fan_right[0] + dy * fan_right[1])
    across = abs(dx * fan_right[1] - dy * fan_right[0])
    reach = abs((ax1 - ax0) * fan_right[0]) + abs((ay1 - ay0) * fan_right[1])
    return (
        FAN_STEP_CM * px_per_cm <= along <= FANNED_MARK_MAX_CM * px_per_cm
        and along > reach
        and across <= FANNED_MARK_ACROSS * along
    )


def _off_its_card(card: CardSighting, other: CardSighting, px_per_cm: float) -> bool:
    """Whether ``card`` is seen by two corners (a whole card) and a box of ``other`` has its
    centre off that card: beyond its boxes by more than ``INDEX_EDGE_CM``."""
    if len(card.boxes) < 2:
        return False
    edge = INDEX_EDGE_CM * px_per_cm
    x0, y0, x1, y1 = _span(card.boxes)
    on_card = (x0 - edge, y0 - edge, x1 + edge, y1 + edge)
    return any(not _inside(box, on_card) for box in other.boxes)


def _span(boxes: Sequence[Box]) -> Box:
    """The smallest upright box holding all of ``boxes``."""
    return (
        min(b[0] for b in boxes),
        min(b[1] for b in boxes),
        max(b[2] for b in boxes),
        max(b[3] for b in boxes),
    )


def picture_in_doubt(card: CardSighting) -> bool:
    """Whether ``card`` is read as a court card in doubt and would as soon be a court card of
    another rank (or a joker): what the classifier makes of a box on a picture with no index
    on it — a joker's hat at a fan's strip read JD 0.5–0.7, runner-up QD or KD. A court
    card's index is read surely, or at least its rank (QS in doubt, maybe QC); a "10" read as
    Q in doubt has its 10 as runner-up."""
    if card.confidence >= UNSURE_READ or card.identity[:-1] not in COURT_RANKS:
        return False
    second = card.runner_up
    if not second or second in JOKERS:
        return True
    return second[:-1] in COURT_RANKS and second[:-1] != card.identity[:-1]


def read_fan(
    paper: np.ndarray,
    view: np.ndarray,
    cards: list[CardSighting],
    unread: Sequence[Box],
    fan_right: tuple[float, float],
    px_per_cm: float,
    read_strips: StripReader | None = None,
    weak_reads: Sequence[UnsureCorner] = (),
    card_w_cm: float = CARD_W_CM,
) -> tuple[list[CardSighting], StripReads]:
    """A seat zone's ``cards`` and what its fans' strips show
    (:func:`vision.fan_strips.hidden_jokers`; ``weak_reads``: how the ``unread`` indices read
    all the same). A court card read in doubt may be a part of a
    joker's picture (the strips of two BJs under a 2D, one read JD 0.6): when the fan without
    it names every strip it shows, and as more jokers than with it, that reading is taken —
    its jokers are strip reads, in doubt, so what they prove is asked about. ``read_strips``
    reads the strips (the classifier on the frame); ``card_w_cm`` is the deck's card width."""
    strips = hidden_jokers(
        paper, view, cards, unread, fan_right, px_per_cm, read_strips, weak_reads, card_w_cm
    )
    pictures = [card for card in cards if picture_in_doubt(card)]
    if strips.unnamed and pictures:
        rest = [card for card in cards if not any(card is p for p in pictures)]
        alt = hidden_jokers(
            paper, view, rest, unread, fan_right, px_per_cm, read_strips, weak_reads, card_w_cm
        )
        if not alt.unnamed and len(alt.jokers) > len(strips.jokers):
            return rest, alt
    return cards, strips


def doubted(card: CardSighting) -> CardSighting:
    """``card`` in doubt: its play shows a strip of a card no read names (its runner-up is no
    better a guess, so none is offered)."""
    return replace(card, confidence=min(card.confidence, STRIP_CONFIDENCE), runner_up="")


def _inside_point(point: tuple[float, float], outer: Box) -> bool:
    return outer[0] <= point[0] <= outer[2] and outer[1] <= point[1] <= outer[3]


def _same_box(box: Box, boxes: Sequence[Box]) -> bool:
    """Whether ``box`` is (nearly) one of ``boxes``: the centre of one inside the other."""
    return any(_inside(box, b) and _inside(b, box) for b in boxes)


def _joker_named(reads: Sequence[Read]) -> str | None:
    """The joker the surest of ``reads`` naming one names at ``STRIP_JOKER_CONF``, if any."""
    named = [r for r in reads if r.identity in JOKERS and r.probability >= STRIP_JOKER_CONF]
    return max(named, key=lambda r: r.probability).identity if named else None


def _inside(box: Box, outer: Box) -> bool:
    """Whether ``box``'s centre lies in ``outer``."""
    return _inside_point(box_centre(box), outer)


def _identities(cards: Sequence[CardSighting]) -> list[str]:
    return sorted(c.identity for c in cards)


def _changed(
    a: Thumbnail,
    b: Thumbnail,
    threshold: int,
    min_pixels: int,
    within: tuple[slice, slice] = (slice(None), slice(None)),
) -> bool:
    """Whether ``min_pixels`` of thumbnail ``a`` differ from ``b`` by more than ``threshold``
    once ``b`` is brought to ``a``'s light (:func:`relit`), counted ``within`` those rows and
    columns only (the whole thumbnail by default)."""
    difference = cv2.absdiff(a.grey[within], relit(b, a)[within])
    _, moved = cv2.threshold(difference, threshold, 255, cv2.THRESH_BINARY)
    return bool(cv2.countNonZero(moved) >= min_pixels)


def relit(b: Thumbnail, a: Thumbnail) -> np.ndarray:
    """Thumbnail ``b`` under ``a``'s light: scaled by the ratio of their medians (the cloth,
    which covers most of a zone). Light drifting over the table (a cloud, a lamp warming up)
    scales every pixel alike: at ±7 % card paper moves by up to 17 grey levels, near the change
    threshold, and the zone would be read again for nothing, taking reads from zones where
    cards land. A card or a hand still differs: it changes a part of the zone, not its
    median. (A glare fading over a part of a zone is a change; the read budget's order keeps
    it from starving a landing play.)"""
    if b.median < 1 or abs(a.median - b.median) < 1:
        return b.grey
    return cv2.convertScaleAbs(b.grey, alpha=a.median / b.median)


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
        whole_card_reader: WholeCardReader | None = None,
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
        # Reads a lone card-sized blob whole (the detector's own classifier by default).
        self.whole_card_reader = whole_card_reader or getattr(detector, "classifier", None)
        self._memo = {name: _Memo() for name in ZONE_NAMES}
        self._tracks = {
            name: IndexTracks(px_per_cm, weak_reads=name != CENTRE) for name in ZONE_NAMES
        }
        self._card_widths: deque[float] = deque(maxlen=CARD_WIDTH_READS)

    @property
    def card_w_cm(self) -> float:
        """The deck's card width: the median over the last index cards seen lying alone and
        whole (``CARD_WIDTH_READS``), a poker card's until ``CARD_WIDTH_SEEN`` were."""
        if len(self._card_widths) < CARD_WIDTH_SEEN:
            return CARD_W_CM
        return float(np.median(self._card_widths))

    def read(
        self,
        image_bgr: np.ndarray,
        calibration: Calibration,
        t: float,
        skip: Collection[str] = (),
        timed: Timer | None = None,
        still: Collection[str] | None = None,
    ) -> ZoneReads:
        """The cards in every zone of the camera frame ``image_bgr`` taken at ``t``. ``still``
        (default: every zone) names the zones nothing moved in: only there may an empty read
        become the zone's empty look (a hand carrying cards in shows no card yet, but its
        cards' paper would be learnt as the cloth)."""
        timer: Timer = timed or (lambda _stage: nullcontext())
        kept: list[str] = []
        changed: list[tuple[str, Thumbnail]] = []
        unconfirmed: list[tuple[str, Thumbnail]] = []  # unchanged, but one read only
        with timer("warp"):
            for name in ZONE_NAMES:
                if name in skip:
                    continue
                memo = self._memo[name]
                thumb = self._thumb(image_bgr, calibration, name)
                if memo.thumb is not None and not self._differs(thumb, memo.thumb):
                    if memo.confirmed:
                        kept.append(name)
                    else:
                        unconfirmed.append((name, thumb))
                elif memo.empty_thumb is not None and not self._differs(thumb, memo.empty_thumb):
                    memo.thumb, memo.cards, memo.confirmed = thumb, [], True
                    memo.outside, memo.unnamed = [], False
                    memo.confirmed_cards = []
                    self._tracks[name].clear()
                    kept.append(name)
                else:
                    changed.append((name, thumb))
                    memo.confirmed = False
        # News first (a play being confirmed: the sweep may come within 2 s), then changed
        # zones, then unconfirmed ones; each the least recently read first. Without it, light
        # changing over zones whose plays stood long ago (a glare fading) took the budget from
        # a play that had just landed, and the play was swept unaccepted (hand 4003 trick 1).
        waiting = [(name, thumb, False) for name, thumb in changed]
        waiting += [(name, thumb, True) for name, thumb in unconfirmed]
        waiting.sort(key=lambda w: (not self._memo[w[0]].news, w[2], self._memo[w[0]].read_t))
        queue = [(name, thumb) for name, thumb, _ in waiting]
        now, later = queue[: self.max_reads], queue[self.max_reads :]
        for name, thumb in now:
            memo = self._memo[name]
            before = _identities(memo.cards)
            memo.cards, unexplained, memo.outside = self._read_zone(
                image_bgr, calibration, name, timer, thumb
            )
            agreed = (
                memo.thumb is not None  # a first read has nothing to agree with
                and before == _identities(memo.cards)
                and not self._differs(thumb, memo.thumb)
            )
            # Empty with nothing card-sized on it against a known empty look (the trick swept
            # under a new light): no second read, the next lead may come within 0.6 s.
            clean_empty = not memo.cards and not unexplained and memo.empty_thumb is not None
            memo.unnamed = not memo.cards and bool(unexplained)
            # A weak track too young to judge: the zone is read again until it is (a joker
            # whose mark is read weakly, its play accepted without it after two reads).
            memo.confirmed = (agreed or clean_empty) and not self._tracks[name].unsettled
            if memo.confirmed:
                memo.confirmed_cards = _identities(memo.cards)
            memo.thumb, memo.read_t = thumb, t
            quiet = still is None or name in still
            if memo.confirmed and not memo.cards and not unexplained and quiet:
                # Never "empty" with a card-sized blob on it: that read missed a card.
                memo.empty_thumb = thumb
        unread = [name for name in ZONE_NAMES if name in skip] + [name for name, _ in later]
        return ZoneReads(
            cards={name: list(self._memo[name].cards) for name in ZONE_NAMES},
            read=tuple(name for name, _ in now),
            kept=tuple(kept),
            unread=tuple(unread),
            outside=self._outside(),
            glimpsed=tuple(n for n in ZONE_NAMES if self._memo[n].unnamed and n not in unread),
        )

    def _outside(self) -> tuple[tuple[CardSighting, Point], ...]:
        """The cards in no zone that the standing reads saw, each once (the rectangles
        overlap: two zones' reads may see one card)."""
        out: list[tuple[CardSighting, Point]] = []
        for name in ZONE_NAMES:
            for card, where in self._memo[name].outside:
                if not any(
                    c.identity == card.identity and math.dist(w, where) <= SAME_PLACE_CM
                    for c, w in out
                ):
                    out.append((card, where))
        return tuple(out)

    def _differs(self, a: Thumbnail, b: Thumbnail, within: Box | None = None) -> bool:
        """Whether thumbnails ``a`` and ``b`` differ, or differ ``within`` a box of the view
        (view px: a card landing in the neighbour's play, which a zone's rectangle overlaps,
        changes no card here)."""
        if within is None:
            return _changed(a, b, self.change_threshold, self.min_changed_px)
        k = self.thumb_px_per_cm / self.px_per_cm
        rows = slice(max(0, int(within[1] * k)), math.ceil(within[3] * k))
        columns = slice(max(0, int(within[0] * k)), math.ceil(within[2] * k))
        return _changed(a, b, self.change_threshold, self.min_changed_px, (rows, columns))

    def _thumb(self, image_bgr: np.ndarray, calibration: Calibration, name: str) -> Thumbnail:
        # Warped at twice the scale and area-halved: a warp samples, it does not average, and
        # single camera pixels would let noise and wood grain through.
        to_thumb, (w, h) = top_down_view(calibration, 2 * self.thumb_px_per_cm, self.rects[name])
        # (No warp_view here: the halving already averages enough for a change test, and a
        # thumbnail is taken of every zone on every decision frame.)
        fine = cv2.warpPerspective(image_bgr, to_thumb, (w, h), flags=cv2.INTER_LINEAR)
        grey = cv2.cvtColor(fine, cv2.COLOR_BGR2GRAY) if fine.ndim == 3 else fine
        halved = cv2.resize(grey, (max(1, w // 2), max(1, h // 2)), interpolation=cv2.INTER_AREA)
        return Thumbnail.of(halved)

    def _read_zone(
        self,
        image_bgr: np.ndarray,
        calibration: Calibration,
        name: str,
        timer: Timer,
        thumb: Thumbnail,
    ) -> tuple[list[CardSighting], list[Box], list[tuple[CardSighting, Point]]]:
        """The zone's cards, the card-sized blobs on it that none of them explains, and the
        cards of its view that lie in no zone (with their centres in table cm)."""
        fans_to = right_of(name) if name in SEATS else None  # the centre's cards fan no way
        with timer("warp"):
            to_view, size = top_down_view(calibration, self.px_per_cm, self.rects[name])
            view = warp_view(image_bgr, to_view, size)
        with timer("detect"):
            source = ReadingSource(image_bgr, np.linalg.inv(to_view))
            reads_source = getattr(self.detector, "reads_source", False)
            unread: list[Box] = []  # indices localised but not read surely
            weak: list[Detection] = []  # … those of them read as a card all the same
            detections = self.detector.detect(
                view,
                tiles=1,
                source=source if reads_source else None,
                native=True,
                unread=unread,
                weak=weak,
            )
        with timer("zones"):
            weakly_read = {w.box for w in weak}
            read_as_nothing = [box for box in unread if box not in weakly_read]
            tracks = self._tracks[name]
            detections, pooled = tracks.pool(
                view, detections, weak, read_as_nothing, in_play=partial(self._in_play, name)
            )
            read_as_cards = {d.box for d in detections}
            # Indices read weakly that are no card yet, each as its track reads it.
            unsure = [
                reading
                for w in weak
                if w.box not in read_as_cards and (reading := tracks.reading(w.box))
            ]
            # every card found in the view, whichever zone; only this zone's are its cards
            grouped = group_cards(
                detections, pooled=pooled, px_per_cm=self.px_per_cm, unsure_corners=unsure
            )
            seen = one_joker_each(grouped, self.px_per_cm, fans_to)
            cards = [card for card in seen if self._holds(name, *card.centre)]
            placed = [(card, self._on_table(name, card.centre)) for card in seen]
            outside = [(card, where) for card, where in placed if self.zones.seat_of(where) is None]
        empty = self._memo[name].empty_thumb
        if empty is None:
            return cards, [], outside
        paper = self._paper(thumb.grey, empty.grey)
        in_doubt = [card for card in cards if picture_in_doubt(card)]
        explained = [c.centre for c in seen if not any(c is d for d in in_doubt)]
        card_sized = self._card_sized(paper)
        blobs = self._unexplained(card_sized, explained, name)
        unexplained = [blob.box for blob in blobs]
        unnamed_blobs = blobs
        with timer("detect"):
            cards += [
                joker
                for joker in self._other_jokers(card_sized, view, source, cards)
                if self._holds(name, *joker.centre)
            ]
        if blobs and self.whole_card_reader is not None:
            looks = [(blob.box, *blob.corner_marks) for blob in blobs]
            with timer("detect"):
                reads = iter(
                    self.whole_card_reader.read(
                        view, [box for boxes in looks for box in boxes], source=source
                    )
                )
            read_whole = [
                (blob, self._lone_jokers(blob, list(itertools.islice(reads, len(boxes))), unread))
                for blob, boxes in zip(blobs, looks, strict=True)
            ]
            whole = [joker for _, jokers in read_whole for joker in jokers]
            unnamed_blobs = [blob for blob, jokers in read_whole if not jokers]
            # A joker the localiser boxed only in part, its part off the paper's blob (a
            # line-art joker's edge is no brighter than the cloth), is that same joker.
            cards = one_joker_each([*cards, *whole], self.px_per_cm, fans_to)
        cards += self._lying_still(name, thumb, unnamed_blobs)
        parts = self._joker_parts(paper, cards, in_doubt)
        if parts:
            cards = [card for card in cards if not any(card is p for p in parts)]
            unread = [u for u in unread if not any(_same_box(u, p.boxes) for p in parts)]
        if name in SEATS and cards:
            with timer("zones"):
                fan_right = right_of(name)
                read_strips = self._strip_reader(view, source)
                cards, strips = read_fan(
                    paper,
                    view,
                    cards,
                    unread,
                    fan_right,
                    self.px_per_cm,
                    read_strips,
                    unsure,
                    self.card_w_cm,
                )
                self._card_widths.extend(strips.widths)
                if strips.unnamed:
                    # A card lies under this play that no read names: the play may be short.
                    cards = [doubted(card) for card in cards]
                cards += [*strips.jokers, *strips.indices]
        return cards, unexplained, outside

    def _lying_still(
        self, name: str, thumb: Thumbnail, blobs: Sequence[LoneBlob]
    ) -> list[CardSighting]:
        """The cards the zone's last read found on ``blobs`` (lone cards this read names
        nothing on) when nothing on the zone has moved since: a card lying still whose index
        this read missed is still that card (see the module docstring)."""
        memo = self._memo[name]
        if memo.thumb is None:
            return []
        before = memo.thumb
        still = [blob for blob in blobs if not self._differs(thumb, before, blob.box)]
        return [
            card
            for card in memo.cards
            if card.confidence >= UNSURE_READ  # a read in doubt is not carried on
            and any(_inside_point(card.centre, blob.box) for blob in still)
        ]

    def _strip_reader(self, view: np.ndarray, source: ReadingSource) -> StripReader | None:
        """The classifier reading boxes of ``view`` from the camera frame (``source``)."""
        whole = self.whole_card_reader
        if whole is None:
            return None
        return lambda boxes: whole.read(view, boxes, source=source)

    def _joker_parts(
        self, paper: np.ndarray, cards: Sequence[CardSighting], in_doubt: Sequence[CardSighting]
    ) -> list[CardSighting]:
        """The cards of ``in_doubt`` (court cards read in doubt) that lie on the same paper as
        a joker read surely: parts of a joker's picture — the strip a fan shows of a second
        joker, its hat read JD — which :func:`vision.fan_strips.hidden_jokers` then judges."""
        jokers = [c for c in cards if c.identity in JOKERS and c.confidence >= JOKER_READ_CONF]
        if not jokers or not in_doubt:
            return []
        _, labels = cv2.connectedComponents(paper)
        k = self.thumb_px_per_cm / self.px_per_cm  # view px → thumbnail px

        def blob_at(point: tuple[float, float]) -> int:
            x = min(max(int(point[0] * k), 0), labels.shape[1] - 1)
            y = min(max(int(point[1] * k), 0), labels.shape[0] - 1)
            return int(labels[y, x])

        joker_blobs = {blob_at(j.centre) for j in jokers} - {0}
        return [
            card
            for card in in_doubt
            if blob_at(card.centre) in joker_blobs
            or any(_inside_point(card.centre, j.boxes[0]) for j in jokers if j.boxes)
        ]

    def _lone_jokers(
        self, blob: LoneBlob, reads: list[Read], unread: Sequence[Box]
    ) -> list[CardSighting]:
        """The joker a lone blob is (:meth:`_lone_joker`), or the two jokers it is when it is
        a fan of two (see the module docstring)."""
        joker = self._lone_joker(blob, reads, unread)
        if joker is None:
            return []
        short, long = blob.sides_cm
        _, *marks = reads
        # A fan step wider than one card, less than two cards wide, one card long.
        width = self.card_w_cm
        fanned = width + FAN_STEP_CM <= short < 2 * width and long < CARD_H_CM + FAN_STEP_CM
        if not fanned or len(marks) != 4:
            return [joker]
        left, right = _joker_named(marks[:2]), _joker_named(marks[2:])
        if left is None or right is None:
            return [joker]
        return [
            CardSighting(named, list(boxes), STRIP_CONFIDENCE, runner_up=other_joker(named))
            for named, boxes in ((left, blob.corner_marks[:2]), (right, blob.corner_marks[2:]))
        ]

    def _lone_joker(
        self, blob: LoneBlob, reads: list[Read], unread: Sequence[Box]
    ) -> CardSighting | None:
        """The joker a lone blob is, from its ``reads`` (whole, then its corner marks), if any
        (see the module docstring)."""
        (identity, prob, *_), *marks = reads
        no_index = not self._index_on(blob.box, unread)
        if identity in JOKERS and (
            prob >= JOKER_READ_CONF or (prob >= LONE_JOKER_CONF and no_index)
        ):
            return CardSighting(identity, [blob.box], prob)
        jokers = [joker for joker, p, *_ in marks if joker in JOKERS and p >= STRIP_JOKER_CONF]
        # With an index the localiser was sure of on it (read unsurely: an index card's, or a
        # joker's own mark), only two of its corners read as one joker make it that joker.
        mark = next((j for j in JOKERS if jokers.count(j) >= (1 if no_index else 2)), None)
        if mark:
            # Read by its corner marks, not whole: a card, but which joker is less sure.
            return CardSighting(mark, [blob.box], STRIP_CONFIDENCE, runner_up=other_joker(mark))
        seen = joker_in_every_read(reads) if no_index else None
        if seen and seen[1] >= LONE_RUNNER_UP_JOKER:
            # Every read sees that joker, if only second: the joker, in doubt.
            joker, share = seen
            return CardSighting(joker, [blob.box], share, runner_up=other_joker(joker))
        return None

    def _index_on(self, blob: Box, unread: Sequence[Box]) -> bool:
        """Whether an index-sized box the localiser was sure of lies on ``blob`` (a bigger box
        is a part of a picture, not an index)."""
        most = INDEX_MAX_CM * self.px_per_cm
        return any(_inside(u, blob) and index_size(u) <= most for u in unread)

    def _paper(self, thumb: np.ndarray, empty: np.ndarray) -> np.ndarray:
        """Thumbnail pixels brighter than the zone's empty look: a card's paper, not its
        shadow or a hand's."""
        _, paper = cv2.threshold(cv2.subtract(thumb, empty), self.change_threshold, 255, 0)
        return paper

    def _unexplained(
        self, card_sized: Sequence[LoneBlob], centres: Sequence[tuple[float, float]], name: str
    ) -> list[LoneBlob]:
        """The ``card_sized`` blobs (:meth:`_card_sized`) on the zone that hold none of the
        ``centres`` of the cards read (view pixels)."""
        return [
            blob
            for blob in card_sized
            if not any(_inside_point(centre, blob.box) for centre in centres)
            and self._holds(name, *box_centre(blob.box))
        ]

    def _card_sized(self, paper: np.ndarray) -> list[LoneBlob]:
        """The blobs of ``paper`` the size of one card, with where its corner marks would be
        (view pixels)."""
        n, labels, stats, _ = cv2.connectedComponentsWithStats(paper)
        k = self.px_per_cm / self.thumb_px_per_cm  # thumbnail px → view px
        cm2 = self.thumb_px_per_cm**2
        blobs: list[LoneBlob] = []
        for label, (x, y, w, h, area) in enumerate(stats[1:n], start=1):
            # One card: its box from half a card (partly hidden) to a card turned 45°, and
            # enough of it paper (a picture joker's figure may be no brighter than the cloth).
            if not 0.5 <= w * h / cm2 / CARD_AREA_CM2 <= 2.2 or area < 0.25 * w * h:
                continue
            box = (x * k, y * k, (x + w) * k, (y + h) * k)
            mask = labels == label
            marks = card_corner_marks(mask, self.thumb_px_per_cm)
            scaled = tuple((x0 * k, y0 * k, x1 * k, y1 * k) for x0, y0, x1, y1 in marks)
            blobs.append(LoneBlob(box, scaled, blob_sides(mask, self.thumb_px_per_cm)))
        return blobs

    def _other_jokers(
        self,
        card_sized: Sequence[LoneBlob],
        view: np.ndarray,
        source: ReadingSource,
        cards: Sequence[CardSighting],
    ) -> list[CardSighting]:
        """The other joker lying on the paper of a joker read (one of the ``card_sized``
        blobs), under or over it, that only its corner marks name (see the module docstring)."""
        if self.whole_card_reader is None or not any(c.identity in JOKERS for c in cards):
            return []
        found: list[CardSighting] = []
        for blob in card_sized:
            on_blob = [c for c in cards if _inside_point(c.centre, blob.box)]
            if not any(c.identity in JOKERS for c in on_blob) or not blob.corner_marks:
                continue
            reads = self.whole_card_reader.read(view, blob.corner_marks, source=source)
            free = [  # the marks off every card read there: another card's corners
                (box, read.identity)
                for box, read in zip(blob.corner_marks, reads, strict=True)
                if read.identity in JOKERS
                and read.probability >= STRIP_JOKER_CONF
                and not any(iou(box, b) > 0 for c in on_blob for b in c.boxes)
            ]
            read_there = {c.identity for c in on_blob}
            for joker in JOKERS:
                boxes = [box for box, read in free if read == joker]
                if len(boxes) >= OTHER_JOKER_MARKS and joker not in read_there:
                    found.append(
                        CardSighting(joker, boxes, STRIP_CONFIDENCE, runner_up=other_joker(joker))
                    )
        return found

    def _in_play(self, name: str, box: Box) -> bool:
        """Whether the centre of ``box`` (zone ``name``'s view px) lies in any seat's play area."""
        return self.zones.seat_of(self._on_table(name, box_centre(box))) is not None

    def _holds(self, name: str, x: float, y: float) -> bool:
        """Whether the point (x, y) of zone ``name``'s view lies in that zone's play area (the
        rectangles overlap at the corners: only the zone it lies in keeps a card)."""
        return self.zones.seat_of(self._on_table(name, (x, y))) == name

    def _on_table(self, name: str, point: tuple[float, float]) -> Point:
        """Table cm of a point of zone ``name``'s view (px)."""
        x0, y0 = self.rects[name][:2]
        return (x0 + point[0] / self.px_per_cm, y0 + point[1] / self.px_per_cm)
