"""Properties over simulated hands (hypothesis): conservation, clean audits, planted infractions.

The simulator knows the true hands and what it planted; the auditor sees only the record (the
plays, or the plays and the hands). Neither calls the other to decide the truth.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.audit import audit
from engine.cards import ALL_IDENTITIES, RANKS, full_deck, points
from engine.order import HandOrder, hand_order
from engine.profiles import PROFILE_NAMES, get_profile, knob_names
from engine.record import load_record
from engine.simulate import INJECTABLE, simulate_hand
from tests.builders import all_cards

seeds = st.integers(min_value=0, max_value=10**6)
profiles = st.sampled_from(PROFILE_NAMES)
FAST = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FAST
@given(seed=seeds, rules=profiles)
def test_a_simulated_deal_conserves_108_cards_and_200_points(seed: int, rules: str) -> None:
    record, truth = simulate_hand(rules, seed)
    assert truth == []
    assert Counter(all_cards(record)) == Counter(full_deck())
    assert points(all_cards(record)) == 200


@FAST
@given(seed=seeds, rules=profiles, with_hands=st.booleans())
def test_simulated_legal_hands_audit_clean_under_every_profile(
    seed: int, rules: str, with_hands: bool
) -> None:
    record, _ = simulate_hand(rules, seed, with_hands=with_hands)
    report = audit(load_record(record))
    assert report.infractions == []
    assert report.finished and report.result is not None
    assert sum(t.points for t in report.tricks) + report.kitty.points == 200


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=seeds, rules=profiles, kind=st.sampled_from(INJECTABLE), with_hands=st.booleans())
def test_every_planted_infraction_is_found_with_its_kind_seat_and_trick_and_nothing_else(
    seed: int, rules: str, kind: str, with_hands: bool
) -> None:
    record, truth = simulate_hand(rules, seed, [kind], with_hands=with_hands)
    found = [(i.kind, i.seat, i.trick) for i in audit(load_record(record)).infractions]
    assert sorted(found, key=str) == sorted(
        ((t["kind"], t["seat"], t["trick"]) for t in truth), key=str
    )


@FAST
@given(seed=seeds, first=profiles, second=profiles, kind=st.sampled_from(("", *INJECTABLE)))
def test_two_profiles_differ_only_where_their_knobs_differ(
    seed: int, first: str, second: str, kind: str
) -> None:
    # The profile's name carries no rule of its own: the first profile with the second one's
    # differing knobs as overrides audits exactly as the second profile.
    record, _ = simulate_hand(first, seed, [kind] if kind else [])
    a, b = get_profile(first), get_profile(second)
    differing = {k: getattr(b, k) for k in knob_names() if getattr(a, k) != getattr(b, k)}
    as_second = audit(load_record({**record, "rules": second, "rule_overrides": {}})).to_json()
    overridden = audit(
        load_record({**record, "rules": first, "rule_overrides": _jsonable(differing)})
    ).to_json()
    as_second.pop("rules")
    overridden.pop("rules")
    assert overridden == as_second
    if not differing:
        assert dataclasses.replace(a, name=b.name, title=b.title, notes=b.notes) == b


def _jsonable(knobs: dict[str, Any]) -> dict[str, Any]:
    return {k: list(v) if isinstance(v, tuple) else v for k, v in knobs.items()}


@FAST
@given(
    rules=profiles,
    level=st.sampled_from(RANKS),
    trump=st.sampled_from(("S", "H", "D", "C", "NT")),
    red_five=st.booleans(),
    equal_level=st.booleans(),
)
def test_every_card_order_ranks_all_54_identities_with_the_top_trump_on_top(
    rules: str, level: str, trump: str, red_five: bool, equal_level: bool
) -> None:
    # VARIANTS.md §4: BJ tops the standard ladder (004 L23), ♥5 NT's 紅五星 ladder (000 L37)
    knobs: dict[str, Any] = {
        "trump_order": "red_five_star" if red_five else "standard",
        "offsuit_level_equal": equal_level,
    }
    order = hand_order(level, trump, get_profile(rules, knobs))
    assert order == HandOrder(level, trump, get_profile(rules, knobs))  # the cache changes nothing
    assert set(order.info) == set(ALL_IDENTITIES)
    top = max(ALL_IDENTITIES, key=order.strength)
    assert top == ("5H" if red_five else "BJ")
    for cls, ladder in order.ladders.items():
        assert len(order.adjacent[cls]) == len(ladder) - 1
        for i, slot in enumerate(ladder):
            assert all(order.cls(c) == cls and order.slot(c) == i for c in slot)
