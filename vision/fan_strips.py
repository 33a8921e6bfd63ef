"""Cards a fan hides but for a strip: picture jokers, which have no corner index to box.

In a fanned play every card but the top one shows only a strip along its left edge (as its
player sees it), and on an index card that strip holds the corner index the localiser boxes.
A picture joker (many decks print no index on their jokers) shows a strip of picture that no
localiser trained on indices boxes, and the play is read a card short. This module owns finding
such strips, by geometry and the paper's brightness, and asking the classifier what each shows:

* the fan is a blob of card paper on the zone (brighter than the zone's empty look, its edges
  sharpened on the view, holes filled); its rotated bounding box has one side a card's height
  (``FAN_HEIGHT_CM``), the other runs along the fan, toward the player's right (a player lays
  cards out parallel to their edge of the table);
* every card read in the fan explains a stretch along that axis: a card seen by both corners
  its full span; one seen by one index a card's width from that index (rightward from a left
  index — it may lie under everything to its right —, leftward from an index at the fan's
  right end: the top card's other corner); a joker boxed by a part of its picture every place
  the card could lie around that part — but as far right as it can when it is the only card
  read on a fan longer than one card (its picture shows: the top card), and at the fan's right
  end when it was boxed at several parts: one of them left of there is the card under it (an
  unseen 4-colour deck's pair of big jokers fanned 1.6 cm apart, the under card's ringed corner
  mark and the top card's "JOKER" lettering grouped as one joker: validation hand 9048);
* a stretch at either end of the fan that no card explains, wider than ``MIN_STRIP_CM``, is
  cards the read missed, one per fan step (the spacing of the read cards' left edges, else
  ``DEFAULT_STEP_CM``); past such a cut, a guess, a strip is looked at from ``CUT_INSET_CM``
  on (steps vary, and the card on the left's picture reaches to the edge it is cut at).
  Between read cards a gap shows only a card's width past a left
  index: nearer, it is that card's own face as likely as a card missed (a wider fan step) —
  unless the localiser was sure of an index there: a box read weakly in the row of the read
  cards' left indices, a fan step (``BETWEEN_STEP_CM``) from the read index on either side of
  it, is the card its track reads, in doubt (an unseen 4-colour deck's lead of 4C 4C 5C 5C, the
  second 4C boxed surely and read KC 0.46–0.49 or 4C 0.45, was read 4C 5C 5C: validation hand
  9040); a card's own face prints no index a step past its own;
* a missed strip is a joker only when the classifier reads it as one. One holding a box the
  localiser was sure of (an index read unsurely: ``CardDetector.detect(unread=...)``) is an
  index card and is not asked again: it is the card that index's weak reads name, in doubt
  (``weak_reads``: the index's track, :meth:`vision.index_tracks.IndexTracks.reading`), where
  they name one — the strip proves a card lies there, the index says which, unsurely (an unseen
  4-colour deck's fanned pair of 3S, the under card's index read 3S at 0.33–0.47, runner-up
  3D or 9S: a weak read alone is no card where the same card is read surely, which may be its
  other corner, and the pair was read as one 3S, validation hand 9036) —, else it is left
  unread rather than guessed; one mostly colour (``MOSTLY_MARKED``: no
  face's paper — a back, a sleeve) is no card at all, and one mostly grey ink is read but is a
  card only when its reads find a joker (a validation deck's SJ is drawn in grey: its strip
  beside a 6C, 63 % ink, was taken for a back and the play read a card short; a back printed
  in grey is no card); every other strip
  is read by the classifier from the camera frame three times: whole (its box: the classifier
  was trained on the visible faces of fanned cards, a joker's labelled that joker and any other
  card's ``none``, ``chaodipi vision crops --face-crops``), and where its card's corner marks
  would be at either end of its left edge (``CORNER_MARK_CM``: an index-sized box, read as the
  localiser's boxes are — a joker's star, ringed star or "JOKER" letters, which a square crop
  of the whole strip shows at a few pixels). A strip with a read of ``BJ`` or ``SJ`` at
  ``STRIP_JOKER_CONF`` or more is that joker (its surest joker read); a strip every read of
  which names a joker, if only as its runner-up, and none another card, is a joker
  *in doubt* (the joker likelier over its reads, at their mean joker probability: a validation
  deck's BJ under a 2D showed a strip its three reads took for ``none`` at 0.66–0.74, a joker
  second at 0.16–0.24 — the play was read a card short); a strip none of whose reads finds a
  joker but one of whose corner marks, off every card read, reads an index card at
  ``STRIP_CARD_CONF`` or more is that card, in doubt (the localiser, even a deck's own, may
  box a card's index once as it lands and never again as it lies under the next: a KC under a
  pair of AC read KC at 0.93–0.95 at its strip's corner, validation hand 9035 with atlasnye's
  own pair). Nothing here keys on a design's colours or drawing;
* a strip that no read names, lying just left of a joker read, that shows what that joker
  shows along its own left edge — the same picture (normalised correlation of the two bands
  at least ``TWIN_LIKENESS``, sought ``TWIN_SLACK_CM`` either way: the copies lie a little
  apart) in the same colour and ink (``TWIN_MARKED``) — is a second copy of that joker, in
  doubt: the two decks' copies print the same face, and a pair of jokers is a common play
  (a narrow deck's pair of small jokers, its grey jester read on no strip, was read as one SJ
  and seven false infractions were put to the referee: validation hand 9088). The other joker
  of a design that prints its jokers alike but for colour differs in colour;
* a strip of card face that is no joker (blank, or an index the classifier could not read) is
  still a card no read names: :func:`hidden_jokers` counts them (``StripReads.unnamed``),
  and the zone reader then doubts the cards read on that zone, so a short play rests on a card
  in doubt and is asked about, not asserted.

Decks differ in their cards' width (5.3–6.3 cm for a card 8.8 cm high), and a fan's strips
are what its cards' widths leave: the zone reader learns the width from the index cards it sees
lying alone and whole (``StripReads.widths``) and hands it in (``card_w_cm``; a poker card's
6.3 cm until it knows). Taken for 6.3 cm, the top card of validation hand 9088's pair of
jokers, 5.3 cm wide, filled its fan of 6.8 cm but for 0.5 cm, under ``MIN_STRIP_CM``.

A lone card no read explains is a fan of one: :func:`card_corner_marks` gives where its corner
marks lie, all four (which way up it lies is not known), for :mod:`vision.zone_reads` to read.

A strip read this way is the evidence of a card, not of its index: it counts with
``STRIP_CONFIDENCE``, below any localised read. Measured on rendered hands of validation decks
and of the held-out deck: ``docs/detector/candidates.md`` ("Jokers at the table");
``bench/face_reads.py`` counts how the classifier reads strips.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import NamedTuple

import cv2
import numpy as np

from vision.classes import JOKERS
from vision.classifier import Read
from vision.crops import NONE_CLASS
from vision.grouping import Box, CardSighting, UnsureCorner, iou
from vision.zones import CARD_H_CM, CARD_W_CM

FAN_HEIGHT_CM = (7.3, 10.8)  # a fan's side across its axis: one card's height, tilted a little
INDEX_INSET_CM = 0.7  # an index centre from its card's side edge
MIN_STRIP_CM = 0.9  # narrower unexplained stretches are slack in the geometry
WHOLE_CARD_CM = 3.0  # a box this wide both ways is a card boxed whole, not an index …
WHOLE_JOKER_CM = 5.0  # … and a joker's, not a part of its picture (a collar 3.3 cm wide)
DEFAULT_STEP_CM = 1.55
STEP_RANGE_CM = (0.8, 4.0)  # read cards' left edges this far apart are fan neighbours
BETWEEN_STEP_CM = (1.1, 4.0)  # an index between two read ones, this far from each along the fan
INDEX_ROW_CM = 0.6  # index centres this near across the fan lie in one row
EDGE_CM = 0.25  # paper eroded before looking at a strip: a card's edge and shadow are grey
STRIP_INSET_CM = 0.15  # a strip is looked at this far in from its ends …
CUT_INSET_CM = 0.6  # … and from its left end where a gap of several strips was cut
INK_BELOW_WHITE = 20  # grey levels under the paper's white that are ink
MOSTLY_MARKED = 0.5  # more colour or ink than this is no face's paper (a back, a sleeve)
CORNER_MARK_CM = (1.3, 2.4)  # an index's box (about 1.1 × 2.1 cm) with a little slack …
CORNER_MARK_INSET_CM = 1.4  # … its centre this far from the card's end
STRIP_JOKER_CONF = 0.5  # a strip read as a joker this surely is that joker
STRIP_CARD_CONF = 0.9  # a strip's corner mark read as an index card this surely is that card
STRIP_CONFIDENCE = 0.6
TWIN_LIKENESS = 0.8  # a strip this alike to the joker on its right is a second copy of it …
TWIN_SLACK_CM = 0.3  # … sought this far either way (the copies lie a little apart) …
TWIN_MARKED = 0.15  # … its shares of colour and of ink within this of that joker's edge's
CARD_ASPECT = (0.55, 0.8)  # a card's width over its height (decks: about 0.6–0.72)


Fan = tuple[np.ndarray, np.ndarray, np.ndarray, float, float]
"""A fan's centre (cm), unit axes along it (toward the player's right) and across, and its
length and breadth (cm)."""


@dataclass(frozen=True)
class Strip:
    """A stretch of a fan no card read explains: where it is (view px) and how much of its
    paper is marked."""

    polygon: np.ndarray  # 4 × 2, view pixels
    coloured: float  # share of its paper in saturated colour
    inked: float  # share in ink (darker than the paper, no colour)
    corners: tuple[Box, ...] = ()
    """Where the strip's card prints its corner marks, at both ends of its left edge (view px):
    index-sized boxes, read as the localiser's boxes are."""
    twin: str | None = None
    """The joker lying on the strip's right when the strip shows what that joker shows along
    its own left edge: a second copy of it (:func:`_twin`)."""

    @property
    def face(self) -> bool:
        """Whether the strip is a card face's paper (not mostly colour or ink: a back, a sleeve)."""
        return max(self.coloured, self.inked) <= MOSTLY_MARKED

    @property
    def drawn_in_ink(self) -> bool:
        """Whether the strip is mostly ink and little colour: a picture drawn in grey (a
        joker's), or a back printed in grey — a strip read only for a joker's mark."""
        return self.coloured <= MOSTLY_MARKED < self.inked

    @property
    def box(self) -> Box:
        (x0, y0), (x1, y1) = self.polygon.min(axis=0), self.polygon.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)

    def holds_any(self, boxes: Sequence[Box]) -> bool:
        """Whether the centre of one of ``boxes`` lies on the strip (an index is there)."""
        contour = self.polygon.astype(np.float32)
        return any(
            cv2.pointPolygonTest(contour, ((x0 + x1) / 2, (y0 + y1) / 2), False) >= 0
            for x0, y0, x1, y1 in boxes
        )


StripReader = Callable[[Sequence[Box]], list[Read]]
"""Reads boxes of the view: each box's best identity (or ``none``) and its probability, and its
runner-up — the classifier's :meth:`~vision.classifier.CardClassifier.read` on the frame the
view shows."""


class StripReads(NamedTuple):
    """What the strips of the fans on a zone show: jokers, index cards, and how many cards no
    one can name."""

    jokers: list[CardSighting]
    unnamed: int
    """Strips of card face that show no joker (read as none, or an index the classifier could
    not read): a card lies there that no read names, so the fan's play may be short."""
    indices: tuple[CardSighting, ...] = ()
    """The index cards strips show, in doubt: as the weak reads of an index on the strip name
    them, or as a corner mark of the strip reads one surely (``STRIP_CARD_CONF``)."""
    widths: tuple[float, ...] = ()
    """How wide (cm) each index card lying alone and seen whole is: the deck's card width, which
    the zone reader learns (decks differ: 5.3–6.3 cm)."""


def hidden_jokers(
    paper: np.ndarray,
    view_bgr: np.ndarray,
    cards: Sequence[CardSighting],
    unread_indices: Sequence[Box],
    fan_right: tuple[float, float],
    px_per_cm: float,
    read_strips: StripReader | None = None,
    weak_reads: Sequence[UnsureCorner] = (),
    card_w_cm: float = CARD_W_CM,
) -> StripReads:
    """The jokers fans in ``view_bgr`` show only by a strip (see the module docstring), the
    index cards they show by an index read weakly or a corner mark read surely, and the number
    of strips of other cards no read names.

    ``paper`` marks card paper on the view (any scale; resized to the view), ``cards`` are the
    cards read there and ``unread_indices`` the boxes the localiser was sure held an index that
    was not read surely (view pixels), ``weak_reads`` how some of those boxes read all the same,
    ``fan_right`` the player's right in view axes; ``read_strips`` reads the
    strips (without it no strip is a joker); ``card_w_cm`` is the deck's card width."""
    strips, between, widths = _look_at_fans(
        paper, view_bgr, cards, fan_right, px_per_cm, weak_reads, card_w_cm
    )
    faces = sum(strip.face for strip in strips)
    readable = [s for s in strips if s.face or s.drawn_in_ink]
    held = [(s, _read_weakly(s, weak_reads)) for s in readable if s.holds_any(unread_indices)]
    indices = [card for _, card in held if card]
    indices += [
        _in_doubt(read) for read in between if not any(s.holds_any([read.box]) for s in strips)
    ]
    named_faces = sum(strip.face for strip, card in held if card)
    asked = [s for s in readable if read_strips and not any(s is h for h, _ in held)]
    looks = [(strip.box, *strip.corners) for strip in asked]
    reads = iter(read_strips([box for boxes in looks for box in boxes]) if read_strips else [])
    jokers = []
    for strip, boxes in zip(asked, looks, strict=True):
        said = list(itertools.islice(reads, len(boxes)))  # whole, then its corners
        identity, probability, *_ = max(said, key=lambda r: (r.identity in JOKERS, r.probability))
        if identity in JOKERS and probability >= STRIP_JOKER_CONF:
            other = other_joker(identity)
            jokers.append(CardSighting(identity, [strip.box], STRIP_CONFIDENCE, runner_up=other))
        elif seen := joker_in_every_read(said):
            joker, share = seen
            jokers.append(CardSighting(joker, [strip.box], share, runner_up=other_joker(joker)))
        elif card := _index_at_a_corner(said[1:], boxes[1:], cards):
            indices.append(card)
        elif strip.twin:
            joker = strip.twin
            jokers.append(
                CardSighting(joker, [strip.box], STRIP_CONFIDENCE, runner_up=other_joker(joker))
            )
        else:
            continue
        named_faces += strip.face
    return StripReads(jokers, faces - named_faces, tuple(indices), widths)


def _index_at_a_corner(
    reads: Sequence[Read], corners: Sequence[Box], cards: Sequence[CardSighting]
) -> CardSighting | None:
    """The index card a strip's corner marks show, read at ``STRIP_CARD_CONF`` or more where
    the mark lies off every card read (``cards``: a neighbour's index is that card's), in
    doubt; else none."""
    read_boxes = [box for card in cards for box in card.boxes]
    found = [
        (read, corner)
        for read, corner in zip(reads, corners, strict=True)
        if read.identity not in {NONE_CLASS, *JOKERS}
        and read.probability >= STRIP_CARD_CONF
        and not any(iou(corner, box) > 0 for box in read_boxes)
    ]
    if not found:
        return None
    read, corner = max(found, key=lambda rc: rc[0].probability)
    second = read.runner_up if read.runner_up != NONE_CLASS else ""
    return CardSighting(read.identity, [corner], STRIP_CONFIDENCE, runner_up=second)


def _read_weakly(strip: Strip, weak_reads: Sequence[UnsureCorner]) -> CardSighting | None:
    """The card the surest of ``weak_reads`` lying on ``strip`` names, in doubt; none if none
    lies there."""
    on_strip = [read for read in weak_reads if strip.holds_any([read.box])]
    if not on_strip:
        return None
    return _in_doubt(max(on_strip, key=lambda read: read.confidence))


def _in_doubt(read: UnsureCorner) -> CardSighting:
    """The card an index read weakly names, in doubt."""
    confidence = min(read.confidence, STRIP_CONFIDENCE)
    return CardSighting(read.identity, [read.box], confidence, runner_up=read.runner_up)


def joker_in_every_read(reads: Sequence[Read]) -> tuple[str, float] | None:
    """The joker a strip is, in doubt, when every one of its ``reads`` names a joker, first or
    second, and none names another card first: the joker with more probability over them, and
    their mean joker probability; else none."""
    if not reads:
        return None
    shares = dict.fromkeys(JOKERS, 0.0)
    for identity, probability, runner_up, runner_up_probability in reads:
        if identity not in {NONE_CLASS, *JOKERS} or {identity, runner_up}.isdisjoint(JOKERS):
            return None
        for card, p in ((identity, probability), (runner_up, runner_up_probability)):
            if card in JOKERS:
                shares[card] += p
    joker = max(shares, key=lambda j: shares[j])
    return joker, sum(shares.values()) / len(reads)


def other_joker(joker: str) -> str:
    """The other joker: a strip's read tells a joker from other cards more surely than which."""
    return next(j for j in JOKERS if j != joker)


def card_corner_marks(blob: np.ndarray, px_per_cm: float) -> tuple[Box, ...]:
    """The upright boxes (view px) of where a lone card covering the ``blob`` (a mask at the
    view's scale) prints its corner marks: near each of its four corners, an index-sized box
    ``INDEX_INSET_CM`` in from its side and ``CORNER_MARK_INSET_CM`` from its end (a card on
    the table may lie either way up, and a player may have turned it): first the two along
    one of its long sides, then the two along the other."""
    if np.count_nonzero(blob) < 3:
        return ()
    centre, first, second, w, h = _rotated_rect(blob, px_per_cm)
    # ``across`` runs along the card's short side, ``along`` along its long side.
    (across, width), (along, height) = sorted(((first, w), (second, h)), key=lambda a: a[1])
    wide, high = CORNER_MARK_CM
    return tuple(
        _upright_box(
            _rectangle(
                centre
                + across * side * (width / 2 - INDEX_INSET_CM)
                + along * end * (height / 2 - CORNER_MARK_INSET_CM),
                across,
                along,
                -wide / 2,
                wide / 2,
                high,
            ),
            px_per_cm,
        )
        for side in (-1, 1)
        for end in (-1, 1)
    )


def blob_sides(blob: np.ndarray, px_per_cm: float) -> tuple[float, float]:
    """The short and the long side (cm) of the least rotated rectangle around ``blob`` (a mask
    at the view's scale)."""
    if np.count_nonzero(blob) < 3:
        return 0.0, 0.0
    *_, w, h = _rotated_rect(blob, px_per_cm)
    return min(w, h), max(w, h)


def unexplained_strips(
    paper: np.ndarray,
    view_bgr: np.ndarray,
    cards: Sequence[CardSighting],
    fan_right: tuple[float, float],
    px_per_cm: float,
) -> list[Strip]:
    """Every stretch of a fan on the view that the ``cards`` read do not explain."""
    return _look_at_fans(paper, view_bgr, cards, fan_right, px_per_cm)[0]


def _look_at_fans(
    paper: np.ndarray,
    view_bgr: np.ndarray,
    cards: Sequence[CardSighting],
    fan_right: tuple[float, float],
    px_per_cm: float,
    weak_reads: Sequence[UnsureCorner] = (),
    card_w_cm: float = CARD_W_CM,
) -> tuple[list[Strip], list[UnsureCorner], tuple[float, ...]]:
    """Every stretch of a fan on the view that the ``cards`` read do not explain, the
    ``weak_reads`` that lie between two read cards' indices of a fan (see the module
    docstring), and the widths of the index cards lying alone seen whole."""
    paper = _sharpened(paper, view_bgr, px_per_cm)
    n, labels, stats, _ = cv2.connectedComponentsWithStats(paper)
    strips: list[Strip] = []
    between: list[UnsureCorner] = []
    widths: list[float] = []
    read_boxes = {box for card in cards for box in card.boxes}
    for label in range(1, n):
        if stats[label, cv2.CC_STAT_AREA] < 0.4 * CARD_W_CM * CARD_H_CM * px_per_cm**2:
            continue
        blob = _filled(labels == label)
        fan = _fan_axes(blob, fan_right, px_per_cm)
        if fan is None:
            continue
        centre, along, across, length, breadth = fan
        spans, lefts = _explained(cards, fan, px_per_cm, card_w_cm)
        if not spans:
            continue  # a card nobody read at all: the lone-blob reading's business
        if (width := _alone_and_whole(cards, fan, px_per_cm, card_w_cm)) is not None:
            widths.append(width)
        indices = _read_index_points(cards, fan, px_per_cm)
        between += [
            read
            for read in weak_reads
            if read.box not in read_boxes
            and (point := _fan_point(read.box, fan, px_per_cm)) is not None
            and _between_read_indices(point, indices)
        ]
        step = _fan_step(lefts)
        inside = cv2.erode(blob, np.ones((3, 3), np.uint8), iterations=_px(EDGE_CM, px_per_cm))
        for start, end in _gaps(spans, -length / 2, length / 2):
            count = max(1, round((end - start) / step))
            each = (end - start) / count
            for k in range(count):
                u0, u1 = start + k * each, start + (k + 1) * each
                polygon = _rectangle(centre, along, across, u0, u1, breadth) * px_per_cm
                # Looked at short of its ends: the neighbour's edge and shadow bleed over it.
                inset = min(STRIP_INSET_CM, (u1 - u0) / 4)
                # Where a gap is cut into several strips by the fan step, the cut is a guess
                # (steps vary): what shows just past a cut may be the card on the left's.
                left_inset = min(CUT_INSET_CM, (u1 - u0) / 3) if k > 0 else inset
                looked = _rectangle(centre, along, across, u0 + left_inset, u1 - inset, breadth)
                strip = _strip(polygon, looked * px_per_cm, inside, view_bgr)
                corners = _corner_boxes(centre, along, across, u0, u1, breadth, px_per_cm)
                twin = None
                if k == count - 1 and (strip.face or strip.drawn_in_ink):
                    stretch = (u0, u1)
                    twin = _twin(view_bgr, inside, strip, cards, fan, stretch, px_per_cm, card_w_cm)
                strips.append(replace(strip, corners=corners, twin=twin))
    return strips, between, tuple(widths)


def _twin(
    view_bgr: np.ndarray,
    paper: np.ndarray,
    strip: Strip,
    cards: Sequence[CardSighting],
    fan: Fan,
    stretch: tuple[float, float],
    px_per_cm: float,
    card_w_cm: float,
) -> str | None:
    """The joker read just right of ``strip`` (``stretch``, cm along the ``fan``) when the strip
    shows what that joker shows along its own left edge — the same picture (normalised
    correlation at least ``TWIN_LIKENESS``, sought ``TWIN_SLACK_CM`` either way) in the same
    colour and ink (shares within ``TWIN_MARKED``): a second copy of it (see the module
    docstring); else none."""
    u0, u1 = stretch
    jokers = {
        card.identity
        for card in cards
        if card.identity in JOKERS
        and any(
            (point := _fan_point(box, fan, px_per_cm)) is not None
            and u1 - MIN_STRIP_CM <= point[0] <= u1 + card_w_cm
            for box in card.boxes
        )
    }
    if len(jokers) != 1:
        return None
    width, slack = u1 - u0, TWIN_SLACK_CM
    shown = _band(view_bgr, fan, u0 + slack, u1 - slack, slack, px_per_cm)
    beside = _band(view_bgr, fan, u1 - slack, u1 + width + slack, 0.0, px_per_cm)
    if shown is None or beside is None:
        return None
    centre, along, across, _, breadth = fan
    own_edge = _rectangle(centre, along, across, u1, u1 + width, breadth) * px_per_cm
    looked = _rectangle(
        centre, along, across, u1 + STRIP_INSET_CM, u1 + width - STRIP_INSET_CM, breadth
    )
    edge = _strip(own_edge, looked * px_per_cm, paper, view_bgr)
    marked_alike = (
        abs(edge.coloured - strip.coloured) <= TWIN_MARKED
        and abs(edge.inked - strip.inked) <= TWIN_MARKED
    )
    likeness = float(cv2.matchTemplate(beside, shown, cv2.TM_CCOEFF_NORMED).max())
    return next(iter(jokers)) if marked_alike and likeness >= TWIN_LIKENESS else None


def _alone_and_whole(
    cards: Sequence[CardSighting], fan: Fan, px_per_cm: float, card_w_cm: float
) -> float | None:
    """The ``fan``'s length when it is one index card alone, seen whole (two of its index boxes
    on it, across the card from each other, and no other card's): that card's width (cm)."""
    _, _, _, length, breadth = fan
    on_fan = [
        (card, points)
        for card in cards
        if (points := [p for box in card.boxes if (p := _fan_point(box, fan, px_per_cm))])
    ]
    if len(on_fan) != 1 or on_fan[0][0].identity in JOKERS:
        return None
    along = [u for u, _ in on_fan[0][1]]
    low, high = CARD_ASPECT
    seen_whole = len(along) >= 2 and max(along) - min(along) >= card_w_cm / 2
    return length if seen_whole and low * breadth <= length <= high * breadth else None


def _band(
    view_bgr: np.ndarray, fan: Fan, u0: float, u1: float, inset: float, px_per_cm: float
) -> np.ndarray | None:
    """The view's pixels over the stretch ``u0`` … ``u1`` along the ``fan``, across its breadth
    less ``inset`` at each side, turned upright (along → x); none when under a few pixels."""
    centre, along, across, _, breadth = fan
    half = breadth / 2 - inset
    width, height = round((u1 - u0) * px_per_cm), round(2 * half * px_per_cm)
    if width < 4 or height < 4:
        return None
    ends = ((u0, -half), (u1, -half), (u0, half))
    source = np.array([(centre + along * u + across * v) * px_per_cm for u, v in ends], np.float32)
    target = np.array([(0, 0), (width, 0), (0, height)], np.float32)
    warp = cv2.getAffineTransform(source, target)
    return cv2.warpAffine(view_bgr, warp, (width, height), flags=cv2.INTER_LINEAR)


def _fan_point(box: Box, fan: Fan, px_per_cm: float) -> tuple[float, float] | None:
    """Where the centre of ``box`` (view px) lies along and across the ``fan`` (cm from its
    centre); none when off the fan (with half a centimetre's slack)."""
    centre, along, across, length, breadth = fan
    x0, y0, x1, y1 = box
    offset = np.array(((x0 + x1) / 2, (y0 + y1) / 2)) / px_per_cm - centre
    u, v = float(offset @ along), float(offset @ across)
    if abs(v) > breadth / 2 + 0.5 or abs(u) > length / 2 + 0.5:
        return None
    return u, v


def _read_index_points(
    cards: Sequence[CardSighting], fan: Fan, px_per_cm: float
) -> list[tuple[float, float]]:
    """Where the index boxes of the index cards read lie on the ``fan`` (cm along, across)."""
    points = []
    for card in cards:
        if card.identity in JOKERS:
            continue
        for box in card.boxes:
            if min(box[2] - box[0], box[3] - box[1]) / px_per_cm >= WHOLE_CARD_CM:
                continue
            if (point := _fan_point(box, fan, px_per_cm)) is not None:
                points.append(point)
    return points


def _between_read_indices(point: tuple[float, float], read: Sequence[tuple[float, float]]) -> bool:
    """Whether an index at ``point`` on a fan lies in the row of the ``read`` indices, a fan
    step (``BETWEEN_STEP_CM``) from the nearest of them on either side."""
    u, v = point
    row = [ru for ru, rv in read if abs(rv - v) <= INDEX_ROW_CM]
    left = [u - ru for ru in row if ru < u]
    right = [ru - u for ru in row if ru > u]
    low, high = BETWEEN_STEP_CM
    return bool(left and right) and all(low <= min(gaps) <= high for gaps in (left, right))


def _corner_boxes(
    centre: np.ndarray,
    along: np.ndarray,
    across: np.ndarray,
    u0: float,
    u1: float,
    breadth: float,
    px_per_cm: float,
) -> tuple[Box, Box]:
    """The upright boxes (view px) of where a card whose left edge is at ``u0`` prints its
    corner marks, at both ends of that edge, within the strip ``u0`` … ``u1``: which end is
    the card's top is not known (it depends on how the player turned it)."""
    middle = min(u0 + INDEX_INSET_CM, (u0 + u1) / 2)
    wide, high = CORNER_MARK_CM
    boxes = []
    for end in (-1, 1):
        mark = centre + across * end * (breadth / 2 - CORNER_MARK_INSET_CM)
        points = _rectangle(mark, along, across, middle - wide / 2, middle + wide / 2, high)
        boxes.append(_upright_box(points, px_per_cm))
    return boxes[0], boxes[1]


def _upright_box(corners_cm: np.ndarray, px_per_cm: float) -> Box:
    """The upright box (view px) around a rectangle's corners in cm."""
    (x0, y0), (x1, y1) = (corners_cm * px_per_cm).min(axis=0), (corners_cm * px_per_cm).max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def _rectangle(
    centre: np.ndarray, along: np.ndarray, across: np.ndarray, u0: float, u1: float, breadth: float
) -> np.ndarray:
    """The corners (cm) of the stretch ``u0`` … ``u1`` along the fan, across its breadth."""
    half = breadth / 2
    ends = ((u0, -half), (u1, -half), (u1, half), (u0, half))
    return np.array([centre + along * u + across * v for u, v in ends])


def _px(cm: float, px_per_cm: float) -> int:
    return max(1, round(cm * px_per_cm))


def _sharpened(paper: np.ndarray, view_bgr: np.ndarray, px_per_cm: float) -> np.ndarray:
    """The paper mask at the view's scale, its edges where the view's own edges are: near the
    coarse mask, the pixels brighter than the split between table and paper there (Otsu)."""
    height, width = view_bgr.shape[:2]
    coarse = cv2.resize(paper, (width, height), interpolation=cv2.INTER_NEAREST)
    near = cv2.dilate(coarse, np.ones((3, 3), np.uint8), iterations=_px(0.4, px_per_cm)) > 0
    grey = cv2.cvtColor(view_bgr, cv2.COLOR_BGR2GRAY)
    if not near.any():
        return coarse
    level, _ = cv2.threshold(grey[near].reshape(-1, 1), 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return ((grey > level) & near).astype(np.uint8) * 255


def _filled(mask: np.ndarray) -> np.ndarray:
    """The blob with its holes filled (a joker's picture inside its paper)."""
    blob = mask.astype(np.uint8) * 255
    contours, _ = cv2.findContours(blob, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    filled = np.zeros_like(blob)
    cv2.drawContours(filled, contours, -1, 255, thickness=cv2.FILLED)
    return filled


def _fan_axes(blob: np.ndarray, fan_right: tuple[float, float], px_per_cm: float) -> Fan | None:
    """The fan's centre (cm), unit axes along it (toward ``fan_right``) and across, and its
    length and breadth (cm); ``None`` when the blob is not one card's height across."""
    centre, first, second, w, h = _rotated_rect(blob, px_per_cm)
    right = np.array(fan_right)
    if abs(first @ right) >= abs(second @ right):
        along, length, breadth = first, float(w), float(h)
    else:
        along, length, breadth = second, float(h), float(w)
    if along @ right < 0:
        along = -along
    if not FAN_HEIGHT_CM[0] <= breadth <= FAN_HEIGHT_CM[1]:
        return None
    across = np.array([-along[1], along[0]])
    return centre, along, across, length, breadth


def _rotated_rect(
    blob: np.ndarray, px_per_cm: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """The blob's least rotated rectangle: its centre (cm), its two unit side directions and
    their lengths (cm), in that order."""
    ys, xs = np.nonzero(blob)
    points = np.stack([xs, ys], axis=1).astype(np.float32) / px_per_cm
    (cx, cy), (w, h), angle = cv2.minAreaRect(points)
    first = np.array([math.cos(math.radians(angle)), math.sin(math.radians(angle))])
    second = np.array([-first[1], first[0]])
    return np.array([cx, cy]), first, second, float(w), float(h)


def _explained(
    cards: Sequence[CardSighting], fan: Fan, px_per_cm: float, card_w_cm: float
) -> tuple[list[tuple[float, float]], list[float]]:
    """The stretches along the fan (cm from its centre) the cards read explain, and the left
    edges of the cards whose left edge is known."""
    centre, along, _, length, _ = fan
    spans: list[tuple[float, float]] = []
    lefts: list[float] = []
    parts: list[tuple[int, float, float]] = []  # (card, from, to): jokers boxed by a part
    for number, card in enumerate(cards):
        indices: list[float] = []
        # Only the card's boxes on this fan: a copy read elsewhere may have been grouped in.
        for x0, y0, x1, y1 in card.boxes:
            if _fan_point((x0, y0, x1, y1), fan, px_per_cm) is None:
                continue
            corners = np.array([(x0, y0), (x1, y0), (x0, y1), (x1, y1)]) / px_per_cm - centre
            u = corners @ along
            short_side = min(x1 - x0, y1 - y0) / px_per_cm
            if card.identity in JOKERS and short_side >= WHOLE_JOKER_CM:
                # A joker boxed whole is the fan's top card at most (read whole from a blob,
                # its box may hold the strips of cards under it): one card at the right end —
                # the fan's, not the box's: the upright box of a tilted card reaches past it.
                right = min(float(u.max()), length / 2)
                spans.append((max(float(u.min()), right - card_w_cm - 0.3), right))
            elif short_side >= WHOLE_CARD_CM:
                spans.append((float(u.min()), float(u.max())))  # a card boxed whole
            elif card.identity in JOKERS:
                parts.append((number, float(u.min()), float(u.max())))
            else:
                indices.append(float(u.mean()))
        if not indices:
            continue
        first, last = min(indices), max(indices)
        if last - first >= card_w_cm / 2:  # both corners: the whole card
            spans.append((first - INDEX_INSET_CM, last + INDEX_INSET_CM))
            lefts.append(first - INDEX_INSET_CM)
        elif last >= length / 2 - 2 * INDEX_INSET_CM - 0.2:  # the top card's right corner
            spans.append((last + INDEX_INSET_CM - card_w_cm, last + INDEX_INSET_CM))
        else:
            spans.append((first - INDEX_INSET_CM, first - INDEX_INSET_CM + card_w_cm))
            lefts.append(first - INDEX_INSET_CM)
    one_joker = len({number for number, _, _ in parts}) == 1
    if len(parts) > 1 and one_joker and not spans and length - card_w_cm >= MIN_STRIP_CM:
        # One joker boxed at several parts, the only card read on a fan longer than a card:
        # the top card, at the fan's right end; a part of it boxed left of there is the card
        # under it (its corner mark joined to the top card's lettering as one card's two).
        spans.append((length / 2 - card_w_cm, length / 2))
    else:
        alone = len(parts) == 1 and not spans
        spans += [_joker_part_span(lo, hi, length, alone, card_w_cm) for _, lo, hi in parts]
    return spans, lefts


def _joker_part_span(
    u_min: float, u_max: float, length: float, alone: bool, card_w_cm: float
) -> tuple[float, float]:
    """The stretch a joker boxed by a part of its picture (``u_min`` … ``u_max`` along a fan of
    ``length``, cm from its centre) explains: which part is unknown, so every place the card
    could lie. But when it is the only card read on a fan longer than one card by a strip, it is
    the top card (the part was boxed: its picture shows), so it lies as far to the player's right
    as it can; the strip left of it is another card's (two line-art jesters fanned 1–1.5 cm
    apart were read as one)."""
    low, high = u_max - card_w_cm, u_min + card_w_cm
    if alone and length - card_w_cm >= MIN_STRIP_CM:
        right = min(high, length / 2)
        return right - card_w_cm, right
    return low, high


def _fan_step(lefts: list[float]) -> float:
    steps = [b - a for a, b in itertools.pairwise(sorted(lefts))]
    steps = [s for s in steps if STEP_RANGE_CM[0] <= s <= STEP_RANGE_CM[1]]
    return float(np.median(steps)) if steps else DEFAULT_STEP_CM


def _gaps(spans: list[tuple[float, float]], start: float, end: float) -> list[tuple[float, float]]:
    """The stretches of [start, end] at least ``MIN_STRIP_CM`` long that no span covers."""
    gaps = []
    reached = start
    for lo, hi in sorted(spans):
        if lo - reached >= MIN_STRIP_CM:
            gaps.append((reached, lo))
        reached = max(reached, hi)
    if end - reached >= MIN_STRIP_CM:
        gaps.append((reached, end))
    return gaps


def _strip(
    polygon: np.ndarray, looked: np.ndarray, paper: np.ndarray, view_bgr: np.ndarray
) -> Strip:
    """The strip at ``polygon``: its shares of coloured and dark-inked pixels over its paper
    inside ``looked`` (view pixels). Colours are converted only around ``looked``."""
    height, width = paper.shape
    corners = np.round(looked).astype(np.int32)
    x0, y0 = np.maximum(corners.min(axis=0), 0)
    x1, y1 = np.minimum(corners.max(axis=0) + 1, (width, height))
    if x1 <= x0 or y1 <= y0:
        return Strip(polygon, 0.0, 0.0)
    region = np.zeros((y1 - y0, x1 - x0), np.uint8)
    cv2.fillPoly(region, [corners - (x0, y0)], 255)
    on = (region > 0) & (paper[y0:y1, x0:x1] > 0)
    if not on.any():
        return Strip(polygon, 0.0, 0.0)
    hsv = cv2.cvtColor(view_bgr[y0:y1, x0:x1], cv2.COLOR_BGR2HSV).astype(np.int32)
    saturation, value = hsv[..., 1], hsv[..., 2]
    white = float(np.percentile(value[on], 90))
    coloured = on & (saturation > 80) & (value > 60)
    inked = on & ~coloured & (value < white - INK_BELOW_WHITE)
    area = float(on.sum())
    return Strip(polygon, float(coloured.sum() / area), float(inked.sum() / area))
