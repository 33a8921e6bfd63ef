"""Scoring a replay against the ground truth: plays, landing times, kitty and infractions.

This module owns :func:`score_events`, which compares the events a replay produced with the
ground-truth events of rendered footage (``ground_truth.jsonl`` of ``chaodipi render``) for one
hand record (its contract: rules, levels, declarer, trump):

* both event lists (plays, cleared tricks, the kitty, takebacks, exposed cards and the draw
  phase's declarations) are fed
  into a :class:`vision.game_feed.GameFeed` with the record's contract, which splits them
  into tricks exactly as the live pipeline does; a play is *exactly right* when the recovered
  record has, at the same trick and seat, the same card multiset (a play's cards taken back
  are not in it); plays the truth lacks are *extra*; planted takebacks, exposed cards, false
  declarations and illegal 炒 are scored as every other infraction;
* the *landing-time error* of each exactly right play is ``|t_recovered − t_true|``;
* infractions are ``(kind, seat, trick)`` of the engine's audits: the *recovered* audit, the
  *camera truth* (the audit of the truth events: what a perfect tracker would give the engine,
  on the footage's clock) and the *full record* (the record as dealt, with its kitty times; what
  only the full record shows is *off camera*). A recovered infraction that the camera truth
  lacks is *false*; one the camera truth has and the recovery lacks is *missed*; the planted
  ones (``{"kind", "seat", "trick"}`` of ``chaodipi simulate --inject``) are *found* when the
  recovered audit has them, else *off camera* when the camera truth lacks them too (the
  footage never shows what proves them: not a miss of the pipeline), else *missed*;
* a recovered infraction whose proof rests on a card the camera read unsure
  (:attr:`engine.audit.Infraction.to_check`) goes to the referee as a question, not asserted:
  false and planted ones are counted apart by that tier (``false_to_check``,
  ``injected_to_check``: found, but only as a question);
* an unsure card may come with the camera's runner-up read (``maybe``), which the referee
  console offers as a one-click correction: a wrong play is *fixed by its runner-up* when
  taking one (or all) of its runner-ups gives the true cards, and ``false_after_runner_up``
  are the false infractions still left once the referee has taken exactly those.
"""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from chaodipi.table.hand_fold import kitty_as_play, runner_up_fixes, with_kitty
from engine.audit import AuditReport, audit
from engine.record import load_record
from vision.game_feed import GameFeed
from vision.tracking import multiset

FEED_TYPES = frozenset(
    {"play", "trick_cleared", "kitty", "takeback", "exposed_card", "declaration"}
)

InfractionKey = tuple[str, str, int | None]


def feed_events(events: Iterable[Mapping[str, Any]], record: Mapping[str, Any]) -> GameFeed:
    """A game feed with ``record``'s contract, fed the play / trick_cleared / kitty events."""
    feed = GameFeed(
        str(record.get("rules", "XX")),
        record.get("levels"),
        str(record.get("declarer", "S")),
        str(record.get("trump", "NT")),
        rule_overrides=record.get("rule_overrides"),
    )
    for event in events:
        if event.get("type") not in FEED_TYPES:
            continue
        if event.get("type") == "play" and event.get("t_stable") is None:
            event = {**event, "t_stable": event.get("t_landed")}  # ground truth has none
        feed.apply(event)
    return feed


def infraction_keys(report: AuditReport, *, to_check: bool | None = None) -> list[InfractionKey]:
    """``(kind, seat, trick)`` of the infractions in an audit, in the audit's order: all of
    them, or only those that are (``to_check=True``) or are not (``False``) for the referee to
    check."""
    return [
        (i.kind, i.seat, i.trick)
        for i in report.infractions
        if to_check is None or i.to_check == to_check
    ]


def _key(item: Mapping[str, Any]) -> InfractionKey:
    trick = item.get("trick")
    return str(item["kind"]), str(item["seat"]), None if trick is None else int(trick)


def _minus(a: Sequence[InfractionKey], b: Sequence[InfractionKey]) -> list[InfractionKey]:
    return sorted((Counter(a) - Counter(b)).elements(), key=_sort)


def _sort(k: InfractionKey) -> tuple[int, str, str]:
    return (k[2] or 0, k[1], k[0])


def _as_json(keys: Iterable[InfractionKey]) -> list[dict[str, Any]]:
    return [{"kind": k, "seat": s, "trick": t} for k, s, t in keys]


def _percentile(values: Sequence[float], q: float) -> float | None:
    if not values:
        return None
    ordered = sorted(values)
    pos = q * (len(ordered) - 1)
    lo = int(pos)
    hi = min(lo + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


@dataclass
class PlayMatch:
    """One true play and what the recovery has at its trick and seat."""

    trick: int
    seat: str
    true_cards: tuple[str, ...]
    recovered_cards: tuple[str, ...] | None
    true_t: float | None
    recovered_t: float | None
    runner_up_fixes: bool = False
    """Whether taking the play's runner-up read(s) gives the true cards (a wrong play only)."""

    @property
    def exact(self) -> bool:
        return self.recovered_cards is not None and multiset(self.recovered_cards) == multiset(
            self.true_cards
        )

    @property
    def error_s(self) -> float | None:
        if not self.exact or self.true_t is None or self.recovered_t is None:
            return None
        return abs(self.recovered_t - self.true_t)


@dataclass
class Score:
    """How a replay compares with the truth (see the module docstring)."""

    matches: list[PlayMatch]
    extra_plays: list[dict[str, Any]]
    kitty_true: tuple[str, ...] | None
    kitty_recovered: tuple[str, ...] | None
    recovered: list[InfractionKey]
    camera_truth: list[InfractionKey]
    full_record: list[InfractionKey]
    injected: list[InfractionKey] | None
    conflicts: Counter[str] = field(default_factory=Counter)
    unsure_plays: set[tuple[int, str]] = field(default_factory=set)
    """(trick, seat) of the recovered plays that name unsure reads (``PlayEvent.unsure``)."""
    to_check: list[InfractionKey] = field(default_factory=list)
    """The recovered infractions whose proof rests on an unsure read (a multiset of keys)."""
    after_runner_up: list[InfractionKey] = field(default_factory=list)
    """The recovered infractions once the wrong plays its runner-up reads fix are fixed."""

    @property
    def plays_total(self) -> int:
        return len(self.matches)

    @property
    def plays_exact(self) -> int:
        return sum(m.exact for m in self.matches)

    @property
    def plays_fraction(self) -> float | None:
        return self.plays_exact / self.plays_total if self.matches else None

    @property
    def errors_s(self) -> list[float]:
        return [e for m in self.matches if (e := m.error_s) is not None]

    @property
    def false_infractions(self) -> list[InfractionKey]:
        return _minus(self.recovered, self.camera_truth)

    @property
    def asserted(self) -> list[InfractionKey]:
        """The recovered infractions the audit asserts (their proof rests on sure reads)."""
        return _minus(self.recovered, self.to_check)

    @property
    def false_asserted(self) -> list[InfractionKey]:
        return _minus(self.asserted, self.camera_truth)

    @property
    def false_to_check(self) -> list[InfractionKey]:
        """False infractions put to the referee as a question (resting on an unsure read)."""
        return _minus(self.false_infractions, self.false_asserted)

    @property
    def false_after_runner_up(self) -> list[InfractionKey]:
        """False infractions left once the referee took the runner-up reads that were right."""
        return _minus(self.after_runner_up, self.camera_truth)

    def unsure_counts(self) -> dict[str, int]:
        """Plays naming an unsure read, among the exactly right and the wrong ones."""
        named = [m for m in self.matches if (m.trick, m.seat) in self.unsure_plays]
        exact = sum(m.exact for m in named)
        return {"exact": exact, "wrong": len(named) - exact}

    @property
    def missed_infractions(self) -> list[InfractionKey]:
        return _minus(self.camera_truth, self.recovered)

    @property
    def off_camera(self) -> list[InfractionKey]:
        return _minus(self.full_record, self.camera_truth)

    @property
    def injected_found(self) -> list[InfractionKey]:
        have = Counter(self.recovered)
        return [k for k in self.injected or () if have[k] > 0]

    @property
    def injected_to_check(self) -> list[InfractionKey]:
        """Planted infractions found only as a question (no asserted copy)."""
        have = Counter(self.asserted)
        return [k for k in self.injected_found if have[k] == 0]

    @property
    def injected_off_camera(self) -> list[InfractionKey]:
        """Planted infractions neither recovered nor in the camera truth: only the full record
        proves them (see the module docstring)."""
        found, seen = set(self.injected_found), set(self.camera_truth)
        return [k for k in self.injected or () if k not in found and k not in seen]

    @property
    def injected_missed(self) -> list[InfractionKey]:
        """Planted infractions the camera truth has and the recovery lacks."""
        found, unseen = set(self.injected_found), set(self.injected_off_camera)
        return [k for k in self.injected or () if k not in found and k not in unseen]

    @property
    def kitty_right(self) -> bool | None:
        if self.kitty_true is None:
            return None if self.kitty_recovered is None else False
        if self.kitty_recovered is None:
            return False
        return multiset(self.kitty_true) == multiset(self.kitty_recovered)

    def to_json(self) -> dict[str, Any]:
        errors = self.errors_s

        def r(x: float | None) -> float | None:
            return None if x is None else round(x, 4)

        return {
            "plays": {
                "total": self.plays_total,
                "exact": self.plays_exact,
                "fraction": r(self.plays_fraction),
                "extra": len(self.extra_plays),
                "wrong": [
                    {
                        "trick": m.trick,
                        "seat": m.seat,
                        "true": list(m.true_cards),
                        "recovered": None if m.recovered_cards is None else list(m.recovered_cards),
                        "fixed_by_runner_up": m.runner_up_fixes,
                    }
                    for m in self.matches
                    if not m.exact
                ],
                "extra_plays": self.extra_plays,
                "unsure": self.unsure_counts(),
                "wrong_fixed_by_runner_up": sum(m.runner_up_fixes for m in self.matches),
            },
            "landing_error_s": {
                "n": len(errors),
                "median": r(statistics.median(errors)) if errors else None,
                "p90": r(_percentile(errors, 0.9)),
                "max": r(max(errors)) if errors else None,
                "values": [round(e, 4) for e in errors],
            },
            "kitty": {
                "right": self.kitty_right,
                "true": None if self.kitty_true is None else list(self.kitty_true),
                "recovered": None if self.kitty_recovered is None else list(self.kitty_recovered),
            },
            "infractions": {
                "recovered": _as_json(self.recovered),
                "camera_truth": _as_json(self.camera_truth),
                "full_record": _as_json(self.full_record),
                "to_check": _as_json(self.to_check),
                "false": _as_json(self.false_infractions),
                "false_to_check": _as_json(self.false_to_check),
                "false_after_runner_up": _as_json(self.false_after_runner_up),
                "missed": _as_json(self.missed_infractions),
                "off_camera": _as_json(self.off_camera),
                "injected": None if self.injected is None else _as_json(self.injected),
                "injected_found": _as_json(self.injected_found),
                "injected_to_check": _as_json(self.injected_to_check),
                "injected_missed": _as_json(self.injected_missed),
                "injected_off_camera": _as_json(self.injected_off_camera),
            },
            "conflicts": dict(sorted(self.conflicts.items())),
        }

    def text(self) -> str:
        """A few lines for the operator."""
        j = self.to_json()
        p, e, inf = j["plays"], j["landing_error_s"], j["infractions"]
        frac = "-" if p["fraction"] is None else f"{100 * p['fraction']:.1f}%"

        def keys(items: list[dict[str, Any]]) -> str:
            return ", ".join(f"{i['kind']} {i['seat']} t{i['trick']}" for i in items) or "none"

        def sec(x: float | None) -> str:
            return "-" if x is None else f"{x:.3f}"

        lines = [
            f"plays exactly right: {p['exact']}/{p['total']} ({frac}), {p['extra']} extra",
            f"landing-time error s: median {sec(e['median'])}, p90 {sec(e['p90'])}, "
            f"max {sec(e['max'])} (n={e['n']})",
            f"kitty right: {j['kitty']['right']}",
            f"infractions recovered: {keys(inf['recovered'])}",
            f"false infractions: {keys(inf['false'])} (to check, resting on an unsure read: "
            f"{keys(inf['false_to_check'])}); missed: {keys(inf['missed'])}",
            f"wrong plays the runner-up read fixes: {p['wrong_fixed_by_runner_up']}; false "
            f"infractions left after those fixes: {keys(inf['false_after_runner_up'])}",
        ]
        if self.injected is not None:
            lines.append(
                f"injected found: {len(self.injected_found)}/{len(self.injected)}"
                f" (missed: {keys(inf['injected_missed'])}; only to check: "
                f"{keys(inf['injected_to_check'])}; off camera: "
                f"{keys(inf['injected_off_camera'])})"
            )
        if self.off_camera:
            lines.append(f"off camera (full record only): {keys(inf['off_camera'])}")
        if self.conflicts:
            lines.append(
                "recognition conflicts: "
                + ", ".join(f"{k} ×{n}" for k, n in sorted(self.conflicts.items()))
            )
        return "\n".join(lines)


def runner_up_readings(play: Mapping[str, Any]) -> list[tuple[str, ...]]:
    """The play's cards with one of its unsure cards read as its runner-up (``maybe``), one
    reading per such card, then with all of them so read (when more than one)."""
    out = [tuple(cards) for cards in runner_up_fixes(play).values()]
    if len(out) > 1:
        every = list(play["cards"])
        for card, other in play["maybe"].items():
            if card in every:
                every[every.index(card)] = other
        out.append(tuple(every))
    return out


def _taking_runner_ups(
    record: Mapping[str, Any],
    fixes: Mapping[tuple[int, str], tuple[str, ...]],
    kitty: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """``record`` with the plays of ``fixes`` (and the ``kitty``, when given) corrected as the
    referee would (sure now)."""
    out = {**(record if kitty is None else with_kitty(record, kitty)), "tricks": []}
    for number, trick in enumerate(record.get("tricks", []), start=1):
        plays = []
        for play in trick["plays"]:
            fix = fixes.get((number, str(play["seat"])))
            if fix is not None:
                play = {k: v for k, v in play.items() if k not in ("unsure", "maybe")}
                play["cards"] = list(fix)
            plays.append(play)
        out["tricks"].append({**trick, "plays": plays})
    return out


def _plays(record: Mapping[str, Any]) -> dict[tuple[int, str], dict[str, Any]]:
    return {
        (number, str(play["seat"])): play
        for number, trick in enumerate(record.get("tricks", []), start=1)
        for play in trick["plays"]
    }


def score_events(
    predicted: Sequence[Mapping[str, Any]],
    truth: Sequence[Mapping[str, Any]],
    record: Mapping[str, Any],
    *,
    injected: Sequence[Mapping[str, Any]] | None = None,
) -> Score:
    """Compare replay events with ground-truth events for the hand ``record``.

    ``predicted`` and ``truth`` are event JSON objects (``vision.events``; other types, e.g.
    ``calibration_drift``, are ignored for the record); ``record`` gives the contract and the
    full-record audit; ``injected`` is the planted truth, if any.
    """
    rec_feed = feed_events(predicted, record)
    true_feed = feed_events(truth, record)
    rec, true = rec_feed.record, true_feed.record
    got = _plays(rec)
    want = _plays(true)
    matches = []
    fixes: dict[tuple[int, str], tuple[str, ...]] = {}
    for (number, seat), play in want.items():
        other = got.get((number, seat))
        truth_cards = multiset(play["cards"])
        if other is not None and multiset(other["cards"]) != truth_cards:
            fix = next((r for r in runner_up_readings(other) if multiset(r) == truth_cards), None)
            if fix is not None:
                fixes[(number, seat)] = fix
        matches.append(
            PlayMatch(
                number,
                seat,
                tuple(play["cards"]),
                None if other is None else tuple(other["cards"]),
                play.get("t"),
                None if other is None else other.get("t"),
                (number, seat) in fixes,
            )
        )
    extra = [
        {"trick": n, "seat": s, "cards": list(p["cards"])}
        for (n, s), p in got.items()
        if (n, s) not in want
    ]
    conflicts: Counter[str] = Counter(
        str(e.get("kind")) for e in predicted if e.get("type") == "recognition_conflict"
    )
    unsure_plays = {(number, seat) for (number, seat), play in got.items() if play.get("unsure")}
    kitty_true, kitty_rec = true.get("kitty"), rec.get("kitty")
    kitty_fix = None
    if kitty_true is not None and kitty_rec is not None:
        readings = runner_up_readings(kitty_as_play(rec))
        kitty_fix = next((r for r in readings if multiset(r) == multiset(kitty_true)), None)
    recovered_audit = rec_feed.audit()
    after = recovered_audit
    if fixes or kitty_fix is not None:
        after = audit(load_record(_taking_runner_ups(rec, fixes, kitty_fix)))
    return Score(
        matches=matches,
        extra_plays=extra,
        kitty_true=None if kitty_true is None else tuple(kitty_true),
        kitty_recovered=None if kitty_rec is None else tuple(kitty_rec),
        recovered=infraction_keys(recovered_audit),
        camera_truth=infraction_keys(true_feed.audit()),
        full_record=infraction_keys(audit(load_record(record))),
        injected=None if injected is None else [_key(i) for i in injected],
        conflicts=conflicts,
        unsure_plays=unsure_plays,
        to_check=infraction_keys(recovered_audit, to_check=True),
        after_runner_up=infraction_keys(after),
    )
