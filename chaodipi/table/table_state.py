"""A table's whole state as a pure fold of its event log, and its JSON for the web.

This module owns :func:`fold` and :class:`TableState` (``web_dashboard/API.md``, "State
JSON"). :meth:`TableState.apply` takes one :class:`~chaodipi.table.store.StoredEvent` at a time, so
the live state follows the log cheaply; folding the whole log again gives the identical state
(restarting is reading the rows and folding). Nothing here reads clocks or files: ``now`` is
passed to the JSON methods.

* Hands (:class:`~chaodipi.table.hand_fold.HandFold`) are numbered for the whole table. The log
starts
  with ``hand_started`` (the service appends it); before it a default hand 1 exists.
* ``next_hand`` closes the current hand: its result — with only the confirmed penalties — goes
  into the match (:class:`engine.match.MatchState`: levels carry over, a game passed A is won
  and the next game starts from 2), and the next hand starts with the game's levels, the
  result's next declarer, the same rules and trump ``NT`` until the referee sets it. An
  unfinished hand that is left changes nothing. ``hand_started`` then states that hand's
  contract (the service appends ``next_hand``, ``hand_finished`` and ``hand_started`` in one
  transaction; ``hand_finished`` only records the result for the hub).
* ``next_match`` starts a new match from levels 2–2.
* An event that cannot apply (a bad logged payload) is skipped with a note for the referee; the
  fold never fails. Notes are data (``notes_data``: a kind and its facts) with an English line
  each (``notes``).
* The seat clock (``hand.clock``) runs from the hand's last play for the seat to play next.
  Before the hand's first play there is none: the first lead is timed from the kitty's burial,
  which the camera does not see. It stops :data:`IDLE_AFTER_S` after the last play (the hand is
  idle) or at the camera's last frame once its health says frames stopped coming (the source
  ended or stalled, :data:`CAMERA_STOPPED_S`), so both follow from the log alone.

* A contract may carry the hand's bidding: ``before_play`` (declarations, 炒, passes and the
  kitty's moves in order), ``draw`` and ``dealer_by_rotation`` (:mod:`engine.preplay.fields`),
  given by ``hand_started`` or ``contract_set`` and checked with the record; the next hand
  starts without them. A ``contract_set`` replaces each one it gives; one given as null is
  removed. A hand whose contract gives ``dealer_by_rotation`` is a later hand of its game
  (the engine reads its dealer by ``later_dealer_rule``), even the log's first. The state's
  ``hand.before_play`` lists the bidding when given. :func:`follow_bidding` gives the
  declarer and trump the bidding makes.
* ``card_check`` (查牌) records a seat asking the referee to check another seat's play in a
  gathered trick; the hand's record lists it under ``card_checks`` (in its contract, so the
  next hand starts without it) and the audit scores it: founded when it finds that play
  wrong, else unfounded (``card_check``, free up to ``card_check_free`` a side).

Spectator JSON (:meth:`TableState.to_public_json`) carries no proof, evidence, conflicts,
corrections, notes or referee names; dismissed infractions are left out of it, and so are
open ones whose proof rests on a card the camera read unsurely (``Infraction.to_check``): they
are the referee's question until confirmed. Its ``before_play`` shows no card placed face down
before it is revealed, nor the cards buried in the kitty: only how many
(:func:`public_before_play`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from chaodipi.table.hand_fold import (
    CAMERA_HAND_KINDS,
    DECISIONS,
    HandFold,
    Scored,
    kitty_as_play,
    runner_up_fixes,
    with_kitty,
)
from chaodipi.table.store import StoredEvent
from engine.audit import KITTY_READ, AuditReport, UnsureRead, led_the_trick
from engine.cards import SUITS, other_side, points_of, side_of
from engine.match import MatchError, MatchState
from engine.preplay.declarations import check_declarations
from engine.profiles import get_profile
from engine.record import FORMAT, load_record

BIDDING_KEYS = ("before_play", "draw", "dealer_by_rotation")
"""The record's fields of the draw and the bidding a contract may carry; ``contract_set``
removes one given as null."""
CONTRACT_KEYS = ("declarer", "trump", "levels", "rules", "rule_overrides", *BIDDING_KEYS)
"""What ``contract_set`` may change."""
HAND_ONLY_KEYS = (*BIDDING_KEYS, "card_checks")
BIDDING_BASES = ("first_declaration", "last_before_kitty")
"""How the engine's dealer check reads a dealer from the declarations (its other bases, the
no-bid flip and the rotation, are facts the referee gives)."""
"""Contract fields of one hand, never carried to the next."""
EVIDENCE_URL = "/api/referee/evidence/"
DEFAULT_LEVELS = {"NS": "2", "EW": "2"}
IDLE_AFTER_S = 120.0
"""No card for this long after the last play: the hand is idle (a break, a ruling, the feed
has ended) and the seat's clock stops there — it shows that the seat took at least this long,
not how long the pause lasted."""
CAMERA_STOPPED_S = 10.0
"""The camera's health reporting no frame for this long (two reports at one per 5 s): its
source has ended or stalled, and the seat's clock stops at its last frame."""


def default_contract(rules: str = "XX") -> dict[str, Any]:
    return {
        "rules": rules,
        "rule_overrides": {},
        "levels": dict(DEFAULT_LEVELS),
        "declarer": "S",
        "trump": "NT",
    }


def check_contract(contract: dict[str, Any]) -> dict[str, Any]:
    """A validated contract (rules, rule_overrides, levels, declarer, trump, optionally
    :data:`HAND_ONLY_KEYS`); raises ``ValueError`` with one line naming the bad field."""
    if set(contract["levels"]) != {"NS", "EW"}:
        raise ValueError('levels must be {"NS": rank, "EW": rank}')
    if contract["trump"] != "NT" and contract["trump"] not in SUITS:
        raise ValueError(f"trump is {contract['trump']!r}: use S, H, D, C or NT")
    load_record({"format": "chaodipi-hand/1", **contract, "tricks": []})
    return contract


@dataclass
class Camera:
    fps: float | None = None
    last_frame_age_s: float | None = None
    reported_t: float | None = None
    calibration_ok: bool | None = None
    frames_ended_t: float | None = None

    def frames_stopped_at(self) -> float | None:
        """When the camera's last frame came, if its last health report says the recording
        played out (``frames_ended_t``, on the events' clock) or frames stopped coming
        (:data:`CAMERA_STOPPED_S`); None while they come or when nothing says."""
        if self.frames_ended_t is not None:
            return self.frames_ended_t
        age, at = self.last_frame_age_s, self.reported_t
        if age is None or at is None or age < CAMERA_STOPPED_S:
            return None
        return at - age


@dataclass
class TableState:
    """Everything a table shows, folded from its events (see the module docstring)."""

    table: str = "table-1"
    rules: str = "XX"
    seq: int = 0
    hands: list[HandFold] = field(default_factory=list)
    match: MatchState = field(init=False)
    match_number: int = 1
    camera: Camera = field(default_factory=Camera)
    notes: list[dict[str, Any]] = field(default_factory=list)  # as :func:`note_text` reads them
    _json: dict[tuple[str, int], dict[str, Any]] = field(default_factory=dict, repr=False)
    _implicit_first: bool = field(default=True, repr=False)  # hand 1 before hand_started
    _first_of_game: list[bool] = field(default_factory=list, repr=False)  # one per hand

    def __post_init__(self) -> None:
        self._add_hand(HandFold(1, default_contract(self.rules), 0.0, first_hand=True))
        self.match = MatchState(get_profile(self.rules))

    def _add_hand(self, hand: HandFold) -> None:
        self.hands.append(hand)
        self._first_of_game.append(hand.first_hand)
        self._settle_first_hand(hand)

    def _settle_first_hand(self, hand: HandFold) -> None:
        hand.first_hand = self.is_first_hand(hand, hand.contract)

    def is_first_hand(self, hand: HandFold, contract: Mapping[str, Any]) -> bool:
        """Whether ``hand`` under ``contract`` is its game's first hand: it began the game
        here, and ``contract`` gives no ``dealer_by_rotation`` — with one it is a later hand
        (the previous hand's result made its dealer), whatever this log saw of the game."""
        at = next(i for i, h in enumerate(self.hands) if h is hand)
        return self._first_of_game[at] and contract.get("dealer_by_rotation") is None

    @property
    def hand(self) -> HandFold:
        """The hand in play."""
        return self.hands[-1]

    def find_hand(self, number: int) -> HandFold | None:
        return next((h for h in self.hands if h.number == number), None)

    # ----- folding -----------------------------------------------------------------------
    def apply(self, event: StoredEvent) -> None:
        """Fold one event (``seq`` must follow the last one applied)."""
        if event.seq <= self.seq:
            return  # already folded
        self.seq = event.seq
        self._json.clear()
        try:
            self._apply(event)
        except (ValueError, KeyError, TypeError, IndexError) as e:
            self.notes.append(
                {"kind": "event_skipped", "seq": event.seq, "event": event.kind, "error": str(e)}
            )

    def _apply(self, ev: StoredEvent) -> None:
        kind, data, hand = ev.kind, ev.data, self.hand
        if kind in CAMERA_HAND_KINDS:
            hand.camera(ev.seq, kind, data)
        elif kind == "recognition_conflict":
            hand.add_conflict(ev.seq, data)
        elif kind == "camera_health":
            self.camera.fps = _num(data.get("fps"))
            self.camera.last_frame_age_s = _num(data.get("last_frame_age_s"))
            self.camera.reported_t = ev.t
            self.camera.frames_ended_t = _num(data.get("frames_ended_t"))
        elif kind == "calibration_drift":
            self.camera.calibration_ok = bool(data.get("ok"))
        elif kind == "snapshot":
            target = self.find_hand(int(data.get("hand", hand.number))) or hand
            target.snapshots.setdefault(int(data["trick"]), []).append(str(data["path"]))
        elif kind == "hand_started":
            self._hand_started(ev)
        elif kind == "hand_finished":
            done = self.find_hand(int(data["hand"]))
            if done is not None:
                done.logged_result = data.get("result")
        elif kind == "contract_set":
            new = dict(hand.contract)
            for key in CONTRACT_KEYS:
                if data.get(key) is not None:
                    new[key] = copy.deepcopy(data[key])
                elif key in BIDDING_KEYS and key in data:  # null: the referee removed it
                    new.pop(key, None)
            hand.contract = check_contract(new)
            self._settle_first_hand(hand)
            hand.changed()
        elif kind == "card_check":
            target = self.find_hand(int(data.get("hand", hand.number))) or hand
            target.contract = with_card_check(target, data)
            target.changed()
        elif kind == "kitty_entered":
            cards = [str(c) for c in data["cards"]]
            load_record(with_kitty(hand.record(), cards))
            hand.kitty_entered = cards
            hand.changed()
        elif kind == "chao_di":
            hand.chao_di(ev.seq, ev.actor, data)
        elif kind == "infraction_decided":
            self._decide(ev)
        elif kind == "play_corrected":
            target = self.find_hand(int(data.get("hand", hand.number))) or hand
            target.correct(ev.seq, ev.t, ev.actor, data)
        elif kind == "correction_undone":
            of = int(data["of_seq"])
            target = next(h for h in self.hands if any(c["seq"] == of for c in h.corrections))
            target.undo(of)
        elif kind == "next_hand":
            self._next_hand(ev)
        elif kind == "next_match":
            self._next_match(ev)

    def _decide(self, ev: StoredEvent) -> None:
        ident = str(ev.data["id"])
        decision = str(ev.data["decision"])
        if decision not in DECISIONS:
            raise ValueError(f"decision {decision!r}: use confirm or dismiss")
        hand = self.find_hand(int(ident.split("-", 1)[0]))
        if hand is None:
            raise ValueError(f"infraction {ident} names no hand of this table")
        hand.decisions[ident] = {
            "decision": decision,
            "note": ev.data.get("note"),
            "actor": ev.actor,
            "seq": ev.seq,
            "t": ev.t,
        }
        hand.changed()

    def _hand_started(self, ev: StoredEvent) -> None:
        data = ev.data
        number = int(data.get("hand", self.hand.number))
        given: dict[str, Any] = {
            "rules": str(data.get("rules", self.hand.contract["rules"])),
            "rule_overrides": dict(data.get("rule_overrides") or {}),
            "levels": dict(data.get("levels") or self.hand.contract["levels"]),
            "declarer": str(data.get("declarer", self.hand.contract["declarer"])),
            "trump": str(data.get("trump", "NT")),
        }
        for key in BIDDING_KEYS:
            if data.get(key) is not None:
                given[key] = copy.deepcopy(data[key])
        contract = check_contract(given)
        if self._implicit_first or number == self.hand.number:
            hand = self.hand
            hand.number, hand.contract, hand.started_t = number, contract, ev.t
            if self._implicit_first:
                self.match = MatchState(get_profile(contract["rules"], contract["rule_overrides"]))
            self._implicit_first = False
            self._settle_first_hand(hand)
            hand.changed()
            return
        if number < self.hand.number:
            raise ValueError(f"hand {number} started after hand {self.hand.number}")
        self.hand.closed = True
        game = self.match.current
        self._add_hand(
            HandFold(
                number,
                contract,
                ev.t,
                first_hand=game.first_hand,
                must_play_done={k: list(v) for k, v in game.must_play_done.items()},
            )
        )

    def next_contract(self) -> dict[str, Any]:
        """The contract the next hand would start with after ``next_hand`` (no change)."""
        hand = self.hand
        scored = hand.scored()
        outcome = scored.report.result if scored is not None else None
        contract = {**without_hand_fields(hand.contract), "trump": "NT"}
        if outcome is None:
            return contract
        levels = DEFAULT_LEVELS if outcome.game_winner else outcome.levels_after
        return {**contract, "levels": dict(levels), "declarer": outcome.next_declarer}

    def _next_hand(self, ev: StoredEvent) -> None:
        hand = self.hand
        scored = hand.scored()
        outcome = scored.report.result if scored is not None else None
        contract = self.next_contract()
        if outcome is not None:
            game = self.match.current
            game.levels = dict(outcome.levels_before)  # the referee's contract is the truth
            game.declarer = None
            try:
                self.match.apply(outcome)
            except MatchError as e:
                self.notes.append(
                    {
                        "kind": "hand_not_counted",
                        "seq": ev.seq,
                        "hand": hand.number,
                        "error": str(e),
                    }
                )
        hand.closed = True
        game = self.match.current
        self._add_hand(
            HandFold(
                hand.number + 1,
                contract,
                ev.t,
                first_hand=game.first_hand,
                must_play_done={k: list(v) for k, v in game.must_play_done.items()},
            )
        )

    def _next_match(self, ev: StoredEvent) -> None:
        hand = self.hand
        hand.closed = True
        self.match = MatchState(hand.profile())
        self.match_number += 1
        contract = {
            **without_hand_fields(hand.contract),
            "levels": dict(DEFAULT_LEVELS),
            "trump": "NT",
        }
        self._add_hand(HandFold(hand.number + 1, contract, ev.t, first_hand=True))

    # ----- queries -----------------------------------------------------------------------
    def protected_evidence(self) -> set[str]:
        """Evidence of open or confirmed infractions, in every hand (never pruned)."""
        out: set[str] = set()
        for h in self.hands:
            out |= h.protected_evidence()
        return out

    def infraction(self, ident: str) -> dict[str, Any] | None:
        """The referee's view of one infraction of the hand in play, or None."""
        return next((i for i in self._infractions(self.hand, True) if i["id"] == ident), None)

    def records(self) -> list[dict[str, Any]]:
        """``[{"hand", "finished"}]`` for every hand of the log."""
        out = []
        for h in self.hands:
            scored = h.scored()
            out.append({"hand": h.number, "finished": bool(scored and scored.report.finished)})
        return out

    # ----- JSON --------------------------------------------------------------------------
    def to_public_json(self, now: float) -> dict[str, Any]:
        """The spectators' state (API.md "State JSON")."""
        return self._state(now, referee=False)

    def to_referee_json(self, now: float) -> dict[str, Any]:
        """The public state plus proofs, evidence, conflicts, corrections and notes."""
        return self._state(now, referee=True)

    def _state(self, now: float, *, referee: bool) -> dict[str, Any]:
        key = ("referee" if referee else "public", self.seq)
        cached = self._json.get(key)
        if cached is None:
            cached = self._build(referee)
            self._json[key] = cached
        out = dict(cached)
        out["server_time"] = now
        out["hand"] = _with_clock(cached["hand"], now, self.camera.frames_stopped_at())
        if not referee and "before_play" in out["hand"]:
            out["hand"] = {
                **out["hand"],
                "before_play": public_before_play(out["hand"]["before_play"], now),
            }
        out["camera"] = self._camera_json(now)
        return out

    def _camera_json(self, now: float) -> dict[str, Any]:
        c = self.camera
        age = c.last_frame_age_s
        if age is not None and c.reported_t is not None:
            age = round(age + max(0.0, now - c.reported_t), 3)
        return {"fps": c.fps, "last_frame_age_s": age, "calibration_ok": c.calibration_ok}

    def _build(self, referee: bool) -> dict[str, Any]:
        hand = self.hand
        out: dict[str, Any] = {
            "table": self.table,
            "seq": self.seq,
            "server_time": 0.0,
            "match": {
                "levels": dict(hand.contract["levels"]),
                "hand": hand.number,
                "winner": self.match.winner(),
            },
            "hand": hand_json(hand),
            "infractions": self._infractions(hand, referee),
            "camera": {},
        }
        if referee:
            out["match"]["games_won"] = dict(self.match.games_won)
            out["match"]["number"] = self.match_number
            record = hand.record()
            checked = _reads_checked(hand)
            out["conflicts"] = [
                {**c, "evidence": _urls(hand.evidence_of(c.get("trick")))}
                | _conflict_fixes(c, record, checked)
                for c in hand.conflicts
            ]
            out["corrections"] = [
                {k: c[k] for k in ("seq", "t", "actor", "trick", "seat", "cards", "was")}
                for c in hand.live_corrections()
            ]
            out["chao_di"] = [dict(c) for c in hand.chao]
            out["card_checks"] = copy.deepcopy(hand.contract.get("card_checks", []))
            notes = [*self.notes, *(n for h in self.hands for n in h.notes)]
            out["notes"] = [note_text(n) for n in notes]
            out["notes_data"] = [dict(n) for n in notes]
        return out

    def _infractions(self, hand: HandFold, referee: bool) -> list[dict[str, Any]]:
        scored = hand.scored()
        if scored is None:
            return []
        out = []
        record = hand.record() if referee else {}
        for inf, ident, status in zip(
            scored.report.infractions, scored.ids, scored.status, strict=True
        ):
            if not referee and (status == "dismissed" or (status == "open" and inf.to_check)):
                continue  # an open one resting on an unsure read is the referee's question
            row: dict[str, Any] = {
                "id": ident,
                "kind": inf.kind,
                "seat": inf.seat,
                "trick": inf.trick,
                "penalty": inf.penalty,
                "status": status,
            }
            if referee:
                decision = hand.decisions.get(ident, {})
                row |= {
                    "cards": list(inf.cards),
                    "found_at": inf.found_at,
                    "proof": inf.proof,
                    "proof_data": copy.deepcopy(inf.proof_data),
                    "unsure_reads": _unsure_read_rows(inf.unsure_reads, record),
                    "evidence": _urls(hand.evidence_of(inf.trick, inf.found_at)),
                    "note": decision.get("note"),
                    "decided_by": decision.get("actor"),
                    "decided_at": decision.get("t"),
                }
            out.append(row)
        return out


def _play_of(record: Mapping[str, Any], trick: int, seat: str) -> dict[str, Any] | None:
    """``seat``'s play in ``trick`` of the record (None: it has none there)."""
    tricks = record.get("tricks", [])
    if not 1 <= trick <= len(tricks):
        return None
    return next((p for p in tricks[trick - 1]["plays"] if p["seat"] == seat), None)


def _unsure_read_rows(
    reads: Iterable[UnsureRead], record: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The unsure reads of an infraction, each with the seat's ``play`` there as recorded now
    (to edit; empty for a seat never read; the kitty for a kitty card, trick ``KITTY_READ``);
    one with a runner-up (``maybe``) also gets ``fix`` (:func:`runner_up_fixes`)."""
    rows = []
    for read in reads:
        if read.trick == KITTY_READ:  # the kitty: to enter again
            play: dict[str, Any] | None = kitty_as_play(record)
        else:
            play = _play_of(record, read.trick, read.seat)
        row = read.to_json() | {"play": [] if play is None else list(play["cards"])}
        fix = None if play is None else runner_up_fixes(play).get(read.card or "")
        if fix is not None:
            row["fix"] = fix
        rows.append(row)
    return rows


def _reads_checked(hand: HandFold) -> set[tuple[int, str, str | None]]:
    """(trick, seat, card) of the unsure reads that a confirmed infraction rests on: the
    referee looked at those cards and agreed with the camera."""
    scored = hand.scored()
    if scored is None:
        return set()
    return {
        (r.trick, r.seat, r.card)
        for inf, status in zip(scored.report.infractions, scored.status, strict=True)
        if status == "confirmed"
        for r in inf.unsure_reads
    }


def _conflict_fixes(
    conflict: Mapping[str, Any],
    record: Mapping[str, Any],
    checked: set[tuple[int, str, str | None]],
) -> dict[str, Any]:
    """For an ``unsure_read`` conflict: ``play``, the seat's play as recorded now (to edit),
    and ``fixes`` ``[{"card", "maybe", "cards"}]`` while it has runner-up reads to offer
    (:func:`runner_up_fixes`) that no confirmed infraction has ``checked``; nothing for other
    conflicts."""
    if conflict.get("kind") != "unsure_read" or not conflict.get("trick"):
        return {}
    trick, seat = int(conflict["trick"]), str(conflict.get("seat"))
    play = _play_of(record, trick, seat)
    if play is None:
        return {}
    out: dict[str, Any] = {"play": list(play["cards"])}
    fixes = {
        card: cards
        for card, cards in runner_up_fixes(play).items()
        if (trick, seat, card) not in checked
    }
    if fixes:
        maybe = play["maybe"]
        out["fixes"] = [
            {"card": c, "maybe": maybe[c], "cards": cards} for c, cards in fixes.items()
        ]
    return out


def with_card_check(hand: HandFold, data: Mapping[str, Any]) -> dict[str, Any]:
    """``hand``'s contract with one more card check (查牌, a ``card_check`` event: ``seat``
    asked to check ``checked``'s play in ``trick``), checked with the record: the trick must be
    one of the hand's, the seats seats; raises ``ValueError`` with one line otherwise."""
    check = {"seat": data["seat"], "checked": data["checked"], "trick": data["trick"]}
    contract = {**hand.contract, "card_checks": [*hand.contract.get("card_checks", []), check]}
    record = load_record({**hand.record(), **contract})
    if not 1 <= check["trick"] <= len(record.tricks):
        raise ValueError(
            f"card check of trick {check['trick']}: the hand has tricks 1 to {len(record.tricks)}"
        )
    return contract


def follow_bidding(
    contract: Mapping[str, Any], *, first_hand: bool, keep: Iterable[str] = ()
) -> dict[str, Any]:
    """``contract`` with the declarer and trump its ``before_play`` makes, as the engine reads
    the bidding (:mod:`engine.preplay.declarations`: the dealer by ``first_dealer_rule`` or
    ``later_dealer_rule``, the trump of the last valid declaration), except the fields named in
    ``keep`` (those the referee gave). Unchanged without a bidding or where it decides neither
    (every declaration refused, or nobody declared). Raises ``ValueError`` (one line) for a
    contract that does not check."""
    out = dict(contract)
    if out.get("before_play") is None:
        return out
    kept = set(keep)
    for _ in range(3):  # the declarer's level reads the claims: settle it, then the trump
        record = load_record({"format": FORMAT, **out, "first_hand": first_hand, "tricks": []})
        change: dict[str, Any] = {}
        for finding in check_declarations(record, record.profile()):
            proof = finding.proof
            by_bidding = proof.get("basis") in BIDDING_BASES
            if finding.kind == "wrong_dealer" and by_bidding and "declarer" not in kept:
                change["declarer"] = proof["other"]
            by_declaration = proof.get("basis") == "declaration"
            if finding.kind == "wrong_trump" and by_declaration and "trump" not in kept:
                change["trump"] = proof["expected_trump"]
        if not change or all(out.get(k) == v for k, v in change.items()):
            break
        out.update(change)
    return out


def without_hand_fields(contract: Mapping[str, Any]) -> dict[str, Any]:
    """The contract without the fields of its own hand (:data:`HAND_ONLY_KEYS`)."""
    return {k: v for k, v in contract.items() if k not in HAND_ONLY_KEYS}


def public_before_play(events: Iterable[Mapping[str, Any]], now: float) -> list[dict[str, Any]]:
    """``before_play`` for spectators at ``now``: a card placed face down and not yet revealed
    (no ``revealed_t``, or one after ``now``) and the cards buried in the kitty are given only
    by their ``count``, with ``hidden: true``."""
    out: list[dict[str, Any]] = []
    for event in events:
        row = dict(event)
        revealed = event.get("revealed_t")
        unrevealed = bool(event.get("face_down")) and (revealed is None or revealed > now)
        if unrevealed:
            row.pop("revealed_t", None)
        if row.get("cards") and (unrevealed or event.get("action") == "bury"):
            row["count"] = len(row.pop("cards"))
            row["hidden"] = True
            row.pop("trump", None)  # a joker tractor's suit would tell the cards
        out.append(row)
    return out


def _num(value: Any) -> float | None:
    return None if value is None else float(value)


def _urls(paths: Iterable[str]) -> list[str]:
    return [EVIDENCE_URL + p.removeprefix("evidence/") for p in paths]


def note_text(note: Mapping[str, Any]) -> str:
    """The English line of a note of the fold (``notes_data`` in the referee state)."""
    if note["kind"] == "event_skipped":
        return f"seq {note['seq']} ({note['event']}) ignored: {note['error']}"
    if note["kind"] == "hand_not_counted":
        return f"seq {note['seq']}: hand {note['hand']} not counted: {note['error']}"
    return f"hand {note['hand']} does not audit: {note['error']}"


def _with_clock(
    hand: dict[str, Any], now: float, frames_stopped_at: float | None
) -> dict[str, Any]:
    """The hand with its clock at ``now``: stopped at ``until`` (the hand idle, or the camera's
    frames stopped after the last play), over when the seat took longer than the limit."""
    clock = hand.get("clock")
    if clock is None:
        return hand
    until = clock["until"]
    # frames stopped after the last play: the clock has stopped, even where a replay's clock
    # runs ahead of ``now``
    frames_stopped = frames_stopped_at is not None and frames_stopped_at >= clock["since"]
    if frames_stopped:
        until = min(until, frames_stopped_at)
    stopped = frames_stopped or now >= until
    took = (until if stopped else now) - clock["since"]
    over = clock["limit_s"] is not None and took > clock["limit_s"]
    return {**hand, "clock": {**clock, "until": until, "stopped": stopped, "over": over}}


def hand_json(hand: HandFold) -> dict[str, Any]:
    """The ``hand`` object of the state JSON."""
    c = hand.contract
    declarer_side = side_of(c["declarer"])
    base: dict[str, Any] = {
        "rules": c["rules"],
        "declarer": c["declarer"],
        "declarer_side": declarer_side,
        "level": c["levels"][declarer_side],
        "trump": c["trump"],
        "trick": 1,
        "finished": False,
        "defender_points": 0,
        "point_cards": [],
        "points_by_trick": [],
        "current_trick": {
            "number": 1,
            "leader": c["declarer"],
            "plays": [],
            "to_play": c["declarer"],
        },
        "clock": None,
        "tricks": [],
        "kitty": {"cards": None, "points": 0, "multiplier": 1},
        "result": None,
    }
    if c.get("before_play") is not None:
        base["before_play"] = copy.deepcopy(c["before_play"])
    if c.get("draw") is not None:
        base["draw"] = copy.deepcopy(c["draw"])
    if c.get("dealer_by_rotation") is not None:
        base["dealer_by_rotation"] = c["dealer_by_rotation"]
    scored = hand.scored()
    if scored is None:
        return base
    return {**base, **_scored_hand(hand, scored)}


def _plays(plays: Iterable[Any]) -> list[dict[str, Any]]:
    return [{"seat": p.seat, "cards": list(p.cards), "t_landed": p.t} for p in plays]


def _scored_hand(hand: HandFold, scored: Scored) -> dict[str, Any]:
    report: AuditReport = scored.report
    profile = report.profile
    defenders = other_side(report.declarer_side)
    complete = [t for t in report.tricks if t.complete]
    to_defenders = [
        t.points if t.points_to and side_of(t.points_to) == defenders else 0 for t in complete
    ]
    point_cards = [
        card
        for t, pts in zip(complete, to_defenders, strict=True)
        if pts
        for p in t.plays
        for card in p.cards
        if points_of(card)
    ]
    open_tricks = [t for t in report.tricks if not t.complete]
    current: dict[str, Any] | None
    if report.finished:
        current = None
    elif open_tricks:
        t = open_tricks[0]
        played = {p.seat for p in t.plays}
        lead_play = led_the_trick(profile, t.leader, t.plays)
        order = profile.seats_in_play_order(t.leader if lead_play is None else lead_play.seat)
        current = {
            "number": t.number,
            "leader": t.leader,
            "plays": _plays(t.plays),
            "to_play": next((s for s in order if s not in played), None),
        }
    else:
        leader = complete[-1].winner if complete else report.record.declarer
        current = {"number": len(complete) + 1, "leader": leader, "plays": [], "to_play": leader}
    times = [p.t for t in report.tricks for p in t.plays if p.t is not None]
    clock = None
    # Before the hand's first play nobody is on the clock: the first lead is timed from the
    # kitty's burial, which the camera does not see.
    if current is not None and current["to_play"] is not None and times:
        since = max(times)
        clock = {
            "seat": current["to_play"],
            "since": since,
            "limit_s": profile.play_time_limit_s,
            "over": False,
            "until": since + IDLE_AFTER_S,
            "stopped": False,
        }
    result = report.to_json()["result"]
    return {
        "trick": current["number"] if current else len(complete),
        "finished": report.finished,
        "defender_points": report.defender_points,
        "point_cards": point_cards,
        "points_by_trick": to_defenders,
        "current_trick": current,
        "clock": clock,
        "tricks": [
            {
                "number": t.number,
                "leader": t.leader,
                "plays": _plays(t.plays),
                "winner": t.winner,
                "points": t.points,
            }
            for t in complete
        ],
        "kitty": {
            "cards": None if report.kitty.cards is None else list(report.kitty.cards),
            "points": report.kitty.points,
            "multiplier": report.kitty.multiplier,
        },
        "result": result,
    }


def fold(events: Iterable[StoredEvent], table: str = "table-1", rules: str = "XX") -> TableState:
    """The state of a table from its whole log (what a restart does)."""
    state = TableState(table, rules)
    for event in events:
        state.apply(event)
    return state


def is_level_pair(cards: list[str], level: str) -> bool:
    """Whether two cards may 炒底: a pair of the hand's level rank or of one joker."""
    if len(cards) != 2 or cards[0] != cards[1]:
        return False
    card = cards[0]
    return card in ("BJ", "SJ") or card[:-1] == level
