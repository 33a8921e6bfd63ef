"""Hand simulator: a whole deal played by sensible, legal players, with optional planted faults.

:func:`simulate_hand` is the entry point: it draws and bids (:mod:`engine.preplay.bidding`:
the draw, declarations and 炒 by the profile's rules, the kitty's burials) and plays one hand
with :class:`engine.sim_faults.FaultyPlayers` (the sensible, legal players of
:mod:`engine.sim_players` that also plant the faults asked of them), times it, and turns it
into a hand record (format ``chaodipi-hand/1``, see :mod:`engine.record`) and the ground truth
of what was planted: a list of ``{"kind", "seat", "trick"}`` (trick 1-based, ``None`` for the
kitty and before play). The truth comes from the simulator's own knowledge (true hands, what
it changed), never from the auditor. A clean simulated hand audits with no infraction under
every profile.

This module owns the driver (retrying a deal whose faults could not all be planted), the
play timings and the record. What each plantable kind (:data:`INJECTABLE`) changes, and which
kind the truth then shows, is told in :mod:`engine.sim_faults`.

A kind that cannot be planted in a deal is retried on a few fresh deals (derived
deterministically from the seed); if it still cannot be, it is left out of the truth. With
``seen_by_camera`` (footage for ``chaodipi replay-eval``) a fault planted before play counts as
planted only when the record as an overhead camera gives it (:func:`camera_record`: the cards
shown, no kitty move, no pass) proves it: an illegal 炒 that only the kitty moves or the passes
prove (out of turn, before the burial, after a no-bid flip) is redrawn on a fresh deal, so that
the camera can see what was planted; when no deal gives one, the planted fault is kept in the
truth (the score lists it as off camera). A
``kitty_size`` override that does not leave a multiple of 4 cards cannot be dealt evenly: the
simulator then deals 25 a seat and a kitty of the rest, which the auditor rightly flags.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from engine.audit import KINDS, audit
from engine.cards import SEATS
from engine.preplay.bidding import PLANTABLE
from engine.preplay.fields import DECLARING
from engine.profiles import RuleProfile, get_profile
from engine.record import FORMAT, load_record
from engine.sim_faults import FaultyPlayers

INJECTABLE: tuple[str, ...] = (*KINDS, *PLANTABLE, "exposed_card", "takeback")
"""Every kind of the tricks' audit, and those before play and beside the tricks that a table
commits (a wrong trump, dealer or draw, or a redeal, are the record's or the referee's
matter and are not planted)."""

_ATTEMPTS = 8
CAMERA_KEYS: tuple[str, ...] = (
    "format",
    "rules",
    "rule_overrides",
    "levels",
    "declarer",
    "trump",
    "tricks",
    "kitty",
    "takebacks",
    "exposed",
)
"""What a record built from footage holds (:mod:`vision.game_feed`): the referee's contract,
the tricks, the kitty shown at the end, takebacks and exposed cards; and ``before_play``."""


def _times(sim: FaultyPlayers) -> tuple[float, float, list[list[float]]]:
    """When the kitty was taken and buried, and when each play landed (planting ``overtime``)."""
    rng, p = sim.rng, sim.profile
    limit = p.play_time_limit_s
    hi = 12.0 if limit is None else max(0.0, min(12.0, 0.8 * limit))
    lo = min(1.0, hi / 2)
    bury_hi = 50.0 if p.bury_time_limit_s is None else min(50.0, 0.8 * p.bury_time_limit_s)
    taken, buried = sim.bidding.kitty_taken_t, sim.bidding.kitty_buried_t
    if buried - taken > bury_hi:  # a bury_time_limit_s override below the bidding's pace
        buried = round(taken + bury_hi, 1)
    overtime = sim.plant_overtime()
    out: list[list[float]] = []
    now = buried
    for t, trick in enumerate(sim.tricks):
        row = []
        for i in range(len(trick.plays)):
            if overtime == (t, i):
                assert limit is not None
                gap = max(rng.uniform(16.0, 30.0), limit + rng.uniform(1.0, 15.0))
            else:
                gap = rng.uniform(lo, hi)
            now = round(now + gap, 1)
            row.append(now)
        out.append(row)
    return taken, buried, out


def _record(sim: FaultyPlayers) -> dict[str, Any]:
    """The hand record of the hand ``sim`` played, timed with ``with_times``."""
    rec: dict[str, Any] = {
        "format": FORMAT,
        "rules": sim.rules,
        "rule_overrides": dict(sim.overrides),
        "levels": dict(sim.levels),
        "declarer": sim.declarer,
        "trump": sim.trump,
        "kitty": list(sim.kitty),
    }
    times = _times(sim) if sim.with_times and not sim.ended else None
    if times is not None:
        rec["kitty_taken_t"], rec["kitty_buried_t"] = times[0], times[1]
    _before_play(sim, rec, times)
    if sim.with_hands and not sim.ended:
        rec["hands"] = {
            s: sorted(sim.initial[s].elements(), key=lambda c: -sim.strength(c)) for s in SEATS
        }
    rec["finished"] = True
    tricks = []
    for t, trick in enumerate(sim.tricks):
        plays = []
        for i, (seat, cards) in enumerate(trick.plays):
            play: dict[str, Any] = {"seat": seat, "cards": list(cards)}
            if times is not None:
                play["t"] = times[2][t][i]
            plays.append(play)
        tricks.append({"plays": plays})
    rec["tricks"] = tricks
    incidents: dict[str, list[dict[str, Any]]] = {}
    for kind, seat, t, cards in sim.incidents:
        item: dict[str, Any] = {"seat": seat, "cards": list(cards), "trick": t + 1}
        if times is not None:
            i = [s for s, _ in sim.tricks[t].plays].index(seat)
            item["t"] = round(times[2][t][i] + 0.4, 1)
        incidents.setdefault("exposed" if kind == "exposed_card" else "takebacks", []).append(item)
    rec.update(incidents)
    return rec


def _before_play(
    sim: FaultyPlayers, rec: dict[str, Any], times: tuple[float, float, Any] | None
) -> None:
    """The draw and the bidding into ``rec`` (times only in a timed record; the last burial
    names the kitty as it ended, a planted kitty count included)."""
    b = sim.bidding
    timed = sim.with_times

    def strip(d: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in d.items() if timed or k not in ("t", "revealed_t")}

    if b.first_hand:
        rec["first_hand"] = True
    rec["draw"] = strip(b.draw)
    events = [strip(e) for e in b.events]
    burials = [e for e in events if e["action"] == "bury"]
    if burials and not sim.ended:
        last = burials[-1]  # the final burial: the kitty as the record ends it
        lone = len(events) < 2 or events[events.index(last) - 1]["action"] != "bury"
        if lone:  # its cards are the record's kitty: a count says enough
            last.pop("cards", None)
            last["count"] = len(sim.kitty)
        if times is not None:
            last["t"] = times[1]
    rec["before_play"] = events
    if b.no_bid_flip is not None:
        rec["no_bid_flip"] = list(b.no_bid_flip)
    if b.dealer_by_rotation is not None:
        rec["dealer_by_rotation"] = b.dealer_by_rotation


def _run_once(
    rules: str,
    rng: random.Random,
    kinds: tuple[str, ...],
    overrides: Mapping[str, Any] | None,
    with_times: bool,
    with_hands: bool,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    sim = FaultyPlayers(rules, dict(overrides or {}), rng, kinds, with_times, with_hands)
    sim.play()
    sim.plant_kitty_count()
    sim.plant_duplicate()
    sim.plant_out_of_turn()
    sim.plant_incidents()
    record = _record(sim)
    return record, sim.truth()


def _expected(kind: str, profile: RuleProfile, with_times: bool, with_hands: bool) -> str | None:
    """The kind the truth should show for a requested ``kind``; None if it cannot be planted."""
    hcat = profile.hidden_card_after_tricks
    if kind == "illegal_chao" and profile.illegal_chao_is_false_declaration:
        return "false_declaration"
    if kind == "overtime" and not (with_times and profile.play_time_limit_s is not None):
        return None
    if kind == "duplicate_card" and with_hands:
        return None
    if kind in ("revoke", "hidden_cards"):
        delay = 0 if with_hands else (1 if kind == "revoke" else max(hcat, 1))
        return "hidden_cards" if delay >= hcat else "revoke"
    return kind


def camera_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """``record`` as the overhead camera gives it to the audit (:mod:`vision.game_feed`): the
    contract, the tricks, the kitty and the incidents, and of the draw phase only the cards
    each seat showed, every showing a face-up ``declare`` (the camera sees no kitty move, no
    pass and no draw, so it cannot tell a 叫主 from a 炒)."""
    out = {k: record[k] for k in CAMERA_KEYS if k in record}
    shown = [
        {"seat": e["seat"], "action": "declare", "cards": list(e["cards"])}
        for e in record.get("before_play") or ()
        if e.get("action") in DECLARING and e.get("cards")
    ]
    if shown:
        out["before_play"] = shown
    return out


def off_camera(record: Mapping[str, Any], truth: Sequence[Mapping[str, Any]]) -> list[int]:
    """The indexes of the planted faults before play (trick ``None``, kinds of
    :data:`engine.preplay.bidding.PLANTABLE` or ``false_declaration``) that the audit of
    :func:`camera_record` does not find."""
    before = [
        i
        for i, t in enumerate(truth)
        if t.get("trick") is None and (t["kind"] in PLANTABLE or t["kind"] == "false_declaration")
    ]
    if not before:
        return []
    seen = Counter(
        (f.kind, f.seat)
        for f in audit(load_record(camera_record(record))).infractions
        if f.trick is None
    )
    out = []
    for i in before:
        key = (str(truth[i]["kind"]), str(truth[i]["seat"]))
        if seen[key] > 0:
            seen[key] -= 1
        else:
            out.append(i)
    return out


def simulate_hand(
    rules: str,
    seed: int,
    inject: Sequence[str] = (),
    *,
    overrides: Mapping[str, Any] | None = None,
    with_times: bool = True,
    with_hands: bool = False,
    seen_by_camera: bool = False,
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A simulated hand record (``chaodipi-hand/1``) and the truth of the planted infractions.

    ``inject`` names kinds from :data:`INJECTABLE`, each planted once in its own trick; the
    truth lists ``{"kind", "seat", "trick"}`` (trick 1-based, None for the kitty) for each that
    could be planted (see :mod:`engine.sim_faults` for what each kind changes, which kind
    the auditor should report, and when one cannot be planted). ``seen_by_camera``: a fault
    before play counts only when the camera's view of the record proves it (see the module
    docstring). Deterministic in ``seed``.
    """
    unknown = [k for k in inject if k not in INJECTABLE]
    if unknown:
        raise ValueError(
            f"cannot plant {', '.join(map(repr, unknown))}: choose from {', '.join(INJECTABLE)}"
        )
    kinds = tuple(dict.fromkeys(inject))
    profile = get_profile(rules, overrides)
    wanted: Counter[str] = Counter()
    for k in kinds:
        e = _expected(k, profile, with_times, with_hands)
        if e is not None:
            wanted[e] += 1
    best: tuple[dict[str, Any], list[dict[str, Any]]] | None = None
    best_n = -1
    for attempt in range(_ATTEMPTS if kinds else 1):
        rng = random.Random(seed) if attempt == 0 else random.Random(f"{seed}/{attempt}")
        record, truth = _run_once(rules, rng, kinds, overrides, with_times, with_hands)
        unseen = set(off_camera(record, truth)) if seen_by_camera else set()
        got = Counter(t["kind"] for i, t in enumerate(truth) if i not in unseen)
        n = sum((got & wanted).values())
        if n > best_n:
            best, best_n = (record, truth), n
        if got == wanted:
            break
    assert best is not None
    return best
