"""The draw, the kitty's re-burial times, redeals, and cards exposed or taken back.

What the table does around the bidding and the tricks, checked against the profile:

* the draw — its direction (``deal_direction``), who draws first (``first_drawer_rule``: the
  S-E-N-W card flip before a game's first hand and the dealer after it, or HF's drawn card that
  may not be a joker), who shuffles and cuts in a later hand (``shuffle_by``): ``draw_error``,
  0 points, for the referee;
* every burial of the kitty after a 炒 timed like the first (「炒底重扣時限相同」, A 000 L5, XX
  002 L32): ``overtime`` past ``bury_time_limit_s``, priced by the auditor's escalation;
* a weak-hand redeal (造反) where ``allow_redeal`` is off: ``redeal``, 0 points;
* cards taken back (悔牌, ``penalty_takeback`` a card) and cards exposed
  (``penalty_exposed_card`` a card): ``takeback``, ``exposed_card``.

:func:`with_read_doubt` gives the bidding's findings the doubt of the camera's reads they rest
on (``unsure`` / ``maybe`` of ``before_play`` declarations): a finding on one declaration
rests on its cards, an ``illegal_chao`` also on the declarations before it (a re-used pair, a
weaker overcall, a single after a declaration), a trump or dealer result on all of them — and on
all their cards when the record lists no take of the kitty (a camera's record: it sees
showings, not the kitty), for then it cannot say that it saw every showing (a 炒 laid face down
and turned up briefly, a joker the reading missed), nor, with more than one, their order
around the kitty.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from engine.cards import JOKERS, RANK_VALUE, parse, side_of
from engine.preplay.fields import DECLARING, BidEvent, Draw
from engine.preplay.proofs import Finding
from engine.profiles import RuleProfile
from engine.record import HandRecord

FLIP_ORDER: tuple[str, ...] = ("S", "E", "N", "W")
"""Who turns a card first (XX 「第一盘前，按南东北西依此翻牌」 002 L36)."""
SUIT_TIES: dict[str, int] = {"H": 4, "D": 3, "S": 2, "C": 1}
"""XX 「同级按红心、方块、黑桃、梅花渐小」 002 L36."""


def flip_strength(card: str) -> tuple[int, int]:
    """How high a card turned up for the first drawer is: BJ > SJ > A > … > 2, ties by suit
    (XX 「大小顺序按大王、小王、A、K、Q…2渐小，同级按红心、方块、黑桃、梅花渐小」 002 L36)."""
    if card == "BJ":
        return (16, 0)
    if card == "SJ":
        return (15, 0)
    rank, suit = parse(card)
    return (RANK_VALUE[rank], SUIT_TIES[suit])


def _draw_error(seat: str, reason: str, other: str | None, knob: str) -> Finding:
    proof: dict[str, Any] = {
        "kind": "draw",
        "seat": seat,
        "reason": reason,
        "other": other,
        "knob": knob,
    }
    return Finding("draw_error", seat, None, (), 0, proof)


def _first_drawer(record: HandRecord, profile: RuleProfile, draw: Draw) -> list[Finding]:
    rule = profile.first_drawer_rule
    if rule == "any":
        return []
    if not record.first_hand:
        if rule == "card_flip" and draw.first is not None and draw.first != record.declarer:
            return [
                _draw_error(draw.first, "dealer_draws_first", record.declarer, "first_drawer_rule")
            ]
        return []
    flips = draw.flips
    if not flips:
        return []
    if rule == "drawn_card":  # HF 「抽到大小鬼不算，重新抽牌」 004 L53: the deciding card
        last = flips[-1]
        if last.card in JOKERS:
            return [_draw_error(last.seat, "joker_drawn", None, "first_drawer_rule")]
        return []
    seats = tuple(f.seat for f in flips)
    if seats != FLIP_ORDER[: len(seats)]:
        return [_draw_error(flips[0].seat, "flip_order", "S", "first_drawer_rule")]
    ranked = sorted(flips, key=lambda f: flip_strength(f.card), reverse=True)
    tied = len(ranked) > 1 and ranked[0].card == ranked[1].card
    if tied or draw.first is None or draw.first == ranked[0].seat:
        return []
    return [_draw_error(draw.first, "flip_winner", ranked[0].seat, "first_drawer_rule")]


def _shuffle(record: HandRecord, profile: RuleProfile, draw: Draw) -> list[Finding]:
    rule = profile.shuffle_by
    if rule == "any" or record.first_hand:
        return []  # before a game's first hand nobody is 台上方 yet
    dealer = record.declarer
    declarers = side_of(dealer)
    out: list[Finding] = []
    shuffler, cutter = draw.shuffled_by, draw.cut_by
    if rule == "dealer_shuffles_upstream_cuts":
        upstream = profile.seats_in_play_order(dealer)[-1]
        if shuffler is not None and shuffler != dealer:
            out.append(_draw_error(shuffler, "shuffle", dealer, "shuffle_by"))
        if cutter is not None and cutter != upstream:
            out.append(_draw_error(cutter, "cut", upstream, "shuffle_by"))
        return out
    shuffler_on_top = rule == "declarers_shuffle_defenders_cut"  # A 「台上方洗牌」 000 L8
    if shuffler is not None and (side_of(shuffler) == declarers) != shuffler_on_top:
        out.append(_draw_error(shuffler, "shuffle", None, "shuffle_by"))
    if cutter is not None and side_of(cutter) == declarers:  # 台下方倒牌 in both
        out.append(_draw_error(cutter, "cut", None, "shuffle_by"))
    return out


def check_draw(record: HandRecord, profile: RuleProfile) -> list[Finding]:
    draw = record.preplay.draw
    if draw is None:
        return []
    out: list[Finding] = []
    if draw.direction is not None and draw.direction != profile.deal_direction:
        seat = draw.first or record.declarer
        reason = f"draw_{profile.deal_direction}"
        out.append(_draw_error(seat, reason, None, "deal_direction"))
    out += _first_drawer(record, profile, draw)
    if draw.shuffled_by is not None or draw.cut_by is not None:
        out += _shuffle(record, profile, draw)
    return out


def check_reburials(record: HandRecord, profile: RuleProfile) -> list[Finding]:
    """Each take-and-bury of the kitty other than the final one the record times with
    ``kitty_taken_t``/``kitty_buried_t`` (the auditor's own check), against the bury limit."""
    limit = profile.bury_time_limit_s
    events = record.preplay.events
    if limit is None or not events:
        return []
    final = (record.kitty_taken_t, record.kitty_buried_t)
    out: list[Finding] = []
    taken: dict[str, float] = {}
    for e in events:
        if e.action == "take" and e.t is not None:
            taken[e.seat] = e.t
        elif e.action == "bury" and e.t is not None and e.seat in taken:
            start = taken.pop(e.seat)
            took = e.t - start
            if took > limit and (start, e.t) != final:
                proof = {
                    "kind": "bury_time",
                    "seat": e.seat,
                    "took_s": round(took, 1),
                    "limit_s": limit,
                    "knob": "bury_time_limit_s",
                }
                out.append(Finding("overtime", e.seat, None, (), None, proof))
    return out


def check_incidents(record: HandRecord, profile: RuleProfile) -> list[Finding]:
    pre = record.preplay
    out: list[Finding] = []
    for kind, items, per_card, knob in (
        ("takeback", pre.takebacks, profile.penalty_takeback, "penalty_takeback"),
        ("exposed_card", pre.exposed, profile.penalty_exposed_card, "penalty_exposed_card"),
    ):
        for i in items:
            proof = {
                "kind": kind,
                "seat": i.seat,
                "cards": list(i.cards),
                "trick": i.trick,
                "knob": knob,
            }
            maybe = dict(i.maybe)
            unsure = tuple((c, maybe.get(c)) for c in i.unsure)
            penalty = per_card * len(i.cards)
            out.append(Finding(kind, i.seat, i.trick, i.cards, penalty, proof, unsure))
    if not profile.allow_redeal:
        for r in pre.redeals:
            proof = {"kind": "redeal", "seat": r.seat, "knob": "allow_redeal"}
            out.append(Finding("redeal", r.seat, None, (), 0, proof))
    return out


def with_read_doubt(record: HandRecord, findings: list[Finding]) -> list[Finding]:
    """``findings`` of the bidding, each with the doubtful reads it rests on (see the module
    docstring); unchanged when no declaration was read in doubt."""
    events = record.preplay.events or ()
    declarations = [e for e in events if e.action in DECLARING]
    # Without the kitty's take (a camera sees showings, not the kitty) the record cannot say
    # that it holds every showing, nor which came before the take (the deal) and whether a 炒
    # came in its turn (the trump): a trump or dealer result rests on all of them, in order.
    whole_bidding_unknown = bool(declarations) and not any(e.action == "take" for e in events)
    if not whole_bidding_unknown and not any(e.unsure for e in events):
        return findings

    def doubt(chosen: list[BidEvent]) -> tuple[tuple[str, str | None], ...]:
        out: dict[str, str | None] = {}
        for e in chosen:
            maybe = dict(e.maybe)
            for card in e.unsure:
                out.setdefault(card, maybe.get(card))
        return tuple(out.items())

    out = []
    for f in findings:
        number = f.proof.get("event")
        if isinstance(number, int) and 1 <= number <= len(events):
            upto = events[:number] if f.proof.get("kind") == "illegal_chao" else ()
            chosen = [e for e in upto if e.action in DECLARING] or [events[number - 1]]
            if upto:
                chosen = [*chosen, events[number - 1]]
        elif f.kind in ("wrong_trump", "wrong_dealer"):
            chosen = declarations
        else:
            chosen = []
        unsure = doubt(chosen)
        if whole_bidding_unknown and f.kind in ("wrong_trump", "wrong_dealer"):
            known = dict(unsure)
            unsure = tuple((c, known.get(c)) for c in dict.fromkeys(_cards(declarations)))
        out.append(replace(f, unsure=unsure) if unsure else f)
    return out


def _cards(events: list[BidEvent]) -> list[str]:
    return [c for e in events for c in e.cards]
