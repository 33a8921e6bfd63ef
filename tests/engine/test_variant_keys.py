"""Every rule of shared/rules/VARIANTS.md is an explicit knob: a knob of its key's name, or a row of
``chaodipi profiles --markdown`` that names the knobs implementing it.

The keys are copied here from VARIANTS.md (the regulations folder is not read at test time).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from engine.profiles import KNOB_DOCS, VARIANT_ROWS, ProfileError, get_profile, knob_names

ROOT = Path(__file__).resolve().parents[2]

# VARIANTS.md keys of the card order, combinations, following, throws, the kitty, scoring and the
# penalties of play (§1 time, §4–§10), in the order the file gives them.
PLAY_KEYS: tuple[str, ...] = (
    "play_time_limit_s",
    "bury_time_limit_s",
    "overtime_penalty",
    "trump_order",
    "offsuit_level_equal",
    "tie_rule",
    "tractor_hollow",
    "tractor_jokers",
    "tractor_sj_level",
    "tractor_level_offlevel",
    "tractor_offlevel_trumpA",
    "tractor_wrap_a2",
    "follow_pair",
    "follow_tractor",
    "throw_legal",
    "throw_checked_against",
    "throw_fail_penalty",
    "throw_fail_forced",
    "wrong_kitty_penalty",
    "kitty_mult_single",
    "kitty_mult_pair",
    "kitty_mult_tractor",
    "kitty_mult_throw",
    "turnover_points",
    "points_per_level",
    "five_point_remainder",
    "shutout_rule",
    "penalty_floor",
    "big_win_jump",
    "must_play_levels",
    "surplus_rule",
    "kitty_drop_back",
    "penalty_out_of_turn",
    "penalty_revoke",
    "penalty_hidden_card",
    "hidden_card_after_tricks",
    "penalty_hand_count",
)

# VARIANTS.md keys of the rules before the first trick (§1 directions, §2, §3, §8 burial and kitty
# draw, §10 exposed cards and takebacks). Asserted once they are knobs; set
# BEFORE_PLAY_KEYS_REQUIRED to make every one of them required.
BEFORE_PLAY_KEYS: tuple[str, ...] = (
    "deal_direction",
    "play_direction",
    "shuffle_by",
    "first_drawer_rule",
    "first_dealer_rule",
    "secret_bidding",
    "chao_cards",
    "chao_overcall",
    "chao_pair_reuse",
    "chao_order",
    "chao_rebury",
    "joker_declare",
    "no_bid_rule",
    "false_declare_penalty",
    "allow_redeal",
    "bury_violation",
    "kitty_draw_error",
    "penalty_exposed_card",
    "penalty_takeback",
)
BEFORE_PLAY_KEYS_REQUIRED = False

# VARIANTS.md rows without a key (§4, §5, §7, §9, §10 查牌), by their title in the markdown.
UNKEYED_ROWS: tuple[str, ...] = (
    "Pair order / tractor vs pairs",
    "Trump cards inside side-suit tractors",
    "Partner hides a beating card",
    "Declaration-triggered jump",
    "Unfounded card check (查牌)",
)


@pytest.fixture(scope="module")
def markdown() -> str:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "profiles", "--markdown"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout


def named_in(markdown: str, key: str) -> bool:
    """A knob's own section (``## `key```) or a VARIANTS row naming the key."""
    return f"## `{key}`" in markdown or any(
        line.startswith(f"| `{key}` ") for line in markdown.splitlines()
    )


def test_the_play_keys_and_the_before_play_keys_are_all_of_variants() -> None:
    # VARIANTS.md §1–§10 tables: 56 keys in all
    assert len(PLAY_KEYS) + len(BEFORE_PLAY_KEYS) == 56
    assert not set(PLAY_KEYS) & set(BEFORE_PLAY_KEYS)


@pytest.mark.parametrize("key", PLAY_KEYS)
def test_each_play_key_is_a_knob_or_a_row_naming_its_knobs(key: str, markdown: str) -> None:
    assert named_in(markdown, key), f"{key}: neither a knob nor a VARIANTS row of the markdown"
    implementing = [k for row, knobs in VARIANT_ROWS.items() if f"`{key}`" in row for k in knobs]
    assert key in KNOB_DOCS or implementing, key
    for knob in implementing:
        assert knob in knob_names(), (key, knob)


@pytest.mark.parametrize("key", BEFORE_PLAY_KEYS)
def test_each_before_play_key_is_a_knob_or_a_row_once_it_exists(key: str, markdown: str) -> None:
    if not named_in(markdown, key) and not BEFORE_PLAY_KEYS_REQUIRED:
        pytest.skip(f"{key} is not a knob yet")
    assert named_in(markdown, key)


@pytest.mark.parametrize("title", UNKEYED_ROWS)
def test_each_row_without_a_key_names_the_knobs_that_implement_it(
    title: str, markdown: str
) -> None:
    (row,) = [line for line in markdown.splitlines() if line.startswith(f"| {title} (§")]
    knobs = [k for k in knob_names() if f"`{k}`" in row]
    assert knobs, row


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"trump_order": "red_five"}, 'trump_order: must be one of "standard", "red_five_star"'),
        ({"offsuit_level_equal": "no"}, 'offsuit_level_equal: must be true or false, got "no"'),
        ({"tie_rule": "last_played"}, 'tie_rule: must be one of "first_played", got'),
        ({"tractor_beats_pairs": 1}, "tractor_beats_pairs: must be true or false, got 1"),
        ({"trump_in_side_tractor": "allowed"}, 'trump_in_side_tractor: must be one of "forbidden"'),
        ({"throw_legal": "pooled"}, 'throw_legal: must be one of "each_unit", "singles_and_pairs"'),
        ({"throw_fail_forced": None}, "throw_fail_forced: must be one of .* got null"),
        ({"throw_partner_hiding_loses": "true"}, "throw_partner_hiding_loses: must be true or"),
        (
            {"five_point_remainder": "up"},
            'five_point_remainder: must be one of "ignored", "blocks"',
        ),
        ({"surplus_rule": "lost"}, 'surplus_rule: must be one of "void", "demotes_opponents"'),
        ({"penalty_zero_is_shutout": 0}, "penalty_zero_is_shutout: must be true or false, got 0"),
        ({"declaration_jump": None}, "declaration_jump: must be true or false, got null"),
        ({"penalty_hidden_card_per_card": []}, "penalty_hidden_card_per_card: must be true or"),
        ({"card_check_free": -1}, "card_check_free: must be an integer from 0 to 25, got -1"),
        ({"card_check_penalty": 10.0}, "card_check_penalty: must be an integer from 0 to 200"),
    ],
)
def test_a_bad_value_for_a_play_knob_is_one_line_naming_the_knob_and_what_is_allowed(
    overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ProfileError, match=message) as err:
        get_profile("XX", overrides)
    assert "\n" not in str(err.value)
