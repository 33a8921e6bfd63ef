"""Play tracking: per-frame card identities per zone → ``play`` / ``trick_cleared`` / ``kitty``.

This module owns temporal consensus. For every seat zone (``N E S W``) and the referee's kitty
zone (``centre``) the tracker keeps the *stable* multiset of cards in it. A different multiset is
accepted only once it has been seen identically in ``min_frames`` consecutive usable
observations (not moving, zone not occluded) spanning ``settle_s``; moving and occluded frames
are skipped for acceptance (they neither count nor break a run) but may date a landing. Then:

* cards in the zone of a seat that has not played this trick → ``play`` with ``t_landed`` the
  first frame that showed the new cards (a moving frame too, if they were visible), and
  ``t_stable`` the accepting frame;
* more cards added to a seat's play → a ``play`` of the added cards (the game feed flags the seat
  playing twice); different cards in place of a play → ``recognition_conflict`` ``cards_changed``;
  cards disappearing and reappearing (a hand over them) → nothing;
* all four seat zones empty after plays → ``trick_cleared``, naming as ``unread`` the seats that
  played nothing though their zone showed cards in at least ``min_frames`` usable frames of the
  trick (cards that never read the same long enough: a play that was there, unread); also
  when, once all four seats have played and three zones are empty, the fourth shows other
  cards than its play (the sweep took its play and that seat led again before its zone was
  seen empty) → ``trick_cleared``
  then the new cards as a ``play`` (otherwise a change of a play's cards is a conflict);
* the kitty zone showing ``kitty_size`` (8) cards → ``kitty`` (again only if they differ);
  emptied after showing at least half of them but never all → ``recognition_conflict``
  ``kitty_incomplete`` with the most cards read (a card of a tight kitty fan the camera never
  read): the referee enters the kitty (a kitty being laid out card by card is not reported).

A one-frame dropout or a one-frame false card restarts a run and so never creates, drops or
changes a play. The landing time is forgotten once the stable state is seen again in
``min_frames`` consecutive usable frames.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from engine.cards import SEATS
from vision.classes import CLASS_ID
from vision.events import (
    Event,
    KittyEvent,
    PlayEvent,
    RecognitionConflictEvent,
    TrickClearedEvent,
)
from vision.grouping import CardSighting
from vision.motion import STILL, MotionState

KITTY_ZONE = "centre"
KITTY_SIZE = 8

Cards = tuple[str, ...]


def multiset(cards: Sequence[str]) -> Cards:
    """A canonical multiset: the cards sorted by class order (unknown names last, by name)."""
    return tuple(sorted(cards, key=lambda c: (CLASS_ID.get(c, len(CLASS_ID)), c)))


def zone_cards(sightings_by_zone: Mapping[str, Sequence[CardSighting]]) -> dict[str, Cards]:
    """The identities seen in each zone (a pair shows its identity twice)."""
    return {zone: multiset([s.identity for s in ss]) for zone, ss in sightings_by_zone.items()}


def _sub(a: Cards, b: Cards) -> Cards:
    """Multiset difference ``a - b``."""
    return multiset(list((Counter(a) - Counter(b)).elements()))


def _union(a: Cards, b: Cards) -> Cards:
    return multiset(list((Counter(a) | Counter(b)).elements()))


@dataclass
class _Zone:
    stable: Cards = ()
    played: Cards = ()  # seat zones: what this seat has played in the current trick
    landed: tuple[float, str] | None = None  # first frame differing from the stable state
    cand: Cards | None = None
    cand_count: int = 0
    cand_first: float = 0.0
    cand_ref: str = ""
    same_count: int = 0
    shown: int = 0  # usable frames of this trick in which the zone showed cards


class PlayTracker:
    """Temporal consensus over zone readings (see the module docstring)."""

    def __init__(
        self,
        settle_s: float = 0.6,
        min_frames: int = 3,
        *,
        seats: Sequence[str] = SEATS,
        kitty_zone: str | None = KITTY_ZONE,
        kitty_size: int = KITTY_SIZE,
    ) -> None:
        self.settle_s = settle_s
        self.min_frames = min_frames
        self.seats = tuple(seats)
        self.kitty_zone = kitty_zone
        self.kitty_size = kitty_size
        zones = [*self.seats, *([kitty_zone] if kitty_zone else [])]
        self._zones = {z: _Zone() for z in zones}
        self._kitty_shown: Cards | None = None
        self._kitty_partial: Cards = ()
        self._trick_plays = 0

    @property
    def stable(self) -> dict[str, Cards]:
        """The accepted multiset of every zone."""
        return {z: st.stable for z, st in self._zones.items()}

    @property
    def played(self) -> dict[str, Cards]:
        """What each seat has played in the current trick."""
        return {s: self._zones[s].played for s in self.seats}

    def observe(
        self,
        t: float,
        seat_cards: Mapping[str, Sequence[str]],
        motion: MotionState = STILL,
        frame_ref: str = "",
    ) -> list[Event]:
        """One decision frame: the identities seen in each zone (a missing zone shows nothing).

        Returns the events this frame completes, in order.
        """
        events: list[Event] = []
        for name, zone in self._zones.items():
            seen = multiset(seat_cards.get(name, ()))
            accepted = self._step(zone, seen, t, frame_ref, motion.blocks(name))
            if accepted is not None:
                events += self._accept(name, zone, accepted, t, frame_ref)
        if self._trick_plays and all(not self._zones[s].stable for s in self.seats):
            events.append(TrickClearedEvent(t, frame_ref, self._unread()))
            self._new_trick()
        return events

    def _unread(self) -> tuple[str, ...]:
        """Seats that played nothing this trick though their zone showed cards for a while."""
        return tuple(
            s
            for s in self.seats
            if not self._zones[s].played and self._zones[s].shown >= self.min_frames
        )

    def _new_trick(self) -> None:
        self._trick_plays = 0
        for s in self.seats:
            self._zones[s].played = ()
            self._zones[s].shown = 0

    def _step(
        self, zone: _Zone, seen: Cards, t: float, ref: str, blocked: bool
    ) -> tuple[Cards, tuple[float, str], tuple[float, str]] | None:
        """Advance one zone; on acceptance returns the accepted multiset, its landing (the first
        frame that differed from the stable state) and the first frame of its accepting run."""
        if seen != zone.stable and zone.landed is None and (not blocked or _sub(seen, zone.stable)):
            zone.landed = (t, ref)
        if blocked:
            return None
        zone.shown += bool(seen)
        if seen == zone.stable:
            zone.cand, zone.cand_count = None, 0
            zone.same_count += 1
            if zone.same_count >= self.min_frames:
                zone.landed = None
            return None
        zone.same_count = 0
        if seen == zone.cand:
            zone.cand_count += 1
        else:
            zone.cand, zone.cand_count, zone.cand_first, zone.cand_ref = seen, 1, t, ref
        if zone.cand_count >= self.min_frames and t - zone.cand_first >= self.settle_s - 1e-9:
            run = (zone.cand_first, zone.cand_ref)
            landed = zone.landed or run
            zone.stable = seen
            zone.cand, zone.cand_count, zone.same_count, zone.landed = None, 0, 0, None
            return seen, landed, run
        return None

    def _kitty_incomplete(self, cards: Cards, t: float) -> RecognitionConflictEvent:
        shown = " ".join(cards)
        return RecognitionConflictEvent(
            "kitty_incomplete",
            None,
            cards,
            f"底牌只认出 {len(cards)}/{self.kitty_size} 张（{shown}），请录入底牌 · kitty shown "
            f"but only {len(cards)} of {self.kitty_size} cards read ({shown}): enter the kitty",
            t,
        )

    def _swept_but(self, name: str) -> bool:
        """Whether every seat has played this trick and every zone but ``name``'s is empty."""
        return all(self._zones[s].played for s in self.seats) and not any(
            self._zones[s].stable for s in self.seats if s != name
        )

    def _accept(
        self,
        name: str,
        zone: _Zone,
        accepted: tuple[Cards, tuple[float, str], tuple[float, str]],
        t: float,
        ref: str,
    ) -> list[Event]:
        cards, (t_landed, ref_landed), (t_run, ref_run) = accepted
        if name == self.kitty_zone:
            if len(cards) == self.kitty_size:
                self._kitty_partial = ()
                if cards != self._kitty_shown:
                    self._kitty_shown = cards
                    return [KittyEvent(cards, t, ref)]
                return []
            if len(cards) >= max(self.kitty_size // 2, len(self._kitty_partial) + 1):
                self._kitty_partial = cards  # the most of it read so far
            if not cards and self._kitty_partial:
                partial, self._kitty_partial = self._kitty_partial, ()
                if self._kitty_shown is None or _sub(partial, self._kitty_shown):
                    return [self._kitty_incomplete(partial, t)]
            return []
        if not cards:
            return []
        before = zone.played
        added, removed = _sub(cards, before), _sub(before, cards)
        if not added:
            return []  # the play (or part of it) seen again after a hand covered it
        if removed and self._swept_but(name):
            # The winner's hand swept the trick and this seat led again before its zone was
            # seen empty (the sweeping hand covered it): the trick ends, the new cards lead.
            # They landed when first seen: the zone differed from the old play since the sweep.
            self._new_trick()
            zone.played, self._trick_plays = cards, 1
            return [
                TrickClearedEvent(t_landed, ref_landed),
                PlayEvent(name, cards, t_run, t, ref_run, ref),
            ]
        zone.played = _union(before, cards)
        self._trick_plays += 1
        if removed:
            return [
                RecognitionConflictEvent(
                    "cards_changed",
                    name,
                    cards,
                    f"{name} played {' '.join(before)} but its zone now shows "
                    f"{' '.join(cards)}; the referee decides which is right",
                    t,
                )
            ]
        return [PlayEvent(name, added, t_landed, t, ref_landed, ref)]
