"""Hand records: the JSON form of one hand (format ``chaodipi-hand/1``) and its validation.

A record lists the plays in the order they touched the table, trick by trick, with optional
times in seconds; the kitty is optional until it is shown, and a record of a hand in progress is
valid. The JSON Schema is ``engine/schema/hand-record.schema.json``; this module turns parsed
JSON into a :class:`HandRecord` or raises :class:`RecordError` with one line naming the problem
and the fix. New fields are only ever added as optional ones (backward compatible).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine.cards import RANKS, SEATS, SIDES, SUITS, CardError, parse
from engine.profiles import PROFILE_NAMES, ProfileError, RuleProfile, get_profile

FORMAT = "chaodipi-hand/1"


class RecordError(ValueError):
    """A malformed hand record; the message is one line naming the field and the fix."""


@dataclass(frozen=True)
class Play:
    seat: str
    cards: tuple[str, ...]
    t: float | None = None
    unsure: tuple[str, ...] = ()
    """Cards of this play whose reading is in doubt (a camera read under its confidence bar):
    an infraction whose proof rests on one is for the referee to check, not asserted."""
    maybe: tuple[tuple[str, str], ...] = ()
    """For an unsure card, what the camera's runner-up read says it may be instead
    (``(card, other card)`` pairs; JSON ``"maybe": {"QC": "10C"}``)."""

    def may_be(self, card: str) -> str | None:
        """The camera's other reading of the unsure ``card`` of this play, if it gave one."""
        return dict(self.maybe).get(card)


@dataclass(frozen=True)
class HandRecord:
    rules: str
    levels: dict[str, str]
    declarer: str
    trump: str
    tricks: tuple[tuple[Play, ...], ...]
    rule_overrides: dict[str, Any] = field(default_factory=dict)
    kitty: tuple[str, ...] | None = None
    kitty_taken_t: float | None = None
    kitty_buried_t: float | None = None
    hands: dict[str, tuple[str, ...]] | None = None
    first_hand: bool = False
    must_play_done: dict[str, tuple[str, ...]] = field(default_factory=dict)
    finished: bool | None = None
    unread: dict[int, tuple[str, ...]] = field(default_factory=dict)
    """Trick number → seats that played nothing there as far as the record knows, although
    cards were seen in their place that could not be read (the camera's ``unread``)."""
    kitty_unsure: tuple[str, ...] = ()
    """Cards of the kitty whose reading is in doubt (JSON ``kitty_unsure``), as a play's
    ``unsure``: what the audit proves from them is put to the referee as a question."""
    kitty_maybe: tuple[tuple[str, str], ...] = ()
    """For an unsure kitty card, the camera's runner-up read (JSON ``kitty_maybe``)."""

    def profile(self) -> RuleProfile:
        return get_profile(self.rules, self.rule_overrides)

    @property
    def level(self) -> str:
        """The hand's level rank: the declarer side's level."""
        side = "NS" if self.declarer in ("N", "S") else "EW"
        return self.levels[side]


def _cards(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise RecordError(f'{where} must be a list of cards like ["10H", "QS", "BJ"]')
    for c in value:
        if not isinstance(c, str):
            raise RecordError(f'{where} holds {c!r}: cards are strings like "10H" or "BJ"')
        try:
            parse(c)
        except CardError as e:
            raise RecordError(f"{where}: {e}") from None
    return tuple(value)


def _time(value: Any, where: str) -> float | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RecordError(f"{where} must be a number of seconds, not {value!r}")
    return float(value)


def _unsure(
    value: Any, cards: tuple[str, ...], where: str, holder: str = "the play"
) -> tuple[str, ...]:
    if value is None:
        return ()
    unsure = _cards(value, f"{where} unsure")
    strange = [c for c in unsure if c not in cards]
    if strange:
        raise RecordError(
            f"{where} unsure names {' '.join(strange)}, which {holder} does not hold: "
            f"list only cards of {holder}"
        )
    return unsure


def _maybe(value: Any, unsure: tuple[str, ...], where: str) -> tuple[tuple[str, str], ...]:
    if value is None:
        return ()
    if not isinstance(value, Mapping):
        raise RecordError(f'{where} maybe must map unsure cards to other cards: {{"QC": "10C"}}')
    _cards(list(value.values()), f"{where} maybe")
    strange = [c for c in value if c not in unsure]
    if strange:
        raise RecordError(
            f"{where} maybe names {' '.join(map(str, strange))}, not an unsure card of the "
            "play: list it under unsure too"
        )
    same = [c for c, other in value.items() if c == other]
    if same:
        raise RecordError(f"{where} maybe gives {same[0]} as itself: name another card")
    return tuple((str(c), str(other)) for c, other in value.items())


def _unread(value: Any, plays: list[Play], number: int) -> tuple[str, ...]:
    if not isinstance(value, list) or any(s not in SEATS for s in value):
        raise RecordError(f'trick {number} unread must be a list of seats like ["N"]')
    played = [s for s in value if any(p.seat == s for p in plays)]
    if played:
        raise RecordError(
            f"trick {number} unread names {' '.join(played)}, which played there: list only "
            "seats with no play in the trick"
        )
    return tuple(str(s) for s in value)


def load_record(data: Any) -> HandRecord:
    """Validate parsed JSON and build a :class:`HandRecord` (raises :class:`RecordError`)."""
    if not isinstance(data, Mapping):
        raise RecordError('a hand record must be a JSON object with "format": "chaodipi-hand/1"')
    fmt = data.get("format")
    if fmt != FORMAT:
        raise RecordError(f'record format is {fmt!r}: expected "{FORMAT}"')
    rules = data.get("rules")
    if rules not in PROFILE_NAMES:
        raise RecordError(f"record rules {rules!r} unknown: use one of {', '.join(PROFILE_NAMES)}")
    overrides = data.get("rule_overrides") or {}
    if not isinstance(overrides, Mapping):
        raise RecordError("rule_overrides must be an object of knob: value")
    try:
        get_profile(str(rules), overrides)
    except ProfileError as e:
        raise RecordError(str(e)) from None
    levels = data.get("levels")
    if not isinstance(levels, Mapping) or set(levels) != set(SIDES):
        raise RecordError('levels must be {"NS": rank, "EW": rank}, e.g. {"NS": "2", "EW": "5"}')
    for side, rank in levels.items():
        if rank not in RANKS:
            raise RecordError(f"levels.{side} is {rank!r}: use a rank 2-10, J, Q, K or A")
    declarer = data.get("declarer")
    if declarer not in SEATS:
        raise RecordError(f"declarer is {declarer!r}: use a seat N, E, S or W")
    trump = data.get("trump")
    if trump != "NT" and trump not in SUITS:
        raise RecordError(f"trump is {trump!r}: use S, H, D, C or NT")
    raw_tricks = data.get("tricks", [])
    if not isinstance(raw_tricks, list):
        raise RecordError('tricks must be a list of {"plays": [...]}')
    tricks: list[tuple[Play, ...]] = []
    unread: dict[int, tuple[str, ...]] = {}
    for i, trick in enumerate(raw_tricks, start=1):
        if not isinstance(trick, Mapping) or not isinstance(trick.get("plays"), list):
            raise RecordError(f'trick {i} must be an object with a "plays" list')
        plays: list[Play] = []
        for j, play in enumerate(trick["plays"], start=1):
            where = f"trick {i} play {j}"
            if not isinstance(play, Mapping):
                raise RecordError(f'{where} must be {{"seat": "S", "cards": [...], "t": 52.3}}')
            seat = play.get("seat")
            if seat not in SEATS:
                raise RecordError(f"{where} seat is {seat!r}: use N, E, S or W")
            cards = _cards(play.get("cards"), f"{where} cards")
            if not cards:
                raise RecordError(f"{where} has no cards: a play shows at least one card")
            unsure = _unsure(play.get("unsure"), cards, where)
            maybe = _maybe(play.get("maybe"), unsure, where)
            t = _time(play.get("t"), f"{where} t")
            plays.append(Play(str(seat), cards, t, unsure, maybe))
        tricks.append(tuple(plays))
        if trick.get("unread"):
            unread[i] = _unread(trick["unread"], plays, i)
    kitty = None if data.get("kitty") is None else _cards(data["kitty"], "kitty")
    kitty_unsure = _unsure(data.get("kitty_unsure"), kitty or (), "kitty", "the kitty")
    kitty_maybe = _maybe(data.get("kitty_maybe"), kitty_unsure, "kitty")
    hands_raw = data.get("hands")
    hands: dict[str, tuple[str, ...]] | None = None
    if hands_raw is not None:
        if not isinstance(hands_raw, Mapping) or set(hands_raw) != set(SEATS):
            raise RecordError('hands must give all four seats: {"N": [...], "E": [...], ...}')
        hands = {s: _cards(hands_raw[s], f"hands.{s}") for s in SEATS}
    done_raw = data.get("must_play_done") or {}
    if not isinstance(done_raw, Mapping):
        raise RecordError('must_play_done must be {"NS": [ranks], "EW": [ranks]}')
    finished = data.get("finished")
    if finished is not None and not isinstance(finished, bool):
        raise RecordError("finished must be true or false")
    return HandRecord(
        rules=str(rules),
        levels={str(k): str(v) for k, v in levels.items()},
        declarer=str(declarer),
        trump=str(trump),
        tricks=tuple(tricks),
        rule_overrides=dict(overrides),
        kitty=kitty,
        kitty_taken_t=_time(data.get("kitty_taken_t"), "kitty_taken_t"),
        kitty_buried_t=_time(data.get("kitty_buried_t"), "kitty_buried_t"),
        hands=hands,
        first_hand=bool(data.get("first_hand", False)),
        must_play_done={str(k): tuple(str(r) for r in v) for k, v in done_raw.items()},
        finished=finished,
        unread=unread,
        kitty_unsure=kitty_unsure,
        kitty_maybe=kitty_maybe,
    )


def record_to_json(record: HandRecord) -> dict[str, Any]:
    """The JSON object of a record (inverse of :func:`load_record`)."""
    out: dict[str, Any] = {
        "format": FORMAT,
        "rules": record.rules,
        "rule_overrides": dict(record.rule_overrides),
        "levels": dict(record.levels),
        "declarer": record.declarer,
        "trump": record.trump,
    }
    if record.kitty is not None:
        out["kitty"] = list(record.kitty)
    if record.kitty_unsure:
        out["kitty_unsure"] = list(record.kitty_unsure)
    if record.kitty_maybe:
        out["kitty_maybe"] = dict(record.kitty_maybe)
    if record.kitty_taken_t is not None:
        out["kitty_taken_t"] = record.kitty_taken_t
    if record.kitty_buried_t is not None:
        out["kitty_buried_t"] = record.kitty_buried_t
    if record.hands is not None:
        out["hands"] = {s: list(c) for s, c in record.hands.items()}
    if record.first_hand:
        out["first_hand"] = True
    if record.must_play_done:
        out["must_play_done"] = {k: list(v) for k, v in record.must_play_done.items()}
    if record.finished is not None:
        out["finished"] = record.finished
    out["tricks"] = [{"plays": [_play_json(p) for p in trick]} for trick in record.tricks]
    for number, seats in record.unread.items():
        out["tricks"][number - 1]["unread"] = list(seats)
    return out


def _play_json(play: Play) -> dict[str, Any]:
    out: dict[str, Any] = {"seat": play.seat, "cards": list(play.cards)}
    if play.t is not None:
        out["t"] = play.t
    if play.unsure:
        out["unsure"] = list(play.unsure)
    if play.maybe:
        out["maybe"] = dict(play.maybe)
    return out
