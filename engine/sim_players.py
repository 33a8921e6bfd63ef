"""The simulator's players: a deal, a burial and a hand played out by sensible, legal players.

:class:`Players` picks levels, whether the hand is a game's first and, for a later hand, the
dealer the rotation gives; the draw and the bidding (:mod:`engine.preplay.bidding`) then deal
25 cards a seat, declare and 炒 by the profile's rules — which gives the trump and, in a first
hand, the dealer — and leave the kitty buried by whoever took it last; the players then play
the hand out. Leaders choose among high or low singles, pairs, tractors and *legal* throws (the
simulator knows every hand, so a throw is only made when no judging seat holds a higher unit of
the same kind). Followers always obey :func:`engine.tricks.follow_violation` against their full
hand: they play the led class first, pairs and tractors as owed, then fill low, feed points to a
winning partner, or trump in when void and it wins.

The players also steer by the plan of faults to plant (:mod:`engine.sim_faults`): a leader told
to lead a class leads it (``force_lead``), a seat told to hide a class keeps it back (``avoid``),
and with ``kitty_count`` planned the last tricks are shaped so that the kitty's burier plays
last in a single-card last trick. Planting itself happens in two hooks, :meth:`Players._faulty_lead`
and :meth:`Players._plant_in_trick`, which do nothing here and which the subclass
:class:`engine.sim_faults.FaultyPlayers` overrides.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import DECK_SIZE, RANKS, SEATS, partner_of, points_of, side_of
from engine.combos import (
    Unit,
    _pair_slots,
    _run_top_strength,
    _runs,
    beating_unit,
    decompose,
    longest_run,
    pair_count,
)
from engine.order import TRUMP, HandOrder, hand_order
from engine.preplay.bidding import PLANTABLE, Bidding, simulate_bidding
from engine.profiles import RuleProfile, get_profile
from engine.tricks import Lead, follow_violation, read_lead, throw_defeat, winner_index

Cards = tuple[str, ...]


@dataclass
class Trick:
    leader: str
    plays: list[tuple[str, Cards]]  # in order of play, lead first
    winner: str
    lead: Lead


class Players:
    """One simulated hand: the deal, the burial, the tricks played so far and every seat's
    cards (the simulator knows them all)."""

    def __init__(
        self,
        rules: str,
        overrides: dict[str, Any],
        rng: random.Random,
        kinds: tuple[str, ...],
        with_times: bool,
        with_hands: bool,
    ) -> None:
        self.rules = rules
        self.overrides = overrides
        self.rng = rng
        self.kinds = kinds  # the faults planned: the players steer by some of them
        self.with_times = with_times
        self.with_hands = with_hands
        self.profile: RuleProfile = get_profile(self.rules, self.overrides)
        levels = {"NS": self._random_level(), "EW": self._random_level()}
        if self.profile.later_dealer_rule == "declaration":
            levels["EW"] = levels["NS"]  # whoever declares deals: one level card for all
        k = self.profile.kitty_size
        self.hand_size = (DECK_SIZE - k) // 4 if 0 <= k <= DECK_SIZE - 4 else 25
        self.bidding: Bidding = simulate_bidding(
            self.profile,
            rng,
            levels=levels,
            dealer=rng.choice(SEATS),
            first_hand=rng.random() < 0.2,
            hand_size=self.hand_size,
            kitty_n=DECK_SIZE - 4 * self.hand_size,
            bury=self._bury,
            plan=tuple(kind for kind in kinds if kind in PLANTABLE),
            list_passes=with_hands,  # a referee's entry lists passes; a camera sees none
        )
        b = self.bidding
        self.levels, self.declarer, self.trump = b.levels, b.dealer, b.trump
        self.first_hand, self.ended = b.first_hand, b.ended
        self.burier: str = b.burier  # the seat that buried the kitty last
        self.order: HandOrder = hand_order(
            self.levels[side_of(self.declarer)], self.trump, self.profile
        )
        self.hands: dict[str, Counter[str]] = b.hands
        self.kitty: list[str] = b.kitty
        self.initial: dict[str, Counter[str]] = {s: Counter(h) for s, h in self.hands.items()}
        self.keep: Counter[str] = Counter()  # cards a seat will end the hand still holding
        self.tricks: list[Trick] = []
        self.force_lead: dict[int, tuple[str, str]] = {}  # trick → (leader, class to lead)
        self.avoid: dict[int, tuple[str, str]] = {}  # trick → (seat, class it must not show)

    # ----- deal ----------------------------------------------------------------------------
    def _random_level(self) -> str:
        r = self.rng.random()
        if r < 0.65:
            return self.rng.choice(RANKS[:6])  # 2…7
        if r < 0.85:
            return self.rng.choice(("J", "A"))
        return self.rng.choice(RANKS)

    def _bury(self, hand: Counter[str], n: int, order: HandOrder) -> list[str]:
        """The holder of ``hand`` buries ``n`` of it (taken out of ``hand``) under ``order``:
        short side suits first (voids), low cards, seldom pairs, A or K; sometimes a few point
        cards on purpose (so kitty multipliers get exercised)."""
        rng, info = self.rng, order.info
        max_points = rng.choice((0, 0, 1, 2, 3)) if rng.random() < 0.45 else 0
        buried: list[str] = []
        for _ in range(n):
            suit_len = Counter(info[c].cls for c in hand.elements())
            pts_buried = sum(1 for c in buried if points_of(c))

            def key(c: str, suit_len: Counter[str] = suit_len, pts: int = pts_buried) -> Any:
                ci = info[c]
                if ci.cls == TRUMP:
                    return (1, 0, 0, 0, 0, ci.strength)
                top = ci.slot >= len(order.ladders[ci.cls]) - 2
                want_points = points_of(c) > 0 and pts < max_points
                return (
                    0,
                    0 if want_points else 1,
                    suit_len[ci.cls],
                    hand[c] >= 2,
                    top or points_of(c) > 0,
                    ci.slot,
                )

            pool = sorted((c for c in hand if hand[c] > 0), key=key)
            pick = pool[1] if len(pool) > 1 and rng.random() < 0.2 else pool[0]
            hand[pick] -= 1
            buried.append(pick)
        for card in [c for c, k in hand.items() if k <= 0]:
            del hand[card]
        return buried

    # ----- helpers -------------------------------------------------------------------------
    def strength(self, card: str) -> int:
        return self.order.info[card].strength

    def class_of(self, card: str) -> str:
        return self.order.info[card].cls

    def playable(self, seat: str) -> int:
        return sum(self.hands[seat].values()) - self.keep[seat]

    def last_leader(self) -> str:
        """With ``kitty_count`` planned: the seat that should lead the last trick, so that the
        kitty's burier, who plays nothing in it, comes last in its order of play."""
        return self.profile.seats_in_play_order(self.burier)[1]

    def judges(self, thrower: str) -> list[str]:
        p = self.profile
        return [
            s
            for s in p.seats_in_play_order(thrower)[1:]
            if p.throw_partner_can_defeat or s != partner_of(thrower)
        ]

    def _class_cards(self, hand: Counter[str], cls: str) -> list[str]:
        cards = [c for c in hand.elements() if self.class_of(c) == cls]
        return sorted(cards, key=self.strength)

    def _beats(self, lead: Lead, prev: Sequence[Cards], cards: Cards) -> bool:
        return winner_index(self.order, lead, [*prev, cards]) == len(prev)

    # ----- leading -------------------------------------------------------------------------
    def _lead_options(self, seat: str, size_cap: int) -> list[tuple[float, Cards]]:
        hand = self.hands[seat]
        others = [s for s in SEATS if s != seat]
        by_cls: dict[str, list[str]] = {}
        for c in hand.elements():
            by_cls.setdefault(self.class_of(c), []).append(c)
        options: list[tuple[float, Cards]] = []
        for cls in sorted(by_cls):
            cards = sorted(by_cls[cls], key=self.strength)
            w = 1.0 if cls != TRUMP else 0.5
            units = decompose(self.order, cards)
            top, low = cards[-1], cards[0]
            boss = all(
                beating_unit(self.order, Unit(0, (top,), self.strength(top)), cls, self.hands[o])
                is None
                for o in others
            )
            options.append(((2.5 if boss else 0.5) * w, (top,)))
            options.append((1.0 * w, (low,)))
            pairs = [u for u in units if u.pairs == 1]
            if pairs:
                options.append((1.5 * w, pairs[0].cards))
                options.append((0.6 * w, pairs[-1].cards))
            options.extend((4.0, u.cards) for u in units if u.pairs >= 2)
            if cls != TRUMP:
                throw = self._legal_throw(seat, cls, units, size_cap)
                if throw is not None:
                    options.append((3.0, throw))
        return [(w, c) for w, c in options if len(c) <= size_cap]

    def _legal_throw(self, seat: str, cls: str, units: list[Unit], size_cap: int) -> Cards | None:
        judges = self.judges(seat)
        boss = [
            u
            for u in units
            if all(beating_unit(self.order, u, cls, self.hands[j]) is None for j in judges)
        ]
        if len(boss) < 2:
            return None
        k = self.rng.randint(2, len(boss))
        chosen = self.rng.sample(boss, k)
        cards = tuple(c for u in chosen for c in u.cards)
        if len(cards) > size_cap:
            return None
        lead = read_lead(self.order, cards)
        if lead.cls is None:
            return None
        if any(throw_defeat(self.order, lead, self.hands[j]) is not None for j in judges):
            return None
        return cards

    def _choose_lead(self, t: int, seat: str) -> Cards:
        cap = self.playable(seat)
        kitty_plan = "kitty_count" in self.kinds
        size_cap = cap
        if kitty_plan:  # pass through a trick of 2 cards left, then end on a single
            size_cap = cap - 2 if cap > 2 else 1
        hand = self.hands[seat]
        forced = self.force_lead.get(t)
        if forced is not None and forced[0] == seat:
            in_cls = self._class_cards(hand, forced[1])
            if in_cls:
                return (in_cls[0],)
        if kitty_plan and cap == 2:  # the last-but-one trick: let the burier play last next
            pick = max if seat == self.last_leader() else min
            return (pick(hand.elements(), key=self.strength),)
        faulty = self._faulty_lead(t, seat, cap, size_cap)
        if faulty is not None:
            return faulty
        options = self._lead_options(seat, size_cap)
        keep = self._reserved(seat)
        if keep is not None:
            options = [o for o in options if keep not in o[1]] or options
        avoid = self.avoid.get(t)
        if avoid is not None:
            kept = [o for o in options if self.class_of(o[1][0]) != avoid[1]]
            options = kept or options
        weights = [w for w, _ in options]
        return self.rng.choices([c for _, c in options], weights=weights)[0]

    # ----- following -----------------------------------------------------------------------
    def _in_class(self, hand: Counter[str], lead: Lead, high: bool, fill: str) -> Cards:
        """A legal follow of ``lead`` from ``hand``, which holds at least ``lead.size`` cards of
        the led class: tractor and pairs as owed (or, ``high``, as the lead's shape allows),
        then singles by ``fill`` ("high", "low" or "points")."""
        order, p = self.order, self.profile
        cls = lead.cls
        assert cls is not None
        rem: Counter[str] = Counter(
            {c: n for c, n in hand.items() if n > 0 and self.class_of(c) == cls}
        )
        sel: list[str] = []
        tractor_owed = p.follow_tractor or high
        if tractor_owed and lead.longest_tractor >= 2:
            held_run = longest_run(order, rem, cls)
            if held_run >= 2:
                need = min(lead.longest_tractor, held_run)
                slots = _pair_slots(order, rem, cls)
                parts = [
                    run[i : i + need]
                    for run in _runs(order, slots, cls)
                    for i in range(len(run) - need + 1)
                ]
                part = (max if high else min)(parts, key=lambda r: _run_top_strength(order, cls, r))
                for s in part:
                    card = slots[s][-1]
                    sel += [card, card]
                    rem[card] -= 2
        if (p.follow_pair or high) and lead.pairs >= 1:
            need_pairs = min(lead.pairs, pair_count(order, Counter(hand), cls))
            pairs = sorted((c for c, n in rem.items() if n >= 2), key=self.strength)
            if high:
                pairs.reverse()
            while pair_count(order, Counter(sel), cls) < need_pairs and pairs:
                card = pairs.pop(0)
                sel += [card, card]
                rem[card] -= 2
        singles = sorted(rem.elements(), key=self.strength)
        if fill == "high":
            singles.reverse()
        elif fill == "points":
            singles.sort(key=lambda c: (-points_of(c), self.strength(c)))
        else:
            singles.sort(key=lambda c: (points_of(c) > 0, rem[c] >= 2, self.strength(c)))
        sel += singles[: lead.size - len(sel)]
        return tuple(sel)

    def _fill(self, others: list[str], k: int, feed: bool, avoid: str | None) -> list[str]:
        counts = Counter(others)

        def key(c: str) -> Any:
            pts = points_of(c)
            return (
                avoid is not None and self.class_of(c) == avoid,
                self.class_of(c) == TRUMP,
                -pts if feed else pts > 0,
                counts[c] >= 2,
                self.strength(c),
            )

        return sorted(others, key=key)[:k]

    def _ruff(self, hand: Counter[str], lead: Lead, prev: Sequence[Cards]) -> Cards | None:
        order = self.order
        trumps: Counter[str] = Counter(
            {c: n for c, n in hand.items() if n > 0 and self.class_of(c) == TRUMP}
        )
        if sum(trumps.values()) < lead.size:
            return None
        cands: list[Cards] = []
        if lead.size == 1:
            cands = [(c,) for c in sorted(trumps, key=self.strength)]
        elif not lead.is_throw and lead.units[0].pairs == 1:
            cands = [(c, c) for c in sorted(trumps, key=self.strength) if trumps[c] >= 2]
        else:
            rem = Counter(trumps)
            out: list[str] = []
            all_singles = all(u.pairs == 0 for u in lead.units)
            for u in sorted(lead.units, key=lambda u: -u.pairs):
                if u.pairs >= 2:
                    slots = _pair_slots(order, rem, TRUMP)
                    parts = [
                        run[i : i + u.pairs]
                        for run in _runs(order, slots, TRUMP)
                        for i in range(len(run) - u.pairs + 1)
                    ]
                    if not parts:
                        return None
                    part = max(parts, key=lambda r: _run_top_strength(order, TRUMP, r))
                    for s in part:
                        card = slots[s][-1]
                        out += [card, card]
                        rem[card] -= 2
                elif u.pairs == 1:
                    pairs = [c for c, n in rem.items() if n >= 2]
                    if not pairs:
                        return None
                    card = max(pairs, key=self.strength)
                    out += [card, card]
                    rem[card] -= 2
                else:
                    left = sorted(rem.elements(), key=self.strength)
                    card = left[-1] if all_singles else left[0]
                    out.append(card)
                    rem[card] -= 1
            cands = [tuple(out)]
        for cand in cands:
            if self._beats(lead, prev, cand):
                return cand
        return None

    def _reserved(self, seat: str) -> str | None:
        """With ``kitty_count`` planned, the seat meant to lead the last trick keeps its best
        card for the trick before it (so that it likely wins that trick)."""
        if "kitty_count" not in self.kinds or seat != self.last_leader():
            return None
        hand = self.hands[seat]
        if self.playable(seat) <= 2 or not hand:
            return None
        return max(hand.elements(), key=self.strength)

    def _follow(self, t: int, seat: str, lead: Lead, plays: list[tuple[str, Cards]]) -> Cards:
        keep = self._reserved(seat)
        hand = self.hands[seat]
        if keep is not None:
            hand[keep] -= 1
            try:
                cand = self._follow_freely(t, seat, lead, plays)
            finally:
                hand[keep] += 1
            if len(cand) == lead.size and not follow_violation(
                self.order, self.profile, lead, hand, cand
            ):
                return cand
        return self._follow_freely(t, seat, lead, plays)

    def _follow_freely(
        self, t: int, seat: str, lead: Lead, plays: list[tuple[str, Cards]]
    ) -> Cards:
        hand = self.hands[seat]
        cls = lead.cls
        assert cls is not None
        n = lead.size
        prev = [c for _, c in plays]
        cur = plays[winner_index(self.order, lead, prev)][0]
        last = len(plays) == 3
        partner_winning = side_of(cur) == side_of(seat)
        feed = partner_winning and (last or self.rng.random() < 0.5)
        steer = "kitty_count" in self.kinds and self.playable(seat) == 2
        quiet = steer and seat != self.last_leader()
        if steer and not quiet and len(self._class_cards(hand, cls)) >= n:
            cand = self._in_class(hand, lead, high=True, fill="high")
            if self._beats(lead, prev, cand):
                return cand
        avoid_entry = self.avoid.get(t)
        avoid = avoid_entry[1] if avoid_entry is not None and avoid_entry[0] == seat else None
        in_cls = self._class_cards(hand, cls)
        if len(in_cls) >= n:
            if not feed and not quiet and not lead.is_throw and self.rng.random() < 0.85:
                cand = self._in_class(hand, lead, high=True, fill="high")
                if self._beats(lead, prev, cand):
                    return cand
            return self._in_class(hand, lead, high=False, fill="points" if feed else "low")
        ruffing = not in_cls and cls != TRUMP and not partner_winning and not quiet
        if ruffing and self.rng.random() < 0.85:
            ruff = self._ruff(hand, lead, prev)
            if ruff is not None:
                return ruff
        others = [c for c in hand.elements() if self.class_of(c) != cls]
        return (*in_cls, *self._fill(others, n - len(in_cls), feed, avoid))

    # ----- the hand --------------------------------------------------------------------------
    def play(self) -> None:
        if self.ended:
            return  # a false declaration ended the hand before its play
        leader = self.declarer
        t = 0
        while self.playable(leader) > 0:
            trick = self._play_trick(t, leader)
            self.tricks.append(trick)
            leader = trick.winner
            t += 1

    def _play_trick(self, t: int, leader: str) -> Trick:
        seats = self.profile.seats_in_play_order(leader)
        lead_cards = self._choose_lead(t, leader)
        lead = read_lead(self.order, lead_cards)
        plays: list[tuple[str, Cards]] = [(leader, lead_cards)]
        self.hands[leader] -= Counter(lead_cards)
        for seat in seats[1:]:
            cards = self._follow(t, seat, lead, plays)
            if follow_violation(self.order, self.profile, lead, self.hands[seat], cards):
                cards = self._in_class(self.hands[seat], lead, high=False, fill="low")
            self.hands[seat] -= Counter(cards)
            plays.append((seat, cards))
        w = winner_index(self.order, lead, [c for _, c in plays])
        trick = Trick(leader, plays, plays[w][0], lead)
        self._plant_in_trick(t, trick)
        return trick

    # ----- where faults are planted ----------------------------------------------------------
    def _faulty_lead(self, t: int, seat: str, cap: int, size_cap: int) -> Cards | None:
        """A faulty lead for ``seat`` at trick ``t`` (it holds ``cap`` playable cards, may lead
        ``size_cap``), or None to lead legally. Sensible players never lead a fault."""
        return None

    def _plant_in_trick(self, t: int, trick: Trick) -> None:
        """Change trick ``t``, just played, to hold a fault. Sensible players plant none."""
