"""Combinations: singles, pairs, tractors and throws, and how a play of several cards is read.

A *unit* is a single card, a pair (two identical cards) or a tractor (pairs on adjacent ladder
slots, adjacency per the profile's tractor knobs, see :mod:`engine.order`). A lead of several
units of one class is a throw (甩牌). Units are described by their number of pairs: 0 = single,
1 = pair, L ≥ 2 = tractor of L pairs. This module decomposes plays into units, finds the
tractors a set of cards can form, and answers whether a play has the shape of a lead (and how
strong it is), which is all that trick-taking and follow checks need.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from engine.order import HandOrder


@dataclass(frozen=True)
class Unit:
    """One unit of a play: ``pairs`` 0 (single), 1 (pair) or L (tractor); ``top`` its strength."""

    pairs: int
    cards: tuple[str, ...]
    top: int

    @property
    def size(self) -> int:
        return max(1, 2 * self.pairs)

    def kind(self) -> str:
        if self.pairs == 0:
            return "single"
        if self.pairs == 1:
            return "pair"
        return f"{self.pairs}-pair tractor"


def classes_of(order: HandOrder, cards: Iterable[str]) -> set[str]:
    return {order.info[c].cls for c in cards}


def _pair_slots(order: HandOrder, counts: Counter[str], cls: str) -> dict[int, list[str]]:
    """Ladder slot → identities of ``cls`` held as a pair (two copies) in ``counts``."""
    slots: dict[int, list[str]] = {}
    info = order.info
    for card, n in counts.items():
        if n >= 2:
            ci = info[card]
            if ci.cls == cls:
                slots.setdefault(ci.slot, []).append(card)
    for cards in slots.values():
        cards.sort()
    return slots


def _runs(order: HandOrder, slots: dict[int, list[str]], cls: str) -> list[list[int]]:
    """Maximal runs of adjacent slots holding a pair, low to high, as lists of slot indices.

    With the A–2 wrap a run may start with the A slot (written as its index) below slot 0.
    """
    adjacent = order.adjacent[cls]
    runs: list[list[int]] = []
    current: list[int] = []
    for slot in sorted(slots):
        if current and slot == current[-1] + 1 and adjacent[current[-1]]:
            current.append(slot)
        else:
            if current:
                runs.append(current)
            current = [slot]
    if current:
        runs.append(current)
    top = len(order.ladders[cls]) - 1
    if runs and top in slots and 0 in slots and order.wraps(cls) and runs[0][-1] != top:
        runs.append([top, *runs[0]])  # the A pair may sit below the 2 pair instead of on top
    return runs


def _run_top_strength(order: HandOrder, cls: str, run: Sequence[int]) -> int:
    """Strength of a run: that of its highest slot, an A placed below 2 counting lowest."""
    ladder = order.ladders[cls]
    if len(run) > 1 and run[0] > run[1]:  # wrapped A–2… run: its top is the last slot
        return order.info[ladder[run[-1]][0]].strength - 1
    return order.info[ladder[run[-1]][0]].strength


def longest_run(order: HandOrder, counts: Counter[str], cls: str) -> int:
    """Length (in pairs) of the longest tractor ``counts`` can form in ``cls``; 0 if no pair."""
    slots = _pair_slots(order, counts, cls)
    if not slots:
        return 0
    return max(len(r) for r in _runs(order, slots, cls))


def pair_count(order: HandOrder, counts: Counter[str], cls: str) -> int:
    cls_of = order.cls_of
    return sum(1 for c, n in counts.items() if n >= 2 and cls_of[c] == cls)


def class_count(order: HandOrder, counts: Counter[str], cls: str) -> int:
    cls_of = order.cls_of
    total = 0
    for c, n in counts.items():
        if cls_of[c] == cls:
            total += n
    return total


def decompose(order: HandOrder, cards: Sequence[str]) -> list[Unit]:
    """Units of a one-class play, largest first: longest tractors, then pairs, then singles."""
    if len(cards) == 1:
        return [Unit(0, (cards[0],), order.strength_of[cards[0]])]
    if len(cards) == 2 and cards[0] == cards[1]:
        return [Unit(1, (cards[0], cards[0]), order.strength_of[cards[0]])]
    counts: Counter[str] = Counter(cards)
    units: list[Unit] = []
    if cards:
        cls = order.info[cards[0]].cls
        while True:
            slots = _pair_slots(order, counts, cls)
            runs = [r for r in _runs(order, slots, cls) if len(r) >= 2]
            if not runs:
                break
            best = max(runs, key=lambda r: (len(r), _run_top_strength(order, cls, r)))
            taken: list[str] = []
            for slot in best:
                card = slots[slot][-1]
                taken += [card, card]
                counts[card] -= 2
            units.append(Unit(len(best), tuple(taken), _run_top_strength(order, cls, best)))
        for card in sorted(counts, key=lambda c: -order.info[c].strength):
            n = counts[card]
            if n >= 2:
                units.append(Unit(1, (card, card), order.info[card].strength))
                n -= 2
            units.extend(Unit(0, (card,), order.info[card].strength) for _ in range(n))
    units.sort(key=lambda u: (-u.pairs, -u.top))
    return units


def shape_key(order: HandOrder, lead: Sequence[Unit], cards: Sequence[str]) -> int | None:
    """If ``cards`` (one class) can be laid out in the lead's shape, the strength of its match
    for the lead's largest unit (the best such layout); otherwise None.

    A tractor of the lead must be matched by a tractor of exactly its length (a part of a longer
    run counts), a pair by a pair, a single by any card.
    """
    if len(lead) == 1 and lead[0].pairs <= 1:  # a single or a pair: the most common lead
        if lead[0].pairs == 0:
            return order.strength_of[cards[0]] if len(cards) == 1 else None
        if len(cards) == 2 and cards[0] == cards[1]:
            return order.strength_of[cards[0]]
        return None
    if not cards or sum(u.size for u in lead) != len(cards):
        return None
    cls_of = order.cls_of
    cls = cls_of[cards[0]]
    if any(cls_of[c] != cls for c in cards):
        return None
    needs = sorted((u.pairs for u in lead), reverse=True)
    counts: Counter[str] = Counter(cards)
    return _place(order, cls, counts, needs, first=True)


def _place(
    order: HandOrder, cls: str, counts: Counter[str], needs: list[int], first: bool
) -> int | None:
    if not needs:
        return 0
    need = needs[0]
    info = order.info
    if need == 0:
        if first:
            return max(info[c].strength for c, n in counts.items() if n > 0)
        return 0
    slots = _pair_slots(order, counts, cls)
    if need == 1:
        pairs = [c for cs in slots.values() for c in cs]
        if len(pairs) < sum(1 for n in needs if n == 1):
            return None
        if first:
            return max(info[c].strength for c in pairs)
        return 0
    best: int | None = None
    for run in _runs(order, slots, cls):
        for start in range(len(run) - need + 1):
            part = run[start : start + need]
            used = [slots[s][-1] for s in part]
            for c in used:
                counts[c] -= 2
            rest = _place(order, cls, +counts, needs[1:], first=False)
            for c in used:
                counts[c] += 2
            if rest is not None:
                key = _run_top_strength(order, cls, part) if first else 0
                if best is None or key > best:
                    best = key
                if not first:
                    return 0
    return best


def _low_strength(order: HandOrder, unit: Unit) -> int:
    """Strength of the weakest pair of a tractor (an A placed below 2 counting lowest)."""
    info = order.info
    lows = [info[c].strength for c in unit.cards]
    ranks = {c[:-1] for c in unit.cards}
    if "A" in ranks and "2" in ranks and order.wraps(info[unit.cards[0]].cls):
        return min(s for c, s in zip(unit.cards, lows, strict=True) if c[:-1] == "2") - 1
    return min(lows)


def beating_unit(
    order: HandOrder, unit: Unit, cls: str, holding: Counter[str]
) -> tuple[str, ...] | None:
    """A unit in ``cls`` within ``holding`` that beats ``unit`` of a throw: of the same kind and
    strictly stronger, under ``throw_legal = "each_unit"``; under ``"singles_and_pairs"`` a
    tractor is judged pair by pair, so a pair stronger than its weakest pair beats it
    (「只要有一张牌或一对牌比其他人手中牌小」 002 L58)."""
    info = order.info
    if unit.pairs >= 2 and order.profile.throw_legal == "singles_and_pairs":
        unit = Unit(1, unit.cards[:2], _low_strength(order, unit))
    if unit.pairs == 0:
        higher = [c for c, n in holding.items() if n > 0 and info[c].cls == cls]
        higher = [c for c in higher if info[c].strength > unit.top]
        if higher:
            return (max(higher, key=lambda c: info[c].strength),)
        return None
    slots = _pair_slots(order, holding, cls)
    if unit.pairs == 1:
        pairs = [c for cs in slots.values() for c in cs if info[c].strength > unit.top]
        if pairs:
            best = max(pairs, key=lambda c: info[c].strength)
            return (best, best)
        return None
    for run in _runs(order, slots, cls):
        if len(run) >= unit.pairs:
            part = run[-unit.pairs :]
            if _run_top_strength(order, cls, part) > unit.top:
                return tuple(c for s in part for c in (slots[s][0], slots[s][0]))
    return None


def unit_text(cards: Iterable[str]) -> str:
    return " ".join(cards)
