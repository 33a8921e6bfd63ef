"""Checks of the values the engine is given: type, range and allowed values, in one line.

This module owns how a bad input value is refused. Each check names the field (``where``),
says what is allowed and shows what was given, e.g. ``rules.points_per_level: must be an
integer from 5 to 200, got 0``, by raising the caller's error class (a ``ValueError``). JSON
types are taken strictly: a boolean is ``true``/``false`` (not ``"false"``, not ``1``), an
integer is not a float, a string or a boolean, a number is finite. :func:`parse_json` parses the
text of a record with bounded nesting (:data:`MAX_DEPTH`) and numbers
(:data:`MAX_MAGNITUDE`), so no input can exhaust the stack or overflow an arithmetic.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections.abc import Sequence
from typing import Any, Literal, NoReturn, overload

MAX_DEPTH = 32
"""Deepest nesting of arrays and objects accepted in a JSON text."""
MAX_MAGNITUDE = 10**12
"""Largest absolute value of a number accepted in a JSON text."""

_SHOWN_CHARS = 40
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_NOT_BRACKET = re.compile(r"[^\[\]{}]")
_PLAIN_KEY = re.compile(r"\w{1,40}", re.ASCII)


def shown(value: Any) -> str:
    """``value`` as a short, single-line, JSON-like text for an error message."""
    if value is None or isinstance(value, (bool, str)):
        text = json.dumps(value, ensure_ascii=False)
    elif isinstance(value, int):
        text = str(value) if abs(value) < 10**15 else "a number beyond ±10^15"
    elif isinstance(value, float):
        text = repr(value) if math.isfinite(value) else json.dumps(value)
    elif isinstance(value, (list, tuple)):
        scalars = len(value) <= 4 and all(
            x is None or isinstance(x, (bool, int, float, str)) for x in value
        )
        if scalars:
            text = "[" + ", ".join(map(shown, value)) + "]"
        else:
            text = f"a list of {len(value)} items"
    elif isinstance(value, dict):
        text = "an object"
    else:
        text = type(value).__name__
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


def _bound(x: float) -> str:
    if x >= 10**6 and math.log10(x).is_integer():
        return f"10^{int(math.log10(x))}"
    return f"{x:g}"


def _fail(error: type[ValueError], where: str, wanted: str, value: Any) -> NoReturn:
    raise error(f"{where}: must be {wanted}, got {shown(value)}")


def is_integer(value: Any) -> bool:
    """True for a JSON integer (a Python ``int`` that is not a ``bool``)."""
    return isinstance(value, int) and not isinstance(value, bool)


def boolean(value: Any, where: str, error: type[ValueError]) -> bool:
    """``value`` if it is a boolean (JSON ``true``/``false``)."""
    if not isinstance(value, bool):
        _fail(error, where, "true or false", value)
    return value


@overload
def integer(
    value: Any,
    where: str,
    error: type[ValueError],
    low: int,
    high: int,
    *,
    values: Sequence[int] = (),
    null: Literal[False] = False,
) -> int: ...
@overload
def integer(
    value: Any,
    where: str,
    error: type[ValueError],
    low: int,
    high: int,
    *,
    values: Sequence[int] = (),
    null: bool,
) -> int | None: ...
def integer(
    value: Any,
    where: str,
    error: type[ValueError],
    low: int,
    high: int,
    *,
    values: Sequence[int] = (),
    null: bool = False,
) -> int | None:
    """``value`` if it is an integer from ``low`` to ``high`` (one of ``values`` when given);
    None only when ``null`` allows it."""
    if values:
        wanted = "one of " + ", ".join(map(str, values))
    else:
        wanted = f"an integer from {_bound(low)} to {_bound(high)}"
    if null:
        wanted += ", or null"
    if value is None and null:
        return None
    if not is_integer(value) or not low <= value <= high or (values and value not in values):
        _fail(error, where, wanted, value)
    result: int = value
    return result


def number(
    value: Any,
    where: str,
    error: type[ValueError],
    low: float,
    high: float,
    *,
    null: bool = False,
    unit: str = "",
) -> float | None:
    """``value`` as a float if it is a finite number (integer or not) from ``low`` to
    ``high``; None only when ``null`` allows it."""
    if value is None and null:
        return None
    numeric = isinstance(value, (int, float)) and not isinstance(value, bool)
    if not numeric or not (low <= value <= high):  # NaN fails the comparison too
        what = f"a number{' of ' + unit if unit else ''} from {_bound(low)} to {_bound(high)}"
        _fail(error, where, what + (", or null" if null else ""), value)
    return float(value)


def choice(value: Any, where: str, error: type[ValueError], choices: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``choices``."""
    if not isinstance(value, str) or value not in choices:
        _fail(error, where, "one of " + ", ".join(json.dumps(c) for c in choices), value)
    return value


def strings(
    value: Any,
    where: str,
    error: type[ValueError],
    choices: Sequence[str],
    *,
    what: str,
    distinct: bool = True,
) -> tuple[str, ...]:
    """``value`` as a tuple if it is a list (or tuple) of strings from ``choices`` (``what``
    names them in the message), each at most once when ``distinct``."""
    wanted = f"a list of {'distinct ' if distinct else ''}{what}"
    if not isinstance(value, (list, tuple)):
        _fail(error, where, wanted, value)
    for item in value:
        if not isinstance(item, str) or item not in choices:
            raise error(f"{where}: must be {wanted}, got {shown(item)} in the list")
    if distinct and len(set(value)) != len(value):
        _fail(error, where, wanted, value)
    return tuple(value)


def _depth(text: str) -> int:
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub('""', text))
    steps = (1 if b in "[{" else -1 for b in brackets)
    return max(itertools.accumulate(steps, initial=0))


class _OutOfRange:
    """A number literal beyond :data:`MAX_MAGNITUDE` or not finite, kept until its place in
    the document is known."""

    def __init__(self, literal: str) -> None:
        self.literal = literal if len(literal) <= 24 else literal[:20] + "…"


def _parse_int(literal: str) -> int | _OutOfRange:
    digits = literal.lstrip("-")
    if len(digits) > 13 or int(digits) > MAX_MAGNITUDE:
        return _OutOfRange(literal)
    return int(literal)


def _parse_float(literal: str) -> float | _OutOfRange:
    value = float(literal)
    return value if abs(value) <= MAX_MAGNITUDE else _OutOfRange(literal)


def _join(path: str, key: str) -> str:
    name = key if _PLAIN_KEY.fullmatch(key) else shown(key)
    return f"{path}.{name}" if path else name


def _out_of_range(document: Any) -> tuple[str, _OutOfRange] | None:
    """The path (``tricks[0].plays[1].t``) and literal of the first out-of-range number."""
    stack: list[tuple[str, Any]] = [("", document)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, _OutOfRange):
            return path or "the document", value
        if isinstance(value, dict):
            items = [(_join(path, k), v) for k, v in value.items()]
        elif isinstance(value, list):
            items = [(f"{path}[{i}]", v) for i, v in enumerate(value)]
        else:
            continue
        stack.extend(reversed(items))
    return None


def parse_json(text: str, source: str, error: type[ValueError]) -> Any:
    """The JSON value of ``text`` (from ``source``, named in errors): nesting at most
    :data:`MAX_DEPTH` deep, every number finite and within ±:data:`MAX_MAGNITUDE` (an error
    names the field that holds one that is not)."""
    if _depth(text) > MAX_DEPTH:
        raise error(
            f"{source} nests arrays or objects deeper than {MAX_DEPTH} levels: "
            "a hand record is only a few levels deep"
        )
    try:
        document = json.loads(
            text, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_OutOfRange
        )
    except json.JSONDecodeError as e:
        raise error(
            f"{source} is not valid JSON ({e.msg} at line {e.lineno}): fix the file"
        ) from None
    found = _out_of_range(document)
    if found is not None:
        path, number = found
        raise error(
            f"{path}: must be a finite number within ±10^12, got {number.literal} "
            f"(in {source}): numbers in a record are seconds, points or counts"
        )
    return document
