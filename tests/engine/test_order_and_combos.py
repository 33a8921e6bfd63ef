"""Card order and combinations (VARIANTS.md §4, §5). Level 8, trump ♠ unless stated."""

from __future__ import annotations

import dataclasses
from collections import Counter

import pytest

from engine.cards import full_deck, over_copies, parse, points
from engine.combos import decompose, longest_run, shape_key
from engine.order import HandOrder
from engine.profiles import get_profile


def order(rules: str = "XX", level: str = "8", trump: str = "S", **knobs: object) -> HandOrder:
    profile = dataclasses.replace(get_profile(rules), **knobs)  # type: ignore[arg-type]
    return HandOrder(level, trump, profile)


def test_two_decks_hold_108_cards_with_two_copies_of_each_and_200_points() -> None:
    deck = full_deck()
    assert len(deck) == 108
    assert over_copies(deck) == []
    assert over_copies([*deck, "10H"]) == ["10H"]
    assert points(deck) == 200


def test_notation_rejects_unknown_cards_with_the_fix_in_the_message() -> None:
    assert parse("10H") == ("10", "H")
    assert parse("BJ") == ("BJ", "J")
    with pytest.raises(ValueError, match="rank 2-10"):
        parse("1H")


def test_trump_ladder_big_joker_small_joker_trump_level_offsuit_level_then_trump_suit() -> None:
    # VARIANTS.md L66 (§4 trump_order, HF 004 L23 「常主》主級牌》其他級牌》主花色牌》副牌」)
    o = order()
    s = o.strength
    assert s("BJ") > s("SJ") > s("8S") > s("8H") > s("AS") > s("KS") > s("2S") > s("AH")
    assert s("8H") == s("8D") == s("8C")  # off-suit level cards are equal, 004 L25
    assert all(o.is_trump(c) for c in ("BJ", "SJ", "8S", "8H", "2S"))
    assert not o.is_trump("AH")


def test_no_trump_has_jokers_and_level_cards_only() -> None:
    o = order(trump="NT")
    assert o.is_trump("8H") and o.is_trump("SJ") and not o.is_trump("AS")
    assert o.strength("8H") == o.strength("8S") < o.strength("SJ")


def test_side_suits_skip_the_level_rank() -> None:
    o = order()
    assert o.cls("7H") == o.cls("9H") == "H"
    assert o.slot("9H") == o.slot("7H") + 1


def test_hollow_tractor_across_the_level_rank_depends_on_the_profile() -> None:
    # VARIANTS.md L77 tractor_hollow: XX 002 L48 yes, NT 000 L40 no
    cards = ["7H", "7H", "9H", "9H"]
    assert [u.pairs for u in decompose(order("XX"), cards)] == [2]
    assert [u.pairs for u in decompose(order("NT"), cards)] == [1, 1]


def test_joker_pairs_form_a_tractor() -> None:
    # VARIANTS.md L78 tractor_jokers: 002 L48, 000 L40, 001 L11, 004 L32
    assert [u.pairs for u in decompose(order(), ["SJ", "SJ", "BJ", "BJ"])] == [2]
    assert [u.pairs for u in decompose(order(tractor_jokers=False), ["SJ", "SJ", "BJ", "BJ"])] == [
        1,
        1,
    ]


def test_small_joker_pair_and_trump_level_pair_per_profile() -> None:
    # VARIANTS.md L79 tractor_sj_level: XX no (002 L48), B and HF yes (001 L11, 004 L32)
    cards = ["8S", "8S", "SJ", "SJ"]
    assert [u.pairs for u in decompose(order("XX"), cards)] == [1, 1]
    assert [u.pairs for u in decompose(order("B"), cards)] == [2]
    assert [u.pairs for u in decompose(order("HF"), cards)] == [2]


def test_trump_level_pair_and_offsuit_level_pair_only_in_hf() -> None:
    # VARIANTS.md L80 tractor_level_offlevel: XX no (002 L48), HF yes (004 L32)
    cards = ["8H", "8H", "8S", "8S"]
    assert [u.pairs for u in decompose(order("XX"), cards)] == [1, 1]
    assert [u.pairs for u in decompose(order("B"), cards)] == [1, 1]
    assert [u.pairs for u in decompose(order("HF"), cards)] == [2]


def test_offsuit_level_pair_and_trump_ace_pair_only_in_hf() -> None:
    # VARIANTS.md L81 tractor_offlevel_trump_a: XX no (002 L48), HF yes (004 L32)
    cards = ["AS", "AS", "8D", "8D"]
    assert [u.pairs for u in decompose(order("XX"), cards)] == [1, 1]
    assert [u.pairs for u in decompose(order("HF"), cards)] == [2]


def test_hf_ladder_runs_from_trump_ace_to_big_joker() -> None:
    # 004 L32: every link of the ladder joins in HF
    cards = ["AS", "AS", "8H", "8H", "8S", "8S", "SJ", "SJ", "BJ", "BJ"]
    assert [u.pairs for u in decompose(order("HF"), cards)] == [5]


def test_two_offsuit_level_pairs_are_never_a_tractor() -> None:
    # 001 L11 「要求具有唯一性」: off-suit level pairs are equal, not adjacent
    assert [u.pairs for u in decompose(order("HF"), ["8H", "8H", "8D", "8D"])] == [1, 1]


def test_trump_cards_never_join_a_side_suit_tractor() -> None:
    # VARIANTS.md L82: 「主牌不得下放在副牌中使用」 002 L48
    o = order()
    assert o.cls("8H") != o.cls("7H")
    assert longest_run(o, Counter(["7H", "7H", "8H", "8H"]), "H") == 1  # one pair, no tractor


def test_a2_wrap_is_the_smallest_tractor_only_where_the_profile_allows() -> None:
    # VARIANTS.md L83 tractor_wrap_a2: NT yes (000 L40), HF no (004 L30)
    nt = order("NT", level="8", trump="S")
    wrap = decompose(nt, ["AH", "AH", "2H", "2H"])
    assert [u.pairs for u in wrap] == [2]
    assert shape_key(nt, wrap, ["2H", "2H", "3H", "3H"]) is not None
    low = shape_key(nt, wrap, ["AH", "AH", "2H", "2H"])
    higher = shape_key(nt, wrap, ["2H", "2H", "3H", "3H"])
    assert low is not None and higher is not None and low < higher
    assert [u.pairs for u in decompose(order("HF"), ["AH", "AH", "2H", "2H"])] == [1, 1]


def test_throw_decomposes_into_longest_tractor_then_pairs_then_singles() -> None:
    units = decompose(order(), ["KH", "KH", "QH", "QH", "JH", "JH", "5H", "5H", "AH"])
    assert [u.pairs for u in units] == [3, 1, 0]


def test_shape_key_accepts_a_part_of_a_longer_tractor() -> None:
    o = order()
    lead = decompose(o, ["3H", "3H", "4H", "4H", "9D"])
    assert shape_key(o, lead, ["2S", "2S", "3S", "3S", "4S"]) is not None
    assert shape_key(o, lead, ["2S", "2S", "4S", "4S", "5S"]) is None  # pairs not adjacent


# ----------------------------------------------------------------- §4 trump_order, off-suit level


def test_nt_red_five_star_is_a_trump_above_the_big_joker_in_every_hand() -> None:
    # VARIANTS.md §4 trump_order: NT 「大王小王連對、紅五星、大王、小王」 000 L37
    for trump in ("S", "H", "NT"):
        o = order("NT", trump=trump)
        assert o.is_trump("5H")
        assert o.strength("5H") > o.strength("BJ") > o.strength("SJ")
    five = order("NT", level="5", trump="H")  # the trump-suit level card is the star itself
    assert five.strength("5H") > five.strength("BJ") > five.strength("5S")
    assert not order("XX").is_trump("5H")  # the standard ladder: ♥5 is a heart


def test_the_red_five_leaves_the_hearts_ladder_and_its_gap_is_hollow() -> None:
    # 000 L40 「採用實心姊妹對」: NT's ♥4♥4 ♥6♥6 is no tractor; a profile with hollow tractors
    # reads the gap like the level rank's (「空心牌是将牌」 002 L48)
    cards = ["4H", "4H", "6H", "6H"]
    assert [u.pairs for u in decompose(order("NT"), cards)] == [1, 1]
    assert [u.pairs for u in decompose(order("XX", trump_order="red_five_star"), cards)] == [2]
    assert [u.pairs for u in decompose(order("XX"), cards)] == [1, 1]  # ♥5 sits between


def test_a_red_five_pair_joins_no_tractor_the_joker_tractor_is_the_biggest() -> None:
    # 「大王小王為最大姊妹對」 000 L40
    o = order("NT")
    assert [u.pairs for u in decompose(o, ["5H", "5H", "BJ", "BJ"])] == [1, 1]
    assert [u.pairs for u in decompose(o, ["SJ", "SJ", "BJ", "BJ"])] == [2]


def test_at_level_five_the_red_five_is_still_the_star_not_a_level_card() -> None:
    o = order("NT", level="5", trump="S")
    assert o.strength("5H") > o.strength("BJ")
    assert o.strength("5D") == o.strength("5C") < o.strength("5S") < o.strength("SJ")


def test_offsuit_level_cards_are_equal_unless_the_knob_ranks_them_by_suit() -> None:
    # VARIANTS.md §4 offsuit_level_equal: HF 「除主花色外，其他花色級牌、副牌之間無大小區別」
    # 004 L25
    hf = order("HF")
    assert hf.strength("8H") == hf.strength("8D") == hf.strength("8C")
    ranked = order("HF", offsuit_level_equal=False)  # by suit ♦ < ♣ < ♥ < ♠ (000 L37)
    assert ranked.strength("8D") < ranked.strength("8C") < ranked.strength("8H")
    assert ranked.strength("8H") < ranked.strength("8S") < ranked.strength("SJ")
    assert [u.pairs for u in decompose(ranked, ["8C", "8C", "8H", "8H"])] == [1, 1]
    nt = order("XX", trump="NT", offsuit_level_equal=False)
    assert nt.strength("8D") < nt.strength("8C") < nt.strength("8H") < nt.strength("8S")


def test_trump_cards_never_sit_in_a_side_suit_tractor_in_any_profile() -> None:
    # VARIANTS.md §5 「Trump cards inside side-suit tractors」: NT 000 L40, XX 002 L48,
    # B 001 L10–11, HF 004 L30 — the ♥8 pair is a trump at level 8
    cards = Counter(["7H", "7H", "8H", "8H", "9H", "9H"])
    for rules, hollow in (("NT", 1), ("XX", 2), ("B", 2), ("HF", 2)):
        o = order(rules)
        assert o.profile.trump_in_side_tractor == "forbidden"
        assert longest_run(o, cards, "H") == hollow  # ♥7♥7 ♥9♥9 at most, never three pairs
        assert o.cls("8H") == "T"


def test_hand_orders_are_built_once_per_level_trump_and_profile() -> None:
    from engine.order import hand_order

    p = get_profile("HF")
    assert hand_order("8", "S", p) is hand_order("8", "S", p)
    assert hand_order("8", "S", p) is not hand_order("9", "S", p)
