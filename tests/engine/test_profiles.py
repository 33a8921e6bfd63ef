"""Rule profiles: one per regulation, each knob documented, sourced, overridable (VARIANTS §0)."""

from __future__ import annotations

import dataclasses
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from engine.profiles import (
    KNOB_DOCS,
    KNOB_RULES,
    PROFILE_NAMES,
    PROFILE_SOURCES,
    ProfileError,
    RuleProfile,
    get_profile,
    knob_names,
    profiles_markdown,
)

ROOT = Path(__file__).resolve().parents[2]
NOT_KNOBS = {"name", "title", "notes"}


def test_there_is_one_profile_per_regulation_in_variants() -> None:
    # VARIANTS.md L11–20 (§0 source key): A, NT, AH, XX, B, HF, LY (CS has no surviving rules)
    assert set(PROFILE_NAMES) == {"A", "NT", "XX", "AH", "B", "HF", "LY"}
    for name in PROFILE_NAMES:
        assert get_profile(name).name == name


def test_every_profile_field_is_a_documented_knob() -> None:
    fields = {f.name for f in dataclasses.fields(RuleProfile)} - NOT_KNOBS
    assert fields == set(KNOB_DOCS)
    assert set(knob_names()) == fields


def test_every_source_quote_names_a_knob_and_a_regulation_line() -> None:
    for profile, sources in PROFILE_SOURCES.items():
        assert profile in PROFILE_NAMES
        for knob, quote in sources.items():
            assert knob in KNOB_DOCS, (profile, knob)
            assert re.search(r"00[0-4] L\d+", quote), (profile, knob, quote)


def test_ah_is_xx_word_for_word() -> None:
    # VARIANTS.md L15: AH 「Text is word-for-word the same as XX」 000 L51–86
    xx, ah = get_profile("XX"), get_profile("AH")
    assert dataclasses.replace(ah, name="XX", title=xx.title) == xx


def test_every_ambiguity_of_variants_section_11_is_an_explicit_knob() -> None:
    # VARIANTS.md §11 items 1–7 (item 8, NT's 五十K, is out of scope and noted on NT)
    for knob in (
        "hidden_card_after_tricks",  # 11.1
        "kitty_mult_tractor",  # 11.2
        "defender_win_demotes_declarer",  # 11.3
        "must_play_levels",  # 11.4
        "throw_partner_can_defeat",  # 11.5
        "throw_fail_penalty",  # 11.6
        "deal_direction",  # 11.7: the draw,
        "play_direction",  # play and rotation,
        "chao_order",  # and 炒 each their own knob
    ):
        assert knob in KNOB_DOCS
    assert any("五十K" in n for n in get_profile("NT").notes)


def test_the_direction_override_of_earlier_records_sets_draw_play_and_chao_order() -> None:
    # VARIANTS.md §11.7 L155: 「Keep one direction knob that drives dealing, 炒 order, play and
    # dealer rotation together, plus an override for 炒 order」 — the one knob older records use
    both = get_profile("XX", {"direction": "counterclockwise"})
    assert (both.deal_direction, both.play_direction, both.chao_order) == ("counterclockwise",) * 3
    assert both.direction == "counterclockwise"
    own = get_profile("XX", {"chao_order": "clockwise", "direction": "counterclockwise"})
    assert (own.play_direction, own.chao_order) == ("counterclockwise", "clockwise")
    assert "direction" in KNOB_RULES and "direction" not in knob_names()


def test_overrides_change_only_the_named_knob() -> None:
    base = get_profile("XX")
    changed = get_profile("XX", {"tractor_sj_level": True, "must_play_levels": ["A"]})
    assert changed.tractor_sj_level is True
    assert changed.must_play_levels == ("A",)
    assert dataclasses.replace(changed, tractor_sj_level=False, must_play_levels=("J", "A")) == base


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"no_such_knob": 1}, 'rules: unknown rule knob "no_such_knob"'),
        ({"tractor_hollow": "yes"}, 'rules.tractor_hollow: must be true or false, got "yes"'),
        ({"tractor_hollow": 1}, "rules.tractor_hollow: must be true or false, got 1"),
        ({"penalty_hidden_card": "eighty"}, "penalty_hidden_card: must be an integer from 0 to"),
        ({"kitty_size": None}, "rules.kitty_size: must be an integer from 4 to 12, got null"),
        (
            {"points_per_level": 0},
            "rules.points_per_level: must be an integer from 5 to 200, got 0",
        ),
        ({"turnover_points": 85.5}, "rules.turnover_points: must be an integer .* got 85.5"),
        ({"big_win_points": "200"}, 'big_win_points: must be an integer .*, or null, got "200"'),
        ({"must_play_levels": 1}, "rules.must_play_levels: must be a list of distinct ranks"),
        ({"must_play_levels": "A"}, 'must_play_levels: must be a list .* got "A"'),
        ({"must_play_levels": ["A", "A"]}, "must_play_levels: must be a list of distinct"),
        ({"jump_wins_at_levels": ["1"]}, 'jump_wins_at_levels: .* got "1" in the list'),
        ({"direction": "sideways"}, 'direction: must be one of "clockwise", "counterclockwise"'),
        ({"play_time_limit_s": float("inf")}, "play_time_limit_s: must be a number .* Infinity"),
        ({"play_time_limit_s": 0}, "play_time_limit_s: must be a number from 1 to 3600, or null"),
        ({"match_best_of": 2}, "match_best_of: must be one of 1, 3, 5, 7, 9, got 2"),
    ],
)
def test_bad_overrides_raise_a_one_line_error_naming_the_knob_and_what_is_allowed(
    overrides: dict[str, object], message: str
) -> None:
    with pytest.raises(ProfileError, match=message) as err:
        get_profile("XX", overrides)
    assert "\n" not in str(err.value)


def test_an_override_error_names_where_the_overrides_came_from() -> None:
    with pytest.raises(ProfileError, match=r"^rule_overrides\.kitty_size: "):
        get_profile("XX", {"kitty_size": 99}, where="rule_overrides")
    with pytest.raises(ProfileError, match="rule_overrides: must be an object"):
        get_profile("XX", ["kitty_size"], where="rule_overrides")  # type: ignore[arg-type]


def test_good_overrides_take_the_knobs_own_form() -> None:
    changed = get_profile(
        "HF", {"play_time_limit_s": 20, "big_win_points": None, "jump_wins_at_levels": []}
    )
    assert changed.play_time_limit_s == 20.0 and isinstance(changed.play_time_limit_s, float)
    assert changed.big_win_points is None
    assert changed.jump_wins_at_levels == ()


def test_every_numeric_knob_has_its_range_written_beside_it() -> None:
    fields = {f.name: f for f in dataclasses.fields(RuleProfile)}
    for knob, rule in KNOB_RULES.items():
        if rule.kind in ("int", "float"):
            assert {"low", "high"} <= set(fields[knob].metadata), knob
            assert rule.low <= rule.high, knob


def test_the_record_schema_states_every_knobs_rule() -> None:
    schema = json.loads((ROOT / "engine/schema/hand-record.schema.json").read_text("utf-8"))
    overrides = schema["properties"]["rule_overrides"]
    assert overrides["additionalProperties"] is False
    assert overrides["properties"] == {k: r.json_schema() for k, r in KNOB_RULES.items()}


def test_every_profile_keeps_to_its_own_knob_rules() -> None:
    for name in PROFILE_NAMES:
        profile = get_profile(name)
        for knob, rule in KNOB_RULES.items():
            assert rule.check(getattr(profile, knob), knob) == getattr(profile, knob), (name, knob)


def test_unknown_profile_names_the_choices() -> None:
    with pytest.raises(ProfileError, match="choose one of A, NT, XX"):
        get_profile("QQ")


def test_profiles_markdown_is_up_to_date() -> None:
    committed = (ROOT / "engine" / "PROFILES.md").read_text(encoding="utf-8")
    assert committed.strip() == profiles_markdown().strip(), (
        "run: chaodipi profiles --markdown > engine/PROFILES.md"
    )


def test_profiles_command_lists_every_profile() -> None:
    out = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "profiles"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    ).stdout
    for name in PROFILE_NAMES:
        assert re.search(rf"^{name}\s", out, re.M)
