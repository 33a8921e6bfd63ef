"""The hand record's fields before the first trick and beside the tricks, and their validation.

All of them are optional (``chaodipi-hand/1`` stays backward compatible; null reads as absent):

* ``draw`` — ``{"first": "S", "direction": "clockwise", "shuffled_by": "E", "cut_by": "W",
  "flips": [{"seat": "S", "card": "9H"}, …], "t": 0.0}``: who drew first, the direction of the
  draw, who shuffled and cut, the cards turned up to choose the first drawer.
* ``before_play`` — every declaration, 炒, pass and kitty move in the order they happened:
  ``{"seat", "action", …}`` with ``action`` one of :data:`ACTIONS`: ``declare`` (叫主/亮主/
  正主/反主 before the kitty is taken) and ``chao`` (炒底) show ``cards`` (1–4), optionally
  ``face_down`` (placed face down, 暗放/暗炒), ``revealed_t`` (when turned up) and ``trump`` (the
  suit a joker tractor names); ``pass`` (a turn of 炒 let go); ``take`` (the kitty picked up,
  ``count`` cards when not the kitty's size); ``bury`` (cards buried: ``cards`` or ``count``);
  ``look`` (a burier looking at its buried kitty). Each may have ``t``. A declare or chao
  read by the camera may have ``unsure`` and ``maybe`` as a play's (cards read in doubt and
  their runner-up reads): a finding that rests on it is put to the referee as a question. An
  empty list says nobody declared.
* ``no_bid_flip`` — the kitty's cards in the order they were turned up when nobody declared.
* ``takebacks`` (悔牌) and ``exposed`` (cards shown out of play) — ``{"seat", "cards", "t",
  "trick", "unsure", "maybe"}``, ``trick`` the 1-based trick during which it happened;
  ``unsure`` and ``maybe`` as a play's (cards the camera read in doubt, and their runner-up
  reads): what rests on them is put to the referee as a question.
* ``redeals`` — ``{"seat", "t"}``: a weak-hand redeal (造反) granted to that seat.
* ``dealer_by_rotation`` — the seat the previous hand's result made the next dealer.

This module owns those fields as data (:class:`PreplayRecord`), their checks — each value by
type, range and allowed values through :mod:`engine.checks`, one line naming the field — and
their JSON. It imports neither :mod:`engine.record` nor the audit: the record builds on it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, NamedTuple

from engine import checks
from engine.cards import ALL_IDENTITIES, SEATS, SUITS, CardError, parse
from engine.checks import MAX_MAGNITUDE

ACTIONS: tuple[str, ...] = ("declare", "chao", "pass", "take", "bury", "look")
"""What a ``before_play`` event can be."""
DECLARING: tuple[str, ...] = ("declare", "chao")
DIRECTIONS: tuple[str, ...] = ("clockwise", "counterclockwise")
EVENT_KEYS: tuple[str, ...] = (
    "seat",
    "action",
    "cards",
    "count",
    "face_down",
    "revealed_t",
    "trump",
    "t",
    "unsure",
    "maybe",
)
DRAW_KEYS: tuple[str, ...] = ("first", "direction", "shuffled_by", "cut_by", "flips", "t")
INCIDENT_KEYS: tuple[str, ...] = ("seat", "cards", "t", "trick", "unsure", "maybe")
REDEAL_KEYS: tuple[str, ...] = ("seat", "t")
FIELDS: tuple[str, ...] = (
    "draw",
    "before_play",
    "no_bid_flip",
    "takebacks",
    "exposed",
    "redeals",
    "dealer_by_rotation",
)
"""The record's top-level fields this module reads."""

MAX_EVENTS = 400
"""Most ``before_play`` events (a long 炒 with every pass recorded stays far below)."""
MAX_INCIDENTS = 108
"""Most takebacks, exposed cards or redeals a record may list."""
MAX_DECLARED = 4
"""Most cards one declaration shows (the joker tractor)."""
MAX_TRICK = 108

CardsReader = Callable[[Any, str], tuple[str, ...]]
"""Reads a list of cards, naming ``where`` in its error (the record's own reader)."""


class Flip(NamedTuple):
    """A card turned up to choose the first drawer (启牌人)."""

    seat: str
    card: str


class Draw(NamedTuple):
    first: str | None = None
    direction: str | None = None
    shuffled_by: str | None = None
    cut_by: str | None = None
    flips: tuple[Flip, ...] = ()
    t: float | None = None


class BidEvent(NamedTuple):
    """One step of the bidding and the kitty's moves (``before_play``)."""

    seat: str
    action: str
    cards: tuple[str, ...] = ()
    n_cards: int | None = None
    """JSON ``count``: the cards taken or buried, when the record counts them."""
    face_down: bool | None = None
    revealed_t: float | None = None
    trump: str | None = None
    t: float | None = None
    unsure: tuple[str, ...] = ()  # a declaration's cards read in doubt (a camera's reading)
    maybe: tuple[tuple[str, str], ...] = ()  # an unsure card's runner-up read

    @property
    def size(self) -> int | None:
        """Cards taken or buried: ``count``, else the listed cards, else unknown (None)."""
        if self.n_cards is not None:
            return self.n_cards
        return len(self.cards) if self.cards else None


class Incident(NamedTuple):
    """Cards taken back (悔牌) or exposed by ``seat`` (during ``trick`` when known)."""

    seat: str
    cards: tuple[str, ...]
    t: float | None = None
    trick: int | None = None
    unsure: tuple[str, ...] = ()  # cards read in doubt (a camera's reading)
    maybe: tuple[tuple[str, str], ...] = ()  # an unsure card's runner-up read


class Redeal(NamedTuple):
    seat: str
    t: float | None = None


class PreplayRecord(NamedTuple):
    """A record's fields before the first trick and beside the tricks; ``events`` is None when
    the record does not tell the bidding (every older record), () when nobody declared."""

    draw: Draw | None = None
    events: tuple[BidEvent, ...] | None = None
    no_bid_flip: tuple[str, ...] | None = None
    takebacks: tuple[Incident, ...] = ()
    exposed: tuple[Incident, ...] = ()
    redeals: tuple[Redeal, ...] = ()
    dealer_by_rotation: str | None = None

    @property
    def empty(self) -> bool:
        return self == EMPTY


EMPTY = PreplayRecord()


def _time(value: Any, where: str, error: type[ValueError]) -> float | None:
    return checks.number(value, where, error, 0, MAX_MAGNITUDE, null=True, unit="seconds")


def _seat(value: Any, where: str, error: type[ValueError]) -> str | None:
    return None if value is None else checks.choice(value, where, error, SEATS)


def _object(value: Any, where: str, keys: tuple[str, ...], error: type[ValueError]) -> Any:
    if not isinstance(value, Mapping):
        raise error(f"{where}: must be an object with {', '.join(keys)}, got {checks.shown(value)}")
    strange = [k for k in value if k not in keys]
    if strange:
        raise error(
            f"{where}: unknown key {checks.shown(strange[0])}: it has only {', '.join(keys)}"
        )
    return value


def _list(value: Any, where: str, most: int, error: type[ValueError]) -> list[Any]:
    if not isinstance(value, list):
        raise error(f"{where}: must be a list, got {checks.shown(value)}")
    if len(value) > most:
        raise error(f"{where}: {len(value)} entries, more than {most}")
    return value


def _card(value: Any, where: str, error: type[ValueError]) -> str:
    if not isinstance(value, str):
        raise error(f'{where}: must be a card like "10H" or "BJ", got {checks.shown(value)}')
    try:
        parse(value)
    except CardError as e:
        raise error(f"{where}: {str(e)[:120]}") from None
    return value


def _draw(value: Any, error: type[ValueError]) -> Draw | None:
    if value is None:
        return None
    raw = _object(value, "draw", DRAW_KEYS, error)
    flips: list[Flip] = []
    raw_flips = [] if raw.get("flips") is None else raw["flips"]
    for i, f in enumerate(_list(raw_flips, "draw.flips", 54, error), start=1):
        where = f"draw.flips {i}"
        flip = _object(f, where, ("seat", "card"), error)
        seat = checks.choice(flip.get("seat"), f"{where} seat", error, SEATS)
        flips.append(Flip(seat, _card(flip.get("card"), f"{where} card", error)))
    direction = raw.get("direction")
    return Draw(
        first=_seat(raw.get("first"), "draw.first", error),
        direction=None
        if direction is None
        else checks.choice(direction, "draw.direction", error, DIRECTIONS),
        shuffled_by=_seat(raw.get("shuffled_by"), "draw.shuffled_by", error),
        cut_by=_seat(raw.get("cut_by"), "draw.cut_by", error),
        flips=tuple(flips),
        t=_time(raw.get("t"), "draw.t", error),
    )


def _fast_time(value: Any) -> float | None:
    """A time that is plainly valid (None, or a finite int/float from 0 to the bound), else
    ``-1.0`` for :func:`_time` to refuse with its message."""
    if value is None:
        return None
    if type(value) in (int, float) and 0 <= value <= MAX_MAGNITUDE:
        return float(value)
    return -1.0


_SEAT_SET = frozenset(SEATS)
_ACTION_SET = frozenset(ACTIONS)
_EVENT_KEY_SET = frozenset(EVENT_KEYS)
_PLAIN_KEY_SET = _EVENT_KEY_SET - {"unsure", "maybe"}  # a read in doubt takes the long way
_TRUMPS = (*SUITS, "NT")


_CARD_SET = frozenset(ALL_IDENTITIES)
_NO_CARDS_SIZE = {"pass": 0, "look": 0, "take": 0}
_DRAW_KEY_SET = frozenset(DRAW_KEYS)


def _plain_time(value: Any) -> bool:
    return value is None or (type(value) in (int, float) and 0 <= value <= MAX_MAGNITUDE)


def _plain_event(value: Any) -> BidEvent | None:
    """The event when it is plainly well-formed (the common case, read without building any
    message), else None for :func:`_event` to check field by field and refuse."""
    if type(value) is not dict or not value.keys() <= _PLAIN_KEY_SET:
        return None
    get = value.get
    seat, action, shown, count = get("seat"), get("action"), get("cards"), get("count")
    face_down, revealed, trump, t = get("face_down"), get("revealed_t"), get("trump"), get("t")
    if type(seat) is not str or seat not in _SEAT_SET or type(action) is not str:
        return None
    if shown is None:
        shown = ()
    elif type(shown) is list and all(type(c) is str and c in _CARD_SET for c in shown):
        shown = tuple(shown)
    else:
        return None
    if action in DECLARING:
        if not 1 <= len(shown) <= MAX_DECLARED or count is not None:
            return None
        if face_down is not None and type(face_down) is not bool:
            return None
        if trump is not None and (type(trump) is not str or trump not in _TRUMPS):
            return None
    elif action in _ACTION_SET:
        if face_down is not None or revealed is not None or trump is not None:
            return None
        if shown and action in _NO_CARDS_SIZE:
            return None
        if count is not None and (type(count) is not int or not 0 <= count <= 108):
            return None
        if count is not None and (
            action not in ("take", "bury") or (shown and count != len(shown))
        ):
            return None
    else:
        return None
    if not (_plain_time(t) and _plain_time(revealed)):
        return None
    return BidEvent(
        seat,
        action,
        shown,
        count,
        face_down,
        None if revealed is None else float(revealed),
        trump,
        None if t is None else float(t),
    )


def _plain_draw(value: Any) -> Draw | None:
    """The draw when it is plainly well-formed and has no flips, else None (see
    :func:`_plain_event`)."""
    if type(value) is not dict or not value.keys() <= _DRAW_KEY_SET or value.get("flips"):
        return None
    get = value.get
    seats = (get("first"), get("shuffled_by"), get("cut_by"))
    if any(s is not None and (type(s) is not str or s not in _SEAT_SET) for s in seats):
        return None
    direction, t = get("direction"), get("t")
    if (direction is not None and direction not in DIRECTIONS) or not _plain_time(t):
        return None
    first, shuffled_by, cut_by = seats
    return Draw(first, direction, shuffled_by, cut_by, (), None if t is None else float(t))


def _event(value: Any, number: int, error: type[ValueError], cards: CardsReader) -> BidEvent:
    where = f"before_play event {number}"
    if type(value) is not dict or not value.keys() <= _EVENT_KEY_SET:
        _object(value, where, EVENT_KEYS, error)  # refuses it, naming the key
    seat, action = value.get("seat"), value.get("action")
    if type(seat) is not str or seat not in _SEAT_SET:
        checks.choice(seat, f"{where} seat", error, SEATS)
    if type(action) is not str or action not in _ACTION_SET:
        checks.choice(action, f"{where} action", error, ACTIONS)
    raw_cards = value.get("cards")
    shown = () if raw_cards is None else cards(raw_cards, f"{where} cards")
    count = value.get("count")
    if count is not None:
        count = checks.integer(count, f"{where} count", error, 0, 108)
    declaring = action in DECLARING
    if declaring and not 1 <= len(shown) <= MAX_DECLARED:
        raise error(
            f"{where}: a {action} shows 1 to {MAX_DECLARED} cards, got {len(shown)}: list the "
            "cards it placed or showed"
        )
    if shown and action in ("pass", "look", "take"):
        raise error(f"{where}: a {action} shows no cards: leave out cards")
    if count is not None and action not in ("take", "bury"):
        raise error(f"{where}: only a take or a bury has a count: leave it out")
    if action == "bury" and count is not None and shown and count != len(shown):
        raise error(f"{where}: count {count} but {len(shown)} cards listed: give one of them")
    face_down, revealed, trump = value.get("face_down"), value.get("revealed_t"), value.get("trump")
    if not declaring and (face_down is not None or revealed is not None or trump is not None):
        name = (
            "face_down"
            if face_down is not None
            else "revealed_t"
            if revealed is not None
            else "trump"
        )
        raise error(f"{where}: only a declare or a chao has {name}: leave it out")
    if face_down is not None:
        checks.boolean(face_down, f"{where} face_down", error)
    if trump is not None:
        trump = checks.choice(trump, f"{where} trump", error, _TRUMPS)
    t, revealed_t = _fast_time(value.get("t")), _fast_time(revealed)
    if t == -1.0:
        t = _time(value.get("t"), f"{where} t", error)
    if revealed_t == -1.0:
        revealed_t = _time(revealed, f"{where} revealed_t", error)
    if not declaring and (value.get("unsure") is not None or value.get("maybe") is not None):
        raise error(f"{where}: only a declare or a chao has unsure or maybe: leave it out")
    unsure, maybe = _doubt(value, shown, where, error, cards)
    return BidEvent(seat, action, shown, count, face_down, revealed_t, trump, t, unsure, maybe)


def _doubt(
    raw: Mapping[str, Any],
    shown: tuple[str, ...],
    where: str,
    error: type[ValueError],
    cards: CardsReader,
) -> tuple[tuple[str, ...], tuple[tuple[str, str], ...]]:
    """``unsure`` (cards of ``shown``) and ``maybe`` (unsure card → its runner-up read) of a
    camera's reading, checked; pairs naming the card itself are dropped."""
    unsure = () if raw.get("unsure") is None else cards(raw["unsure"], f"{where} unsure")
    strange = [c for c in unsure if c not in shown]
    if strange:
        raise error(f"{where} unsure names {strange[0]}, not one of its cards: list only those")
    maybe = raw.get("maybe") or {}
    if not isinstance(maybe, Mapping) or any(c not in unsure for c in maybe):
        raise error(f'{where} maybe must map its unsure cards to other cards: {{"QC": "10C"}}')
    others = cards(list(maybe.values()), f"{where} maybe")
    return unsure, tuple((str(c), o) for c, o in zip(maybe, others, strict=True) if o != c)


def _incidents(
    value: Any, name: str, error: type[ValueError], cards: CardsReader
) -> tuple[Incident, ...]:
    if value is None:
        return ()
    out = []
    for i, item in enumerate(_list(value, name, MAX_INCIDENTS, error), start=1):
        where = f"{name} {i}"
        raw = _object(item, where, INCIDENT_KEYS, error)
        seat = checks.choice(raw.get("seat"), f"{where} seat", error, SEATS)
        shown = cards(raw.get("cards"), f"{where} cards")
        if not shown:
            raise error(f"{where} has no cards: name the cards")
        trick = raw.get("trick")
        if trick is not None:
            trick = checks.integer(trick, f"{where} trick", error, 1, MAX_TRICK)
        unsure, pairs = _doubt(raw, shown, where, error, cards)
        time = _time(raw.get("t"), f"{where} t", error)
        out.append(Incident(seat, shown, time, trick, unsure, pairs))
    return tuple(out)


def _redeals(value: Any, error: type[ValueError]) -> tuple[Redeal, ...]:
    if value is None:
        return ()
    out = []
    for i, item in enumerate(_list(value, "redeals", MAX_INCIDENTS, error), start=1):
        where = f"redeals {i}"
        raw = _object(item, where, REDEAL_KEYS, error)
        seat = checks.choice(raw.get("seat"), f"{where} seat", error, SEATS)
        out.append(Redeal(seat, _time(raw.get("t"), f"{where} t", error)))
    return tuple(out)


def load_preplay(
    data: Mapping[str, Any], error: type[ValueError], cards: CardsReader
) -> PreplayRecord:
    """The fields of this module from a record's parsed JSON, each checked (``error`` with one
    line naming the field otherwise); ``cards`` is the record's reader of card lists."""
    get = data.get
    if all(get(name) is None for name in FIELDS):
        return EMPTY
    events = None
    if get("before_play") is not None:
        raw = _list(data["before_play"], "before_play", MAX_EVENTS, error)
        events = tuple(
            _plain_event(e) or _event(e, i, error, cards) for i, e in enumerate(raw, start=1)
        )
    flip = get("no_bid_flip")
    draw = get("draw")
    return PreplayRecord(
        draw=_plain_draw(draw) or _draw(draw, error),
        events=events,
        no_bid_flip=None if flip is None else cards(flip, "no_bid_flip"),
        takebacks=_incidents(data.get("takebacks"), "takebacks", error, cards),
        exposed=_incidents(data.get("exposed"), "exposed", error, cards),
        redeals=_redeals(data.get("redeals"), error),
        dealer_by_rotation=_seat(data.get("dealer_by_rotation"), "dealer_by_rotation", error),
    )


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None and v != []}


def preplay_json(pre: PreplayRecord) -> dict[str, Any]:
    """The record fields of ``pre`` (inverse of :func:`load_preplay`); absent ones left out."""
    out: dict[str, Any] = {}
    if pre.draw is not None:
        d = pre.draw
        out["draw"] = _drop_none(
            {
                "first": d.first,
                "direction": d.direction,
                "shuffled_by": d.shuffled_by,
                "cut_by": d.cut_by,
                "flips": [{"seat": f.seat, "card": f.card} for f in d.flips],
                "t": d.t,
            }
        )
    if pre.events is not None:
        out["before_play"] = [
            _drop_none(
                {
                    "seat": e.seat,
                    "action": e.action,
                    "cards": list(e.cards),
                    "count": e.n_cards,
                    "face_down": e.face_down,
                    "revealed_t": e.revealed_t,
                    "trump": e.trump,
                    "t": e.t,
                    "unsure": list(e.unsure) or None,
                    "maybe": dict(e.maybe) or None,
                }
            )
            for e in pre.events
        ]
    if pre.no_bid_flip is not None:
        out["no_bid_flip"] = list(pre.no_bid_flip)
    for name, items in (("takebacks", pre.takebacks), ("exposed", pre.exposed)):
        if items:
            out[name] = [
                _drop_none(
                    {
                        "seat": i.seat,
                        "cards": list(i.cards),
                        "t": i.t,
                        "trick": i.trick,
                        "unsure": list(i.unsure) or None,
                        "maybe": dict(i.maybe) or None,
                    }
                )
                for i in items
            ]
    if pre.redeals:
        out["redeals"] = [_drop_none({"seat": r.seat, "t": r.t}) for r in pre.redeals]
    if pre.dealer_by_rotation is not None:
        out["dealer_by_rotation"] = pre.dealer_by_rotation
    return out


def times(pre: PreplayRecord) -> list[float]:
    """Every time these fields give (the hand's clock starts at the first time a record gives)."""
    out: list[float] = []
    if pre.draw is not None and pre.draw.t is not None:
        out.append(pre.draw.t)
    for e in pre.events or ():
        out += [t for t in (e.t, e.revealed_t) if t is not None]
    for i in (*pre.takebacks, *pre.exposed):
        if i.t is not None:
            out.append(i.t)
    out += [r.t for r in pre.redeals if r.t is not None]
    return out
