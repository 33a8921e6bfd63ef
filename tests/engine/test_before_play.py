"""Whole hands from the draw to the last trick: the draw, declarations and 炒, the kitty's moves,
exposed cards and takebacks, each rule under each profile that has it.

Each test takes a clean simulated hand (its tricks played to the end, a suit as trump), writes
its draw and bidding as the regulation describes the case, and checks what the auditor finds.
The expectations come from the regulation's text, quoted with file and line.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any

import pytest

from engine.audit import AuditReport, audit
from engine.cards import SUITS, side_of
from engine.preplay.declarations import seats_from
from engine.preplay.fields import FIELDS
from engine.profiles import get_profile
from engine.record import load_record
from engine.simulate import simulate_hand

Event = dict[str, Any]


@cache
def _clean_hand(rules: str) -> dict[str, Any]:
    for seed in range(200):
        record, _ = simulate_hand(rules, seed, with_times=False)
        level = record["levels"][side_of(record["declarer"])]
        if record["trump"] != "NT" and "first_hand" not in record and level != "5":
            break
    for name in FIELDS:
        record.pop(name, None)
    return record


class Hand:
    """A clean whole hand under ``rules`` to write a bidding for: its dealer ``d``, the seats
    after it in 炒 order ``x y z``, level card of the trump ``t`` and of another suit ``o``."""

    def __init__(self, rules: str) -> None:
        self.rules = rules
        self.record = copy.deepcopy(_clean_hand(rules))
        self.profile = get_profile(rules)
        self.d = self.record["declarer"]
        self.d, self.x, self.y, self.z = seats_from(self.d, self.profile.chao_order)
        level = self.record["levels"][side_of(self.d)]
        self.trump = self.record["trump"]
        self.other = next(s for s in SUITS if s != self.trump)
        self.t = level + self.trump
        self.o = level + self.other
        self.level = level

    def audit(self, events: list[Event] | None, **fields: Any) -> AuditReport:
        record = {**copy.deepcopy(self.record), **fields}
        if events is not None:
            record["before_play"] = events
        return audit(load_record(record))

    def found(self, events: list[Event] | None, **fields: Any) -> list[tuple[str, str, int]]:
        return [(i.kind, i.seat, i.penalty) for i in self.audit(events, **fields).infractions]

    def dealt(self, *chao: Event) -> list[Event]:
        """The dealer declares the trump's level card, takes the kitty and buries; then ``chao``."""
        return [declare(self.d, self.t), take(self.d), bury(self.d), *chao]


def declare(seat: str, *cards: str, action: str = "declare", **extra: Any) -> Event:
    return {"seat": seat, "action": action, "cards": list(cards), "face_down": True, **extra}


def chao(seat: str, *cards: str, **extra: Any) -> Event:
    return declare(seat, *cards, action="chao", **extra)


def take(seat: str, **extra: Any) -> Event:
    return {"seat": seat, "action": "take", **extra}


def bury(seat: str, **extra: Any) -> Event:
    return {"seat": seat, "action": "bury", "count": 8, **extra}


def passes(*seats: str) -> list[Event]:
    return [{"seat": s, "action": "pass"} for s in seats]


# ----- a record without these fields, and a clean bidding ------------------------------------


@pytest.mark.parametrize("rules", ["A", "NT", "XX", "AH", "B", "HF", "LY"])
def test_a_record_that_does_not_tell_the_bidding_audits_as_before(rules: str) -> None:
    h = Hand(rules)
    assert h.found(None) == []


@pytest.mark.parametrize("rules", ["A", "NT", "XX", "AH", "B", "HF", "LY"])
def test_a_declaration_then_a_chao_that_takes_and_reburies_the_kitty_audits_clean(
    rules: str,
) -> None:
    # XX 「后面的可以炒前面的…炒牌除反主外还可将底牌取回重垫8张底牌，最后炒家的两张将牌的花色为主」
    # 002 L41: the dealer declared another suit, a later 炒 with the trump's pair sets the trump
    # (NT, by strength 「王姊妹對可反紅星對」 000 L44: a pair over a single)
    h = Hand(rules)
    bidding = [declare(h.d, h.o), take(h.d), bury(h.d), chao(h.y, h.t, h.t), take(h.y), bury(h.y)]
    assert h.found(bidding) == []


# ----- 炒: the cards ---------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["XX", "AH", "HF"])
def test_a_pair_that_has_been_chao_cannot_chao_again(rules: str) -> None:
    # XX 「炒过的将牌不能重复炒」 002 L41 (AH 000 L84); HF 「一對牌只能炒一次」 004 L4
    h = Hand(rules)
    bidding = [
        declare(h.d, h.o),
        take(h.d),
        bury(h.d),
        chao(h.y, h.t, h.t),
        take(h.y),
        bury(h.y),
        chao(h.z, h.o, h.o),
        take(h.z),
        bury(h.z),
        chao(h.y, h.t, h.t),  # the ♠-pair again: void, so the trump stays with z's 炒
        take(h.y),
        bury(h.y),
    ]
    report = h.audit(bidding)
    kinds = [(i.kind, i.seat) for i in report.infractions]
    if rules == "HF":  # 「不具備炒底資格而假炒底的，本盤牌不打」 004 L48: the hand ends there
        assert kinds == [("false_declaration", h.y)]
        assert report.infractions[0].penalty == 200 and report.defender_points == 0
    else:
        # the re-used 炒 is void: the kitty taken on it was taken without a 炒, and the trump
        # the record kept (y's ♠-pair) is not the one the valid bidding gives (z's)
        assert sorted(kinds) == sorted(
            [("illegal_chao", h.y), ("illegal_chao", h.y), ("wrong_trump", h.z)]
        )
        reasons = [i.proof_data.get("reason") for i in report.infractions if i.seat == h.y]
        assert reasons == ["reused", "took_without_chao"]
    assert h.found(bidding, rule_overrides={"chao_pair_reuse": True}) == []


def test_xx_refuses_a_single_card_chao_and_b_lets_the_first_single_complete_its_pair() -> None:
    # XX 「一对将牌或两张大王、两张小王均可炒底」 002 L41: a 炒 needs a pair
    # B 「最先單張暗放主牌者，在炒牌後可用另一張與暗放主牌同色的主牌組成一對將牌炒牌」 001 L1
    for rules in ("XX", "B"):
        h = Hand(rules)
        bidding = [
            declare(h.x, h.t),
            take(h.d),
            bury(h.d),
            chao(h.y, h.o, h.o),
            take(h.y),
            bury(h.y),
            chao(h.x, h.t),  # the other copy of x's first single
            take(h.x),
            bury(h.x),
        ]
        report = h.audit(bidding)
        if rules == "B":
            assert report.infractions == []
            continue
        # XX: the 炒 is void, so x took the kitty without a right and the trump stays y's
        found = [(i.kind, i.seat, i.proof_data.get("reason")) for i in report.infractions]
        assert sorted(found, key=str) == sorted(
            [
                ("illegal_chao", h.x, "single"),
                ("illegal_chao", h.x, "took_without_chao"),
                ("wrong_trump", h.y, None),
            ],
            key=str,
        )


@pytest.mark.parametrize("rules", ["XX", "B", "HF"])
def test_a_single_joker_cannot_declare_and_a_joker_pair_makes_no_trump(rules: str) -> None:
    # XX 「小王、大王不得单张亮主，双小王、双大王正主后此盘“无主”」 002 L41; B the same 001 L1;
    # HF 「大、小王只能炒無主」 004 L4
    h = Hand(rules)
    single = h.audit([declare(h.d, "SJ"), declare(h.d, h.t), take(h.d), bury(h.d)])
    assert [(i.kind, i.proof_data["reason"]) for i in single.infractions] == [
        ("false_declaration", "single_joker")
    ]
    pair = h.audit(h.dealt(chao(h.x, "BJ", "BJ"), take(h.x), bury(h.x)))
    (inf,) = pair.infractions  # the record kept its suit where BJ BJ made 无主
    assert (inf.kind, inf.proof_data["expected_trump"]) == ("wrong_trump", "NT")


def test_nt_declares_any_suit_with_the_joker_tractor_or_a_red_star_pair() -> None:
    # NT 「大王小王連對、紅五星反主可任選定主」 000 L37; 「王姊妹對可反紅星對」 000 L44
    h = Hand("NT")
    assert (
        h.found([declare(h.x, h.o), declare(h.y, "5H", "5H", trump=h.trump), *h.dealt()[1:]]) == []
    )
    tractor = [
        declare(h.x, "5H", "5H", trump=h.other),
        declare(h.y, "BJ", "BJ", "SJ", "SJ", trump=h.trump),
    ]
    assert h.found([*tractor, take(h.d), bury(h.d)]) == []
    # a joker pair alone does not declare here, and a level pair cannot overcall a red-star pair
    weaker = h.audit(
        [declare(h.x, "5H", "5H", trump=h.trump), declare(h.y, h.o, h.o), take(h.d), bury(h.d)]
    )
    assert [(i.kind, i.proof_data["reason"]) for i in weaker.infractions] == [
        ("illegal_chao", "weaker")
    ]
    alone = h.audit([declare(h.x, "SJ", "SJ"), declare(h.d, h.t), take(h.d), bury(h.d)])
    assert [i.proof_data["reason"] for i in alone.infractions] == ["joker_pair"]


# ----- 炒: the order ---------------------------------------------------------------------------


@pytest.mark.parametrize(("rules", "direction"), [("XX", "clockwise"), ("B", "counterclockwise")])
def test_chao_goes_round_in_the_profiles_direction(rules: str, direction: str) -> None:
    # XX 「炒牌…按顺时针顺序」 002 L41; B 「炒牌…按逆時針順序」 001 L1. With every pass listed,
    # the seat after the burier in the other direction may not 炒 first.
    h = Hand(rules)
    after = seats_from(h.d, direction)[1]
    wrong_way = seats_from(h.d, "clockwise" if direction != "clockwise" else "counterclockwise")[1]
    right = h.dealt(*passes(after), chao(seats_from(h.d, direction)[2], h.t, h.t))
    right += [take(seats_from(h.d, direction)[2]), bury(seats_from(h.d, direction)[2])]
    right += passes(*seats_from(seats_from(h.d, direction)[2], direction)[1:])
    assert h.found(right) == []
    wrong = h.audit(h.dealt(chao(wrong_way, h.o, h.o), *passes(*seats_from(h.d, direction)[1:])))
    (inf,) = wrong.infractions
    assert (inf.kind, inf.seat, inf.proof_data["reason"]) == ("illegal_chao", wrong_way, "turn")
    assert inf.proof_data["other"] == after


def test_a_seat_does_not_chao_its_own_kitty_and_no_one_chaos_after_all_passed() -> None:
    # 「后面的可以炒前面的」 002 L41: the turn goes round the others; when all three pass it is over
    h = Hand("XX")
    own = h.audit(h.dealt(chao(h.d, h.o, h.o)))
    assert [(i.kind, i.proof_data["reason"]) for i in own.infractions] == [
        ("illegal_chao", "closed")
    ]
    late = h.audit(h.dealt(*passes(h.x, h.y, h.z), chao(h.x, h.o, h.o)))
    assert [(i.kind, i.proof_data["reason"]) for i in late.infractions] == [
        ("illegal_chao", "closed")
    ]


def test_a_chao_waits_for_the_kitty_to_be_buried() -> None:
    # 「炒家要數清底牌牌張後再炒」 000 L13: the kitty is buried and counted before the next 炒
    h = Hand("A")
    early = h.audit([declare(h.d, h.t), take(h.d), chao(h.x, h.o, h.o), bury(h.d)])
    assert [(i.kind, i.seat, i.proof_data["reason"]) for i in early.infractions] == [
        ("illegal_chao", h.x, "before_burial")
    ]


def test_hf_the_caller_and_the_dealer_may_not_chao_in_the_first_round() -> None:
    # HF 「炒底按逆時針方向從莊家的下一家開始，如果莊家的下一家為叫牌者，則從叫牌者的下一家開始
    # 炒底。如果第一輪除叫牌者和莊家外無人炒底，則叫牌者和莊家均不能炒底」 004 L5
    for rules in ("HF", "XX"):
        h = Hand(rules)
        caller = h.x  # called first; the dealer d 反主 before taking the kitty (004 L5)
        opening = [declare(caller, h.o), declare(h.d, h.o, h.o), take(h.d), bury(h.d)]
        assert h.found([*opening, chao(h.y, h.t, h.t), take(h.y), bury(h.y)]) == []
        first = h.audit([*opening, chao(caller, h.t, h.t), take(caller), bury(caller)])
        if rules == "XX":  # no such rule: the caller's 炒 stands
            assert first.infractions == []
            continue
        (inf,) = first.infractions
        assert (inf.kind, inf.seat, inf.proof_data["reason"]) == (
            "false_declaration",
            caller,
            "first_round",
        )
        assert inf.penalty == 200 and first.defender_points == 0  # 「本盤牌不打」 004 L48


def test_no_chao_after_the_kitty_was_turned_up_for_the_trump() -> None:
    # B 「翻底牌選主後不得炒牌」 001 L3
    h = Hand("B")
    flip = ["3C" if h.level != "3" else "4C", h.t, "AS", "KD", "QH", "JC", "9S", "8D"]
    assert h.found([take(h.d), bury(h.d)], no_bid_flip=flip) == []
    late = h.audit([take(h.d), bury(h.d), chao(h.x, h.o, h.o)], no_bid_flip=flip)
    assert [(i.kind, i.proof_data["reason"]) for i in late.infractions] == [
        ("illegal_chao", "after_flip")
    ]


# ----- the trump and the dealer they give -----------------------------------------------------


def test_b_turns_the_kitty_up_when_nobody_declares() -> None:
    # B 「四人都不暗放主牌，則從起牌人開始按逆時針方向翻底牌，以先翻出的將牌的花色為主，如沒有
    # 將牌，則以八張底牌中最大且最早出現的牌的花色定主（鬼牌不參與定主）」 001 L2; in a first hand
    # 「以最先遇到「2」，或先遇到最大且最早出現的牌者為莊家」 001 L3
    h = Hand("B")
    no_level = [
        c for c in ("BJ", "3C", "K" + h.trump, "9S", "KD", "4H", "6S", "7D") if c[:-1] != h.level
    ]
    assert h.found([take(h.d), bury(h.d)], no_bid_flip=no_level) == []  # the first K: the trump's
    wrong = h.found([take(h.d), bury(h.d)], no_bid_flip=["BJ", "A" + h.other, "K" + h.trump])
    assert wrong == [("wrong_trump", h.d, 0)]
    # first hand: the seat that turned the deciding card deals; turning goes round from the first
    # drawer in the draw's direction (B counter-clockwise)
    flip = ["3C" if h.level != "3" else "4C", h.t, "AS"]
    turner = seats_from(h.x, "counterclockwise")[1]
    draw = {"first": h.x, "direction": "counterclockwise"}
    first = h.found([take(turner), bury(turner)], no_bid_flip=flip, draw=draw, first_hand=True)
    assert first == [("wrong_dealer", h.d, 0)] if turner != h.d else first == []


def test_where_a_text_is_silent_nobody_declaring_means_a_new_deal() -> None:
    # no_bid_rule 'redeal' (XX is silent on it): a played hand needs a declaration
    h = Hand("XX")
    report = h.audit([take(h.d), bury(h.d)])
    assert [(i.kind, i.proof_data["kind"]) for i in report.infractions] == [
        ("wrong_trump", "no_declaration")
    ]
    assert h.found([], tricks=[], finished=None) == []  # nothing played: dealt again


@pytest.mark.parametrize("rules", ["XX", "AH", "HF"])
def test_in_a_first_hand_a_pair_before_the_kitty_takes_the_deal_a_chao_after_it_does_not(
    rules: str,
) -> None:
    # XX 「先放（暗放一张）“2”者…为庄家，未拿底牌时正主（一对“2”暗扣）正庄，炒底时正主不正庄」
    # 002 L39; HF 「先叫暗叫「2」者為莊家，但在拿底牌之前若有人反主，則反主者為莊家…以最後反主拿底者
    # 為莊家」 004 L6
    h = Hand(rules)
    before = [declare(h.x, h.o), declare(h.d, h.t, h.t), take(h.d), bury(h.d)]
    assert h.found(before, first_hand=True) == []
    after = [declare(h.x, h.o), take(h.x), bury(h.x), chao(h.d, h.t, h.t), take(h.d), bury(h.d)]
    found = h.found(after, first_hand=True)
    if rules == "HF":  # the caller x is the dealer too: it may 炒 later, d's 炒 in round 1 is fine
        assert ("wrong_dealer", h.d, 0) in found
    else:
        assert found == [("wrong_dealer", h.d, 0)]


@pytest.mark.parametrize("rules", ["XX", "AH", "HF"])
def test_without_the_kitty_take_the_deal_by_declaration_is_a_question(rules: str) -> None:
    # a camera sees the showings, not the kitty: d declared before it and x 炒 after it (d
    # deals), but the record cannot tell x's pair from a 反主 before the kitty (x would deal)
    h = Hand(rules)
    whole = [declare(h.d, h.t), take(h.d), bury(h.d), chao(h.x, h.o, h.o), take(h.x), bury(h.x)]
    seen = [declare(h.d, h.t), declare(h.x, h.o, h.o)]
    fields = {"first_hand": True, "trump": h.other, "tricks": [], "finished": None}
    assert h.found(whole, **fields) == []
    (dealer,) = h.audit(seen, **fields).infractions
    assert (dealer.kind, dealer.seat) == ("wrong_dealer", h.d) and dealer.to_check


def test_without_the_kitty_take_a_trump_judged_against_the_showings_seen_is_a_question() -> None:
    # a camera may miss a showing (a 炒 laid face down and turned up briefly, a joker pair the
    # reading missed): the one declaration it saw naming another trump than the referee's
    # proves nothing by itself; with the kitty's take in the record the bidding is whole
    h = Hand("XX")
    fields = {"trump": h.other, "tricks": [], "finished": None}
    (trump,) = h.audit([declare(h.d, h.t)], **fields).infractions
    assert (trump.kind, trump.seat) == ("wrong_trump", h.d) and trump.to_check
    whole = h.audit([declare(h.d, h.t), take(h.d), bury(h.d)], **fields).infractions
    assert [(i.kind, i.to_check) for i in whole] == [("wrong_trump", False)]


def test_in_later_hands_a_declaration_sets_the_trump_and_never_the_deal() -> None:
    # XX 「除开局盘外，均正主不正庄」 002 L39
    h = Hand("XX")
    bidding = [declare(h.x, h.o), declare(h.y, h.t, h.t), take(h.d), bury(h.d)]
    assert h.found(bidding, dealer_by_rotation=h.d) == []
    assert h.found(bidding, dealer_by_rotation=h.x) == [("wrong_dealer", h.d, 0)]
    assert h.found(bidding, first_hand=True) == [("wrong_dealer", h.d, 0)]  # there y deals


# ----- false declarations ----------------------------------------------------------------------


def test_xx_lists_a_false_declaration_for_the_referee_and_plays_on() -> None:
    # XX is silent on it: listed with 0 points, void (the next one sets the trump)
    h = Hand("XX")
    wrong = "3C" if h.level != "3" else "4C"
    report = h.audit([declare(h.x, wrong), *h.dealt()])
    (inf,) = report.infractions
    assert (inf.kind, inf.seat, inf.penalty) == ("false_declaration", h.x, 0)
    assert not inf.proof_data["ends_hand"] and report.result is not None
    played = h.audit(h.dealt())
    assert (report.defender_points, report.result) == (played.defender_points, played.result)


@pytest.mark.parametrize("offender", ["declarers", "defenders"])
def test_b_a_false_declaration_costs_80_and_ends_the_hand(offender: str) -> None:
    # B 「暗放主牌出錯，放錯牌方判罰80分，發現時即結束此盤比賽」 001 L23: what was played after it
    # does not count; the hand is settled on the 80 alone
    h = Hand("B")
    seat = h.d if offender == "declarers" else h.x
    wrong = "3C" if h.level != "3" else "4C"
    report = h.audit([declare(seat, wrong), *h.dealt()])
    (inf,) = report.infractions
    assert (inf.kind, inf.penalty, inf.proof_data["ends_hand"]) == ("false_declaration", 80, True)
    assert report.finished and report.defender_points == 0 and report.result is not None
    if offender == "declarers":  # the defenders reach 80: they take over (B: 80 → no level)
        assert report.result.defender_total == 80 and report.result.next_declarer != h.d
    else:  # the defenders at −80 count 0 (penalty_floor 'zero'): a 大光 for the declarers
        assert report.result.defender_total == 0


@pytest.mark.parametrize("offender", ["declarers", "defenders"])
def test_hf_a_false_declaration_is_not_played_and_the_other_side_jumps(offender: str) -> None:
    # HF 「叫牌錯誤的，或者不具備炒底資格而假炒底的，本盤牌不打，按2.4條規定跳級」 004 L48, with 2.4
    # 「主叫方打大光則跳級或防守方抓200分及以上則跳級…直接打「a」」 004 L13
    h = Hand("HF")
    seat = h.d if offender == "declarers" else h.x
    wrong = "3C" if h.level != "3" else "4C"
    h.record["levels"] = {"NS": "3", "EW": "4"}  # below J: a 跳級 goes to A (004 L13)
    report = h.audit([declare(seat, wrong)], tricks=[])
    (inf,) = report.infractions
    assert (inf.kind, inf.penalty) == ("false_declaration", 200)
    result = report.result
    assert result is not None
    jumper = side_of(h.d) if offender == "defenders" else ("EW" if side_of(h.d) == "NS" else "NS")
    assert result.levels_after[jumper] == "A"
    assert any(step["kind"] == "jump" for step in result.steps)


def test_hf_a_first_hand_ended_by_a_false_declaration_jumps_and_wins_no_game() -> None:
    # 「首局主叫方打大光…判勝」 004 L11 is a 大光 played; 「本盤牌不打，按2.4條規定跳級」 004 L48
    # sends a hand a false declaration ended to 2.4's jump, not to 2.3's win
    h = Hand("HF")
    h.record["levels"] = {"NS": "4", "EW": "4"}  # 3C is no level card; below J a 跳級 goes to A
    report = h.audit([declare(h.x, "3C")], tricks=[], first_hand=True)
    result = report.result
    assert result is not None and result.game_winner is None
    assert result.levels_after[side_of(h.d)] == "A"
    assert not any(step["kind"] == "first_hand_shutout" for step in result.steps)


# ----- the kitty -------------------------------------------------------------------------------


@pytest.mark.parametrize("rules", ["A", "XX", "AH"])
def test_burying_in_two_goes_or_looking_again_is_warned_then_fined_80(rules: str) -> None:
    # A 「莊家須一次性扣完8張底牌（必須同時將8張牌扣下，炒底重扣同理），此後不得檢視和換牌。如違例，
    # 立即招請裁判，第一次警告，第二次判罰80分」 000 L9; XX 002 L40
    h = Hand(rules)
    bidding = [declare(h.d, h.t), take(h.d), bury(h.d, count=5), bury(h.d, count=3)]
    bidding.append({"seat": h.d, "action": "look"})
    report = h.audit(bidding)
    assert [(i.kind, i.penalty, i.proof_data["reason"]) for i in report.infractions] == [
        ("bury_violation", 0, "piecemeal"),
        ("bury_violation", 80, "looked"),
    ]
    flagged = h.found(bidding, rule_overrides={"bury_violation": "flag"})
    assert [p for *_, p in flagged] == [0, 0]


@pytest.mark.parametrize(
    ("rules", "over", "under"),
    [("XX", 0, 80), ("AH", 0, 80), ("B", 80, 80), ("NT", 80, 80)],
)
def test_taking_the_kitty_with_too_many_or_too_few_cards(rules: str, over: int, under: int) -> None:
    # XX 「多抓少抓底牌，由庄家负责。造成底牌抓过…不判罚。底牌少抓造成庄家手中多牌…并判罚庄家方
    # 80分」 002 L57; B 「…並判罰莊家方80分」 twice 001 L22; NT 「如抓底多牌或少牌主家沒發現判作
    # 滅錯底牌」 000 L36 with 「滅錯底牌罰80分」 000 L35
    h = Hand(rules)
    for count, penalty in ((9, over), (7, under)):
        bidding = [declare(h.d, h.t), take(h.d, count=count), bury(h.d)]
        assert h.found(bidding) == [("kitty_draw_error", h.d, penalty)]


def test_a_reburial_after_a_chao_keeps_the_same_time_limit() -> None:
    # A 「扣底牌不得超過60秒（炒底重扣時限相同）」 000 L5
    h = Hand("A")
    bidding = [
        declare(h.d, h.o, t=1.0),
        take(h.d, t=40.0),
        bury(h.d, t=60.0),
        chao(h.x, h.t, h.t, t=62.0),
        take(h.x, t=63.0),
        bury(h.x, t=130.0),
    ]
    report = h.audit(bidding)
    assert [(i.kind, i.seat, i.proof_data["kind"]) for i in report.infractions] == [
        ("overtime", h.x, "bury_time")
    ]


def test_a_wrong_kitty_count_is_the_seat_that_buried_it_last() -> None:
    # B 「莊家（或非莊家）扣下的底牌張數多於或少於8張，均罰錯扣方80分」 001 L16
    h = Hand("XX")
    kitty = h.record["kitty"] + [h.record["kitty"][0]]
    bidding = h.dealt(chao(h.x, h.o, h.o), take(h.x), bury(h.x))
    found = h.found(bidding, kitty=kitty, trump=h.other)
    assert ("kitty_count", h.x, 80) in found


# ----- exposed cards, takebacks, secret declarations -------------------------------------------


@pytest.mark.parametrize("rules", ["A", "XX", "B", "HF"])
def test_each_exposed_card_costs_ten(rules: str) -> None:
    # A 「凡沒有按照正常打牌方式打出的牌均屬違例（包括有意或無意暴露的牌張）。判罰以張為單位，
    # 每張牌罰10分」 000 L12; XX 002 L51; B 001 L15 (HF is silent: the same 10)
    h = Hand(rules)
    exposed = [{"seat": h.x, "cards": ["3C", "4C"], "trick": 3}]
    report = h.audit(None, exposed=exposed)
    assert [(i.kind, i.seat, i.trick, i.penalty) for i in report.infractions] == [
        ("exposed_card", h.x, 3, 20)
    ]


@pytest.mark.parametrize(("rules", "each"), [("B", 10), ("XX", 10)])
def test_each_card_taken_back_costs_ten(rules: str, each: int) -> None:
    # B 「出現悔牌行為，按悔牌張數進行判罰，悔1張罰10分，悔2張罰20分，以此類推」 001 L26; XX by
    # 「凡没有按照正常打牌方式打出的牌均属违例…每张牌罚10分」 002 L51
    h = Hand(rules)
    takebacks = [{"seat": h.y, "cards": ["3C"], "trick": 2}, {"seat": h.z, "cards": ["5D", "6D"]}]
    found = h.found(None, takebacks=takebacks)
    assert found == [("takeback", h.z, 2 * each), ("takeback", h.y, each)]


@pytest.mark.parametrize("rules", ["XX", "B", "HF"])
def test_a_declaration_shown_face_up_where_bidding_is_secret_exposes_its_cards(rules: str) -> None:
    # HF 「比賽實行暗叫暗炒，叫主者和炒底者均不能讓其餘三人知道自己所叫或所炒的主牌花色」 004 L3;
    # XX 暗放/暗炒 002 L39, L41; B 暗炒 001 L1
    h = Hand(rules)
    shown = [declare(h.d, h.t, face_down=False), take(h.d), bury(h.d)]
    assert h.found(shown) == [("exposed_card", h.d, 10)]
    assert h.found(shown, rule_overrides={"secret_bidding": False}) == []


# ----- the draw --------------------------------------------------------------------------------


def test_xx_the_highest_card_turned_s_e_n_w_draws_first_and_later_the_dealer() -> None:
    # XX 「第一盘前，按南东北西依此翻牌，得最大牌者为启牌人…同级按红心、方块、黑桃、梅花渐小」
    # 002 L36; 「台下方洗牌、倒牌，庄家启牌…然后按顺时针方向依次摸牌」 002 L37
    h = Hand("XX")
    flips = [{"seat": s, "card": c} for s, c in zip("SENW", ("9C", "KS", "KH", "BJ"), strict=True)]
    first = {"first": "W", "direction": "clockwise", "flips": flips}
    bidding = [declare(h.d, h.t), take(h.d), bury(h.d)]
    assert h.found(bidding, draw=first, first_hand=True) == []
    ties = [{"seat": s, "card": c} for s, c in zip("SENW", ("9C", "KS", "KH", "KD"), strict=True)]
    by_suit = h.found(bidding, draw={**first, "flips": ties}, first_hand=True)
    assert by_suit == [("draw_error", "W", 0)]  # ♥K beats ♦K and ♠K: N draws first
    order = h.found(bidding, draw={**first, "flips": flips[::-1]}, first_hand=True)
    assert [k for k, *_ in order] == ["draw_error"]
    later = {"first": h.d, "direction": "clockwise"}
    assert h.found(bidding, draw=later) == []
    assert h.found(bidding, draw={**later, "first": h.x}) == [("draw_error", h.x, 0)]
    assert h.found(bidding, draw={**later, "direction": "counterclockwise"}) == [
        ("draw_error", h.d, 0)
    ]


@pytest.mark.parametrize(
    ("rules", "direction"),
    [("B", "counterclockwise"), ("LY", "counterclockwise"), ("HF", "counterclockwise"),
     ("A", "clockwise")],
)  # fmt: skip
def test_the_draw_goes_the_profiles_way(rules: str, direction: str) -> None:
    # LY 「出牌及輪莊均逆時針進行」 000 L90, B 「按逆時針順序」 001 L1, HF 「炒底按逆時針方向」
    # 004 L5: the draw read to go the same way; A is silent (clockwise, the common practice)
    h = Hand(rules)
    assert get_profile(rules).deal_direction == direction
    draw = {"direction": direction}
    assert h.found([declare(h.d, h.t), take(h.d), bury(h.d)], draw=draw) == []


def test_hf_a_joker_drawn_to_choose_the_first_drawer_does_not_count() -> None:
    # HF 「由這一桌年齡最大者抽一張牌決定誰先抓牌，抽到大小鬼不算，重新抽牌」 004 L53
    h = Hand("HF")
    bidding = [declare(h.d, h.t), take(h.d), bury(h.d)]
    redrawn = {"first": h.d, "flips": [{"seat": "N", "card": "SJ"}, {"seat": "N", "card": "9D"}]}
    assert h.found(bidding, draw=redrawn, first_hand=True) == []
    counted = {"first": h.d, "flips": [{"seat": "N", "card": "SJ"}]}
    assert h.found(bidding, draw=counted, first_hand=True) == [("draw_error", "N", 0)]


@pytest.mark.parametrize("rules", ["A", "XX", "HF"])
def test_who_shuffles_and_who_cuts(rules: str) -> None:
    # A 「台上方洗牌，台下方倒牌」 000 L8; XX 「台下方洗牌、倒牌」 002 L37; HF 「洗牌由台上一方
    # 主打者洗牌，主打者的上家倒牌」 004 L55
    h = Hand(rules)
    upstream = get_profile(rules).seats_in_play_order(h.d)[-1]
    partner = next(s for s in (h.x, h.y, h.z) if side_of(s) == side_of(h.d))
    defender = next(s for s in (h.x, h.y, h.z) if side_of(s) != side_of(h.d))
    right, wrong = {
        "A": ((partner, defender), (defender, partner)),
        "XX": ((defender, defender), (partner, defender)),
        "HF": ((h.d, upstream), (upstream, h.d)),
    }[rules]
    bidding = [declare(h.d, h.t), take(h.d), bury(h.d)]
    draw = {"first": h.d, "shuffled_by": right[0], "cut_by": right[1]}
    assert h.found(bidding, draw=draw) == []
    draw = {"first": h.d, "shuffled_by": wrong[0], "cut_by": wrong[1]}
    found = h.found(bidding, draw=draw)
    assert found and {k for k, *_ in found} == {"draw_error"}


@pytest.mark.parametrize("rules", ["XX", "B"])
def test_no_weak_hand_redeal(rules: str) -> None:
    # XX 「无论任何选手手中牌主和分多少，比赛均正常进行，无“造反”说法」 002 L62; B 001 L29
    h = Hand(rules)
    redeals = [{"seat": h.x, "t": 3.0}]
    assert h.found(None, redeals=redeals) == [("redeal", h.x, 0)]
    assert h.found(None, redeals=redeals, rule_overrides={"allow_redeal": True}) == []


def test_overrides_set_the_prices_and_whether_a_chao_takes_the_kitty() -> None:
    # each price is its knob's; chao_rebury off: 「还可将底牌取回重垫8张底牌」 (002 L41) no longer
    h = Hand("XX")
    look = [declare(h.d, h.t), take(h.d), bury(h.d), {"seat": h.d, "action": "look"}]
    assert h.found(look, rule_overrides={"bury_violation": "penalty"}) == [
        ("bury_violation", h.d, 80)
    ]
    priced = {"bury_violation": "penalty", "bury_violation_penalty": 30}
    assert h.found(look, rule_overrides=priced) == [("bury_violation", h.d, 30)]
    short = [declare(h.d, h.t), take(h.d, count=7), bury(h.d)]
    assert h.found(short, rule_overrides={"kitty_draw_penalty": 40}) == [
        ("kitty_draw_error", h.d, 40)
    ]
    assert h.found(short, rule_overrides={"kitty_draw_error": "flag"}) == [
        ("kitty_draw_error", h.d, 0)
    ]
    takebacks = [{"seat": h.x, "cards": ["3C", "4C"]}]
    assert h.found(None, takebacks=takebacks, rule_overrides={"penalty_takeback": 5}) == [
        ("takeback", h.x, 10)
    ]
    exposed = [{"seat": h.x, "cards": ["3C"]}]
    assert h.found(None, exposed=exposed, rule_overrides={"penalty_exposed_card": 0}) == [
        ("exposed_card", h.x, 0)
    ]
    wrong = "3C" if h.level != "3" else "4C"
    ends = {"false_declare_penalty": 50, "false_declare_ends_hand": True}
    report = h.audit([declare(h.x, wrong), *h.dealt()], rule_overrides=ends)
    assert [i.penalty for i in report.infractions] == [50] and report.defender_points == 0
    no_rebury = h.audit(h.dealt(chao(h.x, h.t, h.t), take(h.x), bury(h.x)),
                        rule_overrides={"chao_rebury": False, "chao_pair_reuse": True})  # fmt: skip
    assert [(i.kind, i.proof_data["reason"]) for i in no_rebury.infractions] == [
        ("illegal_chao", "rebury")
    ]
