"""Index tracks: one corner index seen read after read at one place of a zone, its reads pooled.

A zone's view is the same table rectangle at the same scale on every read, so a card lying
still shows each corner index at the same view pixels read after read. The classifier's reading
of an unseen deck's index can waver between two look-alikes from one read to the next (the
held-out deck's "10" reads Q at one corner in about half the reads: the tracker then sees the
play flicker between 10C and QC and accepts whichever is read three times running). This module
owns the memory that settles it: per zone, a *track* per index place (a localised box within
``MATCH_CM`` of the last one, of the same size, looking the same: normalised correlation of the
grey patches ≥ ``SAME_LOOK``), holding the summed confidence of each identity it was read as.

* Each box is read as its track's best identity so far (its confidence the mean over the
  track's reads, a read of another identity counting 0), so a wavering corner stops wavering.
  Its runner-up is the other identity with the most confidence over the track's reads, as
  the first or the second reading of each (what the referee should look for when in doubt).
* Two corners of one card read differently are settled by both tracks' evidence together
  (:func:`vision.grouping.group_cards` ``pooled=``): the card is the identity with more summed
  confidence over all of its reads at both corners.
* A track ends when a read does not find its index (the card went, or a hand or another card
  covers it), so a new card laid where an old one lay starts afresh; the patch check keeps a card
  that lands within a few millimetres of a swept one from inheriting its reads.
* A *weak* read (the localiser sure of an index, the classifier not sure which: under the
  detector's ``conf``) votes on its index's track like any other read and keeps it alive, and
  is read as the track's best identity. A track only weak reads have voted on is read once it
  holds ``WEAK_TRACK_READS`` of them that mostly agree (the best identity's mean confidence at
  least the weak bar), and only when its runner-up is a look-alike (a card of the same rank or
  suit: 10C / QC; not a joker, not nothing — a stroke of a jester read weakly as QS) — or when
  it reads a joker, its runner-up the other joker or nothing (an unseen deck's joker mark, read
  about 0.5 under the joker bar read after read: validation hands 9019 and 9020 read a joker
  short and put a card count to the referee), and such a joker only where cards are played
  (``in_play``: a player's hand of cards face down at its edge of the table read weakly as SJ,
  and the referee was asked about an exposed joker, validation hand 9015) — and
  neither is a card this read holds surely (a card's other corner read weakly as a
  look-alike: 5D's as 3D, runner-up 5D). The kitty zone takes no weak reads (a kitty read
  short is the referee's to enter; completed by a weak read it would be a kitty of eight that
  no one is asked about — its weak card, even marked in doubt, is questioned only where an
  infraction rests on it). A box the localiser was sure of that the classifier read as no card
  at all, where such a track lies, is a read of nothing on it: it keeps the track alive and
  counts toward its mean (a validation deck's big joker under a throw, read BJ at 0.5 and
  ``none`` in turn, lost its track at every ``none`` and was never read). A zone holding a
  track of weak reads alone too young to judge is read again though its reads agree
  (:attr:`IndexTracks.unsettled`): its play would otherwise be accepted and the zone kept
  before the third weak read (validation hands 9019 and 9020: a big joker's "JOKER" column read
  0.5 twice, the play of the other cards accepted without it).
  Before, an index the classifier read half the time as 10D and half as QD, under the bar
  every other read, came and went (its track died at each weak read and the play never
  settled), and a "10" read at 0.35 every time was never a card at all (the play was reported
  a card short: a false "card count" infraction). Now each is one card whose pooled
  confidence is low, so the referee is asked about it, with its runner-up.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.classes import JOKERS
from vision.detector import WEAK_READ_CONF, Detection
from vision.grouping import Box, BoxLike, box_centre

MATCH_CM = 0.35  # box centres this close on consecutive reads: the same index place
SIZE_RATIO = 1.3  # … and box sides within this ratio
SAME_LOOK = 0.75  # … and grey patches correlating at least this much
PATCH_PX = 16
WEAK_TRACK_READS = 3  # weak reads that make a card of a track no sure read has voted on


@dataclass
class _Track:
    centre: tuple[float, float]
    size: tuple[float, float]
    patch: np.ndarray
    votes: dict[str, float] = field(default_factory=dict)
    seconds: dict[str, float] = field(default_factory=dict)  # summed runner-up confidences
    reads: int = 0
    sure: bool = False  # a sure read has voted on it (else only weak reads)

    def vote(self, d: BoxLike, weak: bool, weak_bar: float) -> Detection | None:
        """Count one read of this track's index; the read as the track now reads it (none yet
        for a track of too few weak reads)."""
        self.sure |= not weak
        if d.identity:  # (a read of nothing: an index boxed, read as no card at all)
            self.votes[d.identity] = self.votes.get(d.identity, 0.0) + d.confidence
        second = getattr(d, "runner_up", "")
        if second:
            total = self.seconds.get(second, 0.0)
            self.seconds[second] = total + float(getattr(d, "runner_up_confidence", 0.0))
        self.reads += 1
        _, confidence = self.best()
        if not self.sure and (self.reads < WEAK_TRACK_READS or confidence < weak_bar):
            return None
        return self.read(d.box)

    def read(self, box: Box) -> Detection:
        """The track's reading at ``box``: its best identity, mean confidence and runner-up."""
        identity, confidence = self.best()
        runner_up, runner_up_confidence = self.runner_up(identity)
        return Detection(identity, box, confidence, confidence, runner_up, runner_up_confidence)

    def best(self) -> tuple[str, float]:
        identity, total = max(self.votes.items(), key=lambda kv: (kv[1], kv[0]))
        return identity, total / self.reads

    def runner_up(self, best: str) -> tuple[str, float]:
        """The likeliest identity other than ``best`` over every read, first or second."""
        totals = dict(self.seconds)
        for identity, total in self.votes.items():
            totals[identity] = totals.get(identity, 0.0) + total
        totals.pop(best, None)
        if not totals:
            return "", 0.0
        identity, total = max(totals.items(), key=lambda kv: (kv[1], kv[0]))
        return identity, total / self.reads


def _a_joker_in_doubt(card: str, other: str) -> bool:
    """A joker read weakly, its runner-up the other joker or nothing: a joker's corner mark the
    classifier knows for a joker's, not how surely (an unseen deck's ringed star or "JOKER"
    column, read 0.5 under the joker bar read after read). Not one with a court card for its
    runner-up: that may be a court card's picture."""
    return card in JOKERS and other in {"", *JOKERS}


def _look_alikes(card: str, other: str) -> bool:
    """Two cards of one rank or one suit (jokers aside): what an index read in doubt wavers
    between (10C / QC, 2S / 2C). A weak read whose runner-up is no such card, or none, may be
    no index at all (a stroke of a picture read as QS)."""
    if card in JOKERS or other in JOKERS or not other:
        return False
    return card[:-1] == other[:-1] or card[-1] == other[-1]


def _place(box: Box) -> tuple[tuple[float, float], tuple[float, float]]:
    """A box's centre and size, what a track is matched by."""
    return box_centre(box), (box[2] - box[0], box[3] - box[1])


def _patch(view: np.ndarray, box: Box) -> np.ndarray | None:
    h, w = view.shape[:2]
    x0, y0 = max(0, int(box[0])), max(0, int(box[1]))
    x1, y1 = min(w, int(np.ceil(box[2]))), min(h, int(np.ceil(box[3])))
    if x1 - x0 < 2 or y1 - y0 < 2:
        return None
    grey = view[y0:y1, x0:x1]
    if grey.ndim == 3:
        grey = cv2.cvtColor(grey, cv2.COLOR_BGR2GRAY)
    small = cv2.resize(grey, (PATCH_PX, PATCH_PX), interpolation=cv2.INTER_AREA).astype(np.float32)
    small -= small.mean()
    norm = float(np.linalg.norm(small))
    return small / norm if norm > 1e-6 else None


class IndexTracks:
    """The index tracks of one zone (see the module docstring)."""

    def __init__(
        self, px_per_cm: float, weak_bar: float = WEAK_READ_CONF, weak_reads: bool = True
    ) -> None:
        self.match_px = MATCH_CM * px_per_cm
        self.weak_bar = weak_bar
        self.weak_reads = weak_reads  # whether weak reads count at all
        self._tracks: list[_Track] = []

    def clear(self) -> None:
        self._tracks = []

    @property
    def unsettled(self) -> bool:
        """Whether a track of weak reads alone has had too few reads yet to be read as a card
        or not: its zone must be read again, even where two reads agreed without it."""
        return any(not track.sure and track.reads < WEAK_TRACK_READS for track in self._tracks)

    def pool(
        self,
        view: np.ndarray,
        detections: Sequence[BoxLike],
        weak: Sequence[BoxLike] = (),
        unread: Sequence[Box] = (),
        in_play: Callable[[Box], bool] = lambda _box: True,
    ) -> tuple[list[Detection], dict[Box, dict[str, float]]]:
        """This read's detections, each read as its track's best identity so far, and each
        box's pooled votes (for settling two corners read differently); ``weak`` reads too,
        those of them whose track reads a card; ``unread``, boxes the localiser was sure of
        that were read as no card at all, each a read of nothing on a track of weak reads
        alone where it lies; a joker in doubt from weak reads alone only where ``in_play``
        (see the module docstring)."""
        tracks: list[_Track] = []
        free = list(self._tracks)
        pooled_detections: list[Detection] = []
        tentative: list[Detection] = []  # read by tracks of weak reads only
        votes: dict[Box, dict[str, float]] = {}
        if not self.weak_reads:
            weak = ()
        for d, is_weak in [*((d, False) for d in detections), *((d, True) for d in weak)]:
            patch, (centre, size) = _patch(view, d.box), _place(d.box)
            if patch is None:  # too small to compare: read as it is, remembered by no track
                if is_weak:
                    continue
                track = _Track(centre, size, np.zeros(0))
            else:
                found = self._match(free, centre, size, patch)
                if found is None:
                    track = _Track(centre, size, patch)
                else:
                    free.remove(found)
                    track = found
                    track.centre, track.size, track.patch = centre, size, patch
                tracks.append(track)
            pooled = track.vote(d, is_weak, self.weak_bar)
            if pooled is not None:
                (pooled_detections if track.sure else tentative).append(pooled)
                votes[d.box] = track.votes
        for box in unread if self.weak_reads else ():
            patch, (centre, size) = _patch(view, box), _place(box)
            weak_only = [track for track in free if not track.sure]
            if patch is None or (kept := self._match(weak_only, centre, size, patch)) is None:
                continue  # a read of nothing starts no track
            free.remove(kept)
            kept.centre, kept.size, kept.patch = centre, size, patch
            tracks.append(kept)
            if (pooled := kept.vote(Detection("", box, 0.0), True, self.weak_bar)) is not None:
                tentative.append(pooled)
                votes[box] = kept.votes
        self._tracks = tracks
        sure_reads = {d.identity for d in pooled_detections}
        pooled_detections += [
            d
            for d in tentative
            if (
                _look_alikes(d.identity, d.runner_up)
                or (_a_joker_in_doubt(d.identity, d.runner_up) and in_play(d.box))
            )
            and not {d.identity, d.runner_up} & sure_reads
        ]
        return pooled_detections, votes

    def reading(self, box: Box) -> Detection | None:
        """How the track a box of the last :meth:`pool` voted on reads it, however few its
        reads (a weak read's index, for a fan's strip that proves a card lies there)."""
        centre = box_centre(box)
        for track in self._tracks:
            if track.centre == centre and track.votes:
                return track.read(box)
        return None

    def _match(
        self,
        free: Sequence[_Track],
        centre: tuple[float, float],
        size: tuple[float, float],
        patch: np.ndarray,
    ) -> _Track | None:
        best: tuple[float, _Track] | None = None
        for track in free:
            distance = float(np.hypot(centre[0] - track.centre[0], centre[1] - track.centre[1]))
            if distance > self.match_px:
                continue
            if any(
                max(a, b) > SIZE_RATIO * min(a, b) for a, b in zip(size, track.size, strict=True)
            ):
                continue
            if float((patch * track.patch).sum()) < SAME_LOOK:
                continue
            if best is None or distance < best[0]:
                best = (distance, track)
        return None if best is None else best[1]
