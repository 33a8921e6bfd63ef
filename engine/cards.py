"""Cards and seats: the notation shared by records, the API, logs and tests.

A card is its notation string: rank ``2…10,J,Q,K,A`` + suit ``S H D C`` (``10H``, ``QS``), or a
joker ``BJ`` (big/red) / ``SJ`` (small/black). Two decks make 108 cards, so a hand is a multiset
(:class:`collections.Counter`) in which every identity appears at most twice. Seats ``N E S W``
lie clockwise seen from above; N–S and E–W are partners.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from functools import cache

RANKS: tuple[str, ...] = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")
SUITS: tuple[str, ...] = ("S", "H", "D", "C")
JOKERS: tuple[str, ...] = ("SJ", "BJ")
SUIT_NAMES_ZH: dict[str, str] = {"S": "黑桃", "H": "红桃", "D": "方块", "C": "梅花", "NT": "无主"}
RANK_VALUE: dict[str, int] = {r: i + 2 for i, r in enumerate(RANKS)}
COPIES = 2
DECK_SIZE = 108
SEATS: tuple[str, ...] = ("N", "E", "S", "W")
SIDES: tuple[str, ...] = ("NS", "EW")


class CardError(ValueError):
    """A card written in something other than the project's notation."""


ALL_IDENTITIES: tuple[str, ...] = tuple(r + s for s in SUITS for r in RANKS) + JOKERS


@cache
def parse(card: str) -> tuple[str, str]:
    """``(rank, suit)`` of a card; jokers are ``("SJ", "J")`` / ``("BJ", "J")``."""
    if card in JOKERS:
        return card, "J"
    if len(card) >= 2 and card[:-1] in RANK_VALUE and card[-1] in SUITS:
        return card[:-1], card[-1]
    raise CardError(
        f"unknown card {card!r}: write rank 2-10,J,Q,K,A + suit S,H,D,C (e.g. 10H) or BJ/SJ"
    )


def rank_of(card: str) -> str:
    return parse(card)[0]


def suit_of(card: str) -> str:
    """The printed suit; ``J`` for jokers."""
    return parse(card)[1]


def points_of(card: str) -> int:
    """Card points: 5 → 5, 10 and K → 10."""
    rank = parse(card)[0]
    if rank == "5":
        return 5
    if rank in ("10", "K"):
        return 10
    return 0


def points(cards: Iterable[str]) -> int:
    return sum(points_of(c) for c in cards)


def full_deck() -> list[str]:
    """The 108 cards of two decks, in a fixed order."""
    return [c for c in ALL_IDENTITIES for _ in range(COPIES)]


def validate_cards(cards: Iterable[str]) -> list[str]:
    """The cards, each checked against the notation (raises :class:`CardError`)."""
    out = list(cards)
    for c in out:
        parse(c)
    return out


def over_copies(cards: Iterable[str]) -> list[str]:
    """Identities present more than twice (a third copy cannot exist in two decks)."""
    counts = Counter(cards)
    return sorted(c for c, n in counts.items() if n > COPIES)


def side_of(seat: str) -> str:
    return "NS" if seat in ("N", "S") else "EW"


def partner_of(seat: str) -> str:
    return {"N": "S", "S": "N", "E": "W", "W": "E"}[seat]


def other_side(side: str) -> str:
    return "EW" if side == "NS" else "NS"
