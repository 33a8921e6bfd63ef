"""Card order for one hand: which cards are trump, how cards compare, which pairs are adjacent.

Given the level rank and the trump suit (or no-trump), :class:`HandOrder` puts every card in a
*class* (``"T"`` for trump, else its side suit) and on a *ladder* of slots, low to high:

* trump (``trump_order = "standard"``): trump suit 2…A without the level rank, the off-suit
  level cards (one slot, equal among themselves, with ``offsuit_level_equal``; else one slot a
  suit, ♦ < ♣ < ♥ < ♠), the trump-suit level card, SJ, BJ. In no-trump the level cards of all
  four suits share one slot (or four, ranked by suit) under SJ and BJ.
* ``trump_order = "red_five_star"`` (NT 「大王小王連對、紅五星、大王、小王」 000 L37): the 紅五星,
  ♥5, is a trump above BJ in every hand, whatever the trump suit or level; it leaves the hearts
  ladder (its gap is hollow like the level rank's) and joins no tractor (the joker tractor is the
  biggest, 「大王小王為最大姊妹對」 000 L40).
* each side suit: 2…A without the level rank (and without ♥5 under the red five star).

Strength compares cards of one class (a trump beats any side card); equal strength means the
first played wins (``tie_rule``). Which neighbouring slots a tractor may join is set by the
profile's tractor knobs (VARIANTS.md §5). :func:`hand_order` returns one shared, cached order
per (level, trump, profile): an order never changes once built.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from engine.cards import ALL_IDENTITIES, RANK_VALUE, RANKS, SUITS, parse
from engine.profiles import RuleProfile

TRUMP = "T"
RED_FIVE_STAR = "5H"
"""The 紅五星 of NT's ladder: 紅 is 紅桃 in NT's own text (「副牌紅桃五十k時可不逼紅五十k」
000 L39), and 「紅五星對」 (000 L45) is a pair, two identical cards."""
SUIT_RANKING: tuple[str, ...] = ("D", "C", "H", "S")
"""Suits low to high where a rule ranks them (``offsuit_level_equal = false``): the only order of
suits for cards in any regulation, NT's 「黑桃、紅桃、梅花、方塊」 (000 L37)."""

_Slot = tuple[tuple[str, ...], bool]  # (cards on the slot, may it join the next slot in a tractor)


@dataclass(frozen=True)
class CardInfo:
    cls: str  # "T" or a side suit
    slot: int  # index on the class's ladder
    strength: int  # comparable across classes: trumps are above every side card


def _chain(slots: list[_Slot]) -> tuple[list[tuple[str, ...]], list[bool]]:
    """The ladder and its adjacency from slots low to high, dropping empty slots (a link
    across a dropped slot is broken)."""
    ladder: list[tuple[str, ...]] = []
    adjacent: list[bool] = []
    for cards, link in slots:
        if not cards:
            if adjacent:
                adjacent[-1] = False
            continue
        ladder.append(cards)
        adjacent.append(link)
    return ladder, adjacent[:-1]


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
    cls_of: dict[str, str] = field(init=False)  # info[card].cls, read in the hot paths
    strength_of: dict[str, int] = field(init=False)  # info[card].strength

    def __post_init__(self) -> None:
        if self.level not in RANK_VALUE:
            raise ValueError(f"unknown level rank {self.level!r}: use one of {', '.join(RANKS)}")
        if self.trump != "NT" and self.trump not in SUITS:
            raise ValueError(f"unknown trump {self.trump!r}: use S, H, D, C or NT")
        p = self.profile
        stars = (RED_FIVE_STAR,) if p.trump_order == "red_five_star" else ()
        self.ladders = {}
        self.adjacent = {}

        def suit_slots(suit: str) -> list[_Slot]:
            """2…A of ``suit`` without the level rank and the stars; a gap of one missing
            rank (a trump) joins its neighbours with ``tractor_hollow``."""
            ranks = [r for r in RANKS if r != self.level and r + suit not in stars]
            slots: list[_Slot] = []
            for lo, hi in zip(ranks, [*ranks[1:], None], strict=True):
                gap = 0 if hi is None else RANK_VALUE[hi] - RANK_VALUE[lo]
                slots.append(((lo + suit,), gap == 1 or (gap == 2 and p.tractor_hollow)))
            return slots

        def level_slots(suits: tuple[str, ...], last_link: bool) -> list[_Slot]:
            cards = tuple(self.level + s for s in suits if self.level + s not in stars)
            if p.offsuit_level_equal:
                return [(cards, last_link)]
            ranked = sorted(cards, key=lambda c: SUIT_RANKING.index(parse(c)[1]))
            links = [False] * (len(ranked) - 1) + [last_link]  # two suits' pairs never join
            return [((c,), link) for c, link in zip(ranked, links, strict=True)]

        for suit in SUITS:
            if suit != self.trump:
                self.ladders[suit], self.adjacent[suit] = _chain(suit_slots(suit))
        trump: list[_Slot] = []
        if self.trump != "NT":
            trump += suit_slots(self.trump)
            if trump:  # trump top (A) → off-suit level
                trump[-1] = (trump[-1][0], p.tractor_offlevel_trump_a)
            off_suits = tuple(s for s in SUITS if s != self.trump)
            trump += level_slots(off_suits, p.tractor_level_offlevel)  # → trump level
            own = self.level + self.trump
            trump.append(((own,) if own not in stars else (), p.tractor_sj_level))  # → SJ
        else:  # no "trump-suit level" card exists in no-trump
            trump += level_slots(SUITS, False)
        trump += [(("SJ",), p.tractor_jokers), (("BJ",), False), (stars, False)]
        self.ladders[TRUMP], self.adjacent[TRUMP] = _chain(trump)
        self.info = {}
        for cls, ladder in self.ladders.items():
            base = 1000 if cls == TRUMP else 0
            for i, slot in enumerate(ladder):
                for card in slot:
                    self.info[card] = CardInfo(cls, i, base + i)
        assert len(self.info) == len(ALL_IDENTITIES)
        self.cls_of = {card: ci.cls for card, ci in self.info.items()}
        self.strength_of = {card: ci.strength for card, ci in self.info.items()}

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
            and parse(self.ladders[cls][0][0])[0] == "2"
        )

    def describe_class(self, cls: str) -> str:
        names = {"S": "spades ♠", "H": "hearts ♥", "D": "diamonds ♦", "C": "clubs ♣"}
        return "trumps" if cls == TRUMP else names[cls]


@lru_cache(maxsize=256)
def hand_order(level: str, trump: str, profile: RuleProfile) -> HandOrder:
    """The order of a hand, built once per (level, trump, profile) and shared (read-only)."""
    return HandOrder(level, trump, profile)
