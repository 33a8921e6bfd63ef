"""Card order for one hand: which cards are trump, how cards compare, which pairs are adjacent.

Given the level rank and the trump suit (or no-trump), :class:`HandOrder` puts every card in a
*class* (``"T"`` for trump, else its side suit) and on a *ladder* of slots, low to high:

* trump: trump suit A…2 without the level rank, the off-suit level cards (one slot: equal
  among themselves), the trump-suit level card, SJ, BJ. In no-trump the level cards of all four
  suits share one slot under SJ and BJ.
* each side suit: 2…A without the level rank.

Strength compares cards of one class (a trump beats any side card); equal strength means the
first played wins. Which neighbouring slots a tractor may join is set by the profile's tractor
knobs (VARIANTS.md §5).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

from engine.cards import ALL_IDENTITIES, RANK_VALUE, RANKS, SUITS, parse
from engine.profiles import RuleProfile

TRUMP = "T"


@dataclass(frozen=True)
class CardInfo:
    cls: str  # "T" or a side suit
    slot: int  # index on the class's ladder
    strength: int  # comparable across classes: trumps are above every side card


@dataclass
class HandOrder:
    """The order of cards for a hand at ``level`` (a rank) with ``trump`` (suit or ``"NT"``)."""

    level: str
    trump: str
    profile: RuleProfile
    info: dict[str, CardInfo] = field(init=False)
    ladders: dict[str, list[tuple[str, ...]]] = field(init=False)
    # adjacent[cls][i] is True when slot i and slot i+1 may be consecutive pairs of a tractor
    adjacent: dict[str, list[bool]] = field(init=False)

    def __post_init__(self) -> None:
        if self.level not in RANK_VALUE:
            raise ValueError(f"unknown level rank {self.level!r}: use one of {', '.join(RANKS)}")
        if self.trump != "NT" and self.trump not in SUITS:
            raise ValueError(f"unknown trump {self.trump!r}: use S, H, D, C or NT")
        p = self.profile
        self.ladders = {}
        self.adjacent = {}
        plain_ranks = [r for r in RANKS if r != self.level]

        def hollow_ok(lo: str, hi: str) -> bool:
            gap = RANK_VALUE[hi] - RANK_VALUE[lo]
            return gap == 1 or (gap == 2 and p.tractor_hollow)

        for suit in SUITS:
            if suit == self.trump:
                continue
            self.ladders[suit] = [(r + suit,) for r in plain_ranks]
            self.adjacent[suit] = [hollow_ok(a, b) for a, b in itertools.pairwise(plain_ranks)]
        trump_ladder: list[tuple[str, ...]] = []
        trump_adj: list[bool] = []
        if self.trump != "NT":
            trump_ladder = [(r + self.trump,) for r in plain_ranks]
            trump_adj = [hollow_ok(a, b) for a, b in itertools.pairwise(plain_ranks)]
            off_level = tuple(self.level + s for s in SUITS if s != self.trump)
            trump_adj.append(p.tractor_offlevel_trump_a)  # trump top (A) → off-suit level
            trump_ladder.append(off_level)
            trump_adj.append(p.tractor_level_offlevel)  # off-suit level → trump level
            trump_ladder.append((self.level + self.trump,))
            trump_adj.append(p.tractor_sj_level)  # trump level → SJ
        else:
            trump_ladder.append(tuple(self.level + s for s in SUITS))
            trump_adj.append(False)  # no "trump-suit level" card exists in no-trump
        trump_ladder.append(("SJ",))
        trump_adj.append(p.tractor_jokers)
        trump_ladder.append(("BJ",))
        self.ladders[TRUMP] = trump_ladder
        self.adjacent[TRUMP] = trump_adj
        self.info = {}
        for cls, ladder in self.ladders.items():
            base = 1000 if cls == TRUMP else 0
            for i, slot in enumerate(ladder):
                for card in slot:
                    self.info[card] = CardInfo(cls, i, base + i)
        assert len(self.info) == len(ALL_IDENTITIES)

    def cls(self, card: str) -> str:
        return self.info[card].cls

    def is_trump(self, card: str) -> bool:
        return self.info[card].cls == TRUMP

    def strength(self, card: str) -> int:
        return self.info[card].strength

    def slot(self, card: str) -> int:
        return self.info[card].slot

    def wraps(self, cls: str) -> bool:
        """Whether an A pair may sit below the 2 pair of this side suit (A–2 tractor)."""
        return (
            cls != TRUMP
            and self.profile.tractor_wrap_a2
            and self.level not in ("A", "2")
            and parse(self.ladders[cls][-1][0])[0] == "A"
        )

    def describe_class(self, cls: str) -> str:
        names = {"S": "spades ♠", "H": "hearts ♥", "D": "diamonds ♦", "C": "clubs ♣"}
        return "trumps" if cls == TRUMP else names[cls]
