"""The draw phase's first play is held until it is a lead or is lifted as a showing."""

from __future__ import annotations

from chaodipi.table.bidding_lead import BiddingLeadHold
from vision.events import (
    DeclarationEvent,
    KittyEvent,
    PlayEvent,
    TakebackEvent,
    TrickClearedEvent,
)

SHOWN = PlayEvent("E", ("SJ",), 13.3, 13.8, "133", "138", (("SJ", 0.59),), (("SJ", "BJ"),))


def test_a_lone_first_play_whose_trick_is_collected_alone_was_a_showing() -> None:
    """The tracker clears a trick of that play alone (other zones showed cards it never read):
    one declaration of the seat, dated when the card landed, with the play's doubt."""
    hold = BiddingLeadHold()
    assert hold.sort([SHOWN], draw_phase=True) == []
    told = hold.sort([TrickClearedEvent(15.0, "150", ("N", "S", "W"))], draw_phase=True)
    assert told == [DeclarationEvent("E", ("SJ",), 13.3, "133", (("SJ", 0.59),), (("SJ", "BJ"),))]
    assert hold.release() == []


def test_part_of_a_pair_taken_back_is_a_lead_and_a_takeback() -> None:
    hold = BiddingLeadHold()
    pair = PlayEvent("E", ("5H", "5H"), 1.0, 1.5)
    half = TakebackEvent("E", ("5H",), 3.0)
    assert hold.sort([pair, half], draw_phase=True) == [pair, half]


def test_another_seats_play_or_the_kitty_releases_the_held_lead_first() -> None:
    lead, follow = PlayEvent("N", ("AS",), 1.0, 1.5), PlayEvent("E", ("KS",), 2.0, 2.5)
    hold = BiddingLeadHold()
    assert hold.sort([lead], draw_phase=True) == []
    assert hold.sort([follow], draw_phase=False) == [lead, follow]
    kitty = KittyEvent(("3C",) * 8, 9.0)
    assert hold.sort([lead], draw_phase=True) == []
    assert hold.sort([kitty], draw_phase=True) == [lead, kitty]


def test_plays_of_three_cards_and_plays_after_the_draw_phase_are_never_held() -> None:
    hold = BiddingLeadHold()
    triple = PlayEvent("N", ("AS", "AS", "KS"), 1.0, 1.5)
    assert hold.sort([triple, PlayEvent("E", ("KS",), 2.0, 2.5)], draw_phase=True) == [
        triple,
        PlayEvent("E", ("KS",), 2.0, 2.5),
    ]
    assert hold.sort([PlayEvent("S", ("QS",), 3.0, 3.5)], draw_phase=False) != []
