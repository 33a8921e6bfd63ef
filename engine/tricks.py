"""Tricks: who wins, how many points, and whether a follow or a throw obeys the rules.

Everything here works on one trick and on a *holding* (the cards a seat is known to have held
when it played: its exact hand when hands are known, or a lower bound built from its later
plays). Follow obligations are monotone in the holding — more cards only add duties — so a
violation against a lower bound is a violation against the true hand: that is what lets
:mod:`engine.audit` prove revokes from plays alone.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from engine.combos import (
    Unit,
    beating_unit,
    class_count,
    decompose,
    longest_run,
    pair_count,
    shape_key,
)
from engine.order import TRUMP, HandOrder
from engine.profiles import RuleProfile


@dataclass(frozen=True)
class Lead:
    """The first play of a trick, read: its class, size and units."""

    cards: tuple[str, ...]
    cls: str | None  # None when the cards mix classes (an irregular lead)
    units: tuple[Unit, ...]

    @property
    def size(self) -> int:
        return len(self.cards)

    @property
    def is_throw(self) -> bool:
        return len(self.units) > 1

    @property
    def pairs(self) -> int:
        return sum(u.pairs for u in self.units)

    @property
    def longest_tractor(self) -> int:
        return max((u.pairs for u in self.units if u.pairs >= 2), default=0)


def read_lead(order: HandOrder, cards: Sequence[str]) -> Lead:
    classes = {order.cls_of[c] for c in cards}
    if len(classes) != 1:
        return Lead(tuple(cards), None, ())
    return Lead(tuple(cards), next(iter(classes)), tuple(decompose(order, cards)))


@dataclass(frozen=True)
class FollowViolation:
    """A follow that breaks an obligation; ``wrong_cards`` is how many cards had to change."""

    obligation: str  # "suit", "pair" or "tractor"
    wrong_cards: int
    needed: int
    played: int
    held: int


def follow_violation(
    order: HandOrder,
    profile: RuleProfile,
    lead: Lead,
    holding: Counter[str],
    play: Sequence[str],
) -> FollowViolation | None:
    """The first obligation ``play`` breaks given ``holding`` (which includes ``play``)."""
    if lead.cls is None or not play:
        return None
    cls = lead.cls
    n = lead.size
    cls_of = order.cls_of
    played_in_class = sum(1 for c in play if cls_of[c] == cls)
    if played_in_class < n:  # a full answer in the led class breaks no suit duty
        held_in_class = class_count(order, holding, cls)
        need = min(n, held_in_class)
        if played_in_class < need:
            short = need - played_in_class
            return FollowViolation("suit", short, need, played_in_class, held_in_class)
    if lead.pairs == 0:
        return None
    played = Counter(play)
    if profile.follow_tractor and lead.longest_tractor >= 2:
        held_run = longest_run(order, holding, cls)
        if held_run >= 2:
            need_run = min(lead.longest_tractor, held_run)
            played_run = longest_run(order, played, cls)
            if played_run < need_run:
                wrong = min(n, 2 * need_run)
                return FollowViolation("tractor", wrong, need_run, played_run, held_run)
    if profile.follow_pair and lead.pairs >= 1:
        held_pairs = pair_count(order, holding, cls)
        need_pairs = min(lead.pairs, held_pairs)
        played_pairs = pair_count(order, played, cls)
        if played_pairs < need_pairs:
            wrong = min(n, 2 * (need_pairs - played_pairs))
            return FollowViolation("pair", wrong, need_pairs, played_pairs, held_pairs)
    return None


PlayKey = tuple[int, int, int]
"""(1 if trumping a side lead else 0, tractor bonus, strength): the larger key wins."""


def _tractor_bonus(order: HandOrder, lead: Lead, cards: Sequence[str]) -> int:
    """With ``tractor_beats_pairs`` (LY 「連對子大於兩個不連的對子」 000 L90), against a lead of two
    or more loose pairs: the longest tractor the answer's pairs form; otherwise 0."""
    if not order.profile.tractor_beats_pairs or sum(u.pairs == 1 for u in lead.units) < 2:
        return 0
    run = longest_run(order, Counter(cards), order.info[cards[0]].cls)
    return run if run >= 2 else 0


def play_key(order: HandOrder, lead: Lead, cards: Sequence[str]) -> PlayKey | None:
    """How strong ``cards`` are against ``lead`` (:data:`PlayKey`), or None when they cannot win
    (wrong class, wrong shape, or a same-class answer to a side-suit throw)."""
    if lead.cls is None:
        return None
    key = shape_key(order, lead.units, cards)
    if key is None:
        return None
    cls = order.info[cards[0]].cls
    if cls == lead.cls:
        if lead.is_throw and cls != TRUMP:
            return None
        return (0, _tractor_bonus(order, lead, cards), key)
    if cls == TRUMP:
        return (1, _tractor_bonus(order, lead, cards), key)
    return None


def winner_index(order: HandOrder, lead: Lead, plays: Sequence[Sequence[str]]) -> int:
    """Index of the winning play; ``plays[0]`` is the lead, the rest in order of play.

    Equal keys: the earlier play wins (``tie_rule = "first_played"``: HF 「每輪中相同花色，相同
    大小的牌以先出為大」 004 L26, 「同等大小的牌以先出為大」 004 L41).
    """
    best = 0
    lead_key = shape_key(order, lead.units, lead.cards) if lead.units else None
    best_key = None if lead_key is None else (0, _tractor_bonus(order, lead, lead.cards), lead_key)
    for i, cards in enumerate(plays[1:], start=1):
        key = play_key(order, lead, cards)
        if key is not None and (best_key is None or key > best_key):
            best, best_key = i, key
    return best


@dataclass(frozen=True)
class ThrowDefeat:
    """A unit of a throw and the higher unit another seat held against it."""

    thrown: Unit
    beaten_by: tuple[str, ...]


def throw_defeat(order: HandOrder, lead: Lead, holding: Counter[str]) -> ThrowDefeat | None:
    """The smallest unit of the throw ``lead`` that ``holding`` could beat, if any."""
    if lead.cls is None or not lead.is_throw:
        return None
    for unit in sorted(lead.units, key=lambda u: (u.pairs, u.top)):
        beaten = beating_unit(order, unit, lead.cls, holding)
        if beaten is not None:
            return ThrowDefeat(unit, beaten)
    return None
