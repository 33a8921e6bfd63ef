"""Hand simulator: a whole deal played by sensible, legal players, with optional planted faults.

:func:`simulate_hand` shuffles two decks with ``random.Random(seed)``, picks levels, a declarer
and trump, deals 25 cards a seat (the kitty's 8 to the declarer, who buries 8 again) and plays
the hand out. Leaders choose among high or low singles, pairs, tractors and *legal* throws (the
simulator knows every hand, so a throw is only made when no judging seat holds a higher unit of
the same kind). Followers always obey :func:`engine.tricks.follow_violation` against their full
hand: they play the led class first, pairs and tractors as owed, then fill low, feed points to a
winning partner, or trump in when void and it wins.

The result is a hand record (format ``chaodipi-hand/1``, see :mod:`engine.record`) and the ground
truth of what was planted: a list of ``{"kind", "seat", "trick"}`` (trick 1-based, ``None`` for
the kitty). The truth comes from the simulator's own knowledge (true hands, what it changed),
never from the auditor. A clean simulated hand audits with no infraction under every profile.

Plantable kinds (:data:`INJECTABLE`), each planted at most once and each in its own trick:

* ``revoke`` / ``hidden_cards`` — a follower of a single lead plays a low side card of another
  suit while holding the led class; the withheld card is played at the next trick (``revoke``:
  the next leader leads that class) or only after ``hidden_card_after_tricks`` tricks
  (``hidden_cards``: leaders and the offender avoid that class meanwhile). The truth kind is the
  one the proof's timing gives: with ``with_hands`` the hand proves it at once, so always
  ``revoke``.
* ``failed_throw`` — a leader throws several units of one side suit that a judging seat (per
  ``throw_partner_can_defeat``) can beat; the trick is otherwise played normally.
* ``out_of_turn`` — two followers' plays are recorded in swapped order; the truth is the seat
  recorded before its turn.
* ``overtime`` — one play comes 16–30 s (more than ``play_time_limit_s``) after the previous
  one, never the hand's first lead (timed from the burial, which footage does not show). Not
  planted without times or when the profile has no play time limit.
* ``kitty_count`` — the kitty holds 9 cards: the declarer's card of the last trick (a single
  lead in which it plays last) goes to the kitty, so the declarer holds 24 and plays nothing in
  the last trick. Failing that, when the declarer won the last trick, the kitty holds 7: the
  declarer held one kitty card more all hand (one that changes no follow duty or throw) and
  leads it alone after the last trick. Truth seat: the declarer, trick ``None``.
* ``card_count`` — a follower of a lead of two or more cards plays one card fewer (an off-class
  filler it keeps, so follow duties are unchanged and it ends the hand holding a card).
* ``duplicate_card`` — a follower's low non-point single is recorded as a third copy of an
  identity of the same class that the kitty and earlier plays already showed twice. Only planted
  without ``with_hands``: with recorded hands the auditor counts copies in the hands, not the
  plays, so a third copy shown in a play is a hand mismatch (``card_count``), not a duplicate.

A kind that cannot be planted in a deal is retried on a few fresh deals (derived
deterministically from the seed); if it still cannot be, it is left out of the truth. A
``kitty_size`` override that does not leave a multiple of 4 cards cannot be dealt evenly: the
simulator then deals 25 a seat and a kitty of the rest, which the auditor rightly flags.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.audit import KINDS
from engine.cards import (
    DECK_SIZE,
    RANKS,
    SEATS,
    SUITS,
    full_deck,
    partner_of,
    points_of,
    side_of,
)
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
from engine.order import TRUMP, HandOrder
from engine.profiles import RuleProfile, get_profile
from engine.record import FORMAT
from engine.tricks import Lead, follow_violation, read_lead, throw_defeat, winner_index

INJECTABLE: tuple[str, ...] = KINDS  # every kind the auditor reports can be planted

_ATTEMPTS = 8
_Cards = tuple[str, ...]


@dataclass
class _Trick:
    leader: str
    plays: list[tuple[str, _Cards]]  # in order of play, lead first
    winner: str
    lead: Lead


@dataclass
class _Planted:
    kind: str
    seat: str
    trick: int | None  # 0-based trick index; None for the kitty
    cls: str = ""  # revoke / hidden_cards: the withheld class


@dataclass
class _Sim:
    rules: str
    overrides: dict[str, Any]
    rng: random.Random
    kinds: tuple[str, ...]
    with_times: bool
    with_hands: bool
    profile: RuleProfile = field(init=False)
    order: HandOrder = field(init=False)

    def __post_init__(self) -> None:
        rng = self.rng
        self.profile = get_profile(self.rules, self.overrides)
        self.levels = {"NS": self._random_level(), "EW": self._random_level()}
        self.declarer: str = rng.choice(SEATS)
        self.trump: str = "NT" if rng.random() < 0.12 else rng.choice(SUITS)
        self.order = HandOrder(self.levels[side_of(self.declarer)], self.trump, self.profile)
        k = self.profile.kitty_size
        self.hand_size = (DECK_SIZE - k) // 4 if 0 <= k <= DECK_SIZE - 4 else 25
        kitty_n = DECK_SIZE - 4 * self.hand_size
        deck = full_deck()
        rng.shuffle(deck)
        self.hands: dict[str, Counter[str]] = {}
        for i, seat in enumerate(SEATS):
            self.hands[seat] = Counter(deck[i * self.hand_size : (i + 1) * self.hand_size])
        self.hands[self.declarer].update(deck[4 * self.hand_size :])
        self.kitty: list[str] = self._bury(kitty_n)
        self.initial: dict[str, Counter[str]] = {s: Counter(h) for s, h in self.hands.items()}
        self.keep: Counter[str] = Counter()  # cards a seat will end the hand still holding
        self.tricks: list[_Trick] = []
        self.planted: list[_Planted] = []
        self.used: set[int] = set()  # tricks holding a planted fault (or reserved for one)
        self.start = {kind: rng.randint(0, 7) for kind in self.kinds}
        self.force_lead: dict[int, tuple[str, str]] = {}  # trick → (leader, class to lead)
        self.avoid: dict[int, tuple[str, str]] = {}  # trick → (seat, class it must not show)
        self.revoke_seats: set[str] = set()
        self.count_seat: str | None = None

    # ----- deal ----------------------------------------------------------------------------
    def _random_level(self) -> str:
        r = self.rng.random()
        if r < 0.65:
            return self.rng.choice(RANKS[:6])  # 2…7
        if r < 0.85:
            return self.rng.choice(("J", "A"))
        return self.rng.choice(RANKS)

    def _strength(self, card: str) -> int:
        return self.order.info[card].strength

    def _cls(self, card: str) -> str:
        return self.order.info[card].cls

    def _bury(self, n: int) -> list[str]:
        """The declarer buries ``n``: short side suits first (voids), low cards, seldom pairs,
        A or K; sometimes a few point cards on purpose (so kitty multipliers get exercised)."""
        rng, info = self.rng, self.order.info
        hand = self.hands[self.declarer]
        max_points = rng.choice((0, 0, 1, 2, 3)) if rng.random() < 0.45 else 0
        buried: list[str] = []
        for _ in range(n):
            suit_len = Counter(info[c].cls for c in hand.elements())
            pts_buried = sum(1 for c in buried if points_of(c))

            def key(c: str, suit_len: Counter[str] = suit_len, pts: int = pts_buried) -> Any:
                ci = info[c]
                if ci.cls == TRUMP:
                    return (1, 0, 0, 0, 0, ci.strength)
                top = ci.slot >= len(self.order.ladders[ci.cls]) - 2
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
        self.hands[self.declarer] = +hand
        return buried

    # ----- helpers -------------------------------------------------------------------------
    def playable(self, seat: str) -> int:
        return sum(self.hands[seat].values()) - self.keep[seat]

    def last_leader(self) -> str:
        """With ``kitty_count`` planned: the seat that should lead the last trick, so that the
        declarer, who plays nothing in it, comes last in its order of play."""
        return self.profile.seats_in_play_order(self.declarer)[1]

    def judges(self, thrower: str) -> list[str]:
        p = self.profile
        return [
            s
            for s in p.seats_in_play_order(thrower)[1:]
            if p.throw_partner_can_defeat or s != partner_of(thrower)
        ]

    def _due(self, kind: str, t: int) -> bool:
        return (
            kind in self.kinds
            and t >= self.start[kind]
            and t not in self.used
            and not any(p.kind == kind for p in self.planted)
        )

    def _class_cards(self, hand: Counter[str], cls: str) -> list[str]:
        cards = [c for c in hand.elements() if self._cls(c) == cls]
        return sorted(cards, key=self._strength)

    def _beats(self, lead: Lead, prev: Sequence[_Cards], cards: _Cards) -> bool:
        return winner_index(self.order, lead, [*prev, cards]) == len(prev)

    # ----- leading -------------------------------------------------------------------------
    def _lead_options(self, seat: str, size_cap: int) -> list[tuple[float, _Cards]]:
        hand = self.hands[seat]
        others = [s for s in SEATS if s != seat]
        by_cls: dict[str, list[str]] = {}
        for c in hand.elements():
            by_cls.setdefault(self._cls(c), []).append(c)
        options: list[tuple[float, _Cards]] = []
        for cls in sorted(by_cls):
            cards = sorted(by_cls[cls], key=self._strength)
            w = 1.0 if cls != TRUMP else 0.5
            units = decompose(self.order, cards)
            top, low = cards[-1], cards[0]
            boss = all(
                beating_unit(self.order, Unit(0, (top,), self._strength(top)), cls, self.hands[o])
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

    def _legal_throw(self, seat: str, cls: str, units: list[Unit], size_cap: int) -> _Cards | None:
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

    def _failing_throw(self, seat: str, size_cap: int) -> _Cards | None:
        hand = self.hands[seat]
        judges = self.judges(seat)
        classes = sorted({self._cls(c) for c in hand.elements()} - {TRUMP})
        self.rng.shuffle(classes)
        for cls in classes:
            units = decompose(self.order, self._class_cards(hand, cls))
            combos = [(a, b) for i, a in enumerate(units) for b in units[i + 1 :]]
            self.rng.shuffle(combos)
            for a, b in combos:
                cards = a.cards + b.cards
                if len(cards) > size_cap:
                    continue
                lead = read_lead(self.order, cards)
                if lead.cls is None or not lead.is_throw:
                    continue
                if any(throw_defeat(self.order, lead, self.hands[j]) is not None for j in judges):
                    return cards
        return None

    def _choose_lead(self, t: int, seat: str) -> _Cards:
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
        if kitty_plan and cap == 2:  # the last-but-one trick: let the declarer play last next
            pick = max if seat == self.last_leader() else min
            return (pick(hand.elements(), key=self._strength),)
        if self._due("failed_throw", t) and cap >= 3:
            throw = self._failing_throw(seat, size_cap)
            if throw is not None:
                self.planted.append(_Planted("failed_throw", seat, t))
                self.used.add(t)
                return throw
        options = self._lead_options(seat, size_cap)
        keep = self._reserved(seat)
        if keep is not None:
            options = [o for o in options if keep not in o[1]] or options
        avoid = self.avoid.get(t)
        if avoid is not None:
            kept = [o for o in options if self._cls(o[1][0]) != avoid[1]]
            options = kept or options
        weights = [w for w, _ in options]
        return self.rng.choices([c for _, c in options], weights=weights)[0]

    # ----- following -----------------------------------------------------------------------
    def _in_class(self, hand: Counter[str], lead: Lead, high: bool, fill: str) -> _Cards:
        """A legal follow of ``lead`` from ``hand``, which holds at least ``lead.size`` cards of
        the led class: tractor and pairs as owed (or, ``high``, as the lead's shape allows),
        then singles by ``fill`` ("high", "low" or "points")."""
        order, p = self.order, self.profile
        cls = lead.cls
        assert cls is not None
        rem: Counter[str] = Counter(
            {c: n for c, n in hand.items() if n > 0 and self._cls(c) == cls}
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
            pairs = sorted((c for c, n in rem.items() if n >= 2), key=self._strength)
            if high:
                pairs.reverse()
            while pair_count(order, Counter(sel), cls) < need_pairs and pairs:
                card = pairs.pop(0)
                sel += [card, card]
                rem[card] -= 2
        singles = sorted(rem.elements(), key=self._strength)
        if fill == "high":
            singles.reverse()
        elif fill == "points":
            singles.sort(key=lambda c: (-points_of(c), self._strength(c)))
        else:
            singles.sort(key=lambda c: (points_of(c) > 0, rem[c] >= 2, self._strength(c)))
        sel += singles[: lead.size - len(sel)]
        return tuple(sel)

    def _fill(self, others: list[str], k: int, feed: bool, avoid: str | None) -> list[str]:
        counts = Counter(others)

        def key(c: str) -> Any:
            pts = points_of(c)
            return (
                avoid is not None and self._cls(c) == avoid,
                self._cls(c) == TRUMP,
                -pts if feed else pts > 0,
                counts[c] >= 2,
                self._strength(c),
            )

        return sorted(others, key=key)[:k]

    def _ruff(self, hand: Counter[str], lead: Lead, prev: Sequence[_Cards]) -> _Cards | None:
        order = self.order
        trumps: Counter[str] = Counter(
            {c: n for c, n in hand.items() if n > 0 and self._cls(c) == TRUMP}
        )
        if sum(trumps.values()) < lead.size:
            return None
        cands: list[_Cards] = []
        if lead.size == 1:
            cands = [(c,) for c in sorted(trumps, key=self._strength)]
        elif not lead.is_throw and lead.units[0].pairs == 1:
            cands = [(c, c) for c in sorted(trumps, key=self._strength) if trumps[c] >= 2]
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
                    card = max(pairs, key=self._strength)
                    out += [card, card]
                    rem[card] -= 2
                else:
                    left = sorted(rem.elements(), key=self._strength)
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
        return max(hand.elements(), key=self._strength)

    def _follow(self, t: int, seat: str, lead: Lead, plays: list[tuple[str, _Cards]]) -> _Cards:
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
        self, t: int, seat: str, lead: Lead, plays: list[tuple[str, _Cards]]
    ) -> _Cards:
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
        others = [c for c in hand.elements() if self._cls(c) != cls]
        return (*in_cls, *self._fill(others, n - len(in_cls), feed, avoid))

    # ----- the hand --------------------------------------------------------------------------
    def play(self) -> None:
        leader = self.declarer
        t = 0
        while self.playable(leader) > 0:
            trick = self._play_trick(t, leader)
            self.tricks.append(trick)
            leader = trick.winner
            t += 1

    def _play_trick(self, t: int, leader: str) -> _Trick:
        seats = self.profile.seats_in_play_order(leader)
        lead_cards = self._choose_lead(t, leader)
        lead = read_lead(self.order, lead_cards)
        plays: list[tuple[str, _Cards]] = [(leader, lead_cards)]
        self.hands[leader] -= Counter(lead_cards)
        for seat in seats[1:]:
            cards = self._follow(t, seat, lead, plays)
            if follow_violation(self.order, self.profile, lead, self.hands[seat], cards):
                cards = self._in_class(self.hands[seat], lead, high=False, fill="low")
            self.hands[seat] -= Counter(cards)
            plays.append((seat, cards))
        w = winner_index(self.order, lead, [c for _, c in plays])
        trick = _Trick(leader, plays, plays[w][0], lead)
        self._plant_revoke(t, trick)
        self._plant_card_count(t, trick)
        return trick

    def _plant_revoke(self, t: int, trick: _Trick) -> None:
        lead = trick.lead
        if lead.size != 1 or lead.cls is None:
            return
        cls = lead.cls
        hcat = self.profile.hidden_card_after_tricks
        for kind in ("revoke", "hidden_cards"):
            if not self._due(kind, t):
                continue
            window = (
                range(t + 1, t + max(hcat, 1)) if kind == "hidden_cards" else range(t + 1, t + 2)
            )
            if any(u in self.used for u in window):
                continue
            left = self.playable(trick.leader)
            if left < (max(hcat, 1) + 2 if kind == "hidden_cards" else 2):
                continue
            for i in range(1, 4):
                seat, (card,) = trick.plays[i][0], trick.plays[i][1]
                if seat in (trick.winner, self.count_seat) or seat in self.revoke_seats:
                    continue
                if self._cls(card) != cls:
                    continue
                hand = self.hands[seat]
                offs = sorted(
                    (c for c in hand if hand[c] > 0 and self._cls(c) not in (cls, TRUMP)),
                    key=lambda c: (points_of(c) > 0, self._strength(c)),
                )
                if not offs or points_of(offs[0]) > 0:
                    continue
                if kind == "revoke" and not self._class_cards(self.hands[trick.winner], cls):
                    continue
                x = offs[0]
                trick.plays[i] = (seat, (x,))
                hand[x] -= 1
                hand[card] += 1
                self.hands[seat] = +hand
                self.planted.append(_Planted(kind, seat, t, cls))
                self.revoke_seats.add(seat)
                self.used.add(t)
                self.used.update(window)
                if kind == "revoke":
                    self.force_lead[t + 1] = (trick.winner, cls)
                else:
                    for u in window:
                        self.avoid[u] = (seat, cls)
                return

    def _plant_card_count(self, t: int, trick: _Trick) -> None:
        lead = trick.lead
        if lead.size < 2 or not self._due("card_count", t):
            return
        for i in range(1, 4):
            seat, cards = trick.plays[i]
            if seat == trick.winner or seat in self.revoke_seats:
                continue
            offs = sorted(
                (c for c in cards if self._cls(c) != lead.cls),
                key=lambda c: (points_of(c) > 0, self._strength(c)),
            )
            if not offs:
                continue
            x = offs[0]
            rest = list(cards)
            rest.remove(x)
            trick.plays[i] = (seat, tuple(rest))
            self.hands[seat][x] += 1
            self.keep[seat] += 1
            self.count_seat = seat
            self.planted.append(_Planted("card_count", seat, t))
            self.used.add(t)
            return

    # ----- after the hand: record-level faults ----------------------------------------------
    def plant_kitty_count(self) -> None:
        """9 cards in the kitty (the declarer's card of a last trick in which it plays last), or
        else, when the declarer won the last trick, 7 (a kitty card it then leads alone)."""
        if "kitty_count" not in self.kinds or not self.tricks:
            return
        t = len(self.tricks) - 1
        last = self.tricks[-1]
        if t in self.used:
            return
        if last.leader == self.last_leader() and last.lead.size == 1:
            seat, cards = last.plays[-1]
            assert seat == self.declarer
            del last.plays[-1]
            self.kitty.append(cards[0])
            self.initial[self.declarer][cards[0]] -= 1
            self.initial[self.declarer] = +self.initial[self.declarer]
        elif last.winner == self.declarer:
            extra = next((z for z in sorted(set(self.kitty)) if self._extra_card_ok(z)), None)
            if extra is None:
                return
            self.kitty.remove(extra)
            self.initial[self.declarer][extra] += 1
            lead = read_lead(self.order, (extra,))
            self.tricks.append(_Trick(self.declarer, [(self.declarer, (extra,))], "", lead))
        else:
            return
        self.planted.append(_Planted("kitty_count", self.declarer, None))
        self.used.update((t, t + 1))

    def _extra_card_ok(self, z: str) -> bool:
        """Whether the declarer holding ``z`` all hand long breaks no follow duty and defeats
        no throw it did not already defeat."""
        dec = self.declarer
        held = self.initial[dec] + Counter([z])
        for t, trick in enumerate(self.tricks):
            plays = dict(trick.plays)
            mine = plays.get(dec, ())
            if trick.leader != dec and mine and trick.lead.cls is not None:
                planted_here = any(
                    p.trick == t and p.seat == dec and p.kind in ("revoke", "hidden_cards")
                    for p in self.planted
                )
                if not planted_here and follow_violation(
                    self.order, self.profile, trick.lead, held, mine
                ):
                    return False
                if (
                    trick.lead.is_throw
                    and dec in self.judges(trick.leader)
                    and throw_defeat(self.order, trick.lead, held - Counter([z])) is None
                    and throw_defeat(self.order, trick.lead, held) is not None
                ):
                    return False
            held -= Counter(mine)
        return True

    def _eligible_tricks(self, kind: str) -> list[int]:
        last = len(self.tricks) - 1
        ts = [
            t
            for t in range(len(self.tricks))
            if t not in self.used
            and len(self.tricks[t].plays) == 4
            and not (t == last and "kitty_count" in self.kinds)
        ]
        start = self.start.get(kind, 0)
        return [t for t in ts if t >= start] + [t for t in ts if t < start]

    def plant_duplicate(self) -> None:
        if "duplicate_card" not in self.kinds or self.with_hands:
            return
        for t in self._eligible_tricks("duplicate_card"):
            trick = self.tricks[t]
            if trick.lead.size != 1:
                continue
            seen: Counter[str] = Counter(self.kitty)
            by_whom: dict[str, set[str]] = {}
            for earlier in self.tricks[:t]:
                for seat, cards in earlier.plays:
                    seen.update(cards)
                    for c in cards:
                        by_whom.setdefault(c, set()).add(seat)
            for i in range(1, 4):
                seat, (y,) = trick.plays[i][0], trick.plays[i][1]
                if seat == trick.winner or points_of(y):
                    continue
                ds = [
                    d
                    for d, n in seen.items()
                    if n >= 2
                    and d != y
                    and self._cls(d) == self._cls(y)
                    and not points_of(d)
                    and self._strength(d) <= self._strength(y)
                    and seat not in by_whom.get(d, set())
                ]
                if not ds:
                    continue
                d = max(sorted(ds), key=self._strength)
                trick.plays[i] = (seat, (d,))
                self.planted.append(_Planted("duplicate_card", seat, t))
                self.used.add(t)
                return

    def plant_out_of_turn(self) -> None:
        if "out_of_turn" not in self.kinds:
            return
        for t in self._eligible_tricks("out_of_turn"):
            trick = self.tricks[t]
            j = self.rng.choice((1, 2))
            plays = trick.plays
            plays[j], plays[j + 1] = plays[j + 1], plays[j]
            self.planted.append(_Planted("out_of_turn", plays[j][0], t))
            self.used.add(t)
            return

    # ----- the record --------------------------------------------------------------------------
    def times(self) -> tuple[float, float, list[list[float]]]:
        rng, p = self.rng, self.profile
        limit = p.play_time_limit_s
        hi = 12.0 if limit is None else max(0.0, min(12.0, 0.8 * limit))
        lo = min(1.0, hi / 2)
        bury_hi = 50.0 if p.bury_time_limit_s is None else min(50.0, 0.8 * p.bury_time_limit_s)
        taken = round(rng.uniform(10.0, 20.0), 1)
        buried = round(taken + rng.uniform(min(15.0, bury_hi / 2), max(0.0, bury_hi)), 1)
        overtime: tuple[int, int] | None = None
        if "overtime" in self.kinds and limit is not None:
            ts = self._eligible_tricks("overtime")
            if ts:
                t = ts[0]
                i = rng.randrange(len(self.tricks[t].plays))
                # Not the hand's first lead: its clock starts when the kitty is buried, which
                # a camera over the table never sees, so footage could not show that overtime.
                overtime = (t, 1 if (t, i) == (0, 0) else i)
                self.planted.append(_Planted("overtime", self.tricks[t].plays[overtime[1]][0], t))
                self.used.add(t)
        out: list[list[float]] = []
        now = buried
        for t, trick in enumerate(self.tricks):
            row = []
            for i in range(len(trick.plays)):
                if overtime == (t, i):
                    assert limit is not None
                    gap = max(rng.uniform(16.0, 30.0), limit + rng.uniform(1.0, 15.0))
                else:
                    gap = rng.uniform(lo, hi)
                now = round(now + gap, 1)
                row.append(now)
            out.append(row)
        return taken, buried, out

    def record(self) -> dict[str, Any]:
        rec: dict[str, Any] = {
            "format": FORMAT,
            "rules": self.rules,
            "rule_overrides": dict(self.overrides),
            "levels": dict(self.levels),
            "declarer": self.declarer,
            "trump": self.trump,
            "kitty": list(self.kitty),
        }
        times = self.times() if self.with_times else None
        if times is not None:
            rec["kitty_taken_t"], rec["kitty_buried_t"] = times[0], times[1]
        if self.with_hands:
            rec["hands"] = {
                s: sorted(self.initial[s].elements(), key=lambda c: -self._strength(c))
                for s in SEATS
            }
        rec["finished"] = True
        tricks = []
        for t, trick in enumerate(self.tricks):
            plays = []
            for i, (seat, cards) in enumerate(trick.plays):
                play: dict[str, Any] = {"seat": seat, "cards": list(cards)}
                if times is not None:
                    play["t"] = times[2][t][i]
                plays.append(play)
            tricks.append({"plays": plays})
        rec["tricks"] = tricks
        return rec

    # ----- the truth -------------------------------------------------------------------------
    def truth(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for p in self.planted:
            kind = p.kind
            if kind in ("revoke", "hidden_cards"):
                assert p.trick is not None
                delay = 0 if self.with_hands else self._proof_delay(p)
                if delay is None:
                    continue  # never proven from the plays
                hcat = self.profile.hidden_card_after_tricks
                kind = "hidden_cards" if delay >= hcat else "revoke"
            if kind == "failed_throw" and not self._throw_provable(p):
                continue
            trick = None if p.trick is None else p.trick + 1
            out.append({"kind": kind, "seat": p.seat, "trick": trick})
        out.sort(key=lambda d: (d["trick"] or 0, SEATS.index(d["seat"]), d["kind"]))
        return out

    def _proof_delay(self, p: _Planted) -> int | None:
        assert p.trick is not None
        for later in range(p.trick + 1, len(self.tricks)):
            for seat, cards in self.tricks[later].plays:
                if seat == p.seat and any(self._cls(c) == p.cls for c in cards):
                    return later - p.trick
        return None

    def _throw_provable(self, p: _Planted) -> bool:
        assert p.trick is not None
        t = p.trick
        lead = self.tricks[t].lead
        for judge in self.judges(p.seat):
            held: Counter[str] = Counter()
            if self.with_hands:
                held = Counter(self.initial[judge])
                for earlier in self.tricks[:t]:
                    for seat, cards in earlier.plays:
                        if seat == judge:
                            held -= Counter(cards)
            else:
                for later in self.tricks[t:]:
                    for seat, cards in later.plays:
                        if seat == judge:
                            held.update(cards)
            if throw_defeat(self.order, lead, held) is not None:
                return True
        return False


def _run_once(
    rules: str,
    rng: random.Random,
    kinds: tuple[str, ...],
    overrides: Mapping[str, Any] | None,
    with_times: bool,
    with_hands: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    sim = _Sim(rules, dict(overrides or {}), rng, kinds, with_times, with_hands)
    sim.play()
    sim.plant_kitty_count()
    sim.plant_duplicate()
    sim.plant_out_of_turn()
    record = sim.record()
    return record, sim.truth()


def _expected(kind: str, profile: RuleProfile, with_times: bool, with_hands: bool) -> str | None:
    """The kind the truth should show for a requested ``kind``; None if it cannot be planted."""
    hcat = profile.hidden_card_after_tricks
    if kind == "overtime" and not (with_times and profile.play_time_limit_s is not None):
        return None
    if kind == "duplicate_card" and with_hands:
        return None
    if kind in ("revoke", "hidden_cards"):
        delay = 0 if with_hands else (1 if kind == "revoke" else max(hcat, 1))
        return "hidden_cards" if delay >= hcat else "revoke"
    return kind


def simulate_hand(
    rules: str,
    seed: int,
    inject: Sequence[str] = (),
    *,
    overrides: Mapping[str, Any] | None = None,
    with_times: bool = True,
    with_hands: bool = False,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A simulated hand record (``chaodipi-hand/1``) and the truth of the planted infractions.

    ``inject`` names kinds from :data:`INJECTABLE`, each planted once in its own trick; the
    truth lists ``{"kind", "seat", "trick"}`` (trick 1-based, None for the kitty) for each that
    could be planted (see the module docstring for what each kind changes, which kind the
    auditor should report, and when one cannot be planted). Deterministic in ``seed``.
    """
    unknown = [k for k in inject if k not in INJECTABLE]
    if unknown:
        raise ValueError(
            f"cannot plant {', '.join(map(repr, unknown))}: choose from {', '.join(INJECTABLE)}"
        )
    kinds = tuple(dict.fromkeys(inject))
    profile = get_profile(rules, overrides)
    wanted: Counter[str] = Counter()
    for k in kinds:
        e = _expected(k, profile, with_times, with_hands)
        if e is not None:
            wanted[e] += 1
    best: tuple[dict[str, Any], list[dict[str, Any]]] | None = None
    best_n = -1
    for attempt in range(_ATTEMPTS if kinds else 1):
        rng = random.Random(seed) if attempt == 0 else random.Random(f"{seed}/{attempt}")
        record, truth = _run_once(rules, rng, kinds, overrides, with_times, with_hands)
        got = Counter(t["kind"] for t in truth)
        n = sum((got & wanted).values())
        if n > best_n:
            best, best_n = (record, truth), n
        if got == wanted:
            break
    assert best is not None
    return best
