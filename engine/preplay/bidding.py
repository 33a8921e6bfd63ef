"""The simulator's draw and bidding: a deal drawn card by card, declared, 炒'd and buried.

:func:`simulate_bidding` plays everything before the first trick by the profile's rules: who
shuffles, cuts and draws first (``shuffle_by``, ``first_drawer_rule``), the draw in
``deal_direction``; seats declare a level card they draw (placed face down where
``secret_bidding``), a single first and pairs after it (正主/反主), jokers by
``joker_declare``, stronger ones only under ``chao_overcall='strength'``; when nobody declares,
``no_bid_rule`` (the kitty turned up, or a new deal). The dealer — the rotation's in a later
hand, by ``first_dealer_rule`` in a first hand — takes the kitty and buries; then rounds of 炒
in ``chao_order`` from the seat after each burier (``chao_first_round_others_only``), each
seat with an unused pair (``chao_pair_reuse``, ``chao_cards``) 炒ing now and then, taking the
kitty and burying again (``chao_rebury``), until the three others pass. Passes are listed when
a referee enters the hand (``list_passes``, the simulator's recorded hands), never by the
camera, which sees no pass (the audit reads both kinds of record).

It also plants the faults before play that the simulator is asked for (:data:`PLANTABLE`):
a face-down declaration of a card that cannot declare (``false_declaration``); a 炒 the rules
refuse (``illegal_chao``: a single, a re-used pair, the holder 炒ing its own kitty out of turn,
a 炒 before the kitty was buried, or any 炒 after a no-bid flip); a burial in two goes or a
look at the buried kitty (``bury_violation``); the kitty taken with one card too many or too
few (``kitty_draw_error``). A planted declaration is void, as the referee would make it; where
the profile ends the hand on it (``false_declare_ends_hand``) the record stops there.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from engine.cards import JOKERS, SEATS, SIDES, full_deck, parse, side_of
from engine.order import RED_FIVE_STAR, HandOrder, hand_order
from engine.preplay.declarations import STRENGTH, flip_result, seats_from
from engine.preplay.table import FLIP_ORDER, flip_strength
from engine.profiles import RuleProfile

PLANTABLE: tuple[str, ...] = (
    "false_declaration",
    "illegal_chao",
    "bury_violation",
    "kitty_draw_error",
)
"""The faults this module plants (exposed cards and takebacks happen in play)."""

Bury = Callable[[Counter[str], int, HandOrder], list[str]]
"""Chooses the cards a seat holding these cards buries (the simulator's burial strategy)."""


@dataclass
class Option:
    """A declaration a seat could make now."""

    cards: tuple[str, ...]
    trump: str
    shape: str
    pair: str | None
    named: str | None = None

    @property
    def strength(self) -> int:
        return STRENGTH[self.pair if self.shape == "joker_pair" and self.pair else self.shape]


@dataclass
class Bidding:
    """Everything before the first trick, as the simulator played it."""

    levels: dict[str, str]
    first_hand: bool
    dealer: str
    trump: str
    hands: dict[str, Counter[str]]
    kitty: list[str]
    burier: str
    events: list[dict[str, Any]]
    draw: dict[str, Any]
    no_bid_flip: list[str] | None
    dealer_by_rotation: str | None
    kitty_taken_t: float
    kitty_buried_t: float
    ended: bool = False
    planted: list[tuple[str, str]] = field(default_factory=list)  # (kind, seat)


class _Bidder:
    def __init__(
        self,
        profile: RuleProfile,
        rng: random.Random,
        levels: dict[str, str],
        dealer: str,
        first_hand: bool,
        hand_size: int,
        kitty_n: int,
        bury: Bury,
        plan: tuple[str, ...],
        list_passes: bool,
    ) -> None:
        self.p, self.rng, self.bury_fn = profile, rng, bury
        self.levels, self.first_hand = levels, first_hand
        self.dealer = dealer
        self.level = levels[side_of(dealer)]
        self.hand_size, self.kitty_n = hand_size, kitty_n
        self.plan = set(plan)
        self.events: list[dict[str, Any]] = []
        self.planted: list[tuple[str, str]] = []
        self.ended = False
        self.t = 0.0
        self.valid: list[tuple[str, Option]] = []  # (seat, option), in order
        self.before_kitty: list[tuple[str, Option]] = []
        self.used: set[str] = set()
        self.first_single: tuple[str, str] | None = None
        self.strict = list_passes  # list every pass
        self.hands: dict[str, Counter[str]] = {s: Counter() for s in SEATS}
        self.kitty: list[str] = []
        self.burier = dealer
        self.taken_t = self.buried_t = 0.0

    # ----- small helpers -------------------------------------------------------------------
    def tick(self, lo: float, hi: float) -> float:
        self.t = round(self.t + self.rng.uniform(lo, hi), 1)
        return self.t

    def event(self, seat: str, action: str, **extra: Any) -> dict[str, Any]:
        e: dict[str, Any] = {"seat": seat, "action": action, **extra, "t": self.t}
        self.events.append(e)
        return e

    def is_level(self, card: str) -> bool:
        return card not in JOKERS and parse(card)[0] == self.level

    def options(self, seat: str, *, chao: bool) -> list[Option]:
        """The declarations ``seat`` could make now that the rules allow."""
        p, hand = self.p, self.hands[seat]
        out: list[Option] = []
        any_suit = p.joker_declare == "tractor_any_suit"
        star = any_suit and p.trump_order == "red_five_star"
        for card, n in sorted(hand.items()):
            if n >= 2 and card not in self.used:
                if star and card == RED_FIVE_STAR:
                    named = self.rng.choice(("S", "H", "D", "C"))
                    out.append(Option((card, card), named, "red_star_pair", card, named))
                elif self.is_level(card):
                    out.append(Option((card, card), parse(card)[1], "pair", card))
                elif card in JOKERS and not any_suit:
                    out.append(Option((card, card), "NT", "joker_pair", card))
            if (
                chao
                and p.chao_cards == "pair_or_completed_single"
                and self.first_single == (seat, card)
                and n >= 2
                and card not in self.used
            ):
                out.append(Option((card,), parse(card)[1], "completed", card))
        if any_suit and hand["BJ"] >= 2 and hand["SJ"] >= 2:
            named = self.rng.choice(("S", "H", "D", "C", "NT"))
            out.append(Option(("BJ", "BJ", "SJ", "SJ"), named, "joker_tractor", None, named))
        if p.chao_overcall == "strength" and self.valid:
            top = max(o.strength for _, o in self.valid)
            out = [o for o in out if o.strength > top]
        return out

    def declare(self, seat: str, option: Option, action: str) -> None:
        extra: dict[str, Any] = {"cards": list(option.cards)}
        if self.p.secret_bidding:
            extra["face_down"] = True
        if option.named is not None:
            extra["trump"] = option.named
        self.event(seat, action, **extra)
        self.valid.append((seat, option))
        if option.pair is not None:
            self.used.add(option.pair)
        if option.shape == "single" and self.first_single is None:
            self.first_single = (seat, option.cards[0])

    # ----- the draw ------------------------------------------------------------------------
    def draw_record(self) -> tuple[dict[str, Any], str]:
        p, rng = self.p, self.rng
        draw: dict[str, Any] = {"direction": p.deal_direction, "t": 0.0}
        first = self.dealer
        if self.first_hand and p.first_drawer_rule == "card_flip":
            while True:
                flips = [(seat, rng.choice(full_deck())) for seat in FLIP_ORDER]
                ranked = sorted(flips, key=lambda f: flip_strength(f[1]), reverse=True)
                if ranked[0][1] != ranked[1][1]:
                    break
            draw["flips"] = [{"seat": s, "card": c} for s, c in flips]
            first = ranked[0][0]
        elif self.first_hand and p.first_drawer_rule == "drawn_card":
            eldest = rng.choice(SEATS)
            cards: list[str] = []
            while not cards or cards[-1] in JOKERS:
                cards.append(rng.choice(full_deck()))
            draw["flips"] = [{"seat": eldest, "card": c} for c in cards]
            first = rng.choice(SEATS)
        elif self.first_hand or p.first_drawer_rule == "any":
            first = rng.choice(SEATS)
        if not self.first_hand:
            shuffler, cutter = self.shufflers()
            draw["shuffled_by"], draw["cut_by"] = shuffler, cutter
        draw["first"] = first
        return draw, first

    def shufflers(self) -> tuple[str, str]:
        p, dealer = self.p, self.dealer
        defenders = [s for s in SEATS if side_of(s) != side_of(dealer)]
        declarers = [s for s in SEATS if side_of(s) == side_of(dealer)]
        if p.shuffle_by == "dealer_shuffles_upstream_cuts":
            return dealer, p.seats_in_play_order(dealer)[-1]
        if p.shuffle_by == "declarers_shuffle_defenders_cut":
            return self.rng.choice(declarers), self.rng.choice(defenders)
        if p.shuffle_by == "defenders":
            return self.rng.choice(defenders), self.rng.choice(defenders)
        return self.rng.choice(SEATS), self.rng.choice(SEATS)

    def deal(self, first: str) -> bool:
        """Draw the deck card by card; seats declare as they go. False: nobody declared."""
        rng, p = self.rng, self.p
        deck = full_deck()
        rng.shuffle(deck)
        order = seats_from(first, p.deal_direction)
        shy = p.no_bid_rule == "flip_kitty" and rng.random() < 0.2
        false_at = rng.randrange(40, 4 * self.hand_size) if "false_declaration" in self.plan else -1
        for k in range(4 * self.hand_size):
            seat = order[k % 4]
            card = deck[k]
            self.hands[seat][card] += 1
            self.tick(0.2, 0.6)
            if k == false_at:
                self.plant_false(seat)
                if self.ended:
                    break
            if not shy:
                self.maybe_declare(seat, card)
        self.kitty = deck[4 * self.hand_size :]
        if not self.valid and not shy and not self.ended:
            for seat in SEATS:
                singles = sorted(c for c in self.hands[seat] if self.is_level(c))
                if singles:
                    self.declare(
                        seat, Option((singles[0],), parse(singles[0])[1], "single", None), "declare"
                    )
                    break
        return bool(self.valid)

    def maybe_declare(self, seat: str, card: str) -> None:
        rng = self.rng
        if not self.valid:
            if self.is_level(card) and rng.random() < 0.4:
                pairs = [o for o in self.options(seat, chao=False) if o.pair == card]
                if pairs and rng.random() < 0.3:
                    self.declare(seat, pairs[0], "declare")
                else:
                    self.declare(seat, Option((card,), parse(card)[1], "single", None), "declare")
            elif card in JOKERS and rng.random() < 0.3:
                jokers = [o for o in self.options(seat, chao=False) if o.pair == card]
                if jokers:
                    self.declare(seat, jokers[0], "declare")
            return
        fresh = [o for o in self.options(seat, chao=False) if card in o.cards]
        if fresh and rng.random() < 0.15:
            self.declare(seat, rng.choice(fresh), "declare")

    def plant_false(self, seat: str) -> None:
        wrong = sorted(c for c in self.hands[seat] if c not in JOKERS and not self.is_level(c))
        if not wrong:
            return
        extra: dict[str, Any] = {"cards": [self.rng.choice(wrong)]}
        if self.p.secret_bidding:
            extra["face_down"] = True
        self.event(seat, "declare", **extra)
        self.planted.append(("false_declaration", seat))
        self.plan.discard("false_declaration")
        if self.p.false_declare_ends_hand:
            self.ended = True

    # ----- the kitty and 炒 -----------------------------------------------------------------
    def order_for(self, trump: str) -> HandOrder:
        return hand_order(self.level, trump, self.p)

    def take_and_bury(self, seat: str, trump: str) -> None:
        rng = self.rng
        self.tick(1.0, 4.0)
        take = self.event(seat, "take")
        if "kitty_draw_error" in self.plan:
            take["count"] = self.kitty_n + rng.choice((1, -1))
            self.planted.append(("kitty_draw_error", seat))
            self.plan.discard("kitty_draw_error")
        self.taken_t = self.t
        if "illegal_chao" in self.plan and rng.random() < 0.4:
            self.plant_illegal("before_burial", seat)
            if self.ended:
                return
        self.hands[seat].update(self.kitty)
        buried = self.bury_fn(self.hands[seat], self.kitty_n, self.order_for(trump))
        limit = self.p.bury_time_limit_s
        hi = 40.0 if limit is None else min(40.0, 0.8 * limit)
        self.tick(min(5.0, hi / 2), hi)
        self.buried_t = self.t
        if "bury_violation" in self.plan and len(buried) >= 2:
            self.plant_bury_violation(seat, buried)
        elif rng.random() < 0.5:
            self.event(seat, "bury", cards=list(buried))
        else:
            self.event(seat, "bury", count=len(buried))
        self.kitty = buried
        self.burier = seat

    def plant_bury_violation(self, seat: str, buried: list[str]) -> None:
        if self.rng.random() < 0.5:
            k = self.rng.randrange(1, len(buried))
            self.event(seat, "bury", cards=buried[:k])
            self.tick(0.5, 2.0)
            self.event(seat, "bury", cards=buried[k:])
        else:
            self.event(seat, "bury", cards=list(buried))
            self.tick(0.5, 2.0)
            self.event(seat, "look")
        self.planted.append(("bury_violation", seat))
        self.plan.discard("bury_violation")

    def plant_illegal(self, variant: str, seat: str) -> None:
        """Plant a 炒 the rules refuse, of ``variant`` (``seat``: the kitty's holder), if the
        hands allow it."""
        rng, p = self.rng, self.p
        others = [s for s in seats_from(seat, p.chao_order)[1:]]
        choice: tuple[str, tuple[str, ...]] | None = None
        if variant == "single":
            for s in others:
                singles = sorted(
                    c for c in self.hands[s] if self.is_level(c) and (s, c) != self.first_single
                )
                if singles:
                    choice = (s, (rng.choice(singles),))
                    break
        elif variant == "reused":
            for s in SEATS:
                held = sorted(c for c in self.used if self.hands[s][c] >= 2)
                if held:
                    c = rng.choice(held)
                    choice = (s, (c, c))
                    break
        else:  # the holder itself; another seat before the burial; anyone after a flip
            seats = [seat] if variant == "own" else others
            for s in seats:
                opts = [o for o in self.options(s, chao=True) if len(o.cards) != 1]
                if opts:
                    o = rng.choice(opts)
                    choice = (s, o.cards)
                    break
        if choice is None:
            return
        s, cards = choice
        self.tick(0.5, 2.0)
        extra: dict[str, Any] = {"cards": list(cards)}
        if p.secret_bidding:
            extra["face_down"] = True
        self.event(s, "chao", **extra)
        kind = "illegal_chao"
        self.planted.append((kind, s))
        self.plan.discard("illegal_chao")
        if p.illegal_chao_is_false_declaration and p.false_declare_ends_hand:
            self.ended = True

    def chao_rounds(self, trump: str, caller: str | None) -> str:
        p, rng = self.p, self.rng
        holder = self.dealer
        first_round = True
        chaos = 0
        if "illegal_chao" in self.plan:
            variant = rng.choice(("single", "reused", "own"))
            self.plant_illegal(variant, holder)
            if self.ended:
                return trump
        while True:
            order = seats_from(holder, p.chao_order)[1:]
            if first_round and p.chao_first_round_others_only:
                order = [s for s in order if s not in (caller, self.dealer)]
            acted = None
            for seat in order:
                opts = self.options(seat, chao=True)
                self.tick(1.0, 4.0)
                if opts and rng.random() < 0.35 * 0.6**chaos:
                    o = rng.choice(opts)
                    self.declare(seat, o, "chao")
                    trump = o.trump
                    chaos += 1
                    acted = seat
                    break
                if self.strict:
                    self.event(seat, "pass")
            if acted is None:
                return trump
            first_round = False
            holder = acted
            if p.chao_rebury:
                self.take_and_bury(acted, trump)
                if self.ended:
                    return trump

    def run(self) -> Bidding:
        p, rng = self.p, self.rng
        draw, first = self.draw_record()
        flip: list[str] | None = None
        declared = self.deal(first)
        trump = "NT"
        if not self.ended and declared:
            trump = self.valid[-1][1].trump
            self.before_kitty = list(self.valid)
            if self.first_hand or p.later_dealer_rule == "declaration":
                pick = 0 if p.first_dealer_rule == "first_declarer" else -1
                self.dealer = self.before_kitty[pick][0]
        elif not self.ended:
            flip = list(self.kitty)
            i = flip_result(tuple(flip), self.level)
            assert i is not None, "a kitty of jokers only"
            trump = parse(flip[i])[1]
            if self.first_hand or p.later_dealer_rule == "declaration":
                self.dealer = seats_from(first, p.deal_direction)[i % 4]
        self.level = self.levels[side_of(self.dealer)]
        if not self.ended:
            caller = self.valid[0][0] if self.valid else None
            self.take_and_bury(self.dealer, trump)
            if not self.ended and flip is not None and "illegal_chao" in self.plan:
                self.plant_illegal("after_flip", self.dealer)
            elif not self.ended and flip is None:
                trump = self.chao_rounds(trump, caller)
        if self.ended:
            trump = self.valid[-1][1].trump if self.valid else rng.choice(("S", "H", "D", "C"))
        if self.p.secret_bidding and self.strict:  # a referee notes when they were turned up
            revealed = round(self.t + 0.5, 1)
            for e in self.events:
                if e.get("face_down"):
                    e["revealed_t"] = revealed
        return Bidding(
            levels=self.levels,
            first_hand=self.first_hand,
            dealer=self.dealer,
            trump=trump,
            hands=self.hands,
            kitty=self.kitty,
            burier=self.burier,
            events=self.events,
            draw=draw,
            no_bid_flip=flip,
            dealer_by_rotation=None if self.first_hand else self.dealer,
            kitty_taken_t=self.taken_t,
            kitty_buried_t=self.buried_t,
            ended=self.ended,
            planted=self.planted,
        )


def simulate_bidding(
    profile: RuleProfile,
    rng: random.Random,
    *,
    levels: dict[str, str],
    dealer: str,
    first_hand: bool,
    hand_size: int,
    kitty_n: int,
    bury: Bury,
    plan: tuple[str, ...] = (),
    list_passes: bool = False,
) -> Bidding:
    """The draw and the bidding of one hand (see the module docstring); ``dealer`` is the
    rotation's dealer of a later hand (a first hand's comes from its declarations), ``bury``
    the simulator's burial strategy, ``plan`` the kinds of :data:`PLANTABLE` to plant,
    ``list_passes`` whether the record lists every pass of 炒."""
    if first_hand:
        levels = dict.fromkeys(SIDES, "2")
    return _Bidder(
        profile, rng, levels, dealer, first_hand, hand_size, kitty_n, bury, plan, list_passes
    ).run()
