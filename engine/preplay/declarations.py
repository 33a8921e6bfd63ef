"""Declarations and 炒: what may declare, in which order, and the trump and dealer they give.

:func:`read_claim` says what a declaration's cards are under a profile — a single or pair of
the hand's level card, a joker pair, the joker tractor — or why they cannot declare at all (a
false declaration). :class:`BiddingWalk` follows a record's ``before_play`` events in order the
way a referee at the table would: it refuses a declaration the cards cannot make
(``false_declaration``, ``false_declare_penalty``, ending the hand where
``false_declare_ends_hand``), a 炒 the rules do not allow at that moment (``illegal_chao``: a
single where a pair is needed, ``chao_cards``; a pair used before, ``chao_pair_reuse``; out of
turn, ``chao_order`` and ``chao_first_round_others_only``; weaker, ``chao_overcall``; after a
no-bid flip, ``no_bid_rule``; a kitty taken without a 炒 or where ``chao_rebury`` is off), a
declaration shown face up where ``secret_bidding`` hides it (``exposed_card``), the kitty taken
with too many or too few cards (``kitty_draw_error``), and a burier burying in pieces, looking
at or retaking its kitty (``bury_violation``). A refused declaration is void: it makes neither
trump nor dealer. What the valid ones make is then checked against the record's ``trump``
(``wrong_trump``) and ``declarer`` (``wrong_dealer``, by ``first_dealer_rule`` in a first
hand and ``later_dealer_rule`` after), with ``no_bid_rule`` when nobody declared.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.cards import JOKERS, RANK_VALUE, parse
from engine.order import RED_FIVE_STAR
from engine.preplay.fields import BidEvent, PreplayRecord
from engine.preplay.proofs import Finding
from engine.profiles import RuleProfile
from engine.record import HandRecord

STRENGTH = {
    "single": 1,
    "pair": 2,
    "completed": 2,
    "SJ": 3,
    "BJ": 4,
    "red_star_pair": 5,
    "joker_tractor": 6,
}
"""How strong each declaration is, for ``chao_overcall='strength'``."""


@dataclass(frozen=True)
class Claim:
    """What a declaration's cards declare."""

    shape: str  # single, pair, completed, joker_pair, red_star_pair, joker_tractor
    trump: str | None  # S H D C or NT; None: a tractor or 紅五星 pair that named nothing
    pair: str | None = None  # the pair's card, for re-use (None for a single, the tractor)
    strength: int = 0


def read_claim(
    cards: tuple[str, ...], level: str, profile: RuleProfile, named: str | None
) -> Claim | str:
    """The :class:`Claim` of ``cards`` at ``level``, or why they cannot declare: ``not_level``,
    ``not_pair``, ``single_joker``, ``joker_pair`` (a joker pair alone where only the tractor
    declares), ``not_declaring`` (no declaring shape), ``named_other`` (a named suit the cards
    contradict). With ``joker_declare='tractor_any_suit'`` and the 紅五星 in the trump order
    (``trump_order='red_five_star'``) a pair of it declares the suit named too (NT
    「紅五星反主可任選定主」 000 L37)."""
    any_suit = profile.joker_declare == "tractor_any_suit"
    n = len(cards)
    if n <= 2 and not (cards[0] in JOKERS or cards[-1] in JOKERS):  # the usual: level cards
        star = any_suit and profile.trump_order == "red_five_star"
        if star and cards == (RED_FIVE_STAR, RED_FIVE_STAR):
            return Claim("red_star_pair", named, RED_FIVE_STAR, STRENGTH["red_star_pair"])
        rank, suit = parse(cards[0])
        if rank != level or (n == 2 and parse(cards[1])[0] != level):
            return "not_level"
        if n == 1:
            return _named(Claim("single", suit, None, STRENGTH["single"]), named)
        if cards[0] != cards[1]:
            return "not_pair"
        return _named(Claim("pair", suit, cards[0], STRENGTH["pair"]), named)
    counts = Counter(cards)
    jokers = [c for c in cards if c in JOKERS]
    if jokers and len(jokers) != len(cards):
        return "not_declaring"
    if jokers:
        if len(cards) == 1:
            return "single_joker"
        if len(cards) == 2 and len(counts) == 1:
            if any_suit:
                return "joker_pair"
            return _named(Claim("joker_pair", "NT", cards[0], STRENGTH[cards[0]]), named)
        if counts == Counter({"BJ": 2, "SJ": 2}) and any_suit:
            return Claim("joker_tractor", named, None, STRENGTH["joker_tractor"])
        return "not_declaring"
    return "not_level" if any(parse(c)[0] != level for c in cards) else "not_declaring"


def _named(claim: Claim, named: str | None) -> Claim | str:
    return "named_other" if named is not None and named != claim.trump else claim


def _ring(seat: str, direction: str) -> tuple[str, str, str, str]:
    ring = "NESW" if direction == "clockwise" else "NWSE"
    i = ring.index(seat)
    return (ring[i], ring[(i + 1) % 4], ring[(i + 2) % 4], ring[(i + 3) % 4])


_RINGS = {(s, d): _ring(s, d) for s in "NESW" for d in ("clockwise", "counterclockwise")}


def seats_from(seat: str, direction: str) -> list[str]:
    """The four seats in ``direction`` starting at ``seat``."""
    return list(_RINGS[seat, direction])


def flip_result(flip: tuple[str, ...], level: str) -> int | None:
    """Which card of a no-bid kitty flip sets the trump: the first level card, else the largest
    earliest card; jokers take no part (B 「以先翻出的將牌的花色為主，如沒有將牌，則以八張底牌中最大
    且最早出現的牌的花色定主（鬼牌不參與定主）」 001 L2). None: only jokers."""
    suited = [(i, c) for i, c in enumerate(flip) if c not in JOKERS]
    for i, c in suited:
        if parse(c)[0] == level:
            return i
    if not suited:
        return None
    best = max(RANK_VALUE[parse(c)[0]] for _, c in suited)
    return next(i for i, c in suited if RANK_VALUE[parse(c)[0]] == best)


@dataclass
class _Round:
    """The turns of one round of 炒: the seats that may act, in order, after ``holder``."""

    holder: str
    order: list[str]
    next_index: int = 0


class BiddingWalk:
    """One pass over a record's ``before_play`` events (see the module docstring)."""

    def __init__(self, record: HandRecord, profile: RuleProfile) -> None:
        self.record, self.profile = record, profile
        self.findings: list[Finding] = []
        self.valid: list[tuple[BidEvent, Claim]] = []  # the declarations that count, in order
        self.before_kitty: list[tuple[BidEvent, Claim]] = []
        self.ended = False  # a false declaration ended the hand
        pre: PreplayRecord = record.preplay
        self.events = pre.events or ()
        self.level = record.level
        actions = {e.action for e in self.events}
        self.strict = "pass" in actions  # a record listing passes lists them all
        self.moves_listed = "take" in actions or "bury" in actions
        self.taken = False
        self.holder: str | None = None  # the seat the kitty is with (took it, or buried it)
        self.holding = False  # the holder has taken it and not yet buried it
        self.pending: str | None = None  # a seat whose valid 炒 lets it take the kitty
        self.rounds: _Round | None = None
        self.first_round = True
        self.used_pairs: set[str] = set()
        self.first_single: tuple[str, str] | None = None
        self.caller: str | None = None
        self.bury_counts: Counter[str] = Counter()
        self.flipped = pre.no_bid_flip is not None and profile.no_bid_rule == "flip_kitty"

    # ----- findings ------------------------------------------------------------------------
    def add(
        self, kind: str, seat: str, cards: tuple[str, ...], penalty: int, proof: dict[str, Any]
    ) -> None:
        self.findings.append(Finding(kind, seat, None, cards, penalty, proof))

    def false(self, number: int, e: BidEvent, reason: str) -> None:
        p = self.profile
        self.add(
            "false_declaration",
            e.seat,
            e.cards,
            p.false_declare_penalty,
            {
                "kind": "false_declaration",
                "event": number,
                "seat": e.seat,
                "cards": list(e.cards),
                "action": e.action,
                "reason": reason,
                "level": self.level,
                "face_down": e.face_down,
                "ends_hand": p.false_declare_ends_hand,
                "knob": "false_declare_penalty",
            },
        )
        if p.false_declare_ends_hand:
            self.ended = True

    def illegal(
        self, number: int, e: BidEvent, reason: str, knob: str, other: str | None = None
    ) -> None:
        p = self.profile
        as_false = p.illegal_chao_is_false_declaration
        ends = as_false and p.false_declare_ends_hand
        self.add(
            "false_declaration" if as_false else "illegal_chao",
            e.seat,
            e.cards,
            p.false_declare_penalty if as_false else 0,
            {
                "kind": "illegal_chao",
                "event": number,
                "seat": e.seat,
                "cards": list(e.cards),
                "action": e.action,
                "reason": reason,
                "other": other,
                "level": self.level,
                "ends_hand": ends,
                "knob": knob,
            },
        )
        if ends:
            self.ended = True

    # ----- the walk ------------------------------------------------------------------------
    def run(self) -> list[Finding]:
        for number, e in enumerate(self.events, start=1):
            if self.ended:
                break  # the hand ended when that was found: nothing after it counts
            if e.action in ("declare", "chao"):
                self.declaration(number, e)
            elif e.action == "pass":
                self.passed(e)
            elif e.action == "take":
                self.take(number, e)
            elif e.action == "bury":
                self.bury(number, e)
            else:
                self.look(number, e)
        if not self.ended:
            self.check_result()
        return self.findings

    def is_chao(self, e: BidEvent) -> bool:
        """Whether a declaration is a 炒 (after the kitty was taken): by the kitty moves when
        the record lists them, else by its ``action``."""
        return self.taken if self.moves_listed else e.action == "chao"

    def declaration(self, number: int, e: BidEvent) -> None:
        p = self.profile
        if p.secret_bidding and e.face_down is False:
            self.add(
                "exposed_card",
                e.seat,
                e.cards,
                p.penalty_exposed_card * len(e.cards),
                {
                    "kind": "face_up",
                    "event": number,
                    "seat": e.seat,
                    "cards": list(e.cards),
                    "knob": "secret_bidding",
                },
            )
        claim = read_claim(e.cards, self.level, p, e.trump)
        chao = self.is_chao(e)
        if isinstance(claim, str):
            self.false(number, e, claim)
            return
        if claim.shape == "single" and chao and self._completes(e):
            claim = Claim("completed", claim.trump, e.cards[0], STRENGTH["completed"])
        problem = self.not_allowed(e, claim, chao)
        if problem is not None:
            reason, knob, other = problem
            self.illegal(number, e, reason, knob, other)
            return
        self.valid.append((e, claim))
        if claim.pair is not None:
            self.used_pairs.add(claim.pair)
        if claim.shape == "single" and self.first_single is None:
            self.first_single = (e.seat, e.cards[0])
        if self.caller is None:
            self.caller = e.seat
        if chao:
            self.first_round = False
            self.pending = e.seat
            self.start_round(e.seat)
        else:
            self.before_kitty.append((e, claim))

    def _completes(self, e: BidEvent) -> bool:
        """B's completed single: the seat that first placed a single level card 炒s with the
        other copy of it (「最先單張暗放主牌者，在炒牌後可用另一張與暗放主牌同色的主牌組成一對
        將牌炒牌」 001 L1)."""
        return (
            self.profile.chao_cards == "pair_or_completed_single"
            and len(e.cards) == 1
            and self.first_single == (e.seat, e.cards[0])
        )

    def not_allowed(
        self, e: BidEvent, claim: Claim, chao: bool
    ) -> tuple[str, str, str | None] | None:
        """Why a declaration whose cards can declare may not be made here: (reason, knob, the
        seat whose turn it was) or None."""
        p = self.profile
        if self.flipped:
            return "after_flip", "no_bid_rule", None
        if claim.shape == "single" and (chao or self.valid):
            return "single", "chao_cards", None
        if claim.pair is not None and claim.pair in self.used_pairs and not p.chao_pair_reuse:
            return "reused", "chao_pair_reuse", None
        by_strength = p.chao_overcall == "strength" and self.valid
        if by_strength and claim.strength <= max(c.strength for _, c in self.valid):
            return "weaker", "chao_overcall", None
        if not chao:
            return None
        if self.moves_listed and self.holding:
            return "before_burial", "chao_order", self.holder
        if self.rounds is None:
            self.start_round(self.holder or self.record.declarer)
        assert self.rounds is not None
        r = self.rounds
        if self.first_round and p.chao_first_round_others_only and e.seat in self.excluded():
            return "first_round", "chao_first_round_others_only", None
        if self.strict:
            expected = r.order[r.next_index] if r.next_index < len(r.order) else None
            if e.seat != expected:
                return ("turn" if expected else "closed"), "chao_order", expected
        elif e.seat not in r.order:
            return "closed", "chao_order", None
        return None

    def excluded(self) -> set[str]:
        """The seats that may not 炒 in the first round (``chao_first_round_others_only``)."""
        dealer = self.holder if self.moves_listed and self.holder else self.record.declarer
        return {s for s in (self.caller, dealer) if s is not None}

    def start_round(self, holder: str) -> None:
        order = seats_from(holder, self.profile.chao_order)[1:]
        if self.first_round and self.profile.chao_first_round_others_only:
            out = self.excluded() | {holder}
            order = [s for s in order if s not in out]
        self.rounds = _Round(holder, order)

    def passed(self, e: BidEvent) -> None:
        r = self.rounds
        if r is not None and r.next_index < len(r.order) and r.order[r.next_index] == e.seat:
            r.next_index += 1

    def take(self, number: int, e: BidEvent) -> None:
        p = self.profile
        size = e.size
        if size is not None and size != p.kitty_size:
            self.kitty_draw(number, e, size)
        if not self.taken:
            self.taken = True
        elif e.seat == self.pending:
            if not p.chao_rebury:
                self.illegal(number, e, "rebury", "chao_rebury")
        elif e.seat == self.holder and not self.holding:
            self.bury_violation(number, e, "retook")
        else:
            self.illegal(number, e, "took_without_chao", "chao_rebury")
        self.pending = None
        self.holder, self.holding = e.seat, True

    def kitty_draw(self, number: int, e: BidEvent, size: int) -> None:
        p = self.profile
        over = size > p.kitty_size
        priced = p.kitty_draw_error == "both" or (p.kitty_draw_error == "under_only" and not over)
        self.add(
            "kitty_draw_error",
            e.seat,
            (),
            p.kitty_draw_penalty if priced else 0,
            {
                "kind": "kitty_draw",
                "event": number,
                "seat": e.seat,
                "count": size,
                "kitty_size": p.kitty_size,
                "reason": "over" if over else "under",
                "knob": "kitty_draw_error",
            },
        )

    def bury(self, number: int, e: BidEvent) -> None:
        if e.seat == self.holder and self.holding:
            self.holding = False
            if self.rounds is None:
                self.start_round(e.seat)  # the dealer's burial opens the first round of 炒
        elif e.seat == self.holder:
            self.bury_violation(number, e, "piecemeal")

    def look(self, number: int, e: BidEvent) -> None:
        if e.seat == self.holder and not self.holding:
            self.bury_violation(number, e, "looked")

    def bury_violation(self, number: int, e: BidEvent, reason: str) -> None:
        p = self.profile
        self.bury_counts[e.seat] += 1
        nth = self.bury_counts[e.seat]
        warning = p.bury_violation == "flag" or (
            p.bury_violation == "warn_then_penalty" and nth == 1
        )
        self.add(
            "bury_violation",
            e.seat,
            e.cards,
            0 if warning else p.bury_violation_penalty,
            {
                "kind": "bury_violation",
                "event": number,
                "seat": e.seat,
                "reason": reason,
                "nth": nth,
                "warning": warning,
                "knob": "bury_violation",
            },
        )

    # ----- the trump and the dealer they give ----------------------------------------------
    def check_result(self) -> None:
        r, p = self.record, self.profile
        declared = [e for e in self.events if e.action in ("declare", "chao")]
        if not declared:
            self.no_bid()
            return
        if not self.valid:
            return  # every declaration was refused: the referee decides the hand
        last, claim = self.valid[-1]
        if claim.trump is not None and claim.trump != r.trump:
            self.add(
                "wrong_trump",
                last.seat,
                (),
                0,
                {
                    "kind": "trump_result",
                    "seat": last.seat,
                    "trump": r.trump,
                    "expected_trump": claim.trump,
                    "basis": "declaration",
                    "knob": "chao_overcall",
                },
            )
        by_declaration = r.first_hand or p.later_dealer_rule == "declaration"
        if by_declaration and self.before_kitty:
            if p.first_dealer_rule == "first_declarer":
                dealer, basis = self.before_kitty[0][0].seat, "first_declaration"
            else:
                dealer, basis = self.before_kitty[-1][0].seat, "last_before_kitty"
            knob = "first_dealer_rule" if r.first_hand else "later_dealer_rule"
            self.dealer(dealer, basis, knob)
        elif not by_declaration and r.preplay.dealer_by_rotation is not None:
            self.dealer(r.preplay.dealer_by_rotation, "rotation", "later_dealer_rule")

    def dealer(self, expected: str, basis: str, knob: str) -> None:
        r = self.record
        if expected == r.declarer:
            return
        self.add(
            "wrong_dealer",
            r.declarer,
            (),
            0,
            {
                "kind": "dealer_result",
                "seat": r.declarer,
                "other": expected,
                "basis": basis,
                "knob": knob,
            },
        )

    def no_bid(self) -> None:
        r, p = self.record, self.profile
        if p.no_bid_rule == "redeal":
            if r.tricks:
                self.add(
                    "wrong_trump",
                    r.declarer,
                    (),
                    0,
                    {"kind": "no_declaration", "seat": r.declarer, "knob": "no_bid_rule"},
                )
            return
        flip = r.preplay.no_bid_flip
        if flip is None:
            return
        i = flip_result(flip, self.level)
        if i is None:
            return
        trump = parse(flip[i])[1]
        if trump != r.trump:
            self.add(
                "wrong_trump",
                r.declarer,
                (),
                0,
                {
                    "kind": "trump_result",
                    "seat": r.declarer,
                    "trump": r.trump,
                    "expected_trump": trump,
                    "basis": "flip",
                    "knob": "no_bid_rule",
                },
            )
        draw = r.preplay.draw
        by_flip = r.first_hand or p.later_dealer_rule == "declaration"
        if by_flip and draw is not None and draw.first is not None:
            flipper = seats_from(draw.first, p.deal_direction)[i % 4]
            self.dealer(flipper, "flip", "no_bid_rule")
        elif not by_flip and r.preplay.dealer_by_rotation is not None:
            self.dealer(r.preplay.dealer_by_rotation, "rotation", "later_dealer_rule")


def check_declarations(record: HandRecord, profile: RuleProfile) -> list[Finding]:
    """The findings of a record's ``before_play`` events (none when it does not list them)."""
    if record.preplay.events is None:
        return []
    return BiddingWalk(record, profile).run()
