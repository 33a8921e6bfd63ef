"""Detector classes: the 54 card identities in the project's notation, in a fixed order.

The order is the one of ``shared/data/real_cards_dev/classes.txt`` (rank-major ``2S 2H 2D 2C …
AS AH AD AC BJ SJ``), so class ids mean the same thing in our datasets, the model and the
real photographs used to validate it.
"""

from __future__ import annotations

from engine.cards import RANKS, SUITS

JOKERS: tuple[str, str] = ("BJ", "SJ")  # big (red) and small (black) joker
CLASS_NAMES: tuple[str, ...] = (*(r + s for r in RANKS for s in SUITS), *JOKERS)
CLASS_ID: dict[str, int] = {name: i for i, name in enumerate(CLASS_NAMES)}
