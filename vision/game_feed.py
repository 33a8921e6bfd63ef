"""Game feed: tracking events → a live ``chaodipi-hand/1`` record and its audit.

This module owns the step from what the camera saw to what the engine judges. A
:class:`GameFeed` keeps a hand record (rules, levels, declarer and trump come from the referee:
the camera cannot see them; defaults until then) and applies events one at a time: a ``play``
joins the current trick (``t`` = when the cards landed), a ``trick_cleared`` closes it (only
the sweep does: a card read late in a seat's fan, after all four have played, belongs to that
seat's play in this trick, not to the next trick), a ``kitty`` sets the kitty, a ``takeback``
(悔牌) takes its cards out of the seat's play and lists them in the record's ``takebacks``, an
``exposed_card`` is listed in ``exposed`` — each with the trick on the table at its time ``t``
(the trick a later sweep closed, when the event comes after it), so that the audit raises
``takeback`` / ``exposed_card``. A takeback of cards the play was read unsurely with, or an
exposed card read unsurely, carries that doubt (``unsure``, ``maybe``): the infraction is put to
the referee as a question, never asserted. Cards that vanished with no hand seen are a read
lost, not a takeback, when they had been left out as a misread or when their play holds as many
cards as every other play of its trick (:meth:`GameFeed._a_misread_vanishing`); cards read in
doubt and taken back with nothing played instead, their play short of the three others' count
when the trick is collected, go back into it
(:meth:`GameFeed._put_back_doubtful_cards_taken_back_short`).

A ``declaration`` (cards shown face up at a seat before the first play) becomes a step of the
record's ``before_play``, in the order seen: ``{"seat", "action": "declare", "cards", "t"}``
with the doubt it was read with. The camera sees no kitty move and no pass, so it cannot tell a
叫主 from a 炒: every showing is listed as a ``declare``, which the audit
(:mod:`engine.preplay.declarations`, a record listing no kitty moves) judges by its cards and
the showings before it — cards that cannot declare (``false_declaration``), a single after a
declaration, a pair shown again, a weaker overcall where ``chao_overcall`` is ``strength``
(``illegal_chao``) — and the trump the last valid one names. Jokers shown alone, each one
copy, are recorded as their pairs read in doubt (the other of a pair unread is likelier than a
declaration the rules refuse): what rests on them is a question for the referee.
What rests on the kitty moves (a 炒 out of turn or before the burial, the re-burial times,
the dealer by the declarations of a first hand when a 炒 followed) needs the referee's entry
of the bidding, which replaces the camera's (:mod:`chaodipi.table.hand_fold`). The face is all
the camera reads: ``face_down`` is left out (a face-up declaration under ``secret_bidding`` is
not claimed from footage).
:meth:`GameFeed.audit` audits the record as it stands, so the game state is always current.

Before a play is accepted it is checked against the game; a contradiction becomes a
``recognition_conflict`` event (``third_copy``, ``seat_played_twice``, ``count_mismatch``; a kitty
with a third copy, and a trick collected with fewer than four plays — ``incomplete_trick`` — too)
and the play is still recorded as seen: the referee decides, the engine flags the infraction —
unless the deck itself singles out the misread: a third copy of which exactly one copy was read
in doubt with a runner-up the deck still has room for takes that runner-up in the record (the
play's read stays in doubt; :meth:`GameFeed._runner_ups_the_deck_allows`), and a play holding
``m`` cards more than every other play of its trick (two or more, all one count), exactly ``m``
of them read in doubt, is taken without those (named in a ``count_mismatch`` conflict;
:meth:`GameFeed._leave_out_doubtful_surplus`), and a lead one card short of all three
followers, exactly one of its cards read in doubt with a runner-up the deck has room for, holds
that runner-up too, both in doubt (:meth:`GameFeed._complete_a_short_lead_from_its_runner_up`);
once the kitty shows, the one play of the hand that went unread is the cards the two decks are
then short of, when they are as many as its trick's other plays hold, in doubt (a
``deck_census`` conflict; :meth:`GameFeed._fill_the_unread_play_the_deck_is_short_of`). A
seat's second play in one trick is merged into its first, the only way the record stays one play
per seat per trick. A play's ``unsure`` reads and a collected trick's ``unread`` seats (cards
that were there but never read steadily) go into the record, so that the audit puts what rests
on them to the referee as a question, and so do a collected trick's ``read_otherwise`` cards
(read as another card while they lay there: unsure, that read their runner-up); so does a lead
whose card count all three followers contradict
(:func:`_doubt_a_lead_the_followers_contradict`) or no more than half the trick
shares (:func:`_doubt_a_lead_half_the_trick_contradicts`). Plays join their trick in landing
order, except that two landing within :data:`SAME_MOMENT_S` of each other are taken in turn
order (the camera's dates cannot order them; a referee would not call an out-of-turn play on
it).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from typing import Any

from engine.audit import AuditReport, audit
from engine.cards import COPIES, DECK_SIZE, JOKERS, CardError, full_deck, parse
from engine.record import FORMAT, load_record
from vision.events import (
    DeclarationEvent,
    Event,
    ExposedCardEvent,
    KittyEvent,
    PlayEvent,
    RecognitionConflictEvent,
    TakebackEvent,
    TrickClearedEvent,
    event_from_json,
)

Emit = Callable[[RecognitionConflictEvent], Any]

SAME_MOMENT_S = 0.5
"""Two plays of a trick that landed at most this far apart are recorded in turn order, not in
landing order: a landing is dated to the decision frame that first sees the cards (4 a second,
and not while a hand covers the zone), so each date is good to a few tenths of a second. An out
of turn play is flagged when it landed clearly before the seat whose turn it was."""


class GameFeed:
    """A hand record fed incrementally by tracking events (see the module docstring).

    ``emit`` (e.g. ``EventLog.append``) receives each conflict event as it is found; they are
    also returned by :meth:`apply` and kept in :attr:`conflicts`.
    """

    def __init__(
        self,
        rules: str = "XX",
        levels: Mapping[str, str] | None = None,
        declarer: str = "S",
        trump: str = "NT",
        *,
        rule_overrides: Mapping[str, Any] | None = None,
        emit: Emit | None = None,
    ) -> None:
        self._record: dict[str, Any] = {
            "format": FORMAT,
            "rules": rules,
            "rule_overrides": dict(rule_overrides or {}),
            "levels": dict(levels or {"NS": "2", "EW": "2"}),
            "declarer": declarer,
            "trump": trump,
            "tricks": [],
        }
        load_record(self._record)  # fail now on a bad contract, not at the first audit
        self._open = False  # whether the last trick still takes plays
        self._emit = emit
        self.conflicts: list[RecognitionConflictEvent] = []
        # Cards marked unsure only because their play's count disagreed with the lead's, by
        # (trick, seat): taken back when the lead turns out to be the misread one.
        self._count_doubt: dict[tuple[int, str], list[str]] = {}
        # The confidence of each card a play's reading was unsure of, by (trick, seat).
        self._read_doubt: dict[tuple[int, str], dict[str, float]] = {}
        # Cards left out of a play as read in doubt and one too many, by (trick, seat).
        self._left_out: dict[tuple[int, str], list[str]] = {}
        # Runner-ups taken for a play's third copies (the deck could not hold the read), by
        # (trick, seat).
        self._taken_for_third: dict[tuple[int, str], list[str]] = {}
        self._cleared_t: list[float] = []  # when each closed trick was collected

    @property
    def record(self) -> dict[str, Any]:
        """A copy of the hand record as it stands."""
        return copy.deepcopy(self._record)

    def set_contract(
        self,
        *,
        declarer: str | None = None,
        trump: str | None = None,
        levels: Mapping[str, str] | None = None,
        rules: str | None = None,
    ) -> None:
        """What the referee tells: the declarer, trump, levels or rules of this hand."""
        updated = dict(self._record)
        for key, value in (
            ("declarer", declarer),
            ("trump", trump),
            ("levels", None if levels is None else dict(levels)),
            ("rules", rules),
        ):
            if value is not None:
                updated[key] = value
        load_record(updated)
        self._record = updated

    def audit(self) -> AuditReport:
        """The engine's audit of the record as it stands: the live game state."""
        return audit(load_record(self._record))

    def apply_all(
        self, events: Iterable[Event | Mapping[str, Any]]
    ) -> list[RecognitionConflictEvent]:
        out: list[RecognitionConflictEvent] = []
        for event in events:
            out += self.apply(event)
        return out

    def apply(self, event: Event | Mapping[str, Any]) -> list[RecognitionConflictEvent]:
        """Apply one event (a dataclass or its JSON object); returns the conflicts it raised."""
        if isinstance(event, Mapping):
            event = event_from_json(event)
        found: list[RecognitionConflictEvent]
        if isinstance(event, PlayEvent):
            found = self._play(event)
        elif isinstance(event, TrickClearedEvent):
            found = self._clear(event) + self._fill_the_unread_play_the_deck_is_short_of(event.t)
        elif isinstance(event, KittyEvent):
            found = self._kitty(event) + self._fill_the_unread_play_the_deck_is_short_of(event.t)
        elif isinstance(event, TakebackEvent):
            found = self._takeback(event)
        elif isinstance(event, ExposedCardEvent):
            found = self._exposed(event)
        elif isinstance(event, DeclarationEvent):
            found = self._declaration(event)
        else:
            found = []  # a conflict from the tracker: for the referee, the record is unchanged
        for conflict in found:
            self.conflicts.append(conflict)
            if self._emit is not None:
                self._emit(conflict)
        return found

    # ----- events ------------------------------------------------------------------------
    def _counts(self) -> Counter[str]:
        seen: Counter[str] = Counter(self._record.get("kitty") or ())
        for trick in self._record["tricks"]:
            for play in trick["plays"]:
                seen.update(play["cards"])
        return seen

    def _third_copies(self, cards: Iterable[str], seen: Counter[str]) -> list[str]:
        new = Counter(cards)
        return sorted(c for c in new if seen[c] + new[c] > COPIES)

    def _play(self, ev: PlayEvent) -> list[RecognitionConflictEvent]:
        found: list[RecognitionConflictEvent] = []
        tricks: list[dict[str, Any]] = self._record["tricks"]
        if not self._open:
            tricks.append({"plays": []})
            self._open = True
        plays: list[dict[str, Any]] = tricks[-1]["plays"]
        number = len(tricks)
        shown = " ".join(ev.cards)
        extra = self._third_copies(ev.cards, self._counts())
        earlier = next((p for p in plays if p["seat"] == ev.seat), None)
        play: dict[str, Any] = {"seat": ev.seat, "cards": list(ev.cards), "t": ev.t_landed}
        _note_doubt(play, ev)
        read_doubt = self._read_doubt.setdefault((number, ev.seat), {})
        for card, confidence in ev.unsure:
            read_doubt[card] = min(confidence, read_doubt.get(card, confidence))
        taken = self._runner_ups_the_deck_allows(extra, play, f"trick {number}", ev.seat, number)
        # Counted again: a card read twice in this play stays a third copy when the deck had
        # room for one runner-up only, and its other copy is then as likely misread.
        extra = self._third_copies(play["cards"], self._counts())
        if extra:
            found.append(
                RecognitionConflictEvent(
                    "third_copy",
                    ev.seat,
                    tuple(extra),
                    f"trick {number}: {ev.seat} showed {shown}, a third copy of "
                    f"{' '.join(extra)} (two decks hold two)",
                    ev.t_landed,
                )
            )
        found += _runner_ups_taken(taken, f"trick {number}: {ev.seat} showed {shown}", ev.t_landed)
        if earlier is not None:
            found.append(
                RecognitionConflictEvent(
                    "seat_played_twice",
                    ev.seat,
                    ev.cards,
                    f"trick {number}: {ev.seat} already played {' '.join(earlier['cards'])} and "
                    f"now played {shown}; recorded as one play of both",
                    ev.t_landed,
                )
            )
            earlier["cards"] = [*earlier["cards"], *play["cards"]]
            earlier["unsure"] = list(
                dict.fromkeys([*earlier.get("unsure", ()), *play.get("unsure", ())])
            )
            earlier["maybe"] = {**earlier.get("maybe", {}), **play.get("maybe", {})}
            _keep_doubt_of_cards(earlier)
            _doubt_extra_copies(earlier, extra)
            found += self._leave_out_doubtful_surplus(number, plays, ev.t_landed)
            found += self._doubt_counts(number, plays, ev.t_landed)
            return found
        if plays and len(plays[0]["cards"]) != len(ev.cards):
            lead = plays[0]
            found.append(
                RecognitionConflictEvent(
                    "count_mismatch",
                    ev.seat,
                    ev.cards,
                    f"trick {number}: {lead['seat']} led {len(lead['cards'])} card(s) but "
                    f"{ev.seat} played {len(ev.cards)} ({shown})",
                    ev.t_landed,
                )
            )
        _doubt_extra_copies(play, extra)
        plays.insert(self._turn_position(plays, ev), play)
        found += self._leave_out_doubtful_surplus(number, plays, ev.t_landed)
        found += self._doubt_counts(number, plays, ev.t_landed)
        return found

    def _leave_out_doubtful_surplus(
        self, number: int, plays: list[dict[str, Any]], t: float
    ) -> list[RecognitionConflictEvent]:
        """Prefer the reading the trick allows: a play holding ``m`` more cards than every other
        play of trick ``number`` (at least two of them, all one count), of which exactly ``m``
        were read in doubt, is taken without those ``m`` — a corner of a card already read,
        read weakly as a look-alike (JH's as QH), or a big pip read as an ace, far more often
        than a player putting down a card too many. One card too many, read in doubt as a card
        the play holds twice (validation hand 9026: W's throw of seven read with a second 5C,
        5C in doubt, maybe JC), loses one copy; the other stays in doubt, and a takeback of
        that card is the misread copy going, not the other (9029: S's BJ read BJ BJ, the
        phantom's going seen as a takeback). With more cards in doubt than too many, those
        the deck cannot hold (a third copy), or else the runner-ups taken for such copies, are
        the ones left out; so are they with none in doubt, read surely, when they are just as
        many as the cards too many (validation hand 9070: orell's own pair read a lone JD as
        JD QS, a sure third QS). What was left out is named in a ``count_mismatch`` conflict,
        for the referee to put back with a correction."""
        found: list[RecognitionConflictEvent] = []
        for play in plays:
            count = _count_every_other_play_holds(plays, play)
            if count is None:
                continue
            surplus = len(play["cards"]) - count
            read_doubt = self._read_doubt.get((number, play["seat"]), {})
            copies = [c for c in play["cards"] if c in read_doubt]
            doubtful = list(dict.fromkeys(copies))
            if len(doubtful) > surplus:
                # More cards in doubt than too many: the deck singles out those it cannot
                # hold (validation hand 9051: S's QH read in doubt, maybe 10H, and a
                # phantom BJ beside it in doubt, a third copy).
                seen = self._counts()
                beyond = [c for c in doubtful if seen[c] > COPIES]
                # … or the runner-ups taken for such copies (validation hand 9078, atlasnye's
                # own pair: N's lone QH read QH QH in doubt, maybe JH, a third QH, one copy
                # taken as JH; both identities in doubt, the JH is the phantom).
                taken = self._taken_for_third.get((number, play["seat"]), [])
                if len(beyond) != surplus:
                    beyond = [c for c in doubtful if c in taken]
                if len(beyond) == surplus:
                    doubtful = beyond
                    copies = [c for c in copies if c in beyond]
            elif not doubtful and surplus > 0:
                # None in doubt: the trick and the deck together single out a sure third copy.
                seen = self._counts()
                doubtful = [c for c in dict.fromkeys(play["cards"]) if seen[c] > COPIES]
                copies = list(doubtful)
            # Doubt is read per identity: of two copies, one or both. With one card too many
            # either is the one to leave out; with more, which ones is not known.
            if surplus <= 0 or len(doubtful) != surplus or (surplus > 1 and copies != doubtful):
                continue
            play["cards"] = _without(play["cards"], doubtful)
            self._left_out.setdefault((number, play["seat"]), []).extend(doubtful)
            added = self._count_doubt.pop((number, play["seat"]), [])
            play["unsure"] = [
                c
                for c in play.get("unsure", ())
                if c not in added and (c not in doubtful or c in play["cards"])
            ]
            _keep_doubt_of_cards(play)
            named = ", ".join(
                f"{c} ({read_doubt[c]:.2f})" if c in read_doubt else c for c in doubtful
            )
            why = "read in doubt" if all(c in read_doubt for c in doubtful) else "a third copy"
            found.append(
                RecognitionConflictEvent(
                    "count_mismatch",
                    play["seat"],
                    tuple(doubtful),
                    f"trick {number}: {play['seat']}'s {named}, {why}, "
                    f"{'is' if surplus == 1 else 'are'} left out: every other play holds "
                    f"{count} card(s)",
                    t,
                )
            )
        return found

    def _runner_ups_the_deck_allows(
        self,
        extra: Iterable[str],
        new: dict[str, Any],
        new_at: str,
        new_seat: str | None,
        new_number: int | None = None,
    ) -> dict[str, tuple[str, str | None, str]]:
        """Prefer the reading the deck allows: of the three copies of each ``extra`` card that
        the record's plays and the ``new`` read (a play about to join trick ``new_at`` for
        ``new_seat``, or the kitty: no seat) would hold, when exactly one is in doubt with a
        runner-up that is not yet two copies (the others read surely, or in doubt with no
        runner-up the deck allows: validation hand 9027's S BJ+SJ read BJ BJ, the second in
        doubt, maybe SJ, and N's BJ later read in doubt with none), that copy is taken as its
        runner-up (in the record, or in ``new``). Doubt is read per identity, so that one is a
        play's: holding the copies too many (validation hand 9052: S's 4D 4D 6D 7D read
        6D 7D KD KD in doubt, maybe 4D, after N's sure KD KD), it takes the runner-up for each
        the deck has room for. A copy in doubt for another reason too (its play's count
        disagreed with the lead's) leaves the reads as they are: the deck no longer singles one
        out. The read stays unsure, its runner-up now the card first read,
        so what rests on it is still the referee's question and one click turns it back; the
        runner-up taken is read in doubt as the copy was, so that a play it leaves a card too
        many still loses it (validation hand 9054: S's lone JD read JD QS, QS in doubt and a
        third copy, taken as QC, left out once every other play held one card).
        Returns ``{card: (the copy taken, named for the referee; its seat; its runner-up)}``."""
        # (where, its trick's number: None for the kitty, seat, play) of every play and ``new``
        holders: list[tuple[str, int | None, str | None, dict[str, Any]]] = [
            (f"trick {number}", number, str(p["seat"]), p)
            for number, trick in enumerate(self._record["tricks"], start=1)
            for p in trick["plays"]
        ]
        holders.append((new_at, new_number, new_seat, new))
        taken: dict[str, tuple[str, str | None, str]] = {}
        for card in extra:
            counts = self._counts() + Counter(new["cards"])
            in_doubt = [
                h for h in holders if card in h[3]["cards"] and card in h[3].get("unsure", ())
            ]
            if any(
                number and seat and card in self._count_doubt.get((number, seat), ())
                for _, number, seat, _ in in_doubt
            ):
                continue
            allowed = [  # … those with a runner-up the deck has room for
                h for h in in_doubt if counts[h[3].get("maybe", {}).get(card, card)] < COPIES
            ]
            if len(allowed) != 1:
                continue
            at, number, seat, holder = allowed[0]
            other = holder["maybe"].pop(card)
            # Doubt is read per identity: a play holding both surplus copies (two decks' KD
            # after two sure KD) takes the runner-up for each the deck has room for.
            surplus = counts[card] - COPIES
            for _ in range(min(surplus, holder["cards"].count(card), COPIES - counts[other])):
                holder["cards"][holder["cards"].index(card)] = other
            holder["unsure"] = [other if c == card else c for c in holder["unsure"]]
            holder["maybe"][other] = card
            read_doubt = self._read_doubt.get((number, seat), {}) if number and seat else {}
            if card in read_doubt:
                read_doubt.setdefault(other, read_doubt[card])
                if card not in holder["cards"]:
                    del read_doubt[card]
            named = f"{seat}'s {card} of {at}" if seat else f"the kitty's {card}"
            taken[card] = (named, seat, other)
            if number and seat:
                self._taken_for_third.setdefault((number, seat), []).append(other)
        return taken

    def _doubt_counts(
        self, number: int, plays: list[dict[str, Any]], t: float
    ) -> list[RecognitionConflictEvent]:
        """A play whose card count disagrees with the lead's rests on a reading the game does
        not allow — at a table a card hidden in a fan, or one too many, far more often than a
        player out of line — so its cards are marked unsure: an infraction proven from it (the
        count itself, a revoke, hidden cards) is put to the referee as a question. When all
        three followers agree against the lead, the lead is the misread one
        (:func:`_doubt_a_lead_the_followers_contradict`), the followers' marks are taken
        back, and a lead one card short may take its runner-up
        (:meth:`_complete_a_short_lead_from_its_runner_up`)."""
        if not plays:
            return []
        if _doubt_a_lead_the_followers_contradict(plays):
            for play in plays[1:]:
                added = self._count_doubt.pop((number, play["seat"]), [])
                play["unsure"] = [c for c in play.get("unsure", ()) if c not in added]
                if not play["unsure"]:
                    del play["unsure"]
            return self._complete_a_short_lead_from_its_runner_up(number, plays, t)
        count = len(plays[0]["cards"])
        for play in plays[1:]:
            key = (number, play["seat"])
            if len(play["cards"]) == count or key in self._count_doubt:
                continue
            added = [c for c in dict.fromkeys(play["cards"]) if c not in play.get("unsure", ())]
            self._count_doubt[key] = added
            play["unsure"] = [*play.get("unsure", ()), *added]
        _doubt_a_lead_half_the_trick_contradicts(plays)
        return []

    def _complete_a_short_lead_from_its_runner_up(
        self, number: int, plays: list[dict[str, Any]], t: float
    ) -> list[RecognitionConflictEvent]:
        """Prefer the reading the trick allows: a lead read one card short of what all three
        followers played, exactly one of its cards read in doubt with a runner-up that is
        another card the deck still has room for, holds that runner-up too — two cards lying
        close whose indices were joined as one card's two corners read as two cards
        (validation hand 9046: W's 10C + QC, the QC 0.9 cm over the 10C, read 10C, maybe QC).
        Both stay in doubt, so what rests on them is the referee's question; a
        ``count_mismatch`` conflict names the card added. A follower short of the others is
        never completed: a short follow is an infraction to find."""
        lead, *followers = plays
        count = len(followers[0]["cards"])
        read_doubt = self._read_doubt.get((number, lead["seat"]), {})
        maybe: dict[str, str] = lead.get("maybe", {})
        with_runner_up = [c for c in dict.fromkeys(lead["cards"]) if c in read_doubt and c in maybe]
        if len(lead["cards"]) != count - 1 or len(with_runner_up) != 1:
            return []
        (card,) = with_runner_up
        other = maybe[card]
        if self._counts()[other] >= COPIES:
            return []
        del maybe[card]
        lead["cards"].insert(lead["cards"].index(card) + 1, other)
        _mark_unsure(lead, [card, other])
        _keep_doubt_of_cards(lead)
        return [
            RecognitionConflictEvent(
                "count_mismatch",
                lead["seat"],
                (other,),
                f"trick {number}: every follower played {count} card(s), {lead['seat']}'s lead "
                f"was read with {count - 1}: its {card} ({read_doubt[card]:.2f}), read in doubt "
                f"with runner-up {other}, is taken as {card} and {other}, both in doubt",
                t,
            )
        ]

    def _turn_position(self, plays: list[dict[str, Any]], ev: PlayEvent) -> int:
        """Where a play joins its trick: after the plays that landed before it, except those
        that landed within :data:`SAME_MOMENT_S` of it and whose turn came after its seat's:
        the camera cannot tell which of two such plays touched the table first."""
        pos = len(plays)

        def near(play: Mapping[str, Any]) -> bool:
            t = play.get("t")
            return t is not None and ev.t_landed - float(t) <= SAME_MOMENT_S

        if not plays or not near(plays[-1]):
            return pos
        report = self.audit()
        order = report.profile.seats_in_play_order(report.tricks[-1].leader)
        while (
            pos
            and near(plays[pos - 1])
            and order.index(ev.seat) < order.index(plays[pos - 1]["seat"])
        ):
            pos -= 1
        return pos

    def _trick_at(self, t: float) -> int:
        """The 1-based trick on the table at ``t``: after the tricks collected by then."""
        done = sum(1 for cleared in self._cleared_t if cleared <= t)
        return min(done + 1, len(self._record["tricks"]) + (0 if self._open else 1))

    def _takeback(self, ev: TakebackEvent) -> list[RecognitionConflictEvent]:
        number = self._trick_at(ev.t)
        found: list[RecognitionConflictEvent] = []
        item: dict[str, Any] = {"seat": ev.seat, "cards": list(ev.cards), "t": ev.t}
        item["trick"] = number
        doubt: dict[str, Any] = {"cards": list(ev.cards)}
        _note_doubt(doubt, ev)
        unsure: list[str] = list(doubt.get("unsure", ()))
        maybe: dict[str, str] = dict(doubt.get("maybe", {}))
        tricks: list[dict[str, Any]] = self._record["tricks"]
        plays: list[dict[str, Any]] = tricks[number - 1]["plays"] if number <= len(tricks) else []
        play = next((p for p in plays if p["seat"] == ev.seat), None)
        misread = self._a_misread_vanishing(number, plays, play, ev)
        if misread is not None:
            return [misread]
        if play is not None:
            # The play's count against the lead's says nothing of how its cards were read.
            by_count = self._count_doubt.pop((number, ev.seat), [])
            play_maybe = play.get("maybe", {})
            for card in dict.fromkeys(ev.cards):
                if card in play.get("unsure", ()) and card not in by_count:
                    unsure.append(card)  # read in doubt when played: the takeback is too
                    if card in play_maybe:
                        maybe[card] = play_maybe[card]
            # A card left out as a misread that vanishes was that misread, not a second copy.
            left_out = self._left_out.get((number, ev.seat), [])
            kept = _without(left_out, ev.cards)
            gone = _without(list(ev.cards), left_out)
            self._left_out[(number, ev.seat)] = kept
            play["cards"] = _without(play["cards"], gone)
            play["unsure"] = [c for c in play.get("unsure", ()) if c not in by_count]
            _keep_doubt_of_cards(play)
            if not play["cards"]:
                plays.remove(play)
            found = self._doubt_counts(number, plays, ev.t)
        if unsure:
            item["unsure"] = list(dict.fromkeys(unsure))
            item["maybe"] = {c: o for c, o in maybe.items() if c in item["unsure"]}
            if not item["maybe"]:
                del item["maybe"]
        self._record.setdefault("takebacks", []).append(item)
        return found

    def _a_misread_vanishing(
        self,
        number: int,
        plays: list[dict[str, Any]],
        play: dict[str, Any] | None,
        ev: TakebackEvent,
    ) -> RecognitionConflictEvent | None:
        """Prefer the reading the trick allows: cards that vanished from a play with no hand
        seen (the takeback's ``unsure`` cards) are a read lost, not a takeback, when they were
        left out of the play as a misread one too many (validation hand 9050: a phantom AC
        beside S's 2C), or when the play holds as many cards as every other play of its trick
        (two or more, all one count) and would be short without them (9056: W's QS QS, one
        QS lost as S's play landed). The play keeps its cards and no takeback is recorded; a
        ``count_mismatch`` conflict names the cards, for the referee to record one after all."""
        if play is None or not set(ev.cards) <= {c for c, _ in ev.unsure}:
            return None
        left_out = self._left_out.get((number, ev.seat), [])
        if not _without(list(ev.cards), left_out):
            self._left_out[(number, ev.seat)] = _without(left_out, ev.cards)
            why = "left out of its play as a misread"
        elif _count_every_other_play_holds(plays, play) == len(play["cards"]):
            why = f"every other play holds {len(play['cards'])} card(s)"
        else:
            return None
        return RecognitionConflictEvent(
            "count_mismatch",
            ev.seat,
            ev.cards,
            f"trick {number}: {ev.seat}'s {' '.join(ev.cards)} vanished with no hand seen, "
            f"{why}: not taken as a takeback",
            ev.t,
        )

    def _exposed(self, ev: ExposedCardEvent) -> list[RecognitionConflictEvent]:
        item: dict[str, Any] = {"seat": ev.seat, "cards": [ev.card], "t": ev.t}
        item["trick"] = self._trick_at(ev.t)
        _note_doubt(item, ev)
        self._record.setdefault("exposed", []).append(item)
        return []

    def _declaration(self, ev: DeclarationEvent) -> list[RecognitionConflictEvent]:
        step: dict[str, Any] = {
            "seat": ev.seat,
            "action": "declare",
            "cards": list(ev.cards),
            "t": ev.t,
        }
        _note_doubt(step, ev)
        lone = [c for c in ev.cards if c in JOKERS and ev.cards.count(c) == 1]
        if lone and len(lone) == len(ev.cards):
            # A joker shown alone is more likely one of a pair whose other card went unread
            # (a joker's picture, not an index, is what the detector reads) than a declaration
            # the rules refuse: it is recorded as that pair, in doubt, so the showings after
            # it are judged against the likelier one and what it proves is put to the referee.
            step["cards"] = [c for c in ev.cards for _ in range(2)]
            _mark_unsure(step, lone)
        steps: list[dict[str, Any]] = self._record.setdefault("before_play", [])
        at = len(steps)
        while at and steps[at - 1].get("t", 0.0) > ev.t:
            at -= 1  # told late (a showing read as a play is told when the next play lands)
        steps.insert(at, step)
        return []

    def _clear(self, ev: TrickClearedEvent) -> list[RecognitionConflictEvent]:
        if not self._open:
            return []
        self._open = False
        self._cleared_t.append(ev.t)
        trick = self._record["tricks"][-1]
        _doubt_reads_otherwise(trick["plays"], ev.read_otherwise)
        found = self._put_back_doubtful_cards_taken_back_short(len(self._record["tricks"]), ev.t)
        seats = {p["seat"] for p in trick["plays"]}
        if len(seats) >= 4:
            return found
        missing = [s for s in ("N", "E", "S", "W") if s not in seats]
        unread = [s for s in missing if s in ev.unread]
        detail = (
            f"trick {len(self._record['tricks'])} was collected with no play seen from "
            f"{' '.join(missing)}"
        )
        if unread:
            trick["unread"] = unread
            detail += f" ({' '.join(unread)}: cards were there, never read steadily)"
        return [*found, RecognitionConflictEvent("incomplete_trick", None, (), detail, ev.t)]

    def _put_back_doubtful_cards_taken_back_short(
        self, number: int, t: float
    ) -> list[RecognitionConflictEvent]:
        """Prefer the reading the trick allows when it is collected: a takeback of cards read
        in doubt that left its play short of the count the three other plays agree on, with
        nothing played in their place, is a read lost, not a takeback (validation hand 9057:
        E's BJ BJ, read in doubt, one seen lifted as S's hand came in and never put back). The
        cards go back into the play, in doubt; the takeback is dropped and a ``count_mismatch``
        conflict names it, for the referee to record it after all."""
        found: list[RecognitionConflictEvent] = []
        plays: list[dict[str, Any]] = self._record["tricks"][number - 1]["plays"]
        takebacks: list[dict[str, Any]] = self._record.get("takebacks", [])
        for item in list(takebacks):
            play = next((p for p in plays if p["seat"] == item["seat"]), None)
            if (
                item["trick"] != number
                or play is None
                or not set(item["cards"]) <= set(item.get("unsure", ()))
                or _count_every_other_play_holds(plays, play, at_least=3)
                != len(play["cards"]) + len(item["cards"])
            ):
                continue
            takebacks.remove(item)
            play["cards"] = [*play["cards"], *item["cards"]]
            _mark_unsure(play, item["cards"])
            if item.get("maybe"):
                play["maybe"] = {**play.get("maybe", {}), **item["maybe"]}
            found.append(
                RecognitionConflictEvent(
                    "count_mismatch",
                    item["seat"],
                    tuple(item["cards"]),
                    f"trick {number}: {item['seat']}'s {' '.join(item['cards'])}, read in doubt "
                    f"and taken back with nothing played instead, is kept: every other play "
                    f"holds {len(play['cards'])} card(s)",
                    t,
                )
            )
        if not takebacks:
            self._record.pop("takebacks", None)
        return found

    def _kitty(self, ev: KittyEvent) -> list[RecognitionConflictEvent]:
        for key in ("kitty", "kitty_unsure", "kitty_maybe"):
            self._record.pop(key, None)
        extra = self._third_copies(ev.cards, self._counts())
        doubt: dict[str, Any] = {"cards": list(ev.cards)}
        _note_doubt(doubt, ev)
        taken = self._runner_ups_the_deck_allows(extra, doubt, "the kitty", None)
        extra = self._third_copies(doubt["cards"], self._counts())
        _doubt_extra_copies(doubt, extra)  # the kitty is read last: its copy makes the third
        self._record["kitty"] = doubt["cards"]
        if "unsure" in doubt:
            self._record["kitty_unsure"] = doubt["unsure"]
        if doubt.get("maybe"):
            self._record["kitty_maybe"] = doubt["maybe"]
        shown = f"the kitty {' '.join(ev.cards)}"
        found = _runner_ups_taken(taken, shown, ev.t)
        if not extra:
            return found
        return [
            RecognitionConflictEvent(
                "third_copy",
                None,
                tuple(extra),
                f"{shown} holds a third copy of {' '.join(extra)} (two decks hold two)",
                ev.t,
            ),
            *found,
        ]

    def _fill_the_unread_play_the_deck_is_short_of(
        self, t: float | None
    ) -> list[RecognitionConflictEvent]:
        """Prefer the reading the deck allows once the hand is seen whole: when exactly one
        play of the hand went unread (its cards were there, never read steadily; validation
        hand 9054: E's small joker of a deck never trained on, by the collecting hand), the
        other three plays of its trick hold ``k`` cards each, and the two decks less every card
        recorded, the kitty's included, leave exactly ``k`` cards, those are that play, in
        doubt, joined in its seat's turn: what rests on them is the referee's question, and a
        ``deck_census`` conflict names them."""
        tricks: list[dict[str, Any]] = self._record["tricks"]
        unread = [
            (n, seat) for n, trick in enumerate(tricks, 1) for seat in trick.get("unread", ())
        ]
        if len(unread) != 1 or "kitty" not in self._record:
            return []
        number, seat = unread[0]
        trick = tricks[number - 1]
        plays: list[dict[str, Any]] = trick["plays"]
        counts = {len(p["cards"]) for p in plays}
        if len(plays) != 3 or len(counts) != 1:
            return []
        (count,) = counts
        seen = self._counts()
        short = Counter(full_deck()) - seen
        if sum(short.values()) != count or seen.total() + count != DECK_SIZE:
            return []  # a card read as another, or hidden, leaves the census no single answer
        cards = sorted(short.elements())
        report = self.audit()
        order = report.profile.seats_in_play_order(report.tricks[number - 1].leader)
        pos = 0
        while pos < len(plays) and order.index(plays[pos]["seat"]) < order.index(seat):
            pos += 1
        plays.insert(pos, {"seat": seat, "cards": cards, "unsure": list(dict.fromkeys(cards))})
        del trick["unread"]
        return [
            RecognitionConflictEvent(
                "deck_census",
                seat,
                tuple(cards),
                f"trick {number}: {seat}'s cards, never read, are taken as {' '.join(cards)}, "
                "the cards two decks hold that no other play or the kitty was read with "
                "(in doubt)",
                t,
            )
        ]


def _runner_ups_taken(
    taken: Mapping[str, tuple[str, str | None, str]], shown: str, t: float
) -> list[RecognitionConflictEvent]:
    """A ``third_copy`` conflict for each copy taken as its runner-up
    (:meth:`GameFeed._runner_ups_the_deck_allows`) when ``shown`` made the third copy."""
    return [
        RecognitionConflictEvent(
            "third_copy",
            seat,
            (other,),
            f"{shown}, a third copy of {card} (two decks hold two): {named}, read in doubt, "
            f"is taken as its runner-up {other}",
            t,
        )
        for card, (named, seat, other) in taken.items()
    ]


def _count_every_other_play_holds(
    plays: list[dict[str, Any]], play: dict[str, Any], at_least: int = 2
) -> int | None:
    """The card count every play of a trick but ``play`` holds, when there are ``at_least``
    such plays and they agree on one; else ``None``."""
    others = [len(p["cards"]) for p in plays if p is not play]
    if len(others) < at_least or len(set(others)) != 1:
        return None
    return others[0]


def _without(cards: list[str], taken: Iterable[str]) -> list[str]:
    """``cards`` in their order less one copy of each card of ``taken``."""
    out = list(cards)
    for card in taken:
        if card in out:
            out.remove(card)
    return out


def _keep_doubt_of_cards(play: dict[str, Any]) -> None:
    """Drop a play's ``unsure`` and ``maybe`` entries for cards it no longer holds."""
    unsure = [c for c in play.pop("unsure", ()) if c in play["cards"]]
    maybe = {c: o for c, o in play.pop("maybe", {}).items() if c in unsure}
    if unsure:
        play["unsure"] = unsure
    if maybe:
        play["maybe"] = maybe


def _note_doubt(
    play: dict[str, Any],
    ev: PlayEvent | KittyEvent | TakebackEvent | ExposedCardEvent | DeclarationEvent,
) -> None:
    """Add the event's unsure cards (those of the play, or kitty) and their runner-up reads
    (another card) to the recorded ``play``: an event that says more than that cannot stop the
    hand auditing."""
    unsure = [c for c, _ in ev.unsure if c in ev.cards]
    if unsure:
        _mark_unsure(play, unsure)
    maybe = {c: other for c, other in ev.maybe if c in unsure and other != c and _is_card(other)}
    if maybe:
        play["maybe"] = {**play.get("maybe", {}), **maybe}


def _is_card(text: str) -> bool:
    try:
        parse(text)
    except CardError:
        return False
    return True


def _doubt_extra_copies(play: dict[str, Any], extra: Iterable[str]) -> None:
    """A card read as a third copy (two decks hold two) is more likely misread than played: it
    is marked unsure, so the duplicate it would prove is put to the referee as a question."""
    extra = [c for c in extra if c in play["cards"]]
    if extra:
        _mark_unsure(play, extra)


def _doubt_reads_otherwise(
    plays: list[dict[str, Any]], read_otherwise: Iterable[tuple[str, str, str]]
) -> None:
    """Cards of the trick's plays that the camera read as another card while they lay there
    (``TrickClearedEvent.read_otherwise``) are marked unsure, that other read their runner-up
    (unless the play named one): what rests on them is put to the referee as a question."""
    for seat, card, other in read_otherwise:
        for play in plays:
            if play["seat"] == seat and card in play["cards"]:
                _mark_unsure(play, [card])
                if other != card and _is_card(other):
                    play["maybe"] = {card: other, **play.get("maybe", {})}


def _mark_unsure(play: dict[str, Any], cards: Iterable[str]) -> None:
    """Add ``cards`` to ``play``'s (or a kitty step's) unsure reads, each once, in order."""
    play["unsure"] = list(dict.fromkeys([*play.get("unsure", ()), *cards]))


def _doubt_a_lead_half_the_trick_contradicts(plays: list[dict[str, Any]]) -> None:
    """A whole trick in which the lead's count is held by no more than half its plays (two
    seats read one card, two read two) was misread on one side or the other, and which cannot
    be told: the lead's cards are marked unsure too, and those of the follower that agrees with
    it, so neither side's count proves anything, nor the hand's count at its end (a pair
    stacked square is read as one card on a lead as often as on a follow; validation hand 9031
    with atlasnye's own pair: W's and S's joker pairs each read as one, S's hand count then
    asserted). A lead that three plays agree with stays sure: the odd follower is the one in
    doubt."""
    if len(plays) != 4:
        return
    lead = plays[0]
    holding = [p for p in plays if len(p["cards"]) == len(lead["cards"])]
    if len(holding) <= 2:
        for play in holding:
            _mark_unsure(play, play["cards"])


def _doubt_a_lead_the_followers_contradict(plays: list[dict[str, Any]]) -> bool:
    """Three followers who all played another number of cards than the lead the camera read
    followed a lead they saw: at a table that is the lead misread (a card hidden in its fan, or
    one too many), not a leader out of line. The lead's cards are marked unsure, so what the
    audit proves from them is put to the referee as a question; the conflict stays listed."""
    if len(plays) != 4:
        return False
    lead, *followers = plays
    counts = {len(p["cards"]) for p in followers}
    if len(counts) == 1 and len(lead["cards"]) not in counts:
        _mark_unsure(lead, lead["cards"])
        return True
    return False
