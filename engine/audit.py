"""The auditor: one hand record in, every trick, point, infraction (with its proof) and result out.

It reads a record the way a referee would. Turn order, timing and card counts are checked as
the plays come. Follow obligations and throws are checked against what each seat is known to
have held: its recorded hand when there is one (referee entry, simulator), otherwise — the
camera's case — the cards it played from that trick on, because after the kitty is buried no
card enters a hand. A later play can therefore prove an earlier revoke, hidden card or failed
throw; when the proof appears decides revoke (within ``hidden_card_after_tricks``) or 藏牌.
A record of a hand in progress audits too (``result`` is None).
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Collection, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from engine.cards import (
    ALL_IDENTITIES,
    COPIES,
    DECK_SIZE,
    SEATS,
    other_side,
    partner_of,
    points,
    points_of,
    side_of,
)
from engine.combos import Unit, beating_unit
from engine.order import RED_FIVE_STAR, TRUMP, hand_order
from engine.preplay import proofs as preplay_proofs
from engine.preplay.fields import DECLARING
from engine.preplay.referee import (
    check_before_play,
    ended_result,
    ends_hand,
    kitty_burier,
    preplay_times,
)
from engine.profiles import RuleProfile
from engine.record import CardCheck as CardCheck  # the audit's argument type, re-exported
from engine.record import HandRecord, Play, RecordError
from engine.scoring import HandOutcome, kitty_multiplier, settle_hand
from engine.tricks import (
    FollowViolation,
    Lead,
    follow_violation,
    read_lead,
    winner_index,
)

KINDS: tuple[str, ...] = (
    "revoke",
    "hidden_cards",
    "failed_throw",
    "out_of_turn",
    "overtime",
    "kitty_count",
    "card_count",
    "duplicate_card",
)
CHECKABLE_KINDS: tuple[str, ...] = (
    "revoke",
    "hidden_cards",
    "failed_throw",
    "card_count",
    "duplicate_card",
)
"""What a referee's check of played cards finds wrong in them (「經檢查對方存在錯誤」 000 L21)."""
REFEREE_KINDS: tuple[str, ...] = ("card_check",)
"""Kinds the audit reports from what a referee enters beside the plays (:class:`CardCheck`),
besides :data:`KINDS`, which it finds in the plays."""


CARD_POINTS: dict[str, int] = {c: points_of(c) for c in ALL_IDENTITIES}

ReadsNeeded = tuple[int, str, Collection[str]]
NO_PLAY_SEEN: tuple[str, ...] = ("<no play seen>",)
"""The cards of a :data:`ReadsNeeded` that rests on a seat's play missing from a trick the
others played (a camera that saw no play there): in doubt, as cards seen but never read are."""
"""(trick, seat, cards of that seat's play there) that an infraction's proof rests on."""


KITTY_READ = 0
"""The trick number an unsure read of a kitty card carries (:attr:`HandRecord.kitty_unsure`)."""
BEFORE_PLAY_READ = -1
"""The trick of an :class:`UnsureRead` of the draw phase (a declaration's or a 炒's cards)."""


# ----- proofs: the facts of each infraction, and their English sentence ----------------------

ProofData = dict[str, Any]
"""An infraction's proof as data: ``"kind"`` names the reasoning, the other keys are its facts
(trick numbers, seats, cards, counts, seconds, the deciding profile knob) as plain JSON values.
The kinds and their keys are tabled in ``engine/README.md``; pages render the sentence in their
own language from them, :func:`proof_text` renders the English one."""

PROOF_KINDS: tuple[str, ...] = (
    "out_of_turn",
    "mixed_lead",
    "no_play",
    "play_count",
    "bury_time",
    "play_time",
    "not_in_hand",
    "follow",
    "throw",
    "kitty_count",
    "third_copy",
    "copies",
    "hand_count",
    "card_check",
)

CLASS_NAMES_EN: dict[str, str] = {
    "S": "spades ♠",
    "H": "hearts ♥",
    "D": "diamonds ♦",
    "C": "clubs ♣",
    "trump": "trumps",
}


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards)


def _unit_name(unit: Unit) -> str:
    return "single" if unit.pairs == 0 else "pair" if unit.pairs == 1 else "tractor"


def _place_text(place: Mapping[str, Any]) -> str:
    if place["where"] == "kitty":
        return "the kitty"
    if place["where"] == "hand":
        return f"{place['seat']}'s recorded hand"
    return f"trick {place['trick']} ({place['seat']})"


def _follow_text(d: Mapping[str, Any]) -> str:
    cls = CLASS_NAMES_EN[d["suit"]]
    what = {
        "suit": f"{d['needed']} card(s) of {cls}",
        "pair": f"{d['needed']} pair(s) of {cls}",
        "tractor": f"a {d['needed']}-pair tractor of {cls}",
    }[d["obligation"]]
    if d["basis"] == "hand":
        why = f"its recorded hand held {d['held']}"
    else:
        why = (
            f"it later played {_cards(d['later_cards'])} (by trick {d['found_at']}), so it held "
            f"them at trick {d['trick']}"
        )
    text = (
        f"trick {d['trick']}: {d['lead_seat']} led {_cards(d['lead_cards'])}; {d['seat']} played "
        f"{_cards(d['cards'])} but had to play {what}: {why}. "
    )
    if d["verdict"] == "hidden_cards":
        return text + f"Proven {d['delay']} tricks later (≥ {d['hidden_after']}): 藏牌 hidden cards"
    return text + "Proven within the round: 吃苍蝇/跟错牌 revoke"


def _throw_text(d: Mapping[str, Any]) -> str:
    where = (
        "its recorded hand" if d["basis"] == "hand" else f"its plays up to trick {d['found_at']}"
    )
    unit = d["unit"] if d["unit"] != "tractor" else f"{d['unit_pairs']}-pair tractor"
    text = (
        f"trick {d['trick']}: {d['seat']} threw {_cards(d['cards'])} (甩牌); {d['by']} held "
        f"{_cards(d['beaten_by'])} ({where}), which beats the thrown {unit} "
        f"{_cards(d['unit_cards'])} · 甩牌失败"
    )
    if d.get("forced") is not None and d["forced"] != d["cards"]:
        text += f"; {_cards(d['forced'])} stays on the table, the rest go back"
    if d.get("concealed_by") is not None:
        text += (
            f"; the throw stood, and the thrower's partner {d['concealed_by']} held "
            f"{_cards(d['concealed_cards'])}, which beats it, and did not say · 隐瞒不说，判负"
        )
    return text


def _card_check_text(d: Mapping[str, Any]) -> str:
    cost = f"{d['penalty']} points" if d["penalty"] else f"free (the first {d['free']} are)"
    return (
        f"trick {d['trick']}: {d['seat']} had the referee check {d['checked']}'s play, which "
        f"was right: unfounded check {d['count']} of {d['side']} in this hand, {cost} · 查牌无误"
    )


def proof_text(d: Mapping[str, Any]) -> str:
    """The English sentence of a proof (:data:`ProofData`), as the CLI and reports print it."""
    kind = d["kind"]
    if kind in preplay_proofs.PROOF_KINDS:  # before play and beside the tricks (engine/preplay)
        return preplay_proofs.proof_text(d)
    if kind == "follow":
        return _follow_text(d)
    if kind == "throw":
        return _throw_text(d)
    if kind == "card_check":
        return _card_check_text(d)
    n = d.get("trick")
    if kind == "out_of_turn":
        return (
            f"trick {n}: {d['seat']} played {_cards(d['cards'])} before {d['upstream']}, who "
            f"plays just before it (上家), had played ({d['leader']} to lead, order "
            f"{'→'.join(d['order'])}) · 越序出牌"
        )
    if kind == "mixed_lead":
        return (
            f"trick {n}: {d['seat']} led {_cards(d['cards'])}, which mixes suits; a throw (甩牌) "
            "must be of one suit or all trumps"
        )
    if kind == "no_play":
        return f"trick {n}: {d['seat']} played nothing before trick {d['trick'] + 1} began · 少出牌"
    if kind == "play_count":
        by = "the other plays" if d["by"] == "others" else "the lead"
        return (
            f"trick {n}: {d['seat']} played {d['played']} card(s) where {by} had "
            f"{d['expected']} ({d['lead_seat']} led {d['lead_count']}) · 出牌张数不符"
        )
    if kind == "bury_time":
        return (
            f"kitty: {d['seat']} took {d['took_s']:.1f} s to bury the kitty; the limit is "
            f"{d['limit_s']:g} s · 扣底超时"
        )
    if kind == "play_time":
        after = "the previous card" if d["after"] == "play" else "the kitty was buried"
        return (
            f"trick {n}: {d['seat']} played {_cards(d['cards'])} {d['took_s']:.1f} s after "
            f"{after} ({d['from_s']:.1f} s → {d['at_s']:.1f} s into the hand); the limit is "
            f"{d['limit_s']:g} s · 出牌超时"
        )
    if kind == "not_in_hand":
        return (
            f"trick {n}: {d['seat']} played {_cards(d['cards'])}, which its recorded hand no "
            "longer held · 手牌不符"
        )
    if kind == "kitty_count":
        return f"kitty: {d['count']} cards buried, the rule is {d['kitty_size']} · 扣错底牌"
    if kind == "third_copy":
        places = ", ".join(_place_text(p) for p in d["places"])
        return (
            f"trick {n}: {d['seat']} showed a third {d['card']}; two decks hold two ({places}) "
            "· 牌张重复"
        )
    if kind == "copies":
        places = ", ".join(_place_text(p) for p in d["places"])
        return f"{d['copies']} copies of {d['card']} in {places}; two decks hold two"
    if kind == "hand_count":
        return (
            f"end of hand: {d['seat']} played {d['played']} cards but held {d['held']} · 多牌/少牌"
        )
    raise ValueError(f"unknown proof kind {kind!r}")


@dataclass(frozen=True)
class UnsureRead:
    """A card of a play (:attr:`engine.record.Play.unsure`), or of the kitty (trick
    :data:`KITTY_READ`, the declarer's seat), whose reading is in doubt."""

    trick: int  # 1-based; KITTY_READ for the kitty
    seat: str
    card: str | None  # None: the seat's cards were seen there but never read (record ``unread``)
    maybe: str | None = None  # the camera's runner-up read of the card (record ``maybe``)

    def to_json(self) -> dict[str, Any]:
        return {"trick": self.trick, "seat": self.seat, "card": self.card, "maybe": self.maybe}

    def describe(self) -> str:
        what = "cards unread" if self.card is None else self.card
        other = f"; maybe {self.maybe}" if self.maybe else ""
        if self.trick == KITTY_READ:
            return f"{what} (the kitty{other})"
        if self.trick == BEFORE_PLAY_READ:
            return f"{what} ({self.seat}, before play{other})"
        return f"{what} ({self.seat}, trick {self.trick}{other})"


@dataclass(frozen=True)
class Infraction:
    kind: str
    seat: str
    trick: int | None  # 1-based; None for the kitty
    cards: tuple[str, ...]
    penalty: int
    proof: str
    found_at: int | None = None  # trick whose play proved it (None: seen as it happened)
    unsure_reads: tuple[UnsureRead, ...] = ()
    """The unsure cards its proof rests on; with any, it is for the referee to check."""
    proof_data: ProofData = field(default_factory=dict, compare=False)
    """The proof's facts (:data:`ProofData`); ``proof`` is their English sentence (with, when
    it is to check, the unsure reads it rests on)."""

    @property
    def to_check(self) -> bool:
        """Whether the proof rests on a card read in doubt (not asserted, a question)."""
        return bool(self.unsure_reads)

    def to_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "seat": self.seat,
            "trick": self.trick,
            "cards": list(self.cards),
            "penalty": self.penalty,
            "proof": self.proof,
            "proof_data": copy.deepcopy(self.proof_data),
            "found_at": self.found_at,
            "unsure_reads": [r.to_json() for r in self.unsure_reads],
        }


@dataclass(frozen=True)
class TrickAudit:
    number: int
    leader: str  # the seat whose turn it was to lead
    plays: tuple[Play, ...]  # in the order they touched the table
    lead: Lead
    complete: bool
    winner: str | None  # by the cards
    points: int
    points_to: str | None = None  # seat credited with the points (differs after revoke_cannot_win)
    points_past_revoke: str | None = None  # revoke_cannot_win: where they go if it counts


@dataclass(frozen=True)
class KittyAudit:
    cards: tuple[str, ...] | None
    points: int
    multiplier: int
    won_by_defenders: bool | None
    bonus: int


@dataclass
class AuditReport:
    record: HandRecord
    profile: RuleProfile
    tricks: list[TrickAudit]
    defender_points: int
    kitty: KittyAudit
    penalties: dict[str, int]
    infractions: list[Infraction]
    finished: bool
    result: HandOutcome | None
    notes: list[str] = field(default_factory=list)

    @property
    def declarer_side(self) -> str:
        return side_of(self.record.declarer)

    def to_json(self) -> dict[str, Any]:
        result = None
        if self.result is not None:
            r = self.result
            result = {
                "defender_total": r.defender_total,
                "levels_before": dict(r.levels_before),
                "levels_after": dict(r.levels_after),
                "level_change": dict(r.level_change),
                "next_declarer": r.next_declarer,
                "game_winner": r.game_winner,
                "explanation": list(r.explanation),
                "steps": copy.deepcopy(list(r.steps)),
            }
        return {
            "rules": self.profile.name,
            "declarer": self.record.declarer,
            "declarer_side": self.declarer_side,
            "level": self.record.level,
            "trump": self.record.trump,
            "finished": self.finished,
            "tricks": [
                {
                    "number": t.number,
                    "leader": t.leader,
                    "winner": t.winner,
                    "points": t.points,
                    "points_to": t.points_to,
                    "complete": t.complete,
                }
                for t in self.tricks
            ],
            "defender_points": self.defender_points,
            "kitty": {
                "cards": None if self.kitty.cards is None else list(self.kitty.cards),
                "points": self.kitty.points,
                "multiplier": self.kitty.multiplier,
                "won_by_defenders": self.kitty.won_by_defenders,
                "bonus": self.kitty.bonus,
            },
            "penalties": dict(self.penalties),
            "infractions": [i.to_json() for i in self.infractions],
            "result": result,
        }


def led_the_trick(profile: RuleProfile, leader: str, plays: Sequence[Play]) -> Play | None:
    """The play the others followed. It is the rightful leader's, unless the first two plays
    came from two other seats in turn: then the table went round from the first play (a lead
    out of turn the others followed, or a trick whose rightful leader the record has wrong) and
    the leader's cards, if any, were a follow. A lone seat playing before the leader only jumped
    the gun."""
    if not plays:
        return None
    seats = [pl.seat for pl in plays]
    went_round = (
        len(seats) >= 2
        and leader not in seats[:2]
        and profile.seats_in_play_order(seats[0])[1] == seats[1]
    )
    if leader in seats and not went_round:
        return plays[seats.index(leader)]
    return plays[0]


def hand_start(record: HandRecord) -> float:
    """The first time the record gives (the kitty taken or buried, or the first timed play):
    the origin of the seconds a proof names (record times may be on any clock)."""
    times = [t for t in (record.kitty_taken_t, record.kitty_buried_t) if t is not None]
    times += [play.t for plays in record.tricks for play in plays if play.t is not None]
    times += preplay_times(record)  # the draw, bidding and incidents, when recorded
    return min(times, default=0.0)


class _Auditor:
    def __init__(self, record: HandRecord, card_checks: Sequence[CardCheck] = ()) -> None:
        self.record = record
        self.card_checks = tuple(card_checks)
        self.profile = record.profile()
        self.order = hand_order(record.level, record.trump, self.profile)
        self.rings = {s: self.profile.seats_in_play_order(s) for s in SEATS}  # play order from s
        self.declarer_side = side_of(record.declarer)
        self.hand_size = (DECK_SIZE - self.profile.kitty_size) // 4
        self.infractions: list[Infraction] = []
        self.count_flagged: set[str] = set()
        self.overtime_counts: Counter[str] = Counter()
        self.tricks: list[TrickAudit] = []
        # plays[t][seat] for complete or partial tricks, t 0-based
        self.by_seat: list[dict[str, tuple[str, ...]]] = []
        self.lead_seats: list[str] = []  # per trick, the seat whose cards the others followed
        self.lead_reads_of: dict[int, list[ReadsNeeded]] = {}  # lead_reads, set by walk_tricks
        self.t0 = hand_start(record)  # proofs give seconds into the hand, not the record's clock
        self.timed_play_seen = False  # before the first timed play the clock runs from the burial
        self.ended = False  # a false declaration ended the hand before its play counted

    # ----- helpers -------------------------------------------------------------------------
    def flag(
        self,
        kind: str,
        seat: str,
        trick: int | None,
        cards: Sequence[str],
        penalty: int,
        proof: ProofData,
        found_at: int | None = None,
        rests_on: Sequence[ReadsNeeded] = (),
        unsure_reads: Sequence[UnsureRead] = (),
    ) -> None:
        """Record an infraction with its proof's facts; ``rests_on`` lists the card reads the
        proof needs, as (trick, seat, cards of that seat's play there); ``unsure_reads`` adds
        reads in doubt it rests on that are no play's (a takeback's, an exposed card's)."""
        unsure = tuple(dict.fromkeys([*self.unsure_among(rests_on), *unsure_reads]))
        text = proof_text(proof)
        if unsure:
            text += " · 识别存疑，请核对: rests on " + ", ".join(r.describe() for r in unsure)
        self.infractions.append(
            Infraction(kind, seat, trick, tuple(cards), penalty, text, found_at, unsure, proof)
        )

    def unsure_among(self, rests_on: Sequence[ReadsNeeded]) -> tuple[UnsureRead, ...]:
        out: dict[UnsureRead, None] = {}
        for number, seat, cards in rests_on:
            if number == KITTY_READ:
                kitty_maybe = dict(self.record.kitty_maybe)
                out.update(
                    (UnsureRead(number, seat, c, kitty_maybe.get(c)), None)
                    for c in self.record.kitty_unsure
                    if c in cards
                )
                continue
            if seat in self.record.unread.get(number, ()) or (
                cards is NO_PLAY_SEEN and self.missing_play(number, seat)
            ):
                out[UnsureRead(number, seat, None)] = None
            for play in self.record.tricks[number - 1]:
                if play.seat == seat:
                    out.update(
                        (UnsureRead(number, seat, c, play.may_be(c)), None)
                        for c in play.unsure
                        if c in cards
                    )
        return tuple(out)

    def who_won(self, number: int) -> list[ReadsNeeded]:
        """The card reads that decided trick ``number``'s winner (the next trick's leader):
        every card of it, and those that made its lead the play it is (none before trick 1:
        the declarer leads it)."""
        if number < 1:
            return []
        reads: list[ReadsNeeded] = [
            (number, pl.seat, pl.cards) for pl in self.record.tricks[number - 1]
        ]
        unseen = [(number, s, NO_PLAY_SEEN) for s in SEATS if self.missing_play(number, s)]
        return reads + unseen + self.lead_reads(number)

    def missing_play(self, number: int, seat: str) -> bool:
        """Whether trick ``number`` went on without a play of ``seat`` (a later trick was
        played, so this one was collected): who won it, and whether a seat played after it,
        then rest on a play nobody saw."""
        plays = self.record.tricks[number - 1]
        return number < len(self.record.tricks) and all(pl.seat != seat for pl in plays)

    def lead_reads(self, number: int) -> list[ReadsNeeded]:
        """The card reads that make trick ``number``'s lead the play the others followed.

        When the rightful leader by the reads started the trick, the table's own order agrees
        with them: none. When another seat played before it, which play was the lead rests on
        who won the trick before, so on every read that decided that (a misread there moves
        the lead, and with it each follow, throw and count judged against it). When no play of
        the rightful leader was seen at all, the lead rests on that play too: seen, it would
        have been the lead."""
        return self.lead_reads_of.get(number, [])

    # ----- pass 1: order, time, counts, winners --------------------------------------------
    def walk_tricks(self) -> None:
        p = self.profile
        leader = self.record.declarer
        prev_t = self.record.kitty_buried_t
        self.check_bury_time()
        for number, plays in enumerate(self.record.tricks, start=1):
            lead_play = led_the_trick(p, leader, plays)
            seen: set[str] = set()
            for play in plays:
                if play.seat in seen:
                    raise RecordError(
                        f"trick {number}: seat {play.seat} plays twice; record one play per seat"
                    )
                upstream = self.rings[play.seat][-1]  # 上家: plays just before it
                if play.seat != leader and upstream not in seen:
                    self.flag(
                        "out_of_turn",
                        play.seat,
                        number,
                        play.cards,
                        p.penalty_out_of_turn_per_card * len(play.cards),
                        {
                            "kind": "out_of_turn",
                            "trick": number,
                            "seat": play.seat,
                            "cards": list(play.cards),
                            "upstream": upstream,
                            "leader": leader,
                            "order": list(p.seats_in_play_order(leader)),
                        },
                        rests_on=[
                            *self.who_won(number - 1),
                            (number, upstream, NO_PLAY_SEEN),  # its play, if never seen
                            # its play seen later: a card read in doubt may have lain there
                            # unread before it was read, so when it touched the table is in
                            # doubt too
                            *[(number, q.seat, q.cards) for q in plays if q.seat == upstream],
                        ],
                    )
                seen.add(play.seat)
                prev_t = self.check_play_time(number, play, prev_t)
            if lead_play is None:
                self.by_seat.append({})
                self.lead_seats.append(leader)
                self.tricks.append(
                    TrickAudit(number, leader, plays, Lead((), None, ()), False, None, 0)
                )
                continue
            self.lead_seats.append(lead_play.seat)
            if lead_play is not plays[0]:
                self.lead_reads_of[number] = self.who_won(number - 1)
            elif all(play.seat != leader for play in plays):
                # The rightful leader's play was never seen: had it been, it was the lead, and
                # the play taken for the lead a follow (a lone joker led and missed).
                self.lead_reads_of[number] = [
                    (number, leader, NO_PLAY_SEEN),
                    *self.who_won(number - 1),
                ]
            lead_reads = self.lead_reads(number)
            rot = self.rings[lead_play.seat]
            ordered = sorted(plays, key=lambda pl: rot.index(pl.seat))
            lead = read_lead(self.order, lead_play.cards)
            self.by_seat.append({pl.seat: pl.cards for pl in plays})
            if lead.cls is None:
                self.flag(
                    "failed_throw",
                    lead_play.seat,
                    number,
                    lead_play.cards,
                    p.throw_fail_penalty_per_card * lead.size,
                    {
                        "kind": "mixed_lead",
                        "trick": number,
                        "seat": lead_play.seat,
                        "cards": list(lead.cards),
                    },
                    rests_on=[(number, lead_play.seat, lead_play.cards), *lead_reads],
                )
            self.check_counts(number, lead_play, lead.size, ordered)
            is_last = number == len(self.record.tricks)
            complete = len(plays) == 4 or not is_last
            if len(plays) < 4 and not is_last:
                for seat in rot:
                    if seat not in seen and seat not in self.count_flagged:
                        self.count_flagged.add(seat)
                        self.flag(
                            "card_count",
                            seat,
                            number,
                            (),
                            self.hand_count_penalty(lead.size),
                            {"kind": "no_play", "trick": number, "seat": seat},
                            rests_on=[(number, seat, ())],
                        )
            winner = None
            if complete:
                w = winner_index(self.order, lead, [pl.cards for pl in ordered])
                winner = ordered[w].seat
            trick_points = sum(CARD_POINTS[c] for pl in plays for c in pl.cards)
            self.tricks.append(
                TrickAudit(number, leader, plays, lead, complete, winner, trick_points, winner)
            )
            if not complete:
                break
            assert winner is not None
            leader = winner

    def check_counts(
        self, number: int, lead_play: Play, lead_size: int, ordered: Sequence[Play]
    ) -> None:
        """Plays of another number of cards than the trick's: 「任何一名選手手中牌比其他人多或少」
        (000 L14) — the seat whose count differs from *the others'*. When three or more plays
        agree, the odd one is flagged, the leader's too (a lead of one card that three seats
        answered with two each is the leader's hand out of line); otherwise the lead's count is
        the trick's."""
        if all(len(pl.cards) == lead_size for pl in ordered):
            return
        sizes = Counter(len(pl.cards) for pl in ordered)
        common, agreeing = sizes.most_common(1)[0]
        size, by = (common, "others") if agreeing >= 3 else (lead_size, "lead")
        for pl in ordered:
            if len(pl.cards) == size or pl.seat in self.count_flagged:
                continue
            self.count_flagged.add(pl.seat)
            self.flag(
                "card_count",
                pl.seat,
                number,
                pl.cards,
                self.hand_count_penalty(abs(len(pl.cards) - size)),
                {
                    "kind": "play_count",
                    "trick": number,
                    "seat": pl.seat,
                    "played": len(pl.cards),
                    "expected": size,
                    "by": by,
                    "lead_seat": lead_play.seat,
                    "lead_count": lead_size,
                },
                # a fan read unsurely: count in doubt; a count judged by the lead's, its lead too
                rests_on=[
                    (number, pl.seat, pl.cards),
                    *(self.lead_reads(number) if by == "lead" else ()),
                ],
            )

    def hand_count_penalty(self, cards_off: int) -> int:
        p = self.profile
        return p.penalty_hand_count * (cards_off if p.penalty_hand_count_per_card else 1)

    def check_bury_time(self) -> None:
        r, p = self.record, self.profile
        if r.kitty_taken_t is None or r.kitty_buried_t is None or p.bury_time_limit_s is None:
            return
        took = r.kitty_buried_t - r.kitty_taken_t
        if took > p.bury_time_limit_s:
            self.flag(
                "overtime",
                r.declarer,
                None,
                (),
                self.overtime_penalty(r.declarer),
                {
                    "kind": "bury_time",
                    "seat": r.declarer,
                    "took_s": round(took, 1),
                    "limit_s": p.bury_time_limit_s,
                    "knob": "bury_time_limit_s",
                },
            )

    def check_play_time(self, number: int, play: Play, prev_t: float | None) -> float | None:
        limit = self.profile.play_time_limit_s
        if play.t is None:
            return prev_t
        after_play, self.timed_play_seen = self.timed_play_seen, True
        if limit is not None and prev_t is not None and play.t - prev_t > limit:
            self.flag(
                "overtime",
                play.seat,
                number,
                play.cards,
                self.overtime_penalty(play.seat),
                {
                    "kind": "play_time",
                    "trick": number,
                    "seat": play.seat,
                    "cards": list(play.cards),
                    "took_s": round(play.t - prev_t, 1),
                    "limit_s": limit,
                    "after": "play" if after_play else "burial",
                    "from_s": round(prev_t - self.t0, 1),
                    "at_s": round(play.t - self.t0, 1),
                    "knob": "play_time_limit_s",
                },
            )
        return play.t

    def overtime_penalty(self, seat: str) -> int:
        p = self.profile
        self.overtime_counts[seat] += 1
        if p.overtime_penalty == "escalating":
            return p.overtime_penalty_step * (self.overtime_counts[seat] - 1)
        return 0

    # ----- pass 2: what each seat held -----------------------------------------------------
    def holdings(self) -> Iterator[tuple[int, dict[str, Counter[str]]]]:
        """(trick index, seat → holding at that trick) for every trick with a lead."""
        hands = self.record.hands
        if hands is not None:
            running = {s: Counter(hands[s]) for s in SEATS}
            for t, plays in enumerate(self.by_seat):
                yield t, running
                for seat, cards in plays.items():
                    missing = Counter(cards) - running[seat]
                    if missing and seat not in self.count_flagged:
                        self.count_flagged.add(seat)
                        self.flag(
                            "card_count",
                            seat,
                            t + 1,
                            tuple(missing.elements()),
                            self.hand_count_penalty(sum(missing.values())),
                            {
                                "kind": "not_in_hand",
                                "trick": t + 1,
                                "seat": seat,
                                "cards": list(missing.elements()),
                            },
                            rests_on=[(t + 1, seat, tuple(missing))],
                        )
                    running[seat] = running[seat] - Counter(cards)
        else:
            running = {s: Counter[str]() for s in SEATS}
            for t in range(len(self.by_seat) - 1, -1, -1):
                for seat, cards in self.by_seat[t].items():
                    running[seat].update(cards)
                yield t, running

    def check_follows_and_throws(self) -> None:
        for t, held in self.holdings():
            trick = self.tricks[t]
            if trick.lead.cls is None:
                continue
            plays = self.by_seat[t]
            for seat, cards in plays.items():
                if cards == trick.lead.cards and seat == self.lead_seat(t):
                    continue
                v = follow_violation(self.order, self.profile, trick.lead, held[seat], cards)
                if v is not None:
                    self.report_follow(t, seat, cards, v)
            if trick.lead.is_throw:
                self.check_throw(t, held)

    def lead_seat(self, t: int) -> str:
        return self.lead_seats[t]

    def report_follow(self, t: int, seat: str, cards: tuple[str, ...], v: FollowViolation) -> None:
        p = self.profile
        trick = self.tricks[t]
        number = t + 1
        found = number
        proving: list[str] = []
        lead_seat = self.lead_seat(t)
        rests_on: list[ReadsNeeded] = [
            (number, lead_seat, trick.lead.cards),
            *self.lead_reads(number),
            (number, seat, cards),
        ]
        if self.record.hands is None:
            lower: Counter[str] = Counter(cards)
            for later in range(t + 1, len(self.by_seat)):
                more = self.by_seat[later].get(seat, ())
                lower.update(more)
                led_class = [c for c in more if self.order.info[c].cls == trick.lead.cls]
                proving += led_class
                rests_on.append((later + 1, seat, led_class))
                if follow_violation(self.order, p, trick.lead, lower, cards) is not None:
                    found = later + 1
                    break
        delay = found - number
        hidden = delay >= p.hidden_card_after_tricks
        kind = "hidden_cards" if hidden else "revoke"
        proof: ProofData = {
            "kind": "follow",
            "trick": number,
            "lead_seat": lead_seat,
            "lead_cards": list(trick.lead.cards),
            "seat": seat,
            "cards": list(cards),
            "obligation": v.obligation,
            "needed": v.needed,
            "suit": "trump" if trick.lead.cls == TRUMP else trick.lead.cls,
            "basis": "hand" if self.record.hands is not None else "later",
            "held": v.held if self.record.hands is not None else None,
            "later_cards": proving,
            "found_at": found,
            "delay": delay,
            "hidden_after": p.hidden_card_after_tricks,
            "knob": "hidden_card_after_tricks",
            "verdict": kind,
        }
        if hidden:
            penalty = p.penalty_hidden_card * (
                v.wrong_cards if p.penalty_hidden_card_per_card else 1
            )
        else:
            penalty = p.penalty_revoke_per_card * v.wrong_cards
        self.flag(kind, seat, number, cards, penalty, proof, found, rests_on)

    def check_throw(self, t: int, held: dict[str, Counter[str]]) -> None:
        p = self.profile
        trick = self.tricks[t]
        lead = trick.lead
        assert lead.cls is not None
        thrower = self.lead_seat(t)
        partner = partner_of(thrower)
        number = t + 1
        judges = [
            s
            for s in p.seats_in_play_order(thrower)[1:]
            if p.throw_partner_can_defeat or s != partner
        ]
        # each unit some judge beats, with the first judge in play order that beats it
        beaten: list[tuple[int, Unit, str, tuple[str, ...]]] = []
        for unit in lead.units:
            for i, seat in enumerate(judges):
                by = beating_unit(self.order, unit, lead.cls, held[seat])
                if by is not None:
                    beaten.append((i, unit, seat, by))
                    break
        if not beaten:
            return
        if p.throw_fail_forced == "beaten_unit":  # the unit the first seat able to beat one beats
            first = min(i for i, *_ in beaten)
            beaten_first = [b for b in beaten if b[0] == first]
            _, forced, seat, beaten_by = min(beaten_first, key=lambda b: (b[1].pairs, b[1].top))
        else:  # "smallest_beaten"
            _, forced, seat, beaten_by = min(beaten, key=lambda b: (b[1].pairs, b[1].top))
        n = lead.size
        if p.throw_fail_penalty == "all_but_forced" and len(beaten) < len(lead.units):
            wrong = n - forced.size
        else:
            wrong = n
        found, rests_on = self.proving_plays(t, seat, beaten_by)
        proof: ProofData = {
            "kind": "throw",
            "trick": number,
            "seat": thrower,
            "cards": list(lead.cards),
            "by": seat,
            "beaten_by": list(beaten_by),
            "unit": _unit_name(forced),
            "unit_pairs": forced.pairs,
            "unit_cards": list(forced.cards),
            "forced": list(forced.cards),
            "basis": "hand" if self.record.hands is not None else "plays",
            "found_at": found,
            "knob": "throw_partner_can_defeat",
            "partner_counts": p.throw_partner_can_defeat,
            "concealed_by": None,
            "concealed_cards": None,
            "concealed_found_at": None,
        }
        if p.throw_partner_hiding_loses and p.throw_partner_can_defeat:
            concealed = self.concealed(t, held[partner])
            if concealed is not None:
                proof["concealed_by"], proof["concealed_cards"] = partner, list(concealed)
                proof["concealed_found_at"], more = self.proving_plays(t, partner, concealed)
                rests_on += more
        penalty = p.throw_fail_penalty_per_card * wrong
        self.flag(
            "failed_throw",
            thrower,
            number,
            lead.cards,
            penalty,
            proof,
            found,
            [(number, thrower, lead.cards), *self.lead_reads(number), *rests_on],
        )

    def proving_plays(
        self, t: int, seat: str, cards: Sequence[str]
    ) -> tuple[int, list[ReadsNeeded]]:
        """The trick by which ``seat`` is seen holding ``cards`` at trick ``t`` + 1 (its recorded
        hand: at once; otherwise when it has played them all) and the reads that show it."""
        if self.record.hands is not None:
            return t + 1, []
        found = t + 1
        rests_on: list[ReadsNeeded] = []
        need = Counter(cards)
        for later in range(t, len(self.by_seat)):
            played = self.by_seat[later].get(seat, ())
            rests_on.append((later + 1, seat, [c for c in played if c in need]))
            need -= Counter(played)
            if not need:
                found = later + 1
                break
        return found, rests_on

    def concealed(self, t: int, partner_holding: Counter[str]) -> tuple[str, ...] | None:
        """HF 「如甩牌人的對家有大於所甩的牌而故意隱瞞不說的，一經發現，判負」 (004 L44): the
        unit of the thrower's partner beating the throw of trick ``t`` + 1 when the throw stood —
        every other play answered all its cards — else None."""
        lead = self.tricks[t].lead
        assert lead.cls is not None
        plays = self.by_seat[t]
        if len(plays) < 4 or any(len(c) != lead.size for c in plays.values()):
            return None
        for unit in sorted(lead.units, key=lambda u: (u.pairs, u.top)):
            by = beating_unit(self.order, unit, lead.cls, partner_holding)
            if by is not None:
                return by
        return None

    def check_card_checks(self) -> None:
        """查牌 (A 000 L21, XX 002 L63, B 001 L31): a check finding nothing is unfounded; a
        side's first ``card_check_free`` of them in the hand are free, each later one costs
        ``card_check_penalty``."""
        p = self.profile
        wrong = {(i.trick, i.seat) for i in self.infractions if i.kind in CHECKABLE_KINDS}
        unfounded: Counter[str] = Counter()
        for check in self.card_checks:
            if (check.trick, check.checked) in wrong:
                continue
            side = side_of(check.seat)
            unfounded[side] += 1
            count = unfounded[side]
            penalty = p.card_check_penalty if count > p.card_check_free else 0
            self.flag(
                "card_check",
                check.seat,
                check.trick,
                (),
                penalty,
                {
                    "kind": "card_check",
                    "trick": check.trick,
                    "seat": check.seat,
                    "checked": check.checked,
                    "side": side,
                    "count": count,
                    "free": p.card_check_free,
                    "penalty": penalty,
                    "knob": "card_check_free",
                },
            )

    # ----- pass 3: card identities and counts ----------------------------------------------
    def check_cards(self) -> None:
        r, p = self.record, self.profile
        if r.kitty is not None and len(r.kitty) != p.kitty_size:
            self.flag(
                "kitty_count",
                kitty_burier(r),
                None,
                r.kitty,
                p.wrong_kitty_penalty,
                {
                    "kind": "kitty_count",
                    "count": len(r.kitty),
                    "kitty_size": p.kitty_size,
                    "knob": "kitty_size",
                },
            )
        seen: Counter[str] = Counter()
        where: dict[str, list[dict[str, Any]]] = {}
        shown_in: dict[str, list[ReadsNeeded]] = {}
        base: list[tuple[str, dict[str, Any]]] = [(c, {"where": "kitty"}) for c in (r.kitty or ())]
        if r.hands is not None:
            base += [(c, {"where": "hand", "seat": s}) for s in SEATS for c in r.hands[s]]
        for card, place in base:
            seen[card] += 1
            where.setdefault(card, []).append(place)
        for card in r.kitty_unsure:  # a third copy proven by a kitty card read in doubt
            shown_in.setdefault(card, []).append((KITTY_READ, r.declarer, (card,)))
        # with hands, they already count every card a seat can play
        shown: dict[str, list[tuple[int, str]]] = {}  # card → (trick, seat) where it was played
        for number, plays in enumerate(() if r.hands is not None else r.tricks, start=1):
            for play in plays:
                for card in play.cards:
                    seen[card] += 1
                    shown.setdefault(card, []).append((number, play.seat))
                    if seen[card] == COPIES + 1:
                        places = where.get(card, []) + [
                            {"where": "trick", "trick": n, "seat": seat} for n, seat in shown[card]
                        ]
                        self.flag(
                            "duplicate_card",
                            play.seat,
                            number,
                            (card,),
                            0,
                            {
                                "kind": "third_copy",
                                "trick": number,
                                "seat": play.seat,
                                "card": card,
                                "places": places,
                            },
                            rests_on=shown_in.get(card, [])
                            + [(n, seat, (card,)) for n, seat in shown[card]],
                        )
        if r.hands is not None:
            for card, n in seen.items():
                if n > COPIES:
                    self.flag(
                        "duplicate_card",
                        r.declarer,
                        None,
                        (card,),
                        0,
                        {"kind": "copies", "card": card, "copies": n, "places": where[card]},
                    )

    def check_hand_sizes(self) -> None:
        r = self.record
        kitty_short = 0 if r.kitty is None else self.profile.kitty_size - len(r.kitty)
        burier = kitty_burier(r)  # the kitty's seat: it held kitty_size cards more
        for seat in SEATS:
            if seat in self.count_flagged:
                continue
            played = sum(len(pl.get(seat, ())) for pl in self.by_seat)
            expected = self.hand_size + (kitty_short if seat == burier else 0)
            if played != expected:
                self.count_flagged.add(seat)
                self.flag(
                    "card_count",
                    seat,
                    len(self.tricks) or None,
                    (),
                    self.hand_count_penalty(abs(played - expected)),
                    {"kind": "hand_count", "seat": seat, "played": played, "held": expected},
                    # the count of every play the seat made: a fan read unsurely may hide one
                    rests_on=[
                        *((n, seat, ()) for n in r.unread if seat in r.unread[n]),
                        *(
                            (n, seat, pl[seat])
                            for n, pl in enumerate(self.by_seat, 1)
                            if seat in pl
                        ),
                    ],
                )

    def is_finished(self) -> bool:
        if self.record.finished is not None:
            return self.record.finished
        if not self.tricks or not self.tricks[-1].complete:
            return False
        return any(sum(len(pl.get(s, ())) for pl in self.by_seat) >= self.hand_size for s in SEATS)

    # ----- pass 4: points and result -------------------------------------------------------
    def apply_revoke_cannot_win(self) -> None:
        if not self.profile.revoke_cannot_win:
            return
        for inf in self.infractions:
            if inf.kind != "revoke" or inf.trick is None:
                continue
            t = inf.trick - 1
            trick = self.tricks[t]
            if trick.winner != inf.seat:
                continue
            rot = self.profile.seats_in_play_order(self.lead_seat(t))
            ordered = [pl for pl in sorted(trick.plays, key=lambda pl: rot.index(pl.seat))]
            others = [pl for pl in ordered if pl.seat != inf.seat]
            if not others:
                continue
            w = winner_index(self.order, trick.lead, [pl.cards for pl in others])
            if others[0].seat != self.lead_seat(t):
                w = 0
            self.tricks[t] = replace(
                trick, points_to=others[w].seat, points_past_revoke=others[w].seat
            )

    def check_before_play(self) -> None:
        """The draw, declarations and 炒, the kitty's moves, redeals, exposed cards and
        takebacks (:mod:`engine.preplay`); an over-time re-burial is priced like any other."""
        for f in check_before_play(self.record, self.profile):
            penalty = self.overtime_penalty(f.seat) if f.penalty is None else f.penalty
            trick = BEFORE_PLAY_READ if f.trick is None else f.trick
            doubt = [UnsureRead(trick, f.seat, c, maybe) for c, maybe in f.unsure]
            self.flag(f.kind, f.seat, f.trick, f.cards, penalty, f.proof, unsure_reads=doubt)
            self.ended = self.ended or ends_hand(f.proof)

    def report(self) -> AuditReport:
        self.check_before_play()
        self.walk_tricks()
        self.check_cards()
        self.check_follows_and_throws()
        finished = self.is_finished() or self.ended
        if finished and not self.ended:  # a hand ended before play holds every card still
            self.check_hand_sizes()
        self.check_card_checks()
        self.apply_revoke_cannot_win()
        self.infractions.sort(key=lambda i: (i.trick or 0, SEATS.index(i.seat)))
        # a question scores nothing (nor moves a trick's points) until a referee confirms it
        asserted = [inf for inf in self.infractions if not inf.to_check]
        tricks = _points_past_counted_revokes(self.tricks, asserted)
        return _settle(self.record, self.profile, tricks, self.infractions, finished, asserted)


def _settle(
    r: HandRecord,
    p: RuleProfile,
    tricks: list[TrickAudit],
    infractions: list[Infraction],
    finished: bool,
    counted: Sequence[Infraction] | None = None,
) -> AuditReport:
    """Points, penalties, kitty and result of audited tricks; only ``counted`` infractions
    (default: all of them) carry their penalties."""
    declarer_side = side_of(r.declarer)
    defenders = other_side(declarer_side)
    defender_points = sum(
        t.points for t in tricks if t.points_to and side_of(t.points_to) == defenders
    )
    against = {declarer_side: 0, defenders: 0}
    for inf in infractions if counted is None else counted:
        against[side_of(inf.seat)] += inf.penalty
    to_defenders = against[declarer_side] - against[defenders]
    penalties = {
        "against_declarers": against[declarer_side],
        "against_defenders": against[defenders],
        "to_defenders": to_defenders,
    }
    kitty_pts = points(r.kitty) if r.kitty is not None else 0
    last = tricks[-1] if tricks else None
    units = [u.pairs for u in last.lead.units] if last and last.lead.units else [0]
    if last and not last.lead.units:
        units = [0] * max(1, last.lead.size)
    mult = kitty_multiplier(p, units)
    won = None
    if finished and last is not None and last.points_to is not None:
        won = side_of(last.points_to) == defenders
    bonus = kitty_pts * mult if won else 0
    kitty = KittyAudit(r.kitty, kitty_pts, mult, won, bonus)
    declarer_points = sum(
        t.points for t in tricks if t.points_to and side_of(t.points_to) == declarer_side
    ) + (kitty_pts if won is False else 0)
    forfeit = next(
        (
            side_of(i.seat)
            for i in (infractions if counted is None else counted)
            if i.proof_data.get("concealed_by") is not None
        ),
        None,
    )  # a failed throw whose partner hid a beater: the side loses the game
    result = None
    ending = [i for i in (infractions if counted is None else counted) if ends_hand(i.proof_data)]
    if ending:  # a false declaration ended the hand: no table points, settled on penalties
        defender_points, kitty = 0, KittyAudit(r.kitty, kitty_pts, mult, None, 0)
        result = ended_result(p, r, to_defenders)
    elif finished and last is not None and (r.kitty is not None or not won):
        winner_cards: tuple[str, ...] = ()
        for pl in last.plays:
            if pl.seat == last.points_to:
                winner_cards = pl.cards
        result = settle_hand(
            p,
            levels=r.levels,
            declarer=r.declarer,
            defender_table_points=defender_points,
            kitty_points=kitty_pts,
            kitty_multiplier=mult,
            defenders_won_last_trick=bool(won),
            last_trick_winning_cards=winner_cards,
            last_trick_is_throw=last.lead.is_throw or last.lead.cls is None,
            penalties_to_defenders=to_defenders,
            first_hand=r.first_hand,
            must_play_done=r.must_play_done,
            declarer_points=declarer_points,
            declaration_side=_big_declaration_side(r),
            forfeited_by=forfeit,
        )
    return AuditReport(
        record=r,
        profile=p,
        tricks=tricks,
        defender_points=defender_points,
        kitty=kitty,
        penalties=penalties,
        infractions=infractions,
        finished=finished,
        result=result,
    )


def _points_past_counted_revokes(
    tricks: Sequence[TrickAudit], counted: Sequence[Infraction]
) -> list[TrickAudit]:
    """Each trick won by a revoking seat (``revoke_cannot_win``) with its points past that seat
    while the revoke is counted, and with its winner by the cards otherwise."""
    revokes = {(inf.trick, inf.seat) for inf in counted if inf.kind == "revoke"}
    return [
        replace(
            t,
            points_to=t.points_past_revoke if (t.number, t.winner) in revokes else t.winner,
        )
        if t.points_past_revoke is not None
        else t
        for t in tricks
    ]


def rescore(report: AuditReport, counted: Collection[int]) -> AuditReport:
    """The report with only the infractions at indices ``counted`` changing the score.

    A referee confirms or dismisses what the audit reports; until confirmed an infraction is
    listed but carries no penalty. The infractions stay listed as they are; penalties,
    defender points, the kitty and the result are worked out again from the counted ones.
    A trick won by a revoking seat (``revoke_cannot_win``) gives its points past that seat only
    while the revoke is counted, to its winner by the cards otherwise.
    """
    keep = [inf for i, inf in enumerate(report.infractions) if i in counted]
    tricks = _points_past_counted_revokes(report.tricks, keep)
    out = _settle(
        report.record, report.profile, tricks, list(report.infractions), report.finished, keep
    )
    out.notes = list(report.notes)
    return out


def _big_declaration_side(record: HandRecord) -> str | None:
    """The side that showed a BJ-SJ tractor or a 紅五星 pair to declare (NT 「「大王小王連對「、
    「紅五星對」亮相反牌後」 000 L45): the seat of the last such declaration or 炒 of the record's
    ``before_play``; None when there is none (or the record does not tell the bidding)."""
    side = None
    for event in record.preplay.events or ():
        if event.action in DECLARING and sorted(event.cards) in _BIG_DECLARATIONS:
            side = side_of(event.seat)
    return side


_BIG_DECLARATIONS = (["BJ", "BJ", "SJ", "SJ"], [RED_FIVE_STAR, RED_FIVE_STAR])


def audit(record: HandRecord, card_checks: Sequence[CardCheck] = ()) -> AuditReport:
    """Audit one hand record (see the module docstring); ``card_checks`` are the referee's
    checks of played cards asked for by a seat (查牌), scored when unfounded, after those the
    record lists (``card_checks``)."""
    card_checks = (*record.card_checks, *card_checks)
    for i, check in enumerate(card_checks, start=1):
        if check.seat not in SEATS or check.checked not in SEATS:
            raise RecordError(
                f"card check {i}: seats are N, E, S, W, got {check.seat!r} and {check.checked!r}"
            )
        if not 1 <= check.trick <= len(record.tricks):
            raise RecordError(
                f"card check {i}: trick {check.trick} is not a trick of the record "
                f"(1 to {len(record.tricks)})"
            )
    return _Auditor(record, card_checks).report()
