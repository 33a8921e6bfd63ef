"""engine.scoring: kitty multipliers and the settlement of one hand, per profile knob."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from engine.profiles import get_profile
from engine.scoring import HandOutcome, ScoringError, kitty_multiplier, settle_hand


def settle(
    profile: str,
    *,
    levels: Mapping[str, str] | None = None,
    declarer: str = "N",
    table: int = 0,
    kitty: int = 0,
    mult: int = 2,
    won_last: bool = False,
    cards: Sequence[str] = (),
    throw: bool = False,
    penalties: int = 0,
    first_hand: bool = False,
    done: Mapping[str, Sequence[str]] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> HandOutcome:
    return settle_hand(
        get_profile(profile, overrides),
        levels=levels or {"NS": "2", "EW": "2"},
        declarer=declarer,
        defender_table_points=table,
        kitty_points=kitty,
        kitty_multiplier=mult,
        defenders_won_last_trick=won_last,
        last_trick_winning_cards=cards,
        last_trick_is_throw=throw,
        penalties_to_defenders=penalties,
        first_hand=first_hand,
        must_play_done=done,
    )


# ----------------------------------------------------------------- kitty multipliers (§8)


def test_single_lead_doubles_and_pair_lead_quadruples_the_kitty() -> None:
    # VARIANTS.md §8 L110; XX 「单抠乘二，双抠（一对）乘四」 002 L45, HF 004 L49, NT 000 L43
    for name in ("XX", "HF", "B", "NT"):
        p = get_profile(name)
        assert kitty_multiplier(p, [0]) == 2
        assert kitty_multiplier(p, [1]) == 4


def test_xx_tractor_multiplier_is_linear_8_12_16() -> None:
    # VARIANTS.md §8 L111, §11 L150; XX 「二连对…乘八，三连对…乘十二，依此类推」 002 L45
    p = get_profile("XX")
    assert [kitty_multiplier(p, [n]) for n in (2, 3, 4)] == [8, 12, 16]


def test_hf_tractor_multiplier_doubles_8_16_32() -> None:
    # VARIANTS.md §8 L111, §11 L150; HF 「連對挖可得8倍，…三連對挖可得16倍；依此類推」 004 L49
    p = get_profile("HF")
    assert [kitty_multiplier(p, [n]) for n in (2, 3, 4)] == [8, 16, 32]


def test_b_tractor_multiplier_is_capped_at_8() -> None:
    # VARIANTS.md §8 L111; B 「三連對以上參照二連對計算」 001 L8
    p = get_profile("B")
    assert [kitty_multiplier(p, [n]) for n in (2, 3, 4)] == [8, 8, 8]


def test_xx_throw_multiplies_by_the_number_of_cards() -> None:
    # VARIANTS.md §8 L112; XX 「凡撒牌抠底，撒几张乘几」 002 L45
    p = get_profile("XX")
    assert kitty_multiplier(p, [0, 0]) == 2
    assert kitty_multiplier(p, [1, 0]) == 3
    assert kitty_multiplier(p, [2, 1, 0]) == 7


def test_b_throw_uses_its_largest_unit_class() -> None:
    # VARIANTS.md §8 L112; B 「撒牌摳底，視所撒牌請況，分別參照單摳、雙摳、二連對計算」 001 L8
    p = get_profile("B")
    assert kitty_multiplier(p, [0, 0, 0]) == 2
    assert kitty_multiplier(p, [1, 0]) == 4
    assert kitty_multiplier(p, [3, 1, 0]) == 8


def test_b_several_separate_pairs_count_as_a_pair_unless_the_knob_is_off() -> None:
    # VARIANTS.md §8 L110; B 「雙摳（一對或一對以上不連對）乘四」 001 L8
    assert kitty_multiplier(get_profile("B"), [1, 1, 1]) == 4
    off = get_profile("B", {"multiple_pairs_count_as_pair": False})
    assert kitty_multiplier(off, [1, 1, 1]) == 6  # reading: not a 雙摳 → by card count


def test_component_class_throw_uses_the_tractor_schedule_for_its_longest_tractor() -> None:
    # VARIANTS.md §8 L111–112 (knob combination); XX schedule 002 L45
    p = get_profile("XX", {"kitty_mult_throw": "component_class"})
    assert kitty_multiplier(p, [3, 2, 0]) == 12


def test_kitty_multiplier_rejects_an_empty_or_negative_lead() -> None:
    # VARIANTS.md §8 L110 (a lead has at least one unit)
    p = get_profile("XX")
    with pytest.raises(ScoringError):
        kitty_multiplier(p, [])
    with pytest.raises(ScoringError):
        kitty_multiplier(p, [-1])


# ----------------------------------------------------------------- declarers keep the deal (§9)


def test_defenders_75_give_the_declarers_one_level() -> None:
    # VARIANTS.md §9 L119–120; XX 「10分升一级制度（5分不挡级）」 002 L44;
    # A 「抓分方得70~75分，莊家方公升一級」 000 L10
    out = settle("XX", table=75)
    assert out.defender_total == 75
    assert out.levels_after == {"NS": "3", "EW": "2"}
    assert out.level_change == {"NS": 1, "EW": 0}
    assert out.game_winner is None
    assert "台下方 75 分 < 80：庄家方升 1 级 (defenders 75 < 80: declarers +1)" in out.explanation


def test_defenders_5_give_the_declarers_eight_levels() -> None:
    # VARIANTS.md §9 L123; A 「如抓分方得5分，莊家方公升八級」 000 L10; B 「小光…公升8級」 001 L7
    for name in ("XX", "A", "B", "HF"):
        out = settle(name, table=5)
        assert out.levels_after["NS"] == "10", name


def test_kitty_points_count_only_when_the_defenders_win_the_last_trick() -> None:
    # VARIANTS.md §8 L110; XX 「单抠乘二」 002 L45
    assert settle("XX", table=40, kitty=15, mult=2, won_last=True).defender_total == 70
    assert settle("XX", table=40, kitty=15, mult=2, won_last=False).defender_total == 40


def test_penalties_add_to_or_deduct_from_the_defenders() -> None:
    # VARIANTS.md §10 L132; A 「查一次扣（或加對方）10分」 000 L21
    assert settle("XX", table=40, penalties=30).defender_total == 70
    assert settle("XX", table=40, penalties=-20).defender_total == 20


def test_xx_shutout_follows_the_formula_to_plus_eight() -> None:
    # VARIANTS.md §9 L122 (XX 「—」 ⇒ +8); XX 「80分为基准分，10分升一级」 002 L44
    out = settle("XX", table=0, levels={"NS": "3", "EW": "2"})
    assert out.levels_after["NS"] == "J"  # 3 + 8 = J, J itself not passed
    assert out.level_change["NS"] == 8


def test_a_shutout_jumps_the_declarers_to_a_from_any_lower_level() -> None:
    # VARIANTS.md §9 L122; A 「大光…莊家方從低於a級的任何一級直接公升打"a"級」 000 L10
    out = settle("A", table=0, levels={"NS": "J", "EW": "5"})
    assert out.levels_after == {"NS": "A", "EW": "5"}
    assert out.game_winner is None


def test_a_shutout_at_a_passes_a_and_wins_the_game() -> None:
    # VARIANTS.md §9 L122; A 000 L10 (jump) with 「先过“A”者赢」 (XX 002 L43) for the pass
    out = settle("A", table=0, levels={"NS": "A", "EW": "5"})
    assert out.game_winner == "NS"
    assert out.levels_after["NS"] == "A"
    assert out.level_change["NS"] == 1


def test_b_shutout_gives_nine_levels_under_the_j_cap() -> None:
    # VARIANTS.md §9 L122; B 「台下方得0分（俗稱「大光」），莊家公升9級」 001 L7, 「j」必打 001 L5
    assert settle("B", table=0).levels_after["NS"] == "J"  # 2 + 9 = J
    out = settle("B", table=0, levels={"NS": "3", "EW": "2"})
    assert out.levels_after["NS"] == "J"  # 3 + 9 = Q, stops on the must-play J
    assert any("作废" in line for line in out.explanation)


def test_hf_later_shutout_jumps_to_a_skipping_j() -> None:
    # VARIANTS.md §9 L122; HF 「主叫方打「5」時打大光則直接打「a」，可跳過「j」」 004 L13
    out = settle("HF", table=0, levels={"NS": "5", "EW": "3"})
    assert out.levels_after["NS"] == "A"
    assert out.game_winner is None


def test_hf_shutout_while_playing_j_q_k_or_a_wins_the_game() -> None:
    # VARIANTS.md §9 L125; HF 「若打「j\q\k\a」時遇到跳級則本局勝」 004 L13
    for level in ("J", "Q", "K", "A"):
        out = settle("HF", table=0, levels={"NS": level, "EW": "3"})
        assert out.game_winner == "NS", level


def test_hf_first_hand_shutout_wins_the_game_for_the_declarers() -> None:
    # VARIANTS.md §9 L122, L126; HF 「首局主叫方打大光…判勝，本局結束」 004 L11
    out = settle("HF", table=0, first_hand=True)
    assert out.game_winner == "NS"
    assert out.next_declarer == "S"


# ----------------------------------------------------------------- negative totals (§9 L124)


def test_zero_floor_clamps_a_negative_total_to_zero_which_is_no_shutout() -> None:
    # VARIANTS.md §9 L124; HF 「台下罰分罰至0分為止」 004 L43 (XX default 'zero')
    out = settle("XX", table=10, penalties=-30)
    assert out.defender_total == 0
    assert out.levels_after["NS"] == "10"  # 0 → +8
    hf = settle("HF", table=10, penalties=-30, levels={"NS": "4", "EW": "2"})
    assert hf.defender_total == 0
    # the defenders took 10: no 大光 (「主叫方打大光」 004 L11, L13), +8 stops on the must-play J
    assert hf.levels_after["NS"] == "J"
    assert not any(step["kind"] == "jump" for step in hf.steps)


def test_shutout_floor_treats_a_negative_total_like_da_guang() -> None:
    # VARIANTS.md §9 L124; A 「如抓分方為0分（大光）或因罰分為負分…直接公升打"a"級」 000 L10
    out = settle("A", table=10, penalties=-30, levels={"NS": "4", "EW": "2"})
    assert out.defender_total == -20
    assert out.levels_after["NS"] == "A"


def test_none_floor_lets_the_formula_run_below_zero() -> None:
    # VARIANTS.md §9 L124 ('none' knob); formula §9 L120, LY no must-play 000 L90
    out = settle("LY", table=5, penalties=-20, overrides={"penalty_floor": "none"})
    assert out.defender_total == -15
    assert out.levels_after["NS"] == "Q"  # -15 → -20: (80 + 20) / 10 = 10 levels from 2


# ----------------------------------------------------------------- defenders take over (§9 L121)


def test_defenders_80_and_85_take_over_without_a_level() -> None:
    # VARIANTS.md §9 L121, §11.3 L151; A 「抓分方方得85分，上台不公升級」 000 L10
    for total in (80, 85):
        out = settle("XX", table=total, levels={"NS": "5", "EW": "3"})
        assert out.levels_after == {"NS": "5", "EW": "3"}
        assert out.next_declarer == "E"


def test_defenders_90_take_over_with_one_level() -> None:
    # VARIANTS.md §11.3 L151; XX 「台下方上台且按规则升级」 002 L46;
    # NT 「每超過10分公升一級」 000 L38
    out = settle("XX", table=90, levels={"NS": "5", "EW": "3"})
    assert out.levels_after == {"NS": "5", "EW": "4"}
    assert out.level_change == {"NS": 0, "EW": 1}
    assert settle("XX", table=115, levels={"NS": "5", "EW": "3"}).levels_after["EW"] == "6"


def test_demote_knob_drops_the_old_declarers_not_below_2() -> None:
    # VARIANTS.md §9 L121, §11.3 L151; NT 「反之，降一級」 000 L38, B 「10分公升（降）一級」 001 L6
    over = {"defender_win_demotes_declarer": True}
    out = settle("XX", table=100, levels={"NS": "5", "EW": "3"}, overrides=over)
    assert out.levels_after == {"NS": "3", "EW": "5"}
    assert out.level_change == {"NS": -2, "EW": 2}
    assert (
        settle("XX", table=110, levels={"NS": "3", "EW": "3"}, overrides=over).levels_after["NS"]
        == "2"
    )


# ----------------------------------------------------------------- must-play levels (§9 L127–128)


def test_xx_gain_stops_on_j_and_the_surplus_is_void() -> None:
    # VARIANTS.md §9 L127–128; XX 「（“J”、“A”必打，先过“A”者赢一局）」 002 L43
    out = settle("XX", table=55, levels={"NS": "9", "EW": "2"})  # +3 would be Q
    assert out.levels_after["NS"] == "J"
    assert out.level_change == {"NS": 2, "EW": 0}  # the opponents are not pushed down
    assert "J 必打：停在 J，多余 1 级作废 (J must be played: stop there, 1 surplus void)" in (
        out.explanation
    )


def test_xx_defenders_taking_over_also_stop_on_j() -> None:
    # VARIANTS.md §9 L127; XX 002 L43, 「台下方上台且按规则升级」 002 L46
    out = settle("XX", table=120, levels={"NS": "4", "EW": "10"})
    assert out.levels_after["EW"] == "J"
    out = settle("XX", table=100, levels={"NS": "4", "EW": "J"})
    assert out.levels_after["EW"] == "J"  # they have not played J as declarers


def test_xx_declarers_playing_j_pass_it_and_stop_on_a() -> None:
    # VARIANTS.md §9 L127; XX 「“J”、“A”必打」 002 L43
    assert settle("XX", table=60, levels={"NS": "J", "EW": "2"}).levels_after["NS"] == "K"
    out = settle("XX", table=40, levels={"NS": "K", "EW": "2"})
    assert out.levels_after["NS"] == "A"
    assert out.game_winner is None


def test_xx_declarers_at_a_win_by_passing_a() -> None:
    # VARIANTS.md §9 L127; XX 「先过“A”者赢一局」 002 L43
    out = settle("XX", table=70, levels={"NS": "A", "EW": "2"})
    assert out.game_winner == "NS"
    assert out.levels_after["NS"] == "A"


def test_hf_two_is_must_play_for_a_side_that_has_not_declared_it() -> None:
    # VARIANTS.md §9 L127; HF 「其中「2」、「j」、「a」為必打牌」 004 L8
    out = settle("HF", table=100)
    assert out.levels_after == {"NS": "2", "EW": "2"}
    assert out.must_play_done == {"NS": ("2",), "EW": ()}
    assert settle("HF", table=50).levels_after["NS"] == "5"  # declarers just played 2


def test_hf_must_play_level_binds_only_until_it_has_been_played() -> None:
    # VARIANTS.md §9 L127; HF 「如「2」、「j」、「a」已打過，則不再為必打牌」 004 L9
    out = settle("HF", table=100, done={"EW": ("2",)})
    assert out.levels_after["EW"] == "4"
    levels = {"NS": "10", "EW": "2"}
    assert settle("HF", table=50, levels=levels).levels_after["NS"] == "J"
    played = settle("HF", table=50, levels=levels, done={"NS": ("2", "J")})
    assert played.levels_after["NS"] == "K"
    assert played.must_play_done["NS"] == ("2", "J")


def test_xx_must_play_j_binds_again_without_must_play_once() -> None:
    # VARIANTS.md §9 L127; XX 002 L43 (no 「已打過」 clause)
    out = settle("XX", table=50, levels={"NS": "10", "EW": "2"}, done={"NS": ("J",)})
    assert out.levels_after["NS"] == "J"


def test_ly_has_no_must_play_level() -> None:
    # VARIANTS.md §9 L127; LY 「2不必打 a不必打」 000 L90
    assert settle("LY", table=50, levels={"NS": "10", "EW": "2"}).levels_after["NS"] == "K"
    out = settle("LY", table=50, levels={"NS": "K", "EW": "2"})
    assert out.game_winner == "NS"
    assert out.level_change["NS"] == 2  # K → A → past A


def test_b_only_passing_a_wins_but_a_is_not_must_play() -> None:
    # VARIANTS.md §9 L127; B 「「j」必打，先過「a」者贏一局」 001 L5
    assert settle("B", table=60, levels={"NS": "K", "EW": "2"}).game_winner == "NS"
    assert settle("B", table=70, levels={"NS": "Q", "EW": "2"}).game_winner is None


def test_nt_must_play_a_stops_the_gain_on_a() -> None:
    # VARIANTS.md §9 L127; NT 「從2打到a，a必打，過a為贏」 000 L31
    out = settle("NT", table=40, levels={"NS": "K", "EW": "2"})
    assert out.levels_after["NS"] == "A"
    assert out.game_winner is None


# ----------------------------------------------------------------- J/A 抠底 drop-back (§9 L129)


def test_xx_j_kitty_under_80_drops_declarers_to_2_and_they_level_up_from_there() -> None:
    # VARIANTS.md §9 L129, §11.4 L152; XX 「打“J”被对方“J”抠底，庄家下台且倒回“2”…台下方如不满80分，
    # 庄家从“2”或“J”升级，升几打几」 002 L46
    out = settle(
        "XX",
        table=40,
        kitty=10,
        mult=2,
        won_last=True,
        cards=["JH"],
        levels={"NS": "J", "EW": "5"},
    )
    assert out.defender_total == 60
    assert out.levels_after == {"NS": "4", "EW": "5"}
    assert out.level_change == {"NS": -7, "EW": 0}
    assert out.next_declarer == "S"  # the declarers keep the deal


def test_xx_j_kitty_at_80_or_more_drops_declarers_and_defenders_take_over() -> None:
    # VARIANTS.md §9 L129; XX 「庄家下台且倒回“2”，台下方上台且按规则升级」 002 L46
    out = settle(
        "XX",
        table=70,
        kitty=10,
        mult=2,
        won_last=True,
        cards=["JS", "JS"],
        levels={"NS": "J", "EW": "5"},
    )
    assert out.defender_total == 90
    assert out.levels_after == {"NS": "2", "EW": "6"}
    assert out.next_declarer == "E"


def test_xx_single_a_kitty_drops_declarers_to_j() -> None:
    # VARIANTS.md §9 L129; XX 「打“A”被对方一张“A”抠底，庄家下台且倒回“J”」 002 L46
    out = settle(
        "XX",
        table=80,
        kitty=5,
        mult=2,
        won_last=True,
        cards=["AD"],
        levels={"NS": "A", "EW": "5"},
    )
    assert out.levels_after == {"NS": "J", "EW": "6"}
    assert out.level_change["NS"] == -3


def test_xx_pair_of_a_kitty_drops_declarers_to_2() -> None:
    # VARIANTS.md §9 L129; XX 「被对方一对“A”抠底，庄家下台且倒回“2”」 002 L46
    out = settle(
        "XX",
        table=80,
        kitty=5,
        mult=4,
        won_last=True,
        cards=["AS", "AS"],
        levels={"NS": "A", "EW": "5"},
    )
    assert out.defender_total == 100
    assert out.levels_after == {"NS": "2", "EW": "7"}


def test_two_different_aces_are_not_a_pair_for_the_drop_back() -> None:
    # VARIANTS.md §9 L129; HF 「同花色的一對「a」」 004 L10
    out = settle(
        "XX",
        table=80,
        kitty=0,
        won_last=True,
        cards=["AS", "AH"],
        throw=False,
        levels={"NS": "A", "EW": "5"},
    )
    assert out.levels_after["NS"] == "J"


def test_xx_single_a_kitty_under_80_counts_up_from_j() -> None:
    # VARIANTS.md §9 L129, §11.4 L152; XX 「庄家从“2”或“J”升级，升几打几」 002 L46 (reading: the
    # drop-back level itself is the start of the count and does not stop it)
    out = settle(
        "XX",
        table=50,
        kitty=5,
        mult=2,
        won_last=True,
        cards=["AC"],
        levels={"NS": "A", "EW": "5"},
    )
    assert out.defender_total == 60
    assert out.levels_after["NS"] == "K"
    assert out.level_change["NS"] == -1


def test_xx_thrown_j_or_a_in_the_last_trick_does_not_drop_back() -> None:
    # VARIANTS.md §9 L129; XX 「凡撒牌抠底…如有“J”或“A”在内，不扣到底」 002 L45
    out = settle(
        "XX",
        table=80,
        kitty=5,
        mult=3,
        won_last=True,
        cards=["JS", "JS", "9S"],
        throw=True,
        levels={"NS": "J", "EW": "5"},
    )
    assert out.levels_after["NS"] == "J"


def test_hf_thrown_a_pair_still_drops_back() -> None:
    # VARIANTS.md §9 L129; HF 「以最後一次脫手牌中帶有同花色的一對「a」摳底」 004 L10
    out = settle(
        "HF",
        table=80,
        kitty=0,
        won_last=True,
        cards=["AH", "AH", "KH"],
        throw=True,
        levels={"NS": "A", "EW": "5"},
    )
    assert out.levels_after["NS"] == "2"


def test_hf_drop_back_needs_80_on_the_table_without_the_kitty() -> None:
    # VARIANTS.md §9 L129; HF 「且臺面上拿滿80分的（不包含摳底中的分）」 004 L10
    levels = {"NS": "A", "EW": "5"}
    short = settle(
        "HF", table=70, kitty=10, mult=4, won_last=True, cards=["AH", "AH"], levels=levels
    )
    assert short.defender_total == 110
    assert short.levels_after == {"NS": "A", "EW": "8"}
    full = settle(
        "HF", table=80, kitty=10, mult=4, won_last=True, cards=["AH", "AH"], levels=levels
    )
    assert full.levels_after == {"NS": "2", "EW": "9"}  # 80 + 10×4 = 120 → +4
    j = settle("HF", table=80, kitty=0, won_last=True, cards=["JD"], levels={"NS": "J", "EW": "5"})
    assert j.levels_after["NS"] == "2"


def test_no_drop_back_in_b_or_at_other_levels() -> None:
    # VARIANTS.md §9 L129; B 「被對方「j」或「a」摳底，均不倒回「2」或「j」」 001 L5
    b = settle("B", table=80, won_last=True, cards=["JS"], levels={"NS": "J", "EW": "5"})
    assert b.levels_after["NS"] == "J"
    xx = settle("XX", table=80, won_last=True, cards=["QS"], levels={"NS": "Q", "EW": "5"})
    assert xx.levels_after["NS"] == "Q"
    lost = settle("XX", table=80, won_last=False, cards=["JS"], levels={"NS": "J", "EW": "5"})
    assert lost.levels_after["NS"] == "J"


# ----------------------------------------------------------------- HF jumps and first hand


def test_hf_200_for_the_defenders_jumps_them_to_a_skipping_j() -> None:
    # VARIANTS.md §9 L125; HF 「防守方抓200分及以上則跳級…防守方直接打「a」」 004 L13
    out = settle("HF", table=200, levels={"NS": "5", "EW": "4"}, done={"EW": ("2",)})
    assert out.levels_after == {"NS": "5", "EW": "A"}
    assert out.game_winner is None
    assert out.next_declarer == "W"


def test_hf_200_for_defenders_at_j_q_k_or_a_wins_the_game() -> None:
    # VARIANTS.md §9 L125; HF 「若打「j\q\k\a」時遇到跳級則本局勝，不必再打「a」」 004 L13
    for level in ("J", "Q", "K", "A"):
        out = settle("HF", table=200, levels={"NS": "5", "EW": level})
        assert out.game_winner == "EW", level


def test_hf_first_hand_has_no_200_jump() -> None:
    # VARIANTS.md §9 L125; HF 「比賽中（首局除外）…防守方抓200分及以上則跳級」 004 L12–13
    out = settle("HF", table=200, first_hand=True)
    assert out.game_winner is None
    assert out.levels_after == {"NS": "2", "EW": "2"}  # HF 2 must-play stops them


def test_hf_first_hand_defenders_with_80_on_the_table_and_the_kitty_win() -> None:
    # VARIANTS.md §9 L126; HF 「首局…防守方檯面抓80分及以上並摳底判勝，本局結束」 004 L11
    out = settle("HF", table=80, kitty=0, won_last=True, cards=["3C"], first_hand=True)
    assert out.game_winner == "EW"
    no_kitty = settle("HF", table=80, first_hand=True)
    assert no_kitty.game_winner is None
    later = settle("HF", table=80, won_last=True, cards=["3C"], first_hand=False)
    assert later.game_winner is None


def test_xx_has_no_first_hand_special() -> None:
    # VARIANTS.md §9 L126 (XX 「—」); XX formula 002 L44
    assert settle("XX", table=0, first_hand=True).levels_after["NS"] == "10"


# ----------------------------------------------------------------- next declarer (§1 L32)


def test_next_declarer_is_the_partner_or_the_next_seat_clockwise() -> None:
    # VARIANTS.md §1 L32; XX clockwise 「按顺时针方向」 002 L37; LY 「輪莊…進行」 000 L90
    assert settle("XX", declarer="N", table=40).next_declarer == "S"
    assert settle("XX", declarer="N", table=80).next_declarer == "E"
    assert settle("XX", declarer="W", table=80).next_declarer == "N"


def test_next_declarer_is_the_next_seat_counter_clockwise_in_hf() -> None:
    # VARIANTS.md §1 L32; LY 「出牌及輪莊均逆時針進行」 000 L90; HF 「逆時針方向」 004 L5
    assert settle("HF", declarer="N", table=100).next_declarer == "W"
    assert settle("HF", declarer="E", table=40).next_declarer == "W"
    assert settle("HF", declarer="E", table=100).next_declarer == "N"


# ----------------------------------------------------------------- input checks


def test_settle_hand_rejects_bad_levels_and_seats() -> None:
    # VARIANTS.md §9 L127 (levels are 2…A)
    with pytest.raises(ScoringError):
        settle("XX", levels={"NS": "1", "EW": "2"})
    with pytest.raises(ScoringError):
        settle("XX", levels={"NS": "2"})
    with pytest.raises(ScoringError):
        settle("XX", declarer="X")


# ----------------------------------------------------------------- penalty-made 0 (§9 L122–124)


def test_only_a_counts_a_zero_made_by_penalties_as_da_guang() -> None:
    # A 「如抓分方為0分（大光）或因罰分為負分，莊家方從低於a級的任何一級直接公升打"a"級」 000 L10
    a = settle("A", table=20, penalties=-20, levels={"NS": "4", "EW": "2"})
    assert (a.defender_total, a.levels_after["NS"]) == (0, "A")
    # B 「台下方得0分（俗稱「大光」），莊家公升9級」 001 L7 — a shutout in play: here the
    # defenders took 20, so the 0 follows the formula, +8 (from 2: 10), not the 大光 +9 (J)
    b = settle("B", table=20, penalties=-20)
    assert (b.defender_total, b.levels_after["NS"]) == (0, "10")
    assert settle("B", table=0).levels_after["NS"] == "J"  # a real 大光
    # HF 「台下罰分罰至0分為止」 004 L43: no first-hand win from a penalty-made 0 (004 L11)
    hf = settle("HF", table=20, penalties=-20, first_hand=True)
    assert hf.game_winner is None
    assert settle("HF", table=0, penalties=+10, first_hand=True).game_winner is None  # 10 points
    assert settle("HF", table=0, penalties=-10, first_hand=True).game_winner == "NS"  # took 0
    on = settle("B", table=20, penalties=-20, overrides={"penalty_zero_is_shutout": True})
    assert on.levels_after["NS"] == "J"


def test_b_da_guang_plus_nine_from_3_still_stops_on_the_must_play_j() -> None:
    # B 「每盤比賽中無論打到幾，台下方得0分（俗稱「大光」），莊家公升9級」 001 L7 with 「「j」必打」
    # 001 L5: 無論打到幾 makes the gain 9 at any level; only HF says a jump may pass J
    # (「可跳過「j」」 004 L13)
    out = settle("B", table=0, levels={"NS": "3", "EW": "2"})
    assert out.levels_after["NS"] == "J"
    assert {"kind": "must_play_stop", "level": "J", "void": 1} in out.steps
    done = settle("B", table=0, levels={"NS": "3", "EW": "2"}, overrides={"must_play_levels": []})
    assert done.levels_after["NS"] == "Q"


# ----------------------------------------------------------------- 5-point remainders, surplus


def test_a_five_point_remainder_is_ignored_in_every_regulation() -> None:
    # VARIANTS.md §9 five_point_remainder: A 「抓分方得70~75分，莊家方公升一級」 000 L10,
    # XX 「5分不挡级」 002 L44, B 「5分不計」 001 L6, HF 「零頭5分不算分」 004 L8
    for rules in ("A", "XX", "B", "HF"):
        assert settle(rules, table=75, levels={"NS": "3", "EW": "3"}).levels_after["NS"] == "4"
        assert settle(rules, table=35, levels={"NS": "3", "EW": "3"}).levels_after["NS"] == "8"
        assert settle(rules, table=95, levels={"NS": "3", "EW": "3"}).levels_after["EW"] == "4"


def test_a_five_point_remainder_that_blocks_rounds_the_declarers_margin_down() -> None:
    # five_point_remainder = "blocks" (5分挡级, no regulation here): 75 → +0, 35 → +4
    ovr = {"five_point_remainder": "blocks"}
    out = settle("XX", table=75, levels={"NS": "3", "EW": "3"}, overrides=ovr)
    assert out.levels_after["NS"] == "3"
    out = settle("XX", table=35, levels={"NS": "3", "EW": "3"}, overrides=ovr)
    assert out.levels_after["NS"] == "7"


def test_surplus_levels_at_a_must_play_level_are_void_and_never_taken_off_the_opponents() -> None:
    # VARIANTS.md §9 surplus_rule: A 「已超過部分不降對方的級別」 000 L10, HF 「多餘的分數作廢，
    # 不扣對家的級數」 004 L9 — XX at 9, defenders 50: +3 stops on the must-play J
    for rules in ("XX", "HF"):
        out = settle(rules, table=50, levels={"NS": "9", "EW": "6"})
        assert (out.levels_after["NS"], out.levels_after["EW"]) == ("J", "6"), rules
    a = settle("A", table=0, levels={"NS": "9", "EW": "6"})  # the 大光 jump to A: 6 stays 6
    assert (a.levels_after["NS"], a.levels_after["EW"]) == ("A", "6")
    ovr = {"surplus_rule": "demotes_opponents"}
    out = settle("XX", table=50, levels={"NS": "9", "EW": "6"}, overrides=ovr)
    assert (out.levels_after["NS"], out.levels_after["EW"]) == ("J", "5")
    low = settle("XX", table=0, levels={"NS": "4", "EW": "2"}, overrides=ovr)  # 4 + 8: 5 void
    assert (low.levels_after["NS"], low.levels_after["EW"]) == ("J", "2")  # not below 2


# ----------------------------------------------------------------- NT declaration jump, 判負


def test_nt_a_joker_tractor_or_red_five_pair_shown_by_the_declarers_sends_them_to_a() -> None:
    # NT 「如果是主打方亮相對方未拿滿80分則主打方直接打a，台下方打2」 000 L45
    out = settle_hand(
        get_profile("NT"),
        levels={"NS": "5", "EW": "7"},
        declarer="N",
        defender_table_points=70,
        kitty_points=0,
        kitty_multiplier=2,
        defenders_won_last_trick=False,
        last_trick_winning_cards=(),
        last_trick_is_throw=False,
        penalties_to_defenders=0,
        declarer_points=130,
        declaration_side="NS",
    )
    assert (out.levels_after["NS"], out.levels_after["EW"]) == ("A", "2")
    assert out.next_declarer == "S" and out.game_winner is None


def test_nt_shown_by_the_defenders_it_needs_the_declarers_under_80_of_their_own() -> None:
    # NT 「如果是台下方亮相後而主打方未拿滿80分則台下方直接打a，主打方打2」 000 L45
    def nt(declarer_points: int, table: int, side: str = "EW") -> HandOutcome:
        return settle_hand(
            get_profile("NT"),
            levels={"NS": "5", "EW": "7"},
            declarer="N",
            defender_table_points=table,
            kitty_points=0,
            kitty_multiplier=2,
            defenders_won_last_trick=False,
            last_trick_winning_cards=(),
            last_trick_is_throw=False,
            penalties_to_defenders=0,
            declarer_points=declarer_points,
            declaration_side=side,
        )

    out = nt(declarer_points=70, table=130)
    assert (out.levels_after["NS"], out.levels_after["EW"]) == ("2", "A")
    assert out.next_declarer == "E"  # the defenders take the deal: N's next seat, clockwise
    normal = nt(declarer_points=120, table=80)  # the declarers took 80 or more: as usual
    assert (normal.levels_after["NS"], normal.levels_after["EW"]) == ("5", "7")
    assert nt(declarer_points=70, table=130, side="NS").levels_after["EW"] == "Q"  # 130: 7 + 5
    xx = settle("XX", table=70, levels={"NS": "5", "EW": "7"})
    assert xx.levels_after["NS"] == "6"


def test_a_forfeit_loses_the_game_whatever_the_points() -> None:
    # HF 「一經發現，判負」 004 L44: the offending side loses the game
    out = settle_hand(
        get_profile("HF"),
        levels={"NS": "5", "EW": "7"},
        declarer="N",
        defender_table_points=30,
        kitty_points=0,
        kitty_multiplier=2,
        defenders_won_last_trick=False,
        last_trick_winning_cards=(),
        last_trick_is_throw=False,
        penalties_to_defenders=0,
        forfeited_by="NS",
    )
    assert out.game_winner == "EW"
