"""What the auditor asks of this package: the findings before play, and a hand they end.

:func:`check_before_play` gathers the findings of a record's draw, bidding, kitty moves,
redeals, exposed cards and takebacks (nothing for a record without those fields). A false
declaration under ``false_declare_ends_hand`` ends the hand when found (:func:`ends_hand`):
its tricks, if any were recorded, count for nothing, and :func:`ended_result` settles it on the
penalties alone, as a hand in which the defenders took no points — B's 80 lets defenders
offended against reach 80 and take over; HF's 200 is its 2.4 jump (defenders at 200 jump to A,
a declarer side whose defenders end below 0 has the 大光 jump).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from engine.preplay.declarations import check_declarations
from engine.preplay.fields import times
from engine.preplay.proofs import Finding
from engine.preplay.table import check_draw, check_incidents, check_reburials, with_read_doubt
from engine.profiles import RuleProfile
from engine.record import HandRecord
from engine.scoring import HandOutcome, settle_hand


def check_before_play(record: HandRecord, profile: RuleProfile) -> list[Finding]:
    """Every finding of the record's fields before play and beside the tricks."""
    if record.preplay.empty:
        return []
    return [
        *check_draw(record, profile),
        *with_read_doubt(record, check_declarations(record, profile)),
        *check_reburials(record, profile),
        *check_incidents(record, profile),
    ]


def ends_hand(proof: Mapping[str, Any]) -> bool:
    """Whether an infraction with this proof ends the hand when it counts."""
    return proof.get("ends_hand") is True


def ended_result(
    profile: RuleProfile, record: HandRecord, penalties_to_defenders: int
) -> HandOutcome:
    """The result of a hand ended before its play counts: no table points, no kitty."""
    return settle_hand(
        profile,
        levels=record.levels,
        declarer=record.declarer,
        defender_table_points=0,
        kitty_points=0,
        kitty_multiplier=1,
        defenders_won_last_trick=False,
        last_trick_winning_cards=(),
        last_trick_is_throw=False,
        penalties_to_defenders=penalties_to_defenders,
        first_hand=record.first_hand,
        must_play_done=record.must_play_done,
        played=False,
    )


def preplay_times(record: HandRecord) -> list[float]:
    """The times the record's fields before play give (the hand's clock may start there)."""
    return times(record.preplay)


def kitty_burier(record: HandRecord) -> str:
    """The seat that buried the kitty last: the last burial the record lists, else the
    declarer (the kitty goes back to whoever 炒 last, 「还可将底牌取回重垫8张底牌」 002 L41)."""
    for e in reversed(record.preplay.events or ()):
        if e.action == "bury":
            return e.seat
    return record.declarer
