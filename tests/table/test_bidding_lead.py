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
AS_DECLARED = DeclarationEvent("E", ("SJ",), 13.3, "133", (("SJ", 0.59),), (("SJ", "BJ"),))


def test_a_lone_first_play_collected_alone_then_another_seat_leading_was_a_showing() -> None:
    """The tracker clears a trick of that play alone (other zones showed cards it never read);
    N then leads: one declaration of E, dated when the card landed, with the play's doubt, and
    N's play is the hand's first lead, held in its turn."""
    hold = BiddingLeadHold()
    assert hold.sort([SHOWN], draw_phase=True) == []
    assert hold.sort([TrickClearedEvent(15.0, "150", ("N", "S", "W"))], draw_phase=True) == []
    lead, follow = PlayEvent("N", ("AS",), 40.0, 40.5), PlayEvent("E", ("KS",), 42.0, 42.5)
    assert hold.sort([lead], draw_phase=True) == [AS_DECLARED]
    assert hold.sort([follow], draw_phase=True) == [lead, follow]
    assert hold.release() == []


def test_a_lifted_first_play_with_nothing_after_it_is_told_as_a_showing_at_the_end() -> None:
    hold = BiddingLeadHold()
    hold.sort([SHOWN, TakebackEvent("E", ("SJ",), 15.0)], draw_phase=True)
    assert hold.release() == [AS_DECLARED]


def test_the_same_seat_playing_after_lifting_its_first_play_took_its_lead_back() -> None:
    """悔牌 of the hand's first lead: the lead, the takeback dated at the lifting, the new lead
    (a trick the tracker cleared with the lead alone is that takeback, not a trick)."""
    lead, again = PlayEvent("E", ("9S",), 1.0, 1.5), PlayEvent("E", ("KS",), 6.0, 6.5)
    for lifting in (TakebackEvent("E", ("9S",), 3.0), TrickClearedEvent(3.0)):
        hold = BiddingLeadHold()
        assert hold.sort([lead, lifting], draw_phase=True) == []
        assert hold.sort([again], draw_phase=True) == [
            lead,
            TakebackEvent("E", ("9S",), 3.0),
            again,
        ]


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


def test_a_showing_told_late_takes_its_place_in_the_bidding_by_time() -> None:
    from vision.game_feed import GameFeed

    feed = GameFeed("XX", {"NS": "5", "EW": "5"}, "N", "H")
    feed.apply(DeclarationEvent("N", ("5H",), 20.0))
    feed.apply(AS_DECLARED)  # lifted at 15 s, told when the next play landed
    assert [(s["seat"], s["t"]) for s in feed.record["before_play"]] == [("E", 13.3), ("N", 20.0)]
