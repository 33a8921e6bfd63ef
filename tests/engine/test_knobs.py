"""Every rule knob is exercised: a direct test per knob here, or the named tests elsewhere.

Each direct test flips one knob by override and checks the behaviour it controls, citing the
VARIANTS.md line and the regulation it comes from.
"""

from __future__ import annotations

import importlib
from typing import Any

from engine.profiles import get_profile, knob_names
from engine.scoring import settle_hand
from tests.builders import kinds, run, trick

# knob → tests (module::function) that exercise it, besides the direct tests in this file
COVERED_ELSEWHERE: dict[str, list[str]] = {
    "direction": ["test_audit::test_play_order_follows_the_profile_direction"],
    "play_time_limit_s": ["test_audit::test_a_play_over_15_seconds_is_overtime"],
    "bury_time_limit_s": ["test_audit::test_burying_the_kitty_over_60_seconds_is_overtime"],
    "overtime_penalty": ["test_audit::test_b_escalates_overtime_warning_then_10_then_20"],
    "tractor_hollow": [
        "test_order_and_combos::test_hollow_tractor_across_the_level_rank_depends_on_the_profile"
    ],
    "tractor_jokers": ["test_order_and_combos::test_joker_pairs_form_a_tractor"],
    "tractor_sj_level": [
        "test_order_and_combos::test_small_joker_pair_and_trump_level_pair_per_profile"
    ],
    "tractor_level_offlevel": [
        "test_order_and_combos::test_trump_level_pair_and_offsuit_level_pair_only_in_hf"
    ],
    "tractor_offlevel_trump_a": [
        "test_order_and_combos::test_offsuit_level_pair_and_trump_ace_pair_only_in_hf"
    ],
    "tractor_wrap_a2": [
        "test_order_and_combos::test_a2_wrap_is_the_smallest_tractor_only_where_the_profile_allows"
    ],
    "follow_pair": ["test_audit::test_without_the_pair_rule_a_withheld_pair_is_legal"],
    "follow_tractor": [
        "test_audit::test_withholding_a_tractor_is_a_violation_where_tractors_must_be_followed"
    ],
    "throw_partner_can_defeat": [
        "test_audit::test_a_throw_beaten_only_by_the_partner_fails_only_where_partners_count"
    ],
    "throw_fail_penalty": [
        "test_audit::test_b_fines_a_failed_throw_for_the_cards_other_than_the_forced_one"
    ],
    "wrong_kitty_penalty": [
        "test_audit::test_a_kitty_that_is_not_eight_cards_costs_the_burying_side_eighty"
    ],
    "kitty_mult_single": [
        "test_scoring::test_single_lead_doubles_and_pair_lead_quadruples_the_kitty"
    ],
    "kitty_mult_pair": [
        "test_scoring::test_single_lead_doubles_and_pair_lead_quadruples_the_kitty"
    ],
    "kitty_mult_tractor": [
        "test_scoring::test_xx_tractor_multiplier_is_linear_8_12_16",
        "test_scoring::test_hf_tractor_multiplier_doubles_8_16_32",
        "test_scoring::test_b_tractor_multiplier_is_capped_at_8",
    ],
    "kitty_mult_throw": [
        "test_scoring::test_xx_throw_multiplies_by_the_number_of_cards",
        "test_scoring::test_b_throw_uses_its_largest_unit_class",
    ],
    "multiple_pairs_count_as_pair": [
        "test_scoring::test_b_several_separate_pairs_count_as_a_pair_unless_the_knob_is_off"
    ],
    "shutout_rule": [
        "test_scoring::test_xx_shutout_follows_the_formula_to_plus_eight",
        "test_scoring::test_a_shutout_jumps_the_declarers_to_a_from_any_lower_level",
        "test_scoring::test_b_shutout_gives_nine_levels_under_the_j_cap",
    ],
    "shutout_first_hand_wins": [
        "test_scoring::test_hf_first_hand_shutout_wins_the_game_for_the_declarers"
    ],
    "first_hand_turnover_with_kitty_wins": [
        "test_scoring::test_hf_first_hand_defenders_with_80_on_the_table_and_the_kitty_win",
        "test_scoring::test_xx_has_no_first_hand_special",
    ],
    "big_win_points": ["test_scoring::test_hf_200_for_the_defenders_jumps_them_to_a_skipping_j"],
    "jump_wins_at_levels": [
        "test_scoring::test_hf_shutout_while_playing_j_q_k_or_a_wins_the_game",
        "test_scoring::test_hf_200_for_defenders_at_j_q_k_or_a_wins_the_game",
    ],
    "penalty_floor": [
        "test_scoring::test_zero_floor_clamps_a_negative_total_to_a_shutout_zero",
        "test_scoring::test_shutout_floor_treats_a_negative_total_like_da_guang",
        "test_scoring::test_none_floor_lets_the_formula_run_below_zero",
    ],
    "must_play_levels": [
        "test_scoring::test_xx_gain_stops_on_j_and_the_surplus_is_void",
        "test_scoring::test_ly_has_no_must_play_level",
    ],
    "must_play_once": ["test_scoring::test_hf_must_play_level_binds_only_until_it_has_been_played"],
    "kitty_drop_back": ["test_scoring::test_no_drop_back_in_b_or_at_other_levels"],
    "kitty_drop_back_needs_table_turnover": [
        "test_scoring::test_hf_drop_back_needs_80_on_the_table_without_the_kitty"
    ],
    "kitty_drop_back_throw_exempt": [
        "test_scoring::test_xx_thrown_j_or_a_in_the_last_trick_does_not_drop_back",
        "test_scoring::test_hf_thrown_a_pair_still_drops_back",
    ],
    "defender_win_demotes_declarer": [
        "test_scoring::test_demote_knob_drops_the_old_declarers_not_below_2"
    ],
    "revoke_cannot_win": ["test_audit::test_revoking_play_cannot_win_in_hf"],
    "penalty_hidden_card": ["test_audit::test_hf_punishes_hidden_cards_twenty_per_occurrence"],
    "hidden_card_after_tricks": ["test_audit::test_hidden_card_timing_is_a_knob"],
    "penalty_hand_count": [
        "test_audit::test_playing_fewer_cards_than_the_lead_is_a_card_count_infraction"
    ],
    "match_hand_limit": ["test_match::test_a_profile_limits_a_game_to_12_hands"],
    "match_time_limit_min": [
        "test_match::test_xx_limits_a_game_to_one_hour_and_nt_to_ninety_minutes"
    ],
    "match_best_of": ["test_match::test_best_of_three_needs_two_games"],
}

DIRECT: dict[str, str] = {
    "overtime_penalty_step": "test_overtime_penalty_step_sets_the_escalation",
    "throw_fail_penalty_per_card": "test_throw_fail_penalty_per_card_prices_each_thrown_card",
    "kitty_size": "test_kitty_size_is_the_count_a_kitty_must_have",
    "penalty_out_of_turn_per_card": "test_penalty_out_of_turn_per_card_prices_each_card",
    "penalty_revoke_per_card": "test_penalty_revoke_per_card_prices_each_wrong_card",
    "penalty_hand_count_per_card": "test_nt_hand_count_penalty_is_per_card",
    "turnover_points": "test_turnover_and_points_per_level_set_the_level_arithmetic",
    "points_per_level": "test_turnover_and_points_per_level_set_the_level_arithmetic",
    "shutout_levels": "test_shutout_levels_sets_the_b_shutout_gain",
}


def test_every_knob_is_exercised_by_a_named_test_that_exists() -> None:
    assert set(COVERED_ELSEWHERE) | set(DIRECT) == set(knob_names())
    for knob, tests in COVERED_ELSEWHERE.items():
        for ref in tests:
            module, name = ref.split("::")
            assert hasattr(importlib.import_module(f"tests.engine.{module}"), name), (knob, ref)
    for knob, name in DIRECT.items():
        assert name in globals(), knob


def test_overtime_penalty_step_sets_the_escalation() -> None:
    # VARIANTS.md L35: B 「第二次判罰10分，第三次判罰20分，以此類推」 001 L25
    plays = [
        trick("S:KS E:AS N:3S W:4S", times=[0.0, 20.0, 21.0, 22.0]),
        trick("E:KD N:3D W:4D S:5D", times=[40.0, 41.0, 42.0, 43.0]),
    ]
    report = run(plays, rules="B", kitty_buried_t=0.0, rule_overrides={"overtime_penalty_step": 5})
    assert [i.penalty for i in report.infractions] == [0, 5]


def test_throw_fail_penalty_per_card_prices_each_thrown_card() -> None:
    # VARIANTS.md L99: 「一张牌罚10分，甩几张罚几十」 002 L58
    plays = ["S:AS,QS W:KS,3S N:4S,5S E:6S,7S"]
    report = run(plays, rule_overrides={"throw_fail_penalty_per_card": 20})
    assert report.infractions[0].penalty == 40


def test_kitty_size_is_the_count_a_kitty_must_have() -> None:
    # VARIANTS.md L108: 「扣下的底牌张数多于或少于8张」 002 L52
    kitty = ["3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    assert kinds(run([], kitty=kitty)) == [("kitty_count", "S", None)]
    assert kinds(run([], kitty=kitty, rule_overrides={"kitty_size": 7})) == []


def test_penalty_out_of_turn_per_card_prices_each_card() -> None:
    # VARIANTS.md L137: 「越序出牌每张罚10分」 002 L54
    report = run(
        ["S:KS,KS N:3S,4S W:5S,5S E:6S,7S"], rule_overrides={"penalty_out_of_turn_per_card": 5}
    )
    assert report.infractions[0].penalty == 10


def test_penalty_revoke_per_card_prices_each_wrong_card() -> None:
    # VARIANTS.md L138: 「则判每张罚10分」 002 L55
    plays = ["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]
    assert run(plays).infractions[0].penalty == 10
    assert run(plays, rule_overrides={"penalty_revoke_per_card": 30}).infractions[0].penalty == 30


def test_nt_hand_count_penalty_is_per_card() -> None:
    # VARIANTS.md L140: NT 「最後手中少牌、多牌…每張罰20分」 000 L41
    plays = ["S:KS,KS,QS W:3S N:5S,6S,7S E:7S,8S,9S"]
    assert run(plays, rules="NT").infractions[0].penalty == 40
    assert run(plays, rules="XX").infractions[0].penalty == 80


def declarers_gain(rules: str, overrides: dict[str, Any], defender_total: int) -> int:
    """Levels the declarer side (NS, at 3) gains when the defenders score ``defender_total``."""
    outcome = settle_hand(
        get_profile(rules, overrides),
        levels={"NS": "3", "EW": "3"},
        declarer="N",
        defender_table_points=defender_total,
        kitty_points=0,
        kitty_multiplier=2,
        defenders_won_last_trick=False,
        last_trick_winning_cards=(),
        last_trick_is_throw=False,
        penalties_to_defenders=0,
    )
    return outcome.level_change["NS"]


def test_turnover_and_points_per_level_set_the_level_arithmetic() -> None:
    # VARIANTS.md L118: 「实行80分为基准分，10分升一级制度」 002 L44
    assert declarers_gain("LY", {}, 40) == 4
    assert declarers_gain("LY", {"turnover_points": 60}, 40) == 2
    assert declarers_gain("LY", {"points_per_level": 20}, 40) == 2


def test_shutout_levels_sets_the_b_shutout_gain() -> None:
    # VARIANTS.md L122: B 「台下方得0分（俗稱「大光」），莊家公升9級」 001 L7
    assert declarers_gain("B", {"must_play_levels": []}, 0) == 9
    assert declarers_gain("B", {"must_play_levels": [], "shutout_levels": 6}, 0) == 6
