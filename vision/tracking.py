"""Play tracking: per-frame card identities per zone → ``play`` / ``trick_cleared`` / ``kitty``.

This module owns temporal consensus. For every seat zone (``N E S W``) and the referee's kitty
zone (``centre``) the tracker keeps the *stable* multiset of cards in it. A different multiset is
accepted only once it has been seen identically in ``min_frames`` consecutive usable
observations (not moving, zone not occluded) spanning ``settle_s``; moving and occluded frames
are skipped for acceptance (they neither count nor break a run) but may date a landing. Then:

* cards in the zone of a seat that has not played this trick → ``play`` with ``t_landed`` the
  first frame that showed the new cards (a moving frame too, if they were visible) — or card
  paper there that no read named (``glimpsed``), once the zone was seen bare since the sweep: a
  card lying unread 6 s dated from its read had made the lead before it out of turn (validation
  hand 9101) —, and ``t_stable`` the accepting frame;
* more cards added to a seat's play → a ``play`` of the added cards (the game feed flags the seat
  playing twice); different cards in place of a play → ``recognition_conflict`` ``cards_changed``;
  cards disappearing and reappearing within ``takeback_s`` (a hand over them) → nothing;
* all four seat zones empty after plays → ``trick_cleared``, naming as ``unread`` the seats that
  played nothing though their zone showed cards in at least ``min_frames`` usable frames of the
  trick (cards that never read the same long enough, or card paper no read named — the zone
  reader's ``glimpsed``: a play that was there, unread), and as ``read_otherwise`` the cards of
  the trick's plays that the frames after their acceptance read as another card often enough
  (:data:`OTHER_READ_SHARE`: a confident misread seldom holds in every frame); also
  when, once all four seats have played and three zones are empty, the fourth shows other
  cards than its play (the sweep took its play and that seat led again before its zone was
  seen empty) → ``trick_cleared``
  then the new cards as a ``play`` (otherwise a change of a play's cards is a conflict);
* cards of a seat's play leaving its zone (the zone accepted without them) while the trick is
  on the table → ``takeback`` (悔牌) of those cards, dated when the zone was first seen without
  them, once they have stayed out of view ``takeback_s`` (the seat's play is then what is left;
  cards it puts down again are a new play), or at once when the seat puts other cards in
  their place.
  Not a takeback: the same cards back in place before that (a hand rested over them), two or
  more seats' zones losing cards together (the sweep; any zone emptied after that in the same
  trick is the sweep too), every zone empty with more than one
  seat's play in the trick (the sweep). A trick whose only play is lifted back while every
  other zone is empty (the leader's takeback) is not cleared. Cards can only be lifted by a
  hand: cards of a play that leave the reads while no hand was seen in the zone since the play
  was last seen whole (no frame of it blocked, none with more than ``MOVING_FRACTION`` of it
  changed; without zone fractions, a blocked frame is the hand) were misread, before or now.
  They are no takeback while the trick lies there (back in view: nothing); still gone when the
  trick ends, or other cards read in their place, they are a takeback *in doubt*: every card
  ``unsure`` with confidence ``0.0`` (nothing was seen taking it), a question for the referee,
  never an asserted infraction;
* the kitty zone showing ``kitty_size`` (8) cards → ``kitty`` (again only if they differ);
  emptied after showing at least half of them but never all → ``recognition_conflict``
  ``kitty_incomplete`` with the most cards read (a card of a tight kitty fan the camera never
  read): the referee enters the kitty (a kitty being laid out card by card is not reported).

:class:`ExposedCardWatcher` owns the other moment out of play: a card read face up outside
every play area and the kitty zone, at the same place (within ``EXPOSED_NEAR_CM``) on
``min_frames`` decision frames spanning ``hold_s`` → ``exposed_card``, once while it lies there.
Cards carried in by a hand or swept away move and never qualify. A card already reported that
is not read for up to ``grace_s`` (a hand passing over it, a missed read) and lies there again
is the same card, not a new one. In the draw phase (``draw_phase=True``: before the hand's first
play, which the pipeline tells it) such cards are a showing of the bidding instead: the cards of
one seat that qualify within ``join_s`` of each other (a pair's second card read a frame later)
→ one ``declaration`` (叫主 or 炒, read once they lie face up: a face-down placement when it is
turned up), dated when its first card was first seen; ``unsure`` / ``maybe`` as an exposed
card's. A showing still open when the draw phase ends is reported then.

An exposed joker is always unsure: no read is more often made where no card lies face up (a
card back, a picture; a validation hand's pile of red backs at the winner's edge read BJ), so
its exposure is asked, not asserted.

A one-frame dropout or a one-frame false card restarts a run and so never creates, drops or
changes a play. The landing time is forgotten once the stable state is seen again in
``min_frames`` consecutive usable frames.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, field

from engine.cards import SEATS
from vision.classes import CLASS_ID, JOKERS
from vision.events import (
    DeclarationEvent,
    Event,
    ExposedCardEvent,
    KittyEvent,
    PlayEvent,
    RecognitionConflictEvent,
    TakebackEvent,
    TrickClearedEvent,
)
from vision.grouping import CardSighting
from vision.motion import MOVING_FRACTION, STILL, MotionState

KITTY_ZONE = "centre"
KITTY_SIZE = 8
TAKEBACK_S = 2.0
"""Seconds a play's cards must stay out of its zone, the trick still on the table, to be a
takeback: a hand resting over a play for a second must not be one (its cards come back), a
sweep empties several zones at once, and a player who takes a card back holds it longer."""
EXPOSED_HOLD_S = 2.0
"""Seconds a card must lie still, face up, outside every zone to be an exposed card."""
EXPOSED_NEAR_CM = 3.0
"""Reads of one identity this close (table cm) are the same card lying there."""
DECLARATION_JOIN_S = 0.6
"""Cards of one seat qualifying this close together are one declaration."""
OTHER_READ_SHARE = 0.25
"""A card of a play that its zone showed as another card on this share of the frames it was read
either way (and on at least ``min_frames``) was read in doubt: the trick's clearance names it
(``TrickClearedEvent.read_otherwise``), so what rests on it is a question, not asserted. A card
lying a trick long is read 10–40 times; a read that flickers once or twice is no doubt."""

REPORTED_GRACE_S = 1.0
"""Seconds a reported card may go unread and still be the same card when read there again."""

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
    lifted: Cards = ()  # seat zones: cards of the play seen gone, not yet a takeback
    lifted_at: tuple[float, str] = (0.0, "")
    seen: Cards = ()  # what the last usable frame showed
    touched: bool = False  # seat zones: a hand seen in it since its play was last seen whole
    vanished: Cards = ()  # seat zones: cards of the play gone with no hand seen: misread
    vanished_at: tuple[float, str] = (0.0, "")
    read_as_played: Counter[str] = field(default_factory=Counter)  # frames each card read as such
    bare: bool = False  # seat zones: seen with no card and no unread paper since the sweep
    read_otherwise: Counter[tuple[str, str]] = field(default_factory=Counter)  # (card, read) frames


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
        takeback_s: float = TAKEBACK_S,
    ) -> None:
        self.settle_s = settle_s
        self.min_frames = min_frames
        self.takeback_s = takeback_s
        self.seats = tuple(seats)
        self.kitty_zone = kitty_zone
        self.kitty_size = kitty_size
        zones = [*self.seats, *([kitty_zone] if kitty_zone else [])]
        self._zones = {z: _Zone() for z in zones}
        self._kitty_shown: Cards | None = None
        self._kitty_partial: Cards = ()
        self._trick_plays = 0
        self._sweeping = False  # two seats' cards went at once this trick: it is being swept

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
        glimpsed: Collection[str] = (),
    ) -> list[Event]:
        """One decision frame: the identities seen in each zone (a missing zone shows nothing),
        and the zones where a card lay that no read named (``glimpsed``: a seat's play there
        was seen, unread).

        Returns the events this frame completes, in order.
        """
        events: list[Event] = []
        for name, zone in self._zones.items():
            seen = multiset(seat_cards.get(name, ()))
            blocked = motion.blocks(name)
            hand = _hand_in(motion, name)
            if name in self.seats and hand:
                zone.touched = True
            accepted = self._step(zone, seen, t, frame_ref, blocked, name in glimpsed)
            if accepted is not None:
                events += self._accept(name, zone, accepted, t, frame_ref)
            if name in self.seats and not blocked and not hand and not _sub(zone.played, seen):
                zone.touched = False  # the whole play in view, no hand over it
            if name in self.seats and not blocked:
                _tally_reads(zone, seen)
        lifting = [s for s in self.seats if self._zones[s].lifted]
        self._sweeping = self._sweeping or len(lifting) > 1
        if self._sweeping:  # several seats' cards gone at once: the sweep, until it is done
            for s in lifting:
                self._zones[s].lifted = ()
            lifting = []
        if self._trick_plays and all(not self._zones[s].stable for s in self.seats):
            played = [s for s in self.seats if self._zones[s].played]
            gone = [s for s in self.seats if self._zones[s].lifted or self._zones[s].vanished]
            lone = len(played) == 1 and gone == played and not self._unread()
            if lone and not _sub(self._zones[played[0]].played, self._gone(played[0])):
                return [*events, self._take_back(played[0])]  # the leader took its play back
            for s in lifting:
                self._zones[s].lifted = ()
            events += self._vanished_takebacks()
            events.append(TrickClearedEvent(t, frame_ref, self._unread(), self._read_otherwise()))
            self._new_trick()
            return events
        for s in lifting:
            zone = self._zones[s]
            back = not _sub(zone.played, zone.seen)  # in view again: its acceptance decides
            if not back and t - zone.lifted_at[0] >= self.takeback_s - 1e-9:
                events.append(self._take_back(s))
        return events

    def _gone(self, seat: str) -> Cards:
        """Cards of the seat's play out of view: lifted by a hand or vanished without one."""
        zone = self._zones[seat]
        return _union(zone.lifted, zone.vanished)

    def _take_back(self, seat: str) -> TakebackEvent:
        """The seat's cards out of view are a takeback: its play is what is left of it. Cards
        that vanished with no hand seen are in it in doubt (unsure, confidence 0.0)."""
        zone = self._zones[seat]
        cards = self._gone(seat)
        t, ref = zone.lifted_at if zone.lifted else zone.vanished_at
        if zone.lifted and zone.vanished:
            t, ref = min(zone.lifted_at, zone.vanished_at)
        doubt = tuple((c, 0.0) for c in dict.fromkeys(zone.vanished))
        zone.played, zone.lifted, zone.vanished = _sub(zone.played, cards), (), ()
        self._trick_plays = sum(bool(self._zones[s].played) for s in self.seats)
        return TakebackEvent(seat, cards, t, ref, doubt)

    def _vanished_takebacks(self) -> list[Event]:
        """At the end of a trick, the cards that vanished from a play with no hand seen and
        never came back while the rest of it lay there: takebacks in doubt. A whole play gone
        with no hand seen went with the sweep (a hand the gate missed)."""
        return [
            self._take_back(s)
            for s in self.seats
            if self._zones[s].vanished and _sub(self._zones[s].played, self._zones[s].vanished)
        ]

    def _unread(self) -> tuple[str, ...]:
        """Seats that played nothing this trick though their zone showed cards for a while."""
        return tuple(
            s
            for s in self.seats
            if not self._zones[s].played and self._zones[s].shown >= self.min_frames
        )

    def _read_otherwise(self) -> tuple[tuple[str, str, str], ...]:
        """``(seat, card, other)`` for each card of this trick's plays that its zone showed as
        ``other`` in its place on at least ``min_frames`` usable frames (as many as accept a
        play), and on at least :data:`OTHER_READ_SHARE` of the frames it was read either way."""
        out: list[tuple[str, str, str]] = []
        for seat in self.seats:
            zone = self._zones[seat]
            for card in dict.fromkeys(zone.played):
                others = [(n, o) for (c, o), n in zone.read_otherwise.items() if c == card]
                if not others:
                    continue
                n, other = max(others)
                if n >= self.min_frames and n >= OTHER_READ_SHARE * (n + zone.read_as_played[card]):
                    out.append((seat, card, other))
        return tuple(out)

    def _new_trick(self) -> None:
        self._trick_plays = 0
        self._sweeping = False
        for s in self.seats:
            self._zones[s].played = ()
            self._zones[s].shown = 0
            self._zones[s].lifted = ()
            self._zones[s].vanished = ()
            self._zones[s].read_as_played = Counter()
            self._zones[s].read_otherwise = Counter()
            self._zones[s].bare = False

    def _step(
        self, zone: _Zone, seen: Cards, t: float, ref: str, blocked: bool, glimpsed: bool = False
    ) -> tuple[Cards, tuple[float, str], tuple[float, str]] | None:
        """Advance one zone; on acceptance returns the accepted multiset, its landing (the first
        frame that differed from the stable state) and the first frame of its accepting run.
        ``glimpsed``: a card lay there that no read named (it showed cards all the same)."""
        # A card lying there unread (glimpsed) has landed as surely as one read, once the zone
        # was seen bare since the sweep (paper glimpsed through the sweep is the trick's cards,
        # or the pile left beside the zone): its play, once read, is dated from it.
        if not blocked and not seen and not glimpsed:
            zone.bare = True
        differs = seen != zone.stable or (glimpsed and not seen and zone.bare)
        if differs and zone.landed is None and (not blocked or _sub(seen, zone.stable)):
            zone.landed = (t, ref)
        if blocked:
            return None
        zone.seen = seen
        zone.shown += bool(seen) or glimpsed
        if seen == zone.stable:
            zone.cand, zone.cand_count = None, 0
            if not differs:
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
        before = zone.played
        added, removed = _sub(cards, before), _sub(before, cards)
        if not added:
            # Part of the play gone: lifted back, or a hand covering it (when it comes back);
            # gone with no hand seen: misread, not lifted.
            by_hand = _sub(removed, zone.vanished) if zone.touched or self._sweeping else ()
            if by_hand and not zone.lifted:
                zone.lifted_at = (t_run, ref_run)
            zone.lifted = by_hand  # () when the same cards are back: a hand had covered them
            vanished = _sub(removed, by_hand)
            if vanished and not zone.vanished:
                zone.vanished_at = (t_run, ref_run)
            zone.vanished = vanished
            return []
        out: list[Event] = []
        if zone.lifted or zone.vanished:
            out.append(self._take_back(name))  # other cards put down in their place
            before = zone.played
            added, removed = _sub(cards, before), _sub(before, cards)
        if removed and self._swept_but(name):
            # The winner's hand swept the trick and this seat led again before its zone was
            # seen empty (the sweeping hand covered it): the trick ends, the new cards lead.
            # They landed when first seen: the zone differed from the old play since the sweep.
            out += self._vanished_takebacks()
            cleared = TrickClearedEvent(t_landed, ref_landed, (), self._read_otherwise())
            self._new_trick()
            zone.played, self._trick_plays = cards, 1
            return [
                *out,
                cleared,
                PlayEvent(name, cards, t_run, t, ref_run, ref),
            ]
        zone.played = _union(before, cards)
        self._trick_plays += 1
        if removed:
            return [
                *out,
                RecognitionConflictEvent(
                    "cards_changed",
                    name,
                    cards,
                    f"{name} played {' '.join(before)} but its zone now shows "
                    f"{' '.join(cards)}; the referee decides which is right",
                    t,
                ),
            ]
        return [*out, PlayEvent(name, added, t_landed, t, ref_landed, ref)]


def _tally_reads(zone: _Zone, seen: Cards) -> None:
    """Count, for a seat's play lying in its zone, the usable frames that read each of its cards
    as itself, and those that read another card in its place (as many cards shown as played,
    the play's missing ones and the new ones paired in class order)."""
    if not zone.played:
        return
    missing, extra = _sub(zone.played, seen), _sub(seen, zone.played)
    zone.read_as_played.update(_sub(zone.played, missing))
    if missing and len(missing) == len(extra):
        zone.read_otherwise.update(zip(missing, extra, strict=True))


def _hand_in(motion: MotionState, zone: str) -> bool:
    """Whether a hand may be in ``zone`` this frame: motion in it (or over the whole table);
    without per-zone fractions, whatever blocks the zone."""
    if motion.zone_fractions:
        return motion.occluded or motion.zone_fractions.get(zone, 0.0) > MOVING_FRACTION
    return motion.blocks(zone)


@dataclass
class _Lying:
    """A card read outside every zone: where, since when, how often, how surely."""

    card: str
    where: tuple[float, float]
    first: tuple[float, str]
    frames: int = 1
    confidence: float = 1.0
    runner_up: str | None = None
    reported: bool = False
    last_t: float = 0.0  # when it was last read


class ExposedCardWatcher:
    """Cards lying face up outside every zone → ``exposed_card`` (see the module docstring).

    ``width_cm`` and ``height_cm`` give the table, so that a card is given to the seat whose
    edge it lies nearest; ``unsure_below`` marks a card read under that confidence unsure (with
    its runner-up read as ``maybe``)."""

    def __init__(
        self,
        width_cm: float,
        height_cm: float,
        *,
        hold_s: float = EXPOSED_HOLD_S,
        min_frames: int = 3,
        near_cm: float = EXPOSED_NEAR_CM,
        unsure_below: float = 0.0,
        join_s: float = DECLARATION_JOIN_S,
        grace_s: float = REPORTED_GRACE_S,
    ) -> None:
        self.width_cm = width_cm
        self.height_cm = height_cm
        self.hold_s = hold_s
        self.min_frames = min_frames
        self.near_cm = near_cm
        self.unsure_below = unsure_below
        self.join_s = join_s
        self.grace_s = grace_s
        self._lying: list[_Lying] = []
        self._showing: dict[str, list[_Lying]] = {}  # draw phase: a seat's cards not yet told
        self._showing_since: dict[str, float] = {}

    def seat_near(self, where: tuple[float, float]) -> str:
        """The seat whose table edge is nearest ``where`` (cm, origin NW, y toward S)."""
        x, y = where
        gaps = {"N": y, "E": self.width_cm - x, "S": self.height_cm - y, "W": x}
        return min(SEATS, key=lambda s: gaps[s])

    def observe(
        self,
        t: float,
        reads: Sequence[tuple[str, tuple[float, float], float, str | None]],
        frame_ref: str = "",
        *,
        draw_phase: bool = False,
    ) -> list[ExposedCardEvent | DeclarationEvent]:
        """One decision frame's cards read outside every zone, as ``(card, (x_cm, y_cm),
        confidence, runner-up or None)``; returns the exposed cards it completes, or in the
        draw phase (before the hand's first play) the declarations."""
        kept: list[_Lying] = []
        for card, where, confidence, runner_up in reads:
            same = next(
                (
                    c
                    for c in self._lying
                    if c.card == card
                    and all(c is not k for k in kept)
                    and math.dist(c.where, where) <= self.near_cm
                ),
                None,
            )
            if same is None:
                same = _Lying(card, where, (t, frame_ref), 0, confidence, runner_up)
            same.frames += 1
            same.last_t = t
            if confidence < same.confidence:
                same.confidence, same.runner_up = confidence, runner_up
            kept.append(same)
        missed = [
            c
            for c in self._lying
            if c.reported and all(c is not k for k in kept) and t - c.last_t <= self.grace_s
        ]
        self._lying = kept + missed
        out: list[ExposedCardEvent | DeclarationEvent] = []
        for c in kept:
            t0, ref0 = c.first
            if c.reported or c.frames < self.min_frames or t - t0 < self.hold_s - 1e-9:
                continue
            c.reported = True
            seat = self.seat_near(c.where)
            if draw_phase:
                self._showing.setdefault(seat, []).append(c)
                self._showing_since.setdefault(seat, t)
                continue
            unsure, maybe = self._doubt([c], jokers=True)
            out.append(ExposedCardEvent(c.card, c.where, seat, t0, ref0, unsure, maybe))
        for seat in list(self._showing):
            if draw_phase and t - self._showing_since[seat] < self.join_s - 1e-9:
                continue  # the rest of the showing may qualify a frame later
            cards = self._showing.pop(seat)
            del self._showing_since[seat]
            t0, ref0 = min(c.first for c in cards)
            unsure, maybe = self._doubt(cards)
            out.append(
                DeclarationEvent(seat, tuple(c.card for c in cards), t0, ref0, unsure, maybe)
            )
        return out

    def _doubt(
        self, cards: Sequence[_Lying], jokers: bool = False
    ) -> tuple[tuple[tuple[str, float], ...], tuple[tuple[str, str], ...]]:
        """``unsure`` (cards read under ``unsure_below``, and with ``jokers`` every joker) and
        ``maybe`` (their runner-ups)."""
        doubtful = [
            c for c in cards if c.confidence < self.unsure_below or (jokers and c.card in JOKERS)
        ]
        unsure = tuple((c.card, round(c.confidence, 3)) for c in doubtful)
        maybe = tuple((c.card, c.runner_up) for c in doubtful if c.runner_up)
        return unsure, maybe
