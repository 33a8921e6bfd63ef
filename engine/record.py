"""Hand records: the JSON form of one hand (format ``chaodipi-hand/1``) and its validation.

A record lists the plays in the order they touched the table, trick by trick, with optional
times in seconds; the kitty is optional until it is shown, and a record of a hand in progress is
valid. The JSON Schema is ``engine/schema/hand-record.schema.json``; this module turns parsed
JSON into a :class:`HandRecord` or raises :class:`RecordError` with one line naming the field,
what is allowed and what was given: every field is checked by type, range and allowed values
(:mod:`engine.checks`), the rule overrides by their knobs' rules; the fields before play and
beside the tricks (the draw, ``before_play``, takebacks, exposed cards, …) are read and checked
by :mod:`engine.preplay.fields` into :attr:`HandRecord.preplay`; the referee's card checks (查牌,
``card_checks``) into :attr:`HandRecord.card_checks`. :func:`parse_record_text`
parses a record's text with bounded nesting and numbers. New fields are only ever added as
optional ones (backward compatible).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from engine import checks
from engine.cards import RANKS, SEATS, SIDES, SUITS, CardError, parse
from engine.checks import MAX_MAGNITUDE
from engine.preplay.fields import EMPTY, PreplayRecord, load_preplay, preplay_json
from engine.profiles import PROFILE_NAMES, ProfileError, RuleProfile, check_overrides, get_profile

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
class CardCheck:
    """查牌: ``seat`` had the referee check ``checked``'s play in ``trick`` (1-based), after the
    trick was gathered. It is founded when the audit finds an infraction of ``checked`` there;
    unfounded ones cost the asking side ``card_check_penalty`` each past ``card_check_free``."""

    seat: str
    checked: str
    trick: int


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
    preplay: PreplayRecord = EMPTY
    """The draw, declarations and 炒, kitty moves, no-bid flip, redeals, takebacks and exposed
    cards (JSON ``draw``, ``before_play``, ``no_bid_flip``, ``redeals``, ``takebacks``,
    ``exposed``, ``dealer_by_rotation``; :mod:`engine.preplay.fields`), each optional."""
    card_checks: tuple[CardCheck, ...] = ()
    """The checks of played cards a seat asked the referee for (JSON ``card_checks``: ``[{"seat",
    "checked", "trick"}]``), in the order asked; the audit scores them with any it is given."""

    def profile(self) -> RuleProfile:
        return get_profile(self.rules, self.rule_overrides)

    @property
    def level(self) -> str:
        """The hand's level rank: the declarer side's level."""
        side = "NS" if self.declarer in ("N", "S") else "EW"
        return self.levels[side]


MAX_CARDS = 108
"""Most cards a list of a record may hold (both decks)."""
MAX_TRICKS = 108
"""Most tricks a record may hold (every card its own trick)."""
MAX_PLAYS = 8
"""Most plays one trick may hold (four seats, each at most twice when a seat played again)."""
PLAY_KEYS: tuple[str, ...] = ("seat", "cards", "t", "unsure", "maybe")
"""The keys a play may have (a misspelt one is refused rather than ignored)."""
CARD_CHECK_KEYS: tuple[str, ...] = ("seat", "checked", "trick")
"""The keys of a card check (查牌) of ``card_checks``."""
MAX_CARD_CHECKS = 108
"""Most card checks a record may list (one per card of a deal)."""
_RANK_WORDS = "ranks 2–10, J, Q, K, A"


def parse_record_text(text: str, source: str) -> Any:
    """The JSON of a record's text (from ``source``, a file name or "stdin"), bounded as
    :func:`engine.checks.parse_json` says; :class:`RecordError` for text that is not such JSON.
    Validate the result with :func:`load_record`."""
    return checks.parse_json(text, source, RecordError)


def _cards(value: Any, where: str) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise RecordError(
            f'{where}: must be a list of cards like ["10H", "QS", "BJ"], got {checks.shown(value)}'
        )
    if len(value) > MAX_CARDS:
        raise RecordError(f"{where}: holds {len(value)} cards, more than the {MAX_CARDS} of a deal")
    for c in value:
        if not isinstance(c, str):
            raise RecordError(
                f'{where} holds {checks.shown(c)}: cards are strings like "10H" or "BJ"'
            )
        try:
            parse(c)
        except CardError as e:
            raise RecordError(f"{where}: {str(e)[:120]}") from None
    return tuple(value)


def _time(value: Any, where: str) -> float | None:
    return checks.number(value, where, RecordError, 0, MAX_MAGNITUDE, null=True, unit="seconds")


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
    strange = [checks.shown(c).strip('"') for c in value if c not in unsure]
    if strange:
        raise RecordError(
            f"{where} maybe names {' '.join(strange)}, not an unsure card of the play: "
            "list it under unsure too"
        )
    same = [c for c, other in value.items() if c == other]
    if same:
        raise RecordError(f"{where} maybe gives {same[0]} as itself: name another card")
    return tuple((str(c), str(other)) for c, other in value.items())


def _unread(value: Any, plays: list[Play], number: int) -> tuple[str, ...]:
    where = f"trick {number} unread"
    seats = checks.strings(value, where, RecordError, SEATS, what='seats like ["N"]')
    played = [s for s in seats if any(p.seat == s for p in plays)]
    if played:
        raise RecordError(
            f"{where} names {' '.join(played)}, which played there: list only "
            "seats with no play in the trick"
        )
    return seats


def _play(play: Any, where: str) -> Play:
    if not isinstance(play, Mapping):
        raise RecordError(
            f'{where}: must be {{"seat": "S", "cards": [...], "t": 52.3}}, got {checks.shown(play)}'
        )
    strange = [k for k in play if k not in PLAY_KEYS]
    if strange:
        raise RecordError(
            f"{where}: unknown key {checks.shown(strange[0])}: a play has only "
            + ", ".join(PLAY_KEYS)
        )
    seat = checks.choice(play.get("seat"), f"{where} seat", RecordError, SEATS)
    cards = _cards(play.get("cards"), f"{where} cards")
    if not cards:
        raise RecordError(f"{where} has no cards: a play shows at least one card")
    unsure = _unsure(play.get("unsure"), cards, where)
    maybe = _maybe(play.get("maybe"), unsure, where)
    t = _time(play.get("t"), f"{where} t")
    return Play(seat, cards, t, unsure, maybe)


def _tricks(raw: Any) -> tuple[tuple[tuple[Play, ...], ...], dict[int, tuple[str, ...]]]:
    if not isinstance(raw, list):
        raise RecordError(f'tricks: must be a list of {{"plays": [...]}}, got {checks.shown(raw)}')
    if len(raw) > MAX_TRICKS:
        raise RecordError(f"tricks: {len(raw)} tricks, more than the {MAX_TRICKS} cards of a deal")
    tricks: list[tuple[Play, ...]] = []
    unread: dict[int, tuple[str, ...]] = {}
    for i, trick in enumerate(raw, start=1):
        if not isinstance(trick, Mapping) or not isinstance(trick.get("plays"), list):
            raise RecordError(f'trick {i} must be an object with a "plays" list')
        if len(trick["plays"]) > MAX_PLAYS:
            raise RecordError(
                f"trick {i} plays: {len(trick['plays'])} plays, more than {MAX_PLAYS}: "
                "a trick holds one play per seat"
            )
        plays = [_play(play, f"trick {i} play {j}") for j, play in enumerate(trick["plays"], 1)]
        tricks.append(tuple(plays))
        if trick.get("unread") is not None:
            seats = _unread(trick["unread"], plays, i)
            if seats:
                unread[i] = seats
    return tuple(tricks), unread


def _levels(value: Any) -> dict[str, str]:
    if not isinstance(value, Mapping) or set(value) != set(SIDES):
        raise RecordError(
            'levels: must be {"NS": rank, "EW": rank}, e.g. {"NS": "2", "EW": "5"}, '
            f"got {checks.shown(value)}"
        )
    return {
        side: checks.choice(value[side], f"levels.{side}", RecordError, RANKS) for side in SIDES
    }


def _hands(value: Any) -> dict[str, tuple[str, ...]] | None:
    if value is None:
        return None
    if not isinstance(value, Mapping) or set(value) != set(SEATS):
        raise RecordError(
            'hands: must give all four seats: {"N": [...], "E": [...], "S": [...], "W": [...]}'
        )
    return {s: _cards(value[s], f"hands.{s}") for s in SEATS}


def _must_play_done(value: Any) -> dict[str, tuple[str, ...]]:
    if value is None:
        return {}
    wanted = 'must_play_done: must be {"NS": [ranks], "EW": [ranks]}'
    if not isinstance(value, Mapping):
        raise RecordError(f"{wanted}, got {checks.shown(value)}")
    strange = [k for k in value if k not in SIDES]
    if strange:
        raise RecordError(f"{wanted}, got the key {checks.shown(strange[0])}")
    return {
        str(side): checks.strings(
            levels, f"must_play_done.{side}", RecordError, RANKS, what=_RANK_WORDS
        )
        for side, levels in value.items()
    }


def _card_checks(value: Any) -> tuple[CardCheck, ...]:
    if value is None:
        return ()
    wanted = '[{"seat": "W", "checked": "S", "trick": 3}]'
    if not isinstance(value, list):
        raise RecordError(f"card_checks: must be a list like {wanted}, got {checks.shown(value)}")
    if len(value) > MAX_CARD_CHECKS:
        raise RecordError(f"card_checks: {len(value)} checks, more than {MAX_CARD_CHECKS}")
    out = []
    for i, item in enumerate(value, start=1):
        where = f"card_checks {i}"
        if not isinstance(item, Mapping):
            raise RecordError(f"{where}: must be an object like {wanted[1:-1]}")
        strange = [k for k in item if k not in CARD_CHECK_KEYS]
        if strange:
            raise RecordError(
                f"{where}: unknown key {checks.shown(strange[0])}: a card check has only "
                + ", ".join(CARD_CHECK_KEYS)
            )
        seat = checks.choice(item.get("seat"), f"{where} seat", RecordError, SEATS)
        checked = checks.choice(item.get("checked"), f"{where} checked", RecordError, SEATS)
        trick = checks.integer(item.get("trick"), f"{where} trick", RecordError, 1, MAX_TRICKS)
        out.append(CardCheck(seat, checked, trick))
    return tuple(out)


def load_record(data: Any) -> HandRecord:
    """Validate parsed JSON and build a :class:`HandRecord` (raises :class:`RecordError`).

    Every field is checked by type, range and allowed values (README "Hand record"): a boolean
    is ``true``/``false``, a time a finite number of seconds ≥ 0, levels are ranks, lists are
    lists, and ``rule_overrides`` keep to each knob's rule (:data:`engine.profiles.KNOB_RULES`)."""
    if not isinstance(data, Mapping):
        raise RecordError('a hand record must be a JSON object with "format": "chaodipi-hand/1"')
    fmt = data.get("format")
    if fmt != FORMAT:
        raise RecordError(f'format: must be "{FORMAT}", got {checks.shown(fmt)}')
    rules = checks.choice(data.get("rules"), "rules", RecordError, PROFILE_NAMES)
    overrides = data.get("rule_overrides")
    try:
        checked = check_overrides({} if overrides is None else overrides, "rule_overrides")
        get_profile(rules, checked)
    except ProfileError as e:
        raise RecordError(str(e)) from None
    levels = _levels(data.get("levels"))
    declarer = checks.choice(data.get("declarer"), "declarer", RecordError, SEATS)
    trump = checks.choice(data.get("trump"), "trump", RecordError, (*SUITS, "NT"))
    tricks, unread = _tricks(data.get("tricks", []))
    kitty = None if data.get("kitty") is None else _cards(data["kitty"], "kitty")
    kitty_unsure = _unsure(data.get("kitty_unsure"), kitty or (), "kitty", "the kitty")
    kitty_maybe = _maybe(data.get("kitty_maybe"), kitty_unsure, "kitty")
    first_hand, finished = data.get("first_hand"), data.get("finished")
    for name, flag in (("first_hand", first_hand), ("finished", finished)):
        if flag is not None:  # null reads as absent, as for every optional field
            checks.boolean(flag, name, RecordError)
    meta = data.get("meta")
    if meta is not None and not isinstance(meta, Mapping):
        raise RecordError(f"meta: must be an object, got {checks.shown(meta)}")
    return HandRecord(
        rules=rules,
        levels=levels,
        declarer=declarer,
        trump=trump,
        tricks=tricks,
        rule_overrides=dict(overrides or {}),
        kitty=kitty,
        kitty_taken_t=_time(data.get("kitty_taken_t"), "kitty_taken_t"),
        kitty_buried_t=_time(data.get("kitty_buried_t"), "kitty_buried_t"),
        hands=_hands(data.get("hands")),
        first_hand=first_hand is True,
        must_play_done=_must_play_done(data.get("must_play_done")),
        finished=finished,
        unread=unread,
        kitty_unsure=kitty_unsure,
        kitty_maybe=kitty_maybe,
        preplay=load_preplay(data, RecordError, _cards),
        card_checks=_card_checks(data.get("card_checks")),
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
    out.update(preplay_json(record.preplay))
    if record.card_checks:
        out["card_checks"] = [
            {"seat": c.seat, "checked": c.checked, "trick": c.trick} for c in record.card_checks
        ]
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
