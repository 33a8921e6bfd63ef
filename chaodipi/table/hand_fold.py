"""One hand as the fold of its events: camera plays, referee corrections and decisions.

This module owns :class:`HandFold`, the state of one hand inside :mod:`chaodipi.table.table_state`:

* the **camera's hand**: a :class:`vision.game_feed.GameFeed` fed the ``play``,
  ``trick_cleared``, ``kitty``, ``takeback``, ``exposed_card`` and ``declaration`` events
  (:data:`CAMERA_HAND_KINDS`) in log order (its recognition conflicts are derived here, so they are
  never stored twice; the tracker's own conflicts come as events; a play or an exposed card
  that names unsure reads becomes an ``unsure_read`` conflict, the referee's cue to check the
  cards, and so does a collected trick's ``read_otherwise``: cards read as other cards while
  they lay there). A takeback leaves the seat's play less the cards taken back and is listed in the
  record's ``takebacks``, an exposed card in ``exposed``: the audit raises ``takeback`` /
  ``exposed_card`` from them, as a question when the cards were read in doubt; a declaration
  (cards a seat showed before the first play) is a ``declare`` step of the record's
  ``before_play``, from which the audit raises ``false_declaration`` / ``illegal_chao`` (a
  question when read in doubt, and an ``unsure_read`` conflict too); the bidding the referee
  enters (the contract's ``before_play``) replaces the camera's;
* the **referee's overlay**, applied on top when the record is built: the contract
  (``contract_set``, ``chao_di`` — a 炒底 changes the trump to the pair's suit and makes the kitty
  unknown again), ``kitty_entered``, and ``play_corrected`` (the seat's cards in that trick are
  replaced, or the play is added when the camera missed it) unless ``correction_undone``;
* **decisions** on infractions. Infractions come from the engine's audit of the overlaid
  record; each gets the stable id ``"<hand>-<kind>-<seat>-<trick or K>-<n>"`` (``n`` counts equal
  prefixes from 0, in the audit's order) and a status ``open``, ``confirmed`` or ``dismissed``
  (the latest decision wins). Only confirmed ones change the score (:func:`engine.audit.rescore`).

Everything derived (record, audit, scored report) is cached until the next event changes the
hand, so applying an event is cheap and the audit runs at most once per change.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from engine.audit import AuditReport, Infraction, audit, rescore
from engine.cards import SEATS
from engine.profiles import RuleProfile, get_profile
from engine.record import load_record
from vision.game_feed import GameFeed

CAMERA_HAND_KINDS: tuple[str, ...] = (
    "play",
    "trick_cleared",
    "kitty",
    "takeback",
    "exposed_card",
    "declaration",
)
"""The camera's events that make its hand (:meth:`HandFold.camera`)."""
DECISIONS: tuple[str, ...] = ("confirm", "dismiss")
STATUS = {"confirm": "confirmed", "dismiss": "dismissed"}


def infraction_ids(hand: int, infractions: list[Infraction]) -> list[str]:
    """The stable id of each infraction, in order (see the module docstring)."""
    seen: Counter[str] = Counter()
    out: list[str] = []
    for inf in infractions:
        prefix = f"{hand}-{inf.kind}-{inf.seat}-{'K' if inf.trick is None else inf.trick}"
        out.append(f"{prefix}-{seen[prefix]}")
        seen[prefix] += 1
    return out


def with_kitty(record: Mapping[str, Any], cards: Sequence[str] | None) -> dict[str, Any]:
    """``record`` with ``cards`` as its kitty, read surely (the referee entered it; None: not
    known, as after a 炒底 reburied it): no card of it in doubt any more."""
    out = {k: v for k, v in record.items() if k not in ("kitty", "kitty_unsure", "kitty_maybe")}
    if cards is not None:
        out["kitty"] = list(cards)
    return out


def kitty_as_play(record: Mapping[str, Any]) -> dict[str, Any]:
    """The record's kitty in a play's shape (``cards``, ``unsure``, ``maybe``), for what reads
    a play's doubt (:func:`runner_up_fixes`)."""
    return {
        "cards": list(record.get("kitty") or []),
        "unsure": list(record.get("kitty_unsure") or []),
        "maybe": dict(record.get("kitty_maybe") or {}),
    }


def runner_up_fixes(play: Mapping[str, Any]) -> dict[str, list[str]]:
    """For each unsure card of a recorded play with a runner-up read (``maybe``), the play's
    cards with that card read as its runner-up: the referee's one-click correction (none once
    the play was corrected: a correction makes its cards sure)."""
    fixes = {}
    for card, other in (play.get("maybe") or {}).items():
        if card in play["cards"] and card in play.get("unsure", ()):
            cards = list(play["cards"])
            cards[cards.index(card)] = other
            fixes[card] = cards
    return fixes


def unsure_read_conflict(
    seat: str, unsure: dict[str, Any], maybe: dict[str, Any] | None = None
) -> dict[str, Any]:
    """The referee's cue for a camera play that names unsure reads (``PlayEvent.unsure``),
    with what each may be instead when the camera had a runner-up (``PlayEvent.maybe``)."""
    maybe = {c: other for c, other in (maybe or {}).items() if c in unsure}
    reads = ", ".join(
        f"{card} {float(conf):.2f}" + (f" maybe {maybe[card]}" if card in maybe else "")
        for card, conf in unsure.items()
    )
    hints = "；".join(f"{card} 可能是 {other}" for card, other in maybe.items())
    return _check_the_cards(seat, list(unsure), hints, reads)


def read_otherwise_conflict(seat: str, cards: dict[str, Any]) -> dict[str, Any]:
    """The referee's cue for a play's cards that the camera read as other cards while they lay
    on the table (``TrickClearedEvent.read_otherwise``): ``{card: other}``."""
    hints = "；".join(f"{card} 也被认作 {other}" for card, other in cards.items())
    reads = ", ".join(f"{card} also read {other}" for card, other in cards.items())
    return _check_the_cards(seat, list(cards), hints, reads)


def _check_the_cards(seat: str, cards: list[str], hints: str, reads: str) -> dict[str, Any]:
    """An ``unsure_read`` conflict: the seat's cards to check on the table, with the Chinese
    ``hints`` (none: no brackets) and the English ``reads``."""
    return {
        "kind": "unsure_read",
        "seat": seat,
        "cards": cards,
        "detail": f"识别存疑，请核对桌上的牌{f'（{hints}）' if hints else ''} · "
        f"read unsure ({reads}): check the card on the table",
    }


def chao_trump(cards: list[str]) -> str:
    """The trump a 炒底 pair names: its suit, or ``NT`` for a pair of jokers."""
    card = cards[0]
    return "NT" if card in ("BJ", "SJ") else card[-1]


@dataclass
class Scored:
    """The audit of a hand, the ids and statuses of its infractions, and the score with only
    the confirmed ones counted."""

    report: AuditReport
    ids: list[str]
    status: list[str]


@dataclass
class HandFold:
    """One hand (see the module docstring). ``contract`` holds rules, rule_overrides, levels,
    declarer and trump; ``first_hand`` and ``must_play_done`` come from the game."""

    number: int
    contract: dict[str, Any]
    started_t: float
    first_hand: bool = False
    must_play_done: dict[str, list[str]] = field(default_factory=dict)
    feed: GameFeed = field(default_factory=GameFeed)
    camera_events: int = 0  # events of CAMERA_HAND_KINDS applied (resume point)
    trick_open: bool = False  # the camera's last trick still takes plays (not cleared)
    conflicts: list[dict[str, Any]] = field(default_factory=list)
    corrections: list[dict[str, Any]] = field(default_factory=list)
    undone: set[int] = field(default_factory=set)
    kitty_entered: list[str] | None = None
    kitty_void: bool = False  # a 炒底 reburied the kitty after the camera last saw it
    chao: list[dict[str, Any]] = field(default_factory=list)
    decisions: dict[str, dict[str, Any]] = field(default_factory=dict)
    snapshots: dict[int, list[str]] = field(default_factory=dict)
    closed: bool = False
    logged_result: dict[str, Any] | None = None  # from hand_finished
    notes: list[dict[str, Any]] = field(default_factory=list)  # the fold's notes, as data
    _cache: Scored | None = field(default=None, repr=False)
    _cache_ok: bool = field(default=False, repr=False)

    # ----- events ------------------------------------------------------------------------
    def changed(self) -> None:
        self._cache, self._cache_ok = None, False

    def camera(self, seq: int, kind: str, data: dict[str, Any]) -> None:
        """A camera event of :data:`CAMERA_HAND_KINDS`."""
        event = {"type": kind, **data}
        found = self.feed.apply(event)
        self.camera_events += 1
        if kind == "play":
            self.trick_open = True
        elif kind == "trick_cleared":
            self.trick_open = False
        elif kind == "kitty":
            self.kitty_void = False
        for conflict in found:
            self.add_conflict(seq, conflict.to_json())
        if kind in ("play", "exposed_card", "declaration") and data.get("unsure"):
            seat = str(data.get("seat"))
            self.add_conflict(seq, unsure_read_conflict(seat, data["unsure"], data.get("maybe")))
        for seat, cards in (data.get("read_otherwise") or {}).items():
            self.add_conflict(seq, read_otherwise_conflict(str(seat), cards))
        self.changed()

    def add_conflict(self, seq: int, data: dict[str, Any]) -> None:
        body = {k: v for k, v in data.items() if k != "type"}
        self.conflicts.append({"seq": seq, "trick": self.camera_trick_number(), **body})

    def camera_trick_number(self) -> int:
        return len(self.feed.record["tricks"]) or 1

    def open_trick_plays(self) -> list[dict[str, Any]]:
        """The camera's plays in the trick still on the table (empty after a clear)."""
        tricks = self.feed.record["tricks"]
        return list(tricks[-1]["plays"]) if self.trick_open and tricks else []

    def correct(self, seq: int, t: float, actor: str | None, data: dict[str, Any]) -> None:
        trick, seat, cards = int(data["trick"]), str(data["seat"]), list(data["cards"])
        if trick < 1 or seat not in SEATS or not cards:
            raise ValueError(f"correction of trick {trick} seat {seat} is not a play")
        self.corrections.append(
            {
                "seq": seq,
                "t": t,
                "actor": actor,
                "trick": trick,
                "seat": seat,
                "cards": cards,
                "was": list(data.get("was") or []),
                "frame": data.get("frame"),
            }
        )
        self.changed()

    def undo(self, of_seq: int) -> None:
        if not any(c["seq"] == of_seq for c in self.corrections):
            raise ValueError(f"no correction at seq {of_seq} in hand {self.number}")
        self.undone.add(of_seq)
        self.changed()

    def live_corrections(self) -> list[dict[str, Any]]:
        """Corrections in force, oldest first."""
        return [c for c in self.corrections if c["seq"] not in self.undone]

    # ----- derived -----------------------------------------------------------------------
    def profile(self) -> RuleProfile:
        return get_profile(str(self.contract["rules"]), self.contract.get("rule_overrides"))

    def record(self) -> dict[str, Any]:
        """The hand record (``chaodipi-hand/1``): the camera's hand with the referee's
        overlay."""
        rec = self.feed.record
        rec.update(copy.deepcopy(self.contract))
        rec["rule_overrides"] = dict(rec.get("rule_overrides") or {})
        if self.first_hand:
            rec["first_hand"] = True
        if any(self.must_play_done.values()):
            rec["must_play_done"] = {k: list(v) for k, v in self.must_play_done.items()}
        if self.kitty_void or self.kitty_entered is not None:
            rec = with_kitty(rec, self.kitty_entered)
        tricks: list[dict[str, Any]] = rec["tricks"]
        for c in self.live_corrections():
            while len(tricks) < c["trick"]:
                tricks.append({"plays": []})
            plays: list[dict[str, Any]] = tricks[c["trick"] - 1]["plays"]
            same = next((p for p in plays if p["seat"] == c["seat"]), None)
            if same is not None:
                same["cards"] = list(c["cards"])
                same.pop("unsure", None)  # the referee has looked: the cards are sure now
                same.pop("maybe", None)
            else:
                at = _slot(self.profile(), plays, c["seat"])
                plays.insert(at, {"seat": c["seat"], "cards": list(c["cards"])})
                trick = tricks[c["trick"] - 1]
                unread = [s for s in trick.pop("unread", []) if s != c["seat"]]
                if unread:  # the referee entered this seat's play: it is read now
                    trick["unread"] = unread
        rec["tricks"] = [t for t in tricks if t["plays"]]
        return rec

    def chao_di(self, seq: int, actor: str | None, data: dict[str, Any]) -> None:
        """A 炒底: the pair names the trump, the kitty is reburied (unknown again)."""
        seat, cards = str(data["seat"]), [str(c) for c in data["cards"]]
        if seat not in SEATS or len(cards) != 2 or cards[0] != cards[1]:
            raise ValueError(f"炒底 {seat} {' '.join(cards)} is not a seat with a pair")
        trump = chao_trump(cards)
        load_record({**self.record(), "trump": trump})  # a bad card fails here
        self.contract["trump"] = trump
        self.chao.append({"seq": seq, "actor": actor, "seat": seat, "cards": cards})
        self.kitty_void = True
        self.kitty_entered = None
        self.changed()

    def scored(self) -> Scored | None:
        """The audit with infraction ids, statuses and the confirmed-only score (cached);
        None when the record does not audit (a note says why)."""
        if self._cache_ok:
            return self._cache
        self._cache_ok = True
        try:
            report = audit(load_record(self.record()))
        except ValueError as e:
            self.notes.append({"kind": "hand_not_audited", "hand": self.number, "error": str(e)})
            self._cache = None
            return None
        ids = infraction_ids(self.number, report.infractions)
        status = [
            STATUS[self.decisions[i]["decision"]] if i in self.decisions else "open" for i in ids
        ]
        counted = [n for n, s in enumerate(status) if s == "confirmed"]
        self._cache = Scored(rescore(report, counted), ids, status)
        return self._cache

    def evidence_of(self, trick: int | None, found_at: int | None = None) -> list[str]:
        """Snapshot paths of a trick (and of the trick that proved it)."""
        out: list[str] = []
        for t in dict.fromkeys(x for x in (trick, found_at) if x is not None):
            out += self.snapshots.get(t, [])
        return out

    def protected_evidence(self) -> set[str]:
        """Snapshots that are evidence of an open or confirmed infraction."""
        scored = self.scored()
        if scored is None:
            return {p for paths in self.snapshots.values() for p in paths}
        keep: set[str] = set()
        for inf, status in zip(scored.report.infractions, scored.status, strict=True):
            if status != "dismissed":
                keep.update(self.evidence_of(inf.trick, inf.found_at))
        return keep


def _slot(profile: RuleProfile, plays: list[dict[str, Any]], seat: str) -> int:
    """Where a missed play goes: in the profile's turn order from the trick's first play."""
    if not plays:
        return 0
    order = profile.seats_in_play_order(plays[0]["seat"])
    rank = {s: k for k, s in enumerate(order)}
    for i, p in enumerate(plays):
        if rank[p["seat"]] > rank[seat]:
            return i
    return len(plays)
