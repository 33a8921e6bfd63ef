"""Corner boxes → physical cards: which detected corner indices belong to the same card.

The detector boxes a card's corner index (rank + suit), and both opposite corners of one card
may be visible; with two decks there are two physical copies of every identity. This module
owns the geometry that decides, per identity, which boxes are one card: two boxes are the two
corners of one card when their centre distance fits the card diagonal implied by the index size
(an index is about 0.12–0.2 of the card height and a card about 0.7 as wide as high, which puts
opposite index centres about 3–9 index heights apart) and their direction does: an index box
clearly higher than wide (or wider) lies along its card's long side, and opposite corners are
joined across the card, about 35° off that side — never along it, as the column of indices a
tight fan of cards shows. Near-duplicate boxes (the same corner seen twice) are folded into
one, and so are two boxes of one corner read as two identities (the surer read stands) — but
with the scale known, two boxes of one shape overlapping little whose centres lie a fan's
step apart (``FAN_STEP_CM``) are two cards' corners however wide they are (a fanned pair of
big jokers: two 2 cm wide "JOKER" columns 1.4 cm apart had been folded into one), and nearer
than a fan's step two boxes that touch are one corner boxed again. At most
two copies of an identity exist; a reading with more is merged down to two and flagged
``ambiguous``. When the image's scale is known (the pipeline's zone views, 12 px a cm) the
distance is judged in cm instead (``CORNER_CM``): index sizes differ between decks by half — the
held-out deck's 2 cm index put a fan's neighbour 11.5 cm away, farther than a card's diagonal,
at the "best" 5.5 index sizes — while a card's size hardly differs. A four-index deck's card
seen whole pairs up along both diagonals, which share a centre: the two pairs are one card. A
pair that is another moved one way is no other diagonal of it, though: the top card of a
fanned QC QC, its top index beside its big club pip (boxed index-sized, read QC unsurely), and
the under QC's bottom index 1.7 cm right of the top card's made a pair of the pip and that
index, centred 1.4 cm from the top card's, and the two copies were read as one four-index card
(validation hand 9063, atlasnye's own pair). A card's other diagonal, and the pips a court
card prints beside both its indices, lie off its two ends the opposite ways (``SHIFTED_COS``).

The two corners of one card can also be *read* differently (2♠ at one corner, 2♣ at the
other). Left alone that is two cards, and a one-card play becomes a two-card one (a false
card-count infraction). So, once every identity is grouped, two lone corners whose reads differ
in the rank or in the suit only and that lie as one card's opposite corners are one card: it
takes the surer read and keeps the other in ``also_read``. Corners already paired with a
corner of their own identity are never taken apart (a fanned pair's top card shows both of its
corners; the card under it, one). Two ranks each read at ``SURE_APART`` or more stay two cards:
a fan's under card shows its top corner one card's diagonal from the top card's bottom one
(a KD over a 5D, read KD 0.99 and 5D 1.00, was taken for one 5D). So do the two jokers each
read that surely: a validation deck's SJ fanned over its BJ, the BJ's "JOKER" column read 0.96
one card's diagonal from the SJ's far column read 0.97, was taken for one SJ (validation hand
9090, the deck's own pair); a joker's colour read less surely may still be misread.

A corner the localiser was sure of but the classifier read unsurely (``unsure_corners``: its
reads under the bar, with a runner-up) may be the other corner of a card read at one corner
when it names that card first or second: it is paired like a corner of that identity, best
fitting distance first, but is never a card of its own. In a fan the top card's other corner
lies nearer a card's diagonal from its read corner than the card under it does (its index lies
a fan step farther off), so an unsure top-card corner keeps the two copies apart: a fanned pair
of 4S whose top card's near corner was read KS or 4S at 0.2–0.3 had its far corner and the
under card's index, 9.2 cm apart, joined as one card's two corners (validation hands 9028,
9036).

Inside a card seen whole (both corners found) nothing but that card's own face shows: a lone
box whose centre lies on it (near the line between its two corners, the nearer the closer to a
corner: the card is a rectangle with that line for its diagonal) is a misread of its pips or
picture (an ace of spades' big central spade reads like a black joker, or a 7) and
is dropped. A joker box half or more inside one of its own identity at least twice its size is
a part of it (a picture joker boxed whole and by halves): the two become their union. Never
for indices: a box spanning a fanned pair's two strips would swallow both copies.

A court card's picture begins right beside its index, and the localiser may box it there and
the classifier read it as the card (a validation deck's QH, its queen's head boxed 3 px off the
top index, 1.6 cm across to its 0.75, read QH at 0.50; a JS's and a KC's the same, read 0.98
and 0.86 beside an index read 1.00: two cards each; validation hands 9078, 9063, 9071). So a
box of a card's identity that touches an index of it read at least as surely (a gap of at most
``PICTURE_GAP`` of the index's short side) and is bigger than it — ``PICTURE_ACROSS`` times
as wide across the index and ``PICTURE_AREA`` times its area — is that card's picture, not a
corner. A fanned copy's index is the index's size and lies a fan's step off, clear of it: a
partly covered one is narrower, not wider. Never jokers: their picture is their face.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from vision.classes import CLASS_ID, JOKERS

Box = tuple[float, float, float, float]

MIN_RATIO = 3.0  # opposite-corner centre distance / index size: smallest plausible
MAX_RATIO = 9.0  # … largest plausible
BEST_RATIO = 5.5  # … most typical (ranks the candidate pairs)
MAX_SIZE_RATIO = 2.0  # the two corners of one card have similar index sizes
# The scale known (a top-down zone view): opposite index centres of one 6.3 × 8.8 cm card lie
# 6.8–9.4 cm apart for index centres 0.3–1.0 cm in from the side and 0.7–1.8 cm from the end
# (a narrower 5.7 cm card: from 6.4), 8.3 cm on the held-out deck.
CORNER_CM = (6.0, 10.0)
CORNER_BEST_CM = 8.1
DUPLICATE_IOU = 0.3  # boxes overlapping this much are the same corner seen twice
DUPLICATE_SIDES = 0.75  # … and so are boxes whose centres are this close, in short sides
PART_INSIDE = 0.5  # a box this much inside one of twice its area or more is a part of it
FACE_SLOPE = 0.85  # a whole card's face: off its corner-to-corner line ≤ this × the nearer end
FACE_SPAN = (0.2, 0.8)  # … along the middle of that line only
MAX_COPIES = 2  # two decks
ELONGATED = 1.4  # an index box this much higher than wide (or wider) shows its card's sides
DIAGONAL_DEG = (10.0, 60.0)  # opposite corners' line to the card's long side (about 35°)
SAME_CENTRE = 1.0  # two corner pairs whose midpoints are this close, in index sizes, are one card
SAME_DIAGONAL = 1.25  # … when the longer of their two diagonals is at most this × the shorter
SHIFTED_COS = 0.5  # … unless one is the other moved one way: its ends' offsets within 60°
SURE_APART = 0.95  # two corners read as two ranks this surely are two cards
FAN_STEP_CM = 1.0  # same-identity boxes' centres this far apart (and overlapping little): two cards
SAME_SHAPE = 1.25  # … when each side of one box is within this factor of the other's
PICTURE_GAP = 0.5  # a box this near an index (× its short side) and of its identity …
PICTURE_ACROSS = 1.5  # … this many times as wide across the index …
PICTURE_AREA = 1.3  # … and of this many times its area is the card's picture (module doc)


class BoxLike(Protocol):
    """What grouping needs of a detection (``vision.detector.Detection`` fits)."""

    @property
    def identity(self) -> str: ...

    @property
    def box(self) -> Box: ...

    @property
    def confidence(self) -> float: ...


class UnsureCorner(BoxLike, Protocol):
    """A corner the localiser was sure of, read unsurely: its read and runner-up."""

    @property
    def runner_up(self) -> str: ...


@dataclass(frozen=True)
class CardSighting:
    """One physical card: its identity, the corner boxes seen of it, and a confidence (the best
    of its boxes). ``ambiguous`` marks identities whose boxes suggested more than two copies.
    """

    identity: str
    boxes: list[Box] = field(default_factory=list)
    confidence: float = 0.0
    ambiguous: bool = False
    also_read: str = ""
    """The other corner's read when the two corners of this card were read differently."""
    runner_up: str = ""
    """The next likeliest identity for this card (``also_read`` when there is one, else its
    corners' runner-up reads): what to look for when the read is in doubt. Empty: none."""

    @property
    def centre(self) -> tuple[float, float]:
        """Where the card lies: the mean of its corner boxes' centres, in image pixels."""
        xs = [(b[0] + b[2]) / 2 for b in self.boxes]
        ys = [(b[1] + b[3]) / 2 for b in self.boxes]
        return sum(xs) / len(xs), sum(ys) / len(ys)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "identity": self.identity,
            "confidence": round(self.confidence, 4),
            "boxes": [[round(v, 1) for v in b] for b in self.boxes],
        }
        if self.ambiguous:
            out["ambiguous"] = True
        if self.also_read:
            out["also_read"] = self.also_read
        if self.runner_up:
            out["runner_up"] = self.runner_up
        return out


def box_centre(b: Box) -> tuple[float, float]:
    """The centre of box ``b``."""
    return (b[0] + b[2]) / 2, (b[1] + b[3]) / 2


def index_size(b: Box) -> float:
    """The size of an index box: its longer side (the rank-over-suit height when upright; a
    card turned 90° makes the box wider than high)."""
    return max(b[2] - b[0], b[3] - b[1], 1e-6)


def iou(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    if w <= 0 or h <= 0:
        return 0.0
    inter = w * h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def _area(b: Box) -> float:
    return max(0.0, b[2] - b[0]) * max(0.0, b[3] - b[1])


def is_part(a: Box, b: Box) -> bool:
    """Whether the smaller of two boxes lies mostly inside the other, of twice its area or
    more (a picture joker boxed whole and by a half)."""
    small, big = sorted((a, b), key=_area)
    w = min(small[2], big[2]) - max(small[0], big[0])
    h = min(small[3], big[3]) - max(small[1], big[1])
    if w <= 0 or h <= 0 or _area(big) < 2 * _area(small):
        return False
    return w * h >= PART_INSIDE * _area(small)


def _join_parts(boxes: list[tuple[Box, float]]) -> list[tuple[Box, float]]:
    """Boxes that are parts of one another become one box, their union, until none are."""
    out = list(boxes)
    joined = True
    while joined:
        joined = False
        for i, j in itertools.combinations(range(len(out)), 2):
            (a, ca), (b, cb) = out[i], out[j]
            if is_part(a, b):
                union = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                out[i] = (union, max(ca, cb))
                del out[j]
                joined = True
                break
    return out


def is_duplicate(a: Box, b: Box, duplicate_iou: float = DUPLICATE_IOU) -> bool:
    """Whether two boxes are one corner seen twice (overlapping, or centres very close: within
    half the boxes' shorter side — a fan's next index lies about one short side away)."""
    (ax, ay), (bx, by) = box_centre(a), box_centre(b)
    close = math.hypot(ax - bx, ay - by) < 0.5 * min(_short_side(a), _short_side(b))
    return close or iou(a, b) >= duplicate_iou


def _read_twice(a: Box, b: Box, px_per_cm: float | None = None) -> bool:
    """Whether two boxes *read as one identity* are one corner seen twice: duplicates, or
    centres within ``DUPLICATE_SIDES`` of the wider box's short side (a box that straddles an
    index and its neighbour's edge is narrower than the index it repeats). Boxes read as two
    identities need the stricter :func:`is_duplicate`: a fan's next index may lie that close.
    With the scale known (``px_per_cm``), two boxes of one shape (:func:`_alike`) overlapping
    less than ``DUPLICATE_IOU`` whose centres lie ``FAN_STEP_CM`` or more apart are two cards'
    corners: a wide index (a big joker's "JOKER" column, 2 cm) is wider than a fan's step. A
    box of another shape is a poor box of the same index (a sideways KC boxed 1.1 cm off
    whole, 1.5 × as high: one KC). Nearer than a fan's step, two boxes that touch are one
    corner: a fanned copy's index lies a step off and clear of the top card's, whose edge
    (and the paper in front of its index) lies between them; an orell 5C's corner boxed
    three times 0.37 cm apart was two 5C once its middle box was folded (validation hand 9038).
    """
    (ax, ay), (bx, by) = box_centre(a), box_centre(b)
    distance = math.hypot(ax - bx, ay - by)
    if px_per_cm is not None and distance >= FAN_STEP_CM * px_per_cm and _alike(a, b):
        return iou(a, b) >= DUPLICATE_IOU
    if px_per_cm is not None and distance < FAN_STEP_CM * px_per_cm and iou(a, b) > 0:
        return True  # the two boxes touch
    close = distance < DUPLICATE_SIDES * max(_short_side(a), _short_side(b))
    return close or is_duplicate(a, b)


def _alike(a: Box, b: Box) -> bool:
    """Whether two boxes have the same shape: each side within ``SAME_SHAPE`` of the other's."""
    sides = ((a[2] - a[0], b[2] - b[0]), (a[3] - a[1], b[3] - b[1]))
    return all(max(p, q) <= SAME_SHAPE * max(min(p, q), 1e-6) for p, q in sides)


def _short_side(b: Box) -> float:
    return max(min(b[2] - b[0], b[3] - b[1]), 1e-6)


def corner_fit(
    a: Box,
    b: Box,
    min_ratio: float = MIN_RATIO,
    max_ratio: float = MAX_RATIO,
    best_ratio: float = BEST_RATIO,
    max_size_ratio: float = MAX_SIZE_RATIO,
    px_per_cm: float | None = None,
) -> float | None:
    """How well two boxes fit as opposite corners of one card: ``None`` when implausible, else a
    cost ≥ 0 (0 = centre distance exactly ``best_ratio`` index sizes). With the image's scale
    (``px_per_cm``) the distance is judged in cm (``CORNER_CM``, best ``CORNER_BEST_CM``):
    index sizes differ between decks by half, a card's size hardly at all."""
    sa, sb = index_size(a), index_size(b)
    if max(sa, sb) / min(sa, sb) > max_size_ratio:
        return None
    (ax, ay), (bx, by) = box_centre(a), box_centre(b)
    distance = math.hypot(ax - bx, ay - by)
    if px_per_cm is None:
        ratio, low, high, best = distance / ((sa + sb) / 2), min_ratio, max_ratio, best_ratio
    else:
        ratio, (low, high), best = distance / px_per_cm, CORNER_CM, CORNER_BEST_CM
    if not low <= ratio <= high or not _along_a_diagonal(a, b):
        return None
    return abs(math.log(ratio / best))


def _long_axis(b: Box) -> int | None:
    """0 when an index box is clearly wider than high, 1 when higher than wide, else None."""
    w, h = b[2] - b[0], b[3] - b[1]
    if w >= ELONGATED * h:
        return 0
    if h >= ELONGATED * w:
        return 1
    return None


def _along_a_diagonal(a: Box, b: Box) -> bool:
    """Whether two boxes can be a card's opposite corners by direction: an elongated index lies
    along its card's long side, and the line between opposite corners runs across the card at
    about 35° to that side, never along a side (a column of fanned indices). One elongated box
    tells the sides when the other is too square to (a poor box beside a sideways fan's column,
    read as a card of it, had been taken for that card's far corner: validation hand 9051)."""
    axes = {_long_axis(a), _long_axis(b)} - {None}
    if len(axes) != 1:
        return True  # turned too far to tell the card's sides, or the two disagree
    (axis,) = axes
    (ax, ay), (bx, by) = box_centre(a), box_centre(b)
    along, across = (abs(bx - ax), abs(by - ay)) if axis == 0 else (abs(by - ay), abs(bx - ax))
    low, high = DIAGONAL_DEG
    return low <= math.degrees(math.atan2(across, along)) <= high


@dataclass
class _Card:
    members: list[tuple[Box, float]]

    @property
    def confidence(self) -> float:
        return max(c for _, c in self.members)


def _gap(a: _Card, b: _Card) -> float:
    """Distance between the closest boxes of two cards, in index sizes."""
    best = math.inf
    for ba, _ in a.members:
        for bb, _ in b.members:
            (ax, ay), (bx, by) = box_centre(ba), box_centre(bb)
            size = (index_size(ba) + index_size(bb)) / 2
            best = min(best, math.hypot(ax - bx, ay - by) / size)
    return best


def _without_duplicates(
    boxes: list[tuple[Box, float]], px_per_cm: float | None = None
) -> list[tuple[Box, float]]:
    """Near-duplicates folded (the same corner seen twice): while any two boxes are duplicates,
    the box that duplicates the most others goes (a box the localiser put between two fanned
    copies duplicates both), the less sure one first."""
    kept = list(boxes)
    while True:
        links = [
            sum(_read_twice(box, other, px_per_cm) for j, (other, _) in enumerate(kept) if j != i)
            for i, (box, _) in enumerate(kept)
        ]
        if not any(links):
            return kept
        worst = max(range(len(kept)), key=lambda i: (links[i], -kept[i][1]))
        del kept[worst]


def _midpoint_and_length(card: _Card) -> tuple[float, float, float]:
    (ax, ay), (bx, by) = (box_centre(b) for b, _ in card.members[:2])
    return (ax + bx) / 2, (ay + by) / 2, math.hypot(bx - ax, by - ay)


def _shifted(a: _Card, b: _Card) -> bool:
    """Whether pair ``b`` is pair ``a`` moved one way: each end of ``b`` lies off the nearer
    end of ``a`` in about the same direction (a fanned copy, or a pip beside one index paired
    with a copy's index beside the other). A card's other diagonal, or its pips beside both
    indices, lie off its two ends the opposite ways."""
    (a1, a2), (b1, b2) = ([box_centre(box) for box, _ in card.members[:2]] for card in (a, b))
    if math.dist(a1, b1) + math.dist(a2, b2) > math.dist(a1, b2) + math.dist(a2, b1):
        b1, b2 = b2, b1
    (ux, uy), (vx, vy) = (b1[0] - a1[0], b1[1] - a1[1]), (b2[0] - a2[0], b2[1] - a2[1])
    lengths = math.hypot(ux, uy) * math.hypot(vx, vy)
    return lengths > 0 and (ux * vx + uy * vy) / lengths >= SHIFTED_COS


def _one_card_of_four_corners(pairs: list[_Card]) -> list[_Card]:
    """A four-index deck prints its index in every corner, and a card seen whole pairs up as
    two cards, one per diagonal, that share a centre and a length: they are one card. Two
    copies never do: one lying on the other hides the lower one's corners; a pair that is the
    other moved one way (:func:`_shifted`) is no other diagonal of it."""
    cards = list(pairs)
    k = 0
    while k < len(cards):
        kx, ky, kl = _midpoint_and_length(cards[k])
        size = sum(index_size(b) for b, _ in cards[k].members) / len(cards[k].members)
        for j in range(k + 1, len(cards)):
            jx, jy, jl = _midpoint_and_length(cards[j])
            same_length = max(kl, jl) <= SAME_DIAGONAL * min(kl, jl)
            same_centre = math.hypot(jx - kx, jy - ky) <= SAME_CENTRE * size
            if same_length and same_centre and not _shifted(cards[k], cards[j]):
                cards[k] = _Card(cards[k].members + cards[j].members)
                del cards[j]
                break
        k += 1
    return cards


def _group_one(
    boxes: list[tuple[Box, float]],
    min_ratio: float,
    max_ratio: float,
    best_ratio: float,
    max_copies: int,
    px_per_cm: float | None,
    partners: Sequence[Box] = (),
) -> tuple[list[_Card], bool]:
    """The cards ``boxes`` of one identity are, and whether there seemed more than can exist;
    ``partners`` (unsure corners naming the identity) pair up like its boxes but never stand
    as a card of their own."""
    kept = _without_duplicates(boxes, px_per_cm)
    # Both kinds of corner in one list: kept[i] for i < len(kept), then the partners.
    corners = [*kept, *((box, 0.0) for box in partners)]
    # Pair up greedily, best-fitting distance first.
    pairs: list[tuple[float, int, int]] = []
    for i in range(len(kept)):
        for j in range(i + 1, len(corners)):
            cost = corner_fit(
                corners[i][0], corners[j][0], min_ratio, max_ratio, best_ratio, px_per_cm=px_per_cm
            )
            if cost is not None:
                pairs.append((cost, i, j))
    pairs.sort()
    used: set[int] = set()
    cards: list[_Card] = []
    for _, i, j in pairs:
        if i not in used and j not in used:
            used.update((i, j))
            cards.append(_Card([corners[i], corners[j]]))
    cards = _one_card_of_four_corners(cards)
    cards.extend(_Card([kept[i]]) for i in range(len(kept)) if i not in used)
    ambiguous = len(cards) > max_copies
    while len(cards) > max_copies:
        # Merge the two closest cards until no more copies are left than can exist.
        _, i, j = min(
            (_gap(cards[i], cards[j]), i, j)
            for i in range(len(cards))
            for j in range(i + 1, len(cards))
        )
        cards[i] = _Card(cards[i].members + cards[j].members)
        del cards[j]
    return cards, ambiguous


def group_cards(
    detections: Iterable[BoxLike],
    *,
    min_ratio: float = MIN_RATIO,
    max_ratio: float = MAX_RATIO,
    best_ratio: float = BEST_RATIO,
    max_copies: int = MAX_COPIES,
    pooled: Mapping[Box, Mapping[str, float]] | None = None,
    px_per_cm: float | None = None,
    unsure_corners: Iterable[UnsureCorner] = (),
) -> list[CardSighting]:
    """Group corner-index detections into physical cards.

    Sorted by class order (``2S`` … ``SJ``; unknown identities last), then left to right.
    ``pooled`` (box → summed confidence per identity over the reads of that index, from
    :mod:`vision.index_tracks`) settles two corners of one card read differently by all their
    reads; without it the surer read of this one stands. ``px_per_cm``, when the image's scale
    is known, judges two corners' distance in cm (:func:`corner_fit`). ``unsure_corners`` may
    each be the other corner of a card it names first or second (see the module docstring).
    """
    unsure = list(unsure_corners)
    by_identity: dict[str, list[tuple[Box, float]]] = {}
    seconds: dict[Box, tuple[float, str]] = {}  # box → (confidence, identity) of its runner-up
    for d in _one_read_per_corner(detections):
        b = d.box
        box = (float(b[0]), float(b[1]), float(b[2]), float(b[3]))
        by_identity.setdefault(d.identity, []).append((box, float(d.confidence)))
        if second := getattr(d, "runner_up", ""):
            seconds[box] = (float(getattr(d, "runner_up_confidence", 0.0)), second)
    sightings: list[CardSighting] = []
    for identity, boxes in by_identity.items():
        # A picture joker may be boxed whole and by parts; another card's picture is no card.
        boxes = _join_parts(boxes) if identity in JOKERS else _without_pictures(boxes)
        partners = [
            u.box
            for u in unsure
            if identity in (u.identity, u.runner_up)
            and not any(_read_twice(u.box, b, px_per_cm) for b, _ in boxes)
        ]
        cards, ambiguous = _group_one(
            boxes, min_ratio, max_ratio, best_ratio, max_copies, px_per_cm, partners
        )
        for card in cards:
            members = sorted(card.members, key=lambda bc: (bc[0][0], bc[0][1]))
            sightings.append(
                CardSighting(identity, [b for b, _ in members], card.confidence, ambiguous)
            )
    sightings = _join_misread_corners(
        sightings, min_ratio, max_ratio, best_ratio, pooled, px_per_cm
    )
    sightings = _drop_faces_of_whole_cards(sightings)
    sightings = [replace(s, runner_up=_runner_up(s, seconds)) for s in sightings]
    sightings.sort(
        key=lambda s: (CLASS_ID.get(s.identity, len(CLASS_ID)), s.identity, s.boxes[0][:2])
    )
    return sightings


def _runner_up(sighting: CardSighting, seconds: Mapping[Box, tuple[float, str]]) -> str:
    """The card's other likely identity: its other corner's read, else its surest runner-up."""
    if sighting.also_read:
        return sighting.also_read
    reads = [seconds[b] for b in sighting.boxes if b in seconds]
    reads = [r for r in reads if r[1] != sighting.identity]
    return max(reads)[1] if reads else ""


def _one_read_per_corner(detections: Iterable[BoxLike]) -> list[BoxLike]:
    """Boxes of one corner seen twice and read as two identities: the surer read stands (the
    localiser boxed an index twice, the classifier read one of the boxes wrong)."""
    kept: list[BoxLike] = []
    for d in sorted(detections, key=lambda d: -d.confidence):
        if not any(k.identity != d.identity and _one_corner(k.box, d.box) for k in kept):
            kept.append(d)
    return kept


def _one_corner(a: Box, b: Box) -> bool:
    """Whether two boxes of an index's size have either's centre inside the other (or overlap
    as duplicates); a card boxed whole may hold another card's index at its edge."""
    if max(index_size(a), index_size(b)) > MAX_SIZE_RATIO * min(index_size(a), index_size(b)):
        return False
    (ax, ay), (bx, by) = box_centre(a), box_centre(b)
    a_in_b = b[0] <= ax <= b[2] and b[1] <= ay <= b[3]
    b_in_a = a[0] <= bx <= a[2] and a[1] <= by <= a[3]
    return a_in_b or b_in_a or is_duplicate(a, b)


def _one_part_apart(a: str, b: str) -> bool:
    """Whether two identities differ in the rank or in the suit only (2S/2C, 10D/6D, BJ/SJ)."""
    if {a, b} == {"BJ", "SJ"}:
        return True
    if a in JOKERS or b in JOKERS or a == b:
        return False
    return a[:-1] == b[:-1] or a[-1] == b[-1]


def _two_sure_ranks(a: CardSighting, b: CardSighting) -> bool:
    """Whether two index reads name two ranks, or the two jokers, each at ``SURE_APART`` or
    more: two cards (module doc)."""
    if min(a.confidence, b.confidence) < SURE_APART:
        return False
    if a.identity in JOKERS or b.identity in JOKERS:
        return {a.identity, b.identity} == set(JOKERS)
    return a.identity[:-1] != b.identity[:-1]


def _join_misread_corners(
    sightings: list[CardSighting],
    min_ratio: float,
    max_ratio: float,
    best_ratio: float,
    pooled: Mapping[Box, Mapping[str, float]] | None = None,
    px_per_cm: float | None = None,
) -> list[CardSighting]:
    """Lone corners read one part apart at one card's corner distance → one card (module doc)."""
    lone = [i for i, s in enumerate(sightings) if len(s.boxes) == 1]
    pairs: list[tuple[float, int, int]] = []
    for n, i in enumerate(lone):
        for j in lone[n + 1 :]:
            a, b = sightings[i], sightings[j]
            if not _one_part_apart(a.identity, b.identity) or _two_sure_ranks(a, b):
                continue
            cost = corner_fit(
                a.boxes[0], b.boxes[0], min_ratio, max_ratio, best_ratio, px_per_cm=px_per_cm
            )
            if cost is not None:
                pairs.append((cost, i, j))
    used: set[int] = set()
    joined: list[CardSighting] = []
    for _, i, j in sorted(pairs):
        if i in used or j in used:
            continue
        used.update((i, j))
        pair = (sightings[i], sightings[j])
        if pooled is not None:
            boxes = [*pair[0].boxes, *pair[1].boxes]
            read = {
                s.identity: sum(pooled.get(b, {}).get(s.identity, 0.0) for b in boxes) for s in pair
            }
            sure, other = sorted(pair, key=lambda s: (-read[s.identity], -s.confidence))
        else:
            sure, other = sorted(pair, key=lambda s: -s.confidence)
        boxes = sorted(sure.boxes + other.boxes, key=lambda b: (b[0], b[1]))
        joined.append(
            CardSighting(sure.identity, boxes, sure.confidence, sure.ambiguous, other.identity)
        )
    return [s for k, s in enumerate(sightings) if k not in used] + joined


def _on_face(point: tuple[float, float], card: CardSighting) -> bool:
    """Whether ``point`` lies on the middle of the line between a whole card's two corners."""
    (ax, ay), (bx, by) = box_centre(card.boxes[0]), box_centre(card.boxes[-1])
    dx, dy = bx - ax, by - ay
    length2 = dx * dx + dy * dy
    if length2 <= 0:
        return False
    t = ((point[0] - ax) * dx + (point[1] - ay) * dy) / length2
    off = abs((point[0] - ax) * dy - (point[1] - ay) * dx) / length2  # × the line's length
    # The card widens from each corner to about ± half the line's length at its middle.
    # Near either corner the neighbour in a fan shows its index: only the middle counts.
    return FACE_SPAN[0] < t < FACE_SPAN[1] and off < FACE_SLOPE * min(t, 1.0 - t)


def _drop_faces_of_whole_cards(sightings: list[CardSighting]) -> list[CardSighting]:
    """Lone boxes on the face of a card seen whole are misreads of that face (module doc)."""
    whole = [s for s in sightings if len(s.boxes) == 2]
    return [
        s
        for s in sightings
        if len(s.boxes) != 1 or not any(_on_face(box_centre(s.boxes[0]), w) for w in whole)
    ]


def _picture_beside(box: Box, index: Box) -> bool:
    """Whether ``box`` is the picture of the card whose index is ``index`` (module doc): right
    beside it, wider across it and bigger."""
    axis = 0 if index[2] - index[0] <= index[3] - index[1] else 1  # across the index
    across = index[2 + axis] - index[axis]
    gap = max(index[0] - box[2], box[0] - index[2], index[1] - box[3], box[1] - index[3], 0.0)
    return (
        gap <= PICTURE_GAP * across
        and box[2 + axis] - box[axis] >= PICTURE_ACROSS * across
        and _area(box) >= PICTURE_AREA * _area(index)
    )


def _without_pictures(boxes: list[tuple[Box, float]]) -> list[tuple[Box, float]]:
    """One identity's boxes less those that are a card's picture beside an index of it read at
    least as surely (module doc)."""
    return [
        (box, conf)
        for box, conf in boxes
        if not any(sure >= conf and _picture_beside(box, other) for other, sure in boxes)
    ]


def summarize(sightings: Sequence[CardSighting]) -> str:
    """``AS ×2, 10H, BJ`` (a ``?`` marks an ambiguous count); ``(none)`` when empty."""
    counts: dict[str, tuple[int, bool]] = {}
    for s in sightings:
        n, amb = counts.get(s.identity, (0, False))
        counts[s.identity] = (n + 1, amb or s.ambiguous)
    parts = [
        f"{name}{' ×' + str(n) if n > 1 else ''}{'?' if amb else ''}"
        for name, (n, amb) in counts.items()
    ]
    return ", ".join(parts) if parts else "(none)"
