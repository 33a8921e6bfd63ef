"""The simulator's faults: planting infractions into a hand the players play, and their truth.

:class:`FaultyPlayers` are the sensible players of :mod:`engine.sim_players` that commit the
faults asked of them, and know what they did: :meth:`FaultyPlayers.truth` is a list of
``{"kind", "seat", "trick"}`` (trick 1-based, ``None`` for the kitty) taken from the
simulator's own knowledge (true hands, what it changed), never from the auditor.

Plantable kinds, each planted at most once and each in its own trick (at or after a trick
drawn from the seed, ``start``):

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
* ``kitty_count`` — the kitty holds 9 cards: the burier's card of the last trick (a single lead
  in which it plays last) goes to the kitty, so the burier (the seat that buried the kitty last,
  the declarer unless a 炒 took it) holds 24 and plays nothing in the last trick. Failing that,
  when the burier won the last trick, the kitty holds 7: the burier held one kitty card more all
  hand (one that changes no follow duty or throw) and leads it alone after the last trick.
  Truth seat: the burier, trick ``None``.
* ``card_count`` — a follower of a lead of two or more cards plays one card fewer (an off-class
  filler it keeps, so follow duties are unchanged and it ends the hand holding a card).
* ``duplicate_card`` — a follower's low non-point single is recorded as a third copy of an
  identity of the same class that the kitty and earlier plays already showed twice. Only planted
  without ``with_hands``: with recorded hands the auditor counts copies in the hands, not the
  plays, so a third copy shown in a play is a hand mismatch (``card_count``), not a duplicate.

* ``exposed_card`` / ``takeback`` — a seat shows a card it holds, or takes back a card of its
  play and plays it again, during a trick of its own; the record's ``exposed`` / ``takebacks``
  name the trick.
* ``false_declaration``, ``illegal_chao``, ``bury_violation``, ``kitty_draw_error`` — planted in
  the bidding (:mod:`engine.preplay.bidding`), trick ``None``; an illegal 炒 shows as
  ``false_declaration`` where the profile punishes it as one
  (``illegal_chao_is_false_declaration``).

``failed_throw``, ``revoke``/``hidden_cards`` and ``card_count`` are planted while the hand is
played (through the players' hooks); ``kitty_count``, ``duplicate_card``, ``out_of_turn``,
``exposed_card`` and ``takeback`` after it, in that order; ``overtime`` when the record is
timed (:mod:`engine.simulate`).
"""

from __future__ import annotations

import random
from collections import Counter
from dataclasses import dataclass
from typing import Any

from engine.cards import SEATS, points_of
from engine.combos import decompose
from engine.order import TRUMP
from engine.sim_players import Cards, Players, Trick
from engine.tricks import follow_violation, read_lead, throw_defeat


@dataclass
class Planted:
    kind: str
    seat: str
    trick: int | None  # 0-based trick index; None for the kitty
    cls: str = ""  # revoke / hidden_cards: the withheld class


class FaultyPlayers(Players):
    """The players of one hand, planting the faults ``kinds`` (see the module docstring)."""

    def __init__(
        self,
        rules: str,
        overrides: dict[str, Any],
        rng: random.Random,
        kinds: tuple[str, ...],
        with_times: bool,
        with_hands: bool,
    ) -> None:
        super().__init__(rules, overrides, rng, kinds, with_times, with_hands)
        self.planted: list[Planted] = []
        self.used: set[int] = set()  # tricks holding a planted fault (or reserved for one)
        self.start = {kind: rng.randint(0, 7) for kind in self.kinds}
        self.revoke_seats: set[str] = set()
        self.count_seat: str | None = None
        self.incidents: list[tuple[str, str, int, tuple[str, ...]]] = []  # kind, seat, trick, cards

    # ----- while the hand is played --------------------------------------------------------
    def _due(self, kind: str, t: int) -> bool:
        return (
            kind in self.kinds
            and t >= self.start[kind]
            and t not in self.used
            and not any(p.kind == kind for p in self.planted)
        )

    def _faulty_lead(self, t: int, seat: str, cap: int, size_cap: int) -> Cards | None:
        """A throw that fails, when ``failed_throw`` is due at trick ``t`` and ``seat`` has one."""
        if self._due("failed_throw", t) and cap >= 3:
            throw = self._failing_throw(seat, size_cap)
            if throw is not None:
                self.planted.append(Planted("failed_throw", seat, t))
                self.used.add(t)
                return throw
        return None

    def _failing_throw(self, seat: str, size_cap: int) -> Cards | None:
        hand = self.hands[seat]
        judges = self.judges(seat)
        classes = sorted({self.class_of(c) for c in hand.elements()} - {TRUMP})
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

    def _plant_in_trick(self, t: int, trick: Trick) -> None:
        self._plant_revoke(t, trick)
        self._plant_card_count(t, trick)

    def _plant_revoke(self, t: int, trick: Trick) -> None:
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
                if self.class_of(card) != cls:
                    continue
                hand = self.hands[seat]
                offs = sorted(
                    (c for c in hand if hand[c] > 0 and self.class_of(c) not in (cls, TRUMP)),
                    key=lambda c: (points_of(c) > 0, self.strength(c)),
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
                self.planted.append(Planted(kind, seat, t, cls))
                self.revoke_seats.add(seat)
                self.used.add(t)
                self.used.update(window)
                if kind == "revoke":
                    self.force_lead[t + 1] = (trick.winner, cls)
                else:
                    for u in window:
                        self.avoid[u] = (seat, cls)
                return

    def _plant_card_count(self, t: int, trick: Trick) -> None:
        lead = trick.lead
        if lead.size < 2 or not self._due("card_count", t):
            return
        for i in range(1, 4):
            seat, cards = trick.plays[i]
            if seat == trick.winner or seat in self.revoke_seats:
                continue
            offs = sorted(
                (c for c in cards if self.class_of(c) != lead.cls),
                key=lambda c: (points_of(c) > 0, self.strength(c)),
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
            self.planted.append(Planted("card_count", seat, t))
            self.used.add(t)
            return

    # ----- after the hand: record-level faults ----------------------------------------------
    def plant_kitty_count(self) -> None:
        """9 cards in the kitty (the burier's card of a last trick in which it plays last), or
        else, when the burier won the last trick, 7 (a kitty card it then leads alone)."""
        if "kitty_count" not in self.kinds or not self.tricks:
            return
        t = len(self.tricks) - 1
        last = self.tricks[-1]
        if t in self.used:
            return
        if last.leader == self.last_leader() and last.lead.size == 1:
            seat, cards = last.plays[-1]
            assert seat == self.burier
            del last.plays[-1]
            self.kitty.append(cards[0])
            self.initial[self.burier][cards[0]] -= 1
            self.initial[self.burier] = +self.initial[self.burier]
        elif last.winner == self.burier:
            extra = next((z for z in sorted(set(self.kitty)) if self._extra_card_ok(z)), None)
            if extra is None:
                return
            self.kitty.remove(extra)
            self.initial[self.burier][extra] += 1
            lead = read_lead(self.order, (extra,))
            self.tricks.append(Trick(self.burier, [(self.burier, (extra,))], "", lead))
        else:
            return
        self.planted.append(Planted("kitty_count", self.burier, None))
        self.used.update((t, t + 1))

    def _extra_card_ok(self, z: str) -> bool:
        """Whether the burier holding ``z`` all hand long breaks no follow duty and defeats
        no throw it did not already defeat."""
        dec = self.burier
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
                    and self.class_of(d) == self.class_of(y)
                    and not points_of(d)
                    and self.strength(d) <= self.strength(y)
                    and seat not in by_whom.get(d, set())
                ]
                if not ds:
                    continue
                d = max(sorted(ds), key=self.strength)
                trick.plays[i] = (seat, (d,))
                self.planted.append(Planted("duplicate_card", seat, t))
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
            self.planted.append(Planted("out_of_turn", plays[j][0], t))
            self.used.add(t)
            return

    def plant_overtime(self) -> tuple[int, int] | None:
        """With ``overtime`` planned and a play time limit: the (trick, play) that comes late."""
        if "overtime" not in self.kinds or self.profile.play_time_limit_s is None:
            return None
        ts = self._eligible_tricks("overtime")
        if not ts:
            return None
        t = ts[0]
        i = self.rng.randrange(len(self.tricks[t].plays))
        # Not the hand's first lead: its clock starts when the kitty is buried, which a camera
        # over the table never sees, so footage could not show that overtime.
        overtime = (t, 1 if (t, i) == (0, 0) else i)
        self.planted.append(Planted("overtime", self.tricks[t].plays[overtime[1]][0], t))
        self.used.add(t)
        return overtime

    def plant_incidents(self) -> None:
        """An exposed card and a takeback, each in a trick of its own, by a seat that played
        there: it shows a card it still holds, or takes back a card of its play."""
        for kind in ("exposed_card", "takeback"):
            if kind not in self.kinds:
                continue
            for t in self._eligible_tricks(kind):
                seat, cards = self.rng.choice(self.tricks[t].plays)
                if kind == "takeback":
                    shown = (self.rng.choice(cards),)
                else:
                    held = Counter(self.initial[seat])
                    for earlier in self.tricks[:t]:
                        held -= Counter(dict(earlier.plays).get(seat, ()))
                    if not held:
                        continue
                    shown = (self.rng.choice(sorted(held)),)
                self.incidents.append((kind, seat, t, shown))
                self.planted.append(Planted(kind, seat, t))
                self.used.add(t)
                break

    # ----- the truth -------------------------------------------------------------------------
    def truth(self) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for kind, seat in self.bidding.planted:
            if kind == "illegal_chao" and self.profile.illegal_chao_is_false_declaration:
                kind = "false_declaration"
            out.append({"kind": kind, "seat": seat, "trick": None})
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

    def _proof_delay(self, p: Planted) -> int | None:
        assert p.trick is not None
        for later in range(p.trick + 1, len(self.tricks)):
            for seat, cards in self.tricks[later].plays:
                if seat == p.seat and any(self.class_of(c) == p.cls for c in cards):
                    return later - p.trick
        return None

    def _throw_provable(self, p: Planted) -> bool:
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
