"""The hand's first play, held while it may still be a card shown in the bidding.

In the draw phase a seat shows the cards it declares with (叫主, 炒) at its edge; the
exposed-card watcher reports them as a declaration. A showing pushed forward, or a reading that
places it inside the seat's play area, reaches the tracker instead, which takes it for that
seat's lead: lifted back into the hand, it closes a phantom first trick, every later trick is
one off, and what the audit finds on the shifted tricks is asserted (a rendered validation hand
replayed with another localiser: a shown small joker, four false infractions).

So the first play of the draw phase, when it is a showing's size (:data:`SHOWING_MAX_CARDS`),
is held. Another seat's play, more cards from the same seat, the kitty or any other event of the
tracker's releases it as the lead, with its own times (the scoreboard shows the hand's first
lead when the second play lands; the audit dates it as it landed). Lifted before that — the
tracker's takeback of all of it, or a trick cleared with it alone — it was a showing: a
``declaration`` of that seat dated when it landed, with the play's doubt, and the draw phase
goes on. A lead truly played and taken back before anyone followed is told the same way, as a
declaration the referee sees in the bidding, never as a trick.
"""

from __future__ import annotations

from collections.abc import Sequence

from vision.events import DeclarationEvent, Event, PlayEvent, TakebackEvent, TrickClearedEvent

SHOWING_MAX_CARDS = 2
"""The most cards a showing has: one level card, a pair of them, or a pair of jokers."""


class BiddingLeadHold:
    """Holds the draw phase's first play until it is a lead or is lifted as a showing."""

    def __init__(self) -> None:
        self.held: PlayEvent | None = None

    def sort(self, events: Sequence[Event], draw_phase: bool) -> list[Event]:
        """The tracker's events of one frame as the pipeline takes them, ``draw_phase`` telling
        whether the hand has no play yet: a showing-sized first play is held back, released in
        front of the next event that is not its lifting, or turned into a declaration by it."""
        out: list[Event] = []
        for event in events:
            held = self.held
            if held is None:
                if (
                    draw_phase
                    and isinstance(event, PlayEvent)
                    and len(event.cards) <= SHOWING_MAX_CARDS
                ):
                    self.held = event
                else:
                    out.append(event)
                draw_phase = draw_phase and not isinstance(event, PlayEvent)
                continue
            self.held = None
            if _lifts(event, held):
                out.append(
                    DeclarationEvent(
                        held.seat,
                        held.cards,
                        held.t_landed,
                        held.frame_landed,
                        held.unsure,
                        held.maybe,
                    )
                )
            else:
                out += [held, event]
                draw_phase = False
        return out

    def release(self) -> list[Event]:
        """The held play as a lead (the footage ends, or the pipeline stops)."""
        held, self.held = self.held, None
        return [held] if held is not None else []


def _lifts(event: Event, held: PlayEvent) -> bool:
    """Whether ``event`` is the held play lifted whole before any other seat played."""
    if isinstance(event, TakebackEvent):
        return event.seat == held.seat and sorted(event.cards) == sorted(held.cards)
    return isinstance(event, TrickClearedEvent)
