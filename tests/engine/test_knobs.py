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
    "play_direction": ["test_audit::test_play_order_follows_the_profile_direction"],
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
        "test_scoring::test_zero_floor_clamps_a_negative_total_to_zero_which_is_no_shutout",
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
    # ----- card order, throws and scoring (VARIANTS §4–§7, §9, §10 查牌) -----
    "trump_order": [
        "test_order_and_combos::test_nt_red_five_star_is_a_trump_above_the_big_joker_in_every_hand",
        "test_audit::test_nt_red_five_star_trumps_the_big_joker_and_every_heart",
    ],
    "offsuit_level_equal": [
        "test_order_and_combos::test_offsuit_level_cards_are_equal_unless_the_knob_ranks_them_by_suit",
        "test_audit::test_offsuit_level_cards_tie_and_the_first_played_wins_unless_ranked_by_suit",
    ],
    "tie_rule": ["test_audit::test_hf_equal_cards_of_a_suit_go_to_the_first_played"],
    "tractor_beats_pairs": [
        "test_audit::test_ly_a_trump_tractor_beats_two_higher_loose_pairs_against_a_throw_of_pairs"
    ],
    "trump_in_side_tractor": [
        "test_audit::test_a_side_suit_tractor_with_a_trump_pair_inside_is_a_mixed_lead_in_every_profile"
    ],
    "throw_legal": [
        "test_audit::test_xx_and_b_judge_a_thrown_tractor_pair_by_pair",
        "test_audit::test_hf_judges_each_unit_of_a_throw_a_tractor_only_by_a_tractor",
    ],
    "throw_fail_forced": [
        "test_audit::test_xx_leaves_the_unit_the_first_seat_able_to_beat_one_beats",
        "test_audit::test_b_leaves_the_smallest_beaten_unit_on_the_table",
    ],
    "throw_partner_hiding_loses": [
        "test_audit::test_hf_a_partner_who_held_a_beater_and_let_the_throw_stand_loses_the_game"
    ],
    "five_point_remainder": [
        "test_scoring::test_a_five_point_remainder_is_ignored_in_every_regulation",
        "test_scoring::test_a_five_point_remainder_that_blocks_rounds_the_declarers_margin_down",
    ],
    "surplus_rule": [
        "test_scoring::test_surplus_levels_at_a_must_play_level_are_void_and_never_taken_off_the_opponents"
    ],
    "penalty_zero_is_shutout": [
        "test_scoring::test_only_a_counts_a_zero_made_by_penalties_as_da_guang",
        "test_whole_hands::test_a_zero_made_by_unfounded_checks_is_da_guang_in_a_only",
    ],
    "declaration_jump": [
        "test_whole_hands::test_nt_declarers_who_showed_the_joker_tractor_go_to_a_when_the_defenders_stay_under_80",
        "test_whole_hands::test_nt_defenders_who_showed_it_go_to_a_when_the_declarers_take_under_80",
    ],
    "penalty_hidden_card_per_card": [
        "test_audit::test_nt_a_withheld_card_costs_ten_a_card_whenever_it_is_proven",
        "test_whole_hands::test_nt_a_withheld_card_in_a_whole_hand_costs_ten_a_card_not_eighty",
    ],
    "card_check_free": [
        "test_audit::test_an_unfounded_card_check_is_free_the_first_time_then_ten_each"
    ],
    "card_check_penalty": [
        "test_whole_hands::test_xx_card_checks_over_a_whole_hand_cost_ten_from_the_second_unfounded_one"
    ],
}

# the knobs before play and beside the tricks (engine/preplay): tests/engine/test_before_play.py
_BP = "test_before_play::"
COVERED_ELSEWHERE.update(
    {
        "deal_direction": [
            _BP + "test_the_draw_goes_the_profiles_way",
            _BP + "test_xx_the_highest_card_turned_s_e_n_w_draws_first_and_later_the_dealer",
        ],
        "shuffle_by": [_BP + "test_who_shuffles_and_who_cuts"],
        "first_drawer_rule": [
            _BP + "test_xx_the_highest_card_turned_s_e_n_w_draws_first_and_later_the_dealer",
            _BP + "test_hf_a_joker_drawn_to_choose_the_first_drawer_does_not_count",
        ],
        "first_dealer_rule": [
            _BP
            + "test_in_a_first_hand_a_pair_before_the_kitty_takes_the_deal_a_chao_after_it_does_not"
        ],
        "later_dealer_rule": [
            _BP + "test_in_later_hands_a_declaration_sets_the_trump_and_never_the_deal"
        ],
        "secret_bidding": [
            _BP + "test_a_declaration_shown_face_up_where_bidding_is_secret_exposes_its_cards"
        ],
        "chao_cards": [
            _BP + "test_xx_refuses_a_single_card_chao_and_b_lets_the_first_single_complete_its_pair"
        ],
        "chao_overcall": [
            _BP + "test_nt_declares_any_suit_with_the_joker_tractor_or_a_red_star_pair"
        ],
        "chao_pair_reuse": [_BP + "test_a_pair_that_has_been_chao_cannot_chao_again"],
        "chao_order": [
            _BP + "test_chao_goes_round_in_the_profiles_direction",
            _BP + "test_a_seat_does_not_chao_its_own_kitty_and_no_one_chaos_after_all_passed",
        ],
        "chao_first_round_others_only": [
            _BP + "test_hf_the_caller_and_the_dealer_may_not_chao_in_the_first_round"
        ],
        "chao_rebury": [_BP + "test_overrides_set_the_prices_and_whether_a_chao_takes_the_kitty"],
        "joker_declare": [
            _BP + "test_a_single_joker_cannot_declare_and_a_joker_pair_makes_no_trump",
            _BP + "test_nt_declares_any_suit_with_the_joker_tractor_or_a_red_star_pair",
        ],
        "no_bid_rule": [
            _BP + "test_b_turns_the_kitty_up_when_nobody_declares",
            _BP + "test_where_a_text_is_silent_nobody_declaring_means_a_new_deal",
        ],
        "false_declare_penalty": [
            _BP + "test_xx_lists_a_false_declaration_for_the_referee_and_plays_on",
            _BP + "test_b_a_false_declaration_costs_80_and_ends_the_hand",
            _BP + "test_hf_a_false_declaration_is_not_played_and_the_other_side_jumps",
        ],
        "false_declare_ends_hand": [
            _BP + "test_b_a_false_declaration_costs_80_and_ends_the_hand",
            _BP + "test_overrides_set_the_prices_and_whether_a_chao_takes_the_kitty",
        ],
        "illegal_chao_is_false_declaration": [
            _BP + "test_hf_the_caller_and_the_dealer_may_not_chao_in_the_first_round",
            _BP + "test_a_pair_that_has_been_chao_cannot_chao_again",
        ],
        "allow_redeal": [_BP + "test_no_weak_hand_redeal"],
        "bury_violation": [
            _BP + "test_burying_in_two_goes_or_looking_again_is_warned_then_fined_80"
        ],
        "bury_violation_penalty": [
            _BP + "test_overrides_set_the_prices_and_whether_a_chao_takes_the_kitty"
        ],
        "kitty_draw_error": [_BP + "test_taking_the_kitty_with_too_many_or_too_few_cards"],
        "kitty_draw_penalty": [
            _BP + "test_overrides_set_the_prices_and_whether_a_chao_takes_the_kitty"
        ],
        "penalty_exposed_card": [_BP + "test_each_exposed_card_costs_ten"],
        "penalty_takeback": [_BP + "test_each_card_taken_back_costs_ten"],
    }
)

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
