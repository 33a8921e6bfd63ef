"""Tracking events and their append-only JSON-lines log.

This module owns the events that the play tracker (``vision.tracking``) and the game feed
(``vision.game_feed``) produce — ``play``, ``trick_cleared``, ``kitty``, ``takeback`` (悔牌: a
play lifted back before the sweep), ``exposed_card`` (a card lying face up outside every zone),
``declaration`` (cards shown face up at a seat before the first play: 叫主 or 炒),
``kitty_move`` (the kitty taken or buried: written by the renderer's ground truth only, the
camera sees no card backs) and ``recognition_conflict`` — their JSON form, and
:class:`EventLog`, the file they are recorded in: one JSON object per line, each with a
monotonically increasing ``seq``, opened in append mode, flushed and fsynced per event.
Nothing already recorded is ever rewritten; :func:`read_events` skips a torn line (a write
cut short by a power loss) with a warning.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, ClassVar

log = logging.getLogger(__name__)


def _opt_float(value: Any) -> float | None:
    return None if value is None else float(value)


@dataclass(frozen=True)
class PlayEvent:
    """A seat's cards became stable in its zone: ``t_landed`` is when they first touched the
    table, ``t_stable`` when the tracker accepted them; frames name the two camera frames.
    ``unsure`` names the cards read with a confidence under the pipeline's unsure bar, with
    that confidence: the referee's cue that the camera may have misread them (JSON
    ``"unsure": {card: confidence}``, present only when some are). ``maybe`` gives, for an
    unsure card, the camera's runner-up read: what the card may be instead (JSON
    ``"maybe": {card: other card}``, present only when some are)."""

    seat: str
    cards: tuple[str, ...]
    t_landed: float
    t_stable: float
    frame_landed: str = ""
    frame_stable: str = ""
    unsure: tuple[tuple[str, float], ...] = ()
    maybe: tuple[tuple[str, str], ...] = ()

    type: ClassVar[str] = "play"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "seat": self.seat,
            "cards": list(self.cards),
            "t_landed": self.t_landed,
            "t_stable": self.t_stable,
            "frames": {"landed": self.frame_landed, "stable": self.frame_stable},
        }
        return _doubt_json(out, self.unsure, self.maybe)


@dataclass(frozen=True)
class TrickClearedEvent:
    """All four seat zones were emptied (the trick was collected) at ``t``.

    ``unread`` names the seats that played nothing in the trick although their zone showed cards
    the tracker could never read steadily (JSON ``"unread": ["N"]``, present only when some
    did): their play was on the table, unread, not absent. ``read_otherwise`` names, as
    ``(seat, card, other)``, the cards of the trick's plays that the frames while they lay there
    read as another card often enough to doubt the play's read (JSON ``"read_otherwise": {seat:
    {card: other}}``, present only when some were)."""

    t: float
    frame: str = ""
    unread: tuple[str, ...] = ()
    read_otherwise: tuple[tuple[str, str, str], ...] = ()

    type: ClassVar[str] = "trick_cleared"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"type": self.type, "t": self.t, "frame": self.frame}
        if self.unread:
            out["unread"] = list(self.unread)
        if self.read_otherwise:
            by_seat: dict[str, dict[str, str]] = {}
            for seat, card, other in self.read_otherwise:
                by_seat.setdefault(seat, {})[card] = other
            out["read_otherwise"] = by_seat
        return out


@dataclass(frozen=True)
class KittyEvent:
    """The kitty was shown face up in the kitty zone; ``unsure`` and ``maybe`` as a play's
    (cards read in doubt, and what each may be instead: JSON only when present)."""

    cards: tuple[str, ...]
    t: float
    frame: str = ""
    unsure: tuple[tuple[str, float], ...] = ()
    maybe: tuple[tuple[str, str], ...] = ()

    type: ClassVar[str] = "kitty"

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "cards": list(self.cards),
            "t": self.t,
            "frame": self.frame,
        }
        if self.unsure:
            out["unsure"] = dict(self.unsure)
        if self.maybe:
            out["maybe"] = dict(self.maybe)
        return out


def _doubt_json(
    out: dict[str, Any],
    unsure: tuple[tuple[str, float], ...],
    maybe: tuple[tuple[str, str], ...],
) -> dict[str, Any]:
    if unsure:
        out["unsure"] = dict(unsure)
    if maybe:
        out["maybe"] = dict(maybe)
    return out


def _unsure_of(data: Mapping[str, Any]) -> tuple[tuple[str, float], ...]:
    return tuple((str(c), float(v)) for c, v in (data.get("unsure") or {}).items())


def _maybe_of(data: Mapping[str, Any]) -> tuple[tuple[str, str], ...]:
    return tuple((str(c), str(v)) for c, v in (data.get("maybe") or {}).items())


@dataclass(frozen=True)
class _SeatCardsEvent:
    """Cards of one seat seen at ``t``, with the doubt they were read with (JSON only when
    present); ``type`` names the kind."""

    seat: str
    cards: tuple[str, ...]
    t: float
    frame: str = ""
    unsure: tuple[tuple[str, float], ...] = ()
    maybe: tuple[tuple[str, str], ...] = ()

    type: ClassVar[str] = ""

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "seat": self.seat,
            "cards": list(self.cards),
            "t": self.t,
            "frame": self.frame,
        }
        return _doubt_json(out, self.unsure, self.maybe)


@dataclass(frozen=True)
class TakebackEvent(_SeatCardsEvent):
    """悔牌: ``cards`` of ``seat``'s play left its zone at ``t`` while the trick was still on
    the table (not swept). ``unsure`` and ``maybe`` as a play's; the game feed adds the doubt
    the play was read with (JSON only when present). Cards the tracker never saw a hand lift
    (still missing at the sweep, or read as another card) are all unsure, at confidence 0."""

    type: ClassVar[str] = "takeback"


@dataclass(frozen=True)
class ExposedCardEvent:
    """A card lay face up and still outside every play area and the kitty zone from ``t``:
    ``where`` its centre in table cm, ``seat`` the seat whose edge is nearest (whose card it
    is taken to be). ``unsure`` and ``maybe`` as a play's (JSON only when present)."""

    card: str
    where: tuple[float, float]
    seat: str
    t: float
    frame: str = ""
    unsure: tuple[tuple[str, float], ...] = ()
    maybe: tuple[tuple[str, str], ...] = ()

    type: ClassVar[str] = "exposed_card"

    @property
    def cards(self) -> tuple[str, ...]:
        return (self.card,)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "type": self.type,
            "card": self.card,
            "where": [round(self.where[0], 1), round(self.where[1], 1)],
            "seat": self.seat,
            "t": self.t,
            "frame": self.frame,
        }
        return _doubt_json(out, self.unsure, self.maybe)


@dataclass(frozen=True)
class DeclarationEvent(_SeatCardsEvent):
    """Cards shown face up together at ``seat``'s edge, outside every zone, before the hand's
    first play (the draw phase): a declaration (叫主) or a 炒, read at ``t`` (when they lay face
    up, still, long enough to read: a face-down placement is read when turned up). The camera
    cannot tell a 叫主 from a 炒 (it sees no kitty move): the game feed lists every one as a
    ``declare`` step of ``before_play``. ``unsure`` and ``maybe`` as a play's (JSON only when
    present)."""

    type: ClassVar[str] = "declaration"


@dataclass(frozen=True)
class KittyMoveEvent:
    """The kitty ``taken`` (picked up from the centre) or ``buried`` (``count`` cards put back
    face down) by ``seat`` at ``t``: ground truth of rendered footage (the detector reads no
    card backs, so no tracker emits it); the game feed ignores it."""

    seat: str
    action: str  # "take" or "bury"
    count: int
    t: float
    frame: str = ""

    type: ClassVar[str] = "kitty_move"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "seat": self.seat,
            "action": self.action,
            "count": self.count,
            "t": self.t,
            "frame": self.frame,
        }


@dataclass(frozen=True)
class RecognitionConflictEvent:
    """What vision saw contradicts the game (a third copy, a seat playing twice, a card count
    unlike the lead's, cards changing under a play…). For the referee: never silently fixed."""

    kind: str
    seat: str | None
    cards: tuple[str, ...]
    detail: str
    t: float | None = None

    type: ClassVar[str] = "recognition_conflict"

    def to_json(self) -> dict[str, Any]:
        return {
            "type": self.type,
            "kind": self.kind,
            "seat": self.seat,
            "cards": list(self.cards),
            "detail": self.detail,
            "t": self.t,
        }


Event = (
    PlayEvent
    | TrickClearedEvent
    | KittyEvent
    | TakebackEvent
    | ExposedCardEvent
    | DeclarationEvent
    | KittyMoveEvent
    | RecognitionConflictEvent
)


def event_from_json(data: Mapping[str, Any]) -> Event:
    """The event of a JSON object (as written by ``to_json``; ``seq`` is ignored).

    Raises ``ValueError`` for an unknown ``type`` or a missing field.
    """
    kind = data.get("type")
    try:
        if kind == "play":
            frames = data.get("frames") or {}
            return PlayEvent(
                str(data["seat"]),
                tuple(str(c) for c in data["cards"]),
                float(data["t_landed"]),
                float(data["t_stable"]),
                str(frames.get("landed", "")),
                str(frames.get("stable", "")),
                tuple((str(c), float(v)) for c, v in (data.get("unsure") or {}).items()),
                tuple((str(c), str(v)) for c, v in (data.get("maybe") or {}).items()),
            )
        if kind == "trick_cleared":
            return TrickClearedEvent(
                float(data["t"]),
                str(data.get("frame", "")),
                tuple(str(s) for s in data.get("unread") or ()),
                tuple(
                    (str(seat), str(card), str(other))
                    for seat, cards in (data.get("read_otherwise") or {}).items()
                    for card, other in cards.items()
                ),
            )
        if kind == "kitty":
            return KittyEvent(
                tuple(str(c) for c in data["cards"]),
                float(data["t"]),
                str(data.get("frame", "")),
                tuple((str(c), float(v)) for c, v in (data.get("unsure") or {}).items()),
                tuple((str(c), str(v)) for c, v in (data.get("maybe") or {}).items()),
            )
        if kind == "takeback":
            return TakebackEvent(
                str(data["seat"]),
                tuple(str(c) for c in data["cards"]),
                float(data["t"]),
                str(data.get("frame", "")),
                _unsure_of(data),
                _maybe_of(data),
            )
        if kind == "exposed_card":
            x, y = data["where"]
            return ExposedCardEvent(
                str(data["card"]),
                (float(x), float(y)),
                str(data["seat"]),
                float(data["t"]),
                str(data.get("frame", "")),
                _unsure_of(data),
                _maybe_of(data),
            )
        if kind == "declaration":
            return DeclarationEvent(
                str(data["seat"]),
                tuple(str(c) for c in data["cards"]),
                float(data["t"]),
                str(data.get("frame", "")),
                _unsure_of(data),
                _maybe_of(data),
            )
        if kind == "kitty_move":
            return KittyMoveEvent(
                str(data["seat"]),
                str(data["action"]),
                int(data["count"]),
                float(data["t"]),
                str(data.get("frame", "")),
            )
        if kind == "recognition_conflict":
            seat = data.get("seat")
            return RecognitionConflictEvent(
                str(data["kind"]),
                None if seat is None else str(seat),
                tuple(str(c) for c in data.get("cards", ())),
                str(data.get("detail", "")),
                _opt_float(data.get("t")),
            )
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"event {kind!r} is malformed: {e}") from None
    raise ValueError(
        f"unknown event type {kind!r}: expected play, trick_cleared, kitty, takeback, "
        "declaration, …"
    )


def read_events(path: str | Path) -> list[dict[str, Any]]:
    """Every event object recorded in ``path`` (``[]`` when it does not exist), in file order.

    A line that is not a complete JSON object — a write torn by a crash — is skipped with a
    warning; every other line is kept.
    """
    p = Path(path)
    if not p.exists():
        return []
    out: list[dict[str, Any]] = []
    text = p.read_bytes().decode("utf-8", errors="replace")
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError:
            obj = None
        if not isinstance(obj, dict):
            log.warning("%s line %d is torn or not an event object; skipped", p, number)
            continue
        out.append(obj)
    return out


def load_events(path: str | Path) -> list[Event]:
    """The events of ``path`` as dataclasses; unknown or malformed ones are skipped (warned)."""
    events: list[Event] = []
    for obj in read_events(path):
        try:
            events.append(event_from_json(obj))
        except ValueError as e:
            log.warning("%s: seq %s skipped: %s", path, obj.get("seq"), e)
    return events


class EventLog:
    """An append-only JSON-lines event file.

    Each :meth:`append` writes one line ``{"seq": n, "type": …, …}`` and flushes and fsyncs it
    before returning. ``seq`` continues from the last event already in the file. A torn last line
    left by a crash is kept as it is (readers skip it); the log starts a new line after it.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        seqs = [e["seq"] for e in read_events(self.path) if isinstance(e.get("seq"), int)]
        self._seq = max(seqs, default=0)
        torn = False
        if self.path.exists() and self.path.stat().st_size > 0:
            with self.path.open("rb") as fh:
                fh.seek(-1, os.SEEK_END)
                torn = fh.read(1) != b"\n"
        self._fh = self.path.open("a", encoding="utf-8")
        if torn:
            self._write("\n")

    @property
    def seq(self) -> int:
        """The ``seq`` of the last event recorded (0 for none)."""
        return self._seq

    def _write(self, text: str) -> None:
        self._fh.write(text)
        self._fh.flush()
        os.fsync(self._fh.fileno())

    def append(self, event: Event | Mapping[str, Any]) -> dict[str, Any]:
        """Record one event (a dataclass or its JSON object); returns the line written."""
        body = dict(event) if isinstance(event, Mapping) else event.to_json()
        body.pop("seq", None)
        self._seq += 1
        line = {"seq": self._seq, **body}
        self._write(json.dumps(line, ensure_ascii=False, separators=(",", ":")) + "\n")
        return line

    def extend(self, events: Iterable[Event | Mapping[str, Any]]) -> None:
        for event in events:
            self.append(event)

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> EventLog:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()
