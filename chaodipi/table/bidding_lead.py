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
lead when the second play lands; the audit dates it as it landed). Lifted whole before that —
the tracker's takeback of all of it, or a trick cleared with it alone — the next play decides:

* the same seat plays: it led and took its lead back (悔牌) — the lead, a takeback of its cards
  dated at the lifting, then the new play;
* another seat plays (or the kitty shows, or the footage ends): it was a showing — a
  ``declaration`` of that seat dated when it landed, with the play's doubt; the draw phase goes
  on.
"""

from __future__ import annotations

from collections.abc import Sequence

from vision.events import (
    DeclarationEvent,
    Event,
    PlayEvent,
    RecognitionConflictEvent,
    TakebackEvent,
    TrickClearedEvent,
)

SHOWING_MAX_CARDS = 2
"""The most cards a showing has: one level card, a pair of them, or a pair of jokers."""


class BiddingLeadHold:
    """Holds the draw phase's first play until it is a lead or is lifted as a showing."""

    def __init__(self) -> None:
        self.held: PlayEvent | None = None
        self.lifted: TakebackEvent | None = None  # the held play lifted whole, undecided

    def sort(self, events: Sequence[Event], draw_phase: bool) -> list[Event]:
        """The tracker's events of one frame as the pipeline takes them, ``draw_phase`` telling
        whether the hand has no play yet: a showing-sized first play is held back, released in
        front of the next event that is not its lifting, and once lifted told by the next play
        as a lead taken back or as a showing."""
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
            elif self.lifted is None:
                lifted = _lifting(event, held)
                if lifted is not None:
                    self.lifted = lifted
                else:
                    self.held = None
                    out += [held, event]
                    draw_phase = False
            elif isinstance(event, RecognitionConflictEvent):
                out.append(event)  # about another zone: the lifted play waits for a play
            elif isinstance(event, PlayEvent) and event.seat == held.seat:
                out += [held, self.lifted, event]
                self.held = self.lifted = None
                draw_phase = False
            else:
                out += self.release()
                out += self.sort([event], draw_phase)
                draw_phase = draw_phase and not isinstance(event, PlayEvent)
        return out

    def release(self) -> list[Event]:
        """What is held, told as it stands: a play not lifted is the lead, a play lifted with no
        play after it a showing (the footage ends, the pipeline stops, another seat plays)."""
        held, lifted = self.held, self.lifted
        self.held = self.lifted = None
        if held is None:
            return []
        if lifted is None:
            return [held]
        return [
            DeclarationEvent(
                held.seat, held.cards, held.t_landed, held.frame_landed, held.unsure, held.maybe
            )
        ]


def _lifting(event: Event, held: PlayEvent) -> TakebackEvent | None:
    """The held play lifted whole as a takeback of its seat, if ``event`` is its lifting: the
    tracker's takeback of all its cards, or a trick cleared with that play alone in it."""
    if isinstance(event, TakebackEvent):
        whole = event.seat == held.seat and sorted(event.cards) == sorted(held.cards)
        return event if whole else None
    if isinstance(event, TrickClearedEvent):
        return TakebackEvent(held.seat, held.cards, event.t, event.frame)
    return None
