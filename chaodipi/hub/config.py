"""The hub's config file, ``hub.toml``: the tables it accepts, their signing keys, its broker,
its web pages, the broadcast delay and the bracket. :func:`load_hub_config` validates it with
one-line errors that name the key and the fix; a commented template is
``deploy/hub.example.toml``.

``[table_keys]`` maps a table id to the file of its signing key (the same key as the table's
``[mqtt] hmac_key_file``). The hub stores an event of a table listed there only when it carries
that key's signature (:mod:`chaodipi.mqtt_link`); a table left out is trusted on the broker's
password and ACL alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chaodipi.config import read_toml
from chaodipi.mqtt_link import (
    LinkError,
    MqttConfig,
    check_table_id,
    parse_mqtt,
    read_key,
    topic_slug,
)

EXAMPLE = "deploy/hub.example.toml"


class HubConfigError(ValueError):
    """A bad hub.toml; the message is one line."""


@dataclass(frozen=True)
class HubWeb:
    bind: str = "127.0.0.1"
    port: int = 8000
    threads: int = 256
    organiser_pin: str = ""


@dataclass(frozen=True)
class BracketConfig:
    """The knockout: entrants in seed order, the table of each played match round by round,
    the regulation whose match format applies, and optional per-round overrides."""

    rules: str = "A"
    entrants: tuple[str, ...] = ()
    tables: tuple[tuple[str, ...], ...] = ()
    best_of: tuple[int, ...] = ()
    hand_limit: tuple[int, ...] = ()  # 0: none
    time_limit_min: tuple[int, ...] = ()  # 0: none


@dataclass(frozen=True)
class HubConfig:
    tables: tuple[str, ...]
    rules: str = "XX"
    data_dir: str = "hub-data"
    broadcast_delay_s: float = 0.0
    mqtt: MqttConfig = field(default_factory=MqttConfig)
    web: HubWeb = field(default_factory=HubWeb)
    bracket: BracketConfig | None = None
    table_keys: Mapping[str, str] = field(default_factory=dict)  # table id → its key file


def _err(path: Path, key: str, problem: str, fix: str) -> HubConfigError:
    return HubConfigError(f"{path}: {key} {problem}: {fix}")


def _keys(path: Path, where: str, data: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            name = f"{where}.{key}" if where else key
            raise _err(path, name, "is not a known key", f"use one of {', '.join(allowed)}")


def _int(path: Path, key: str, value: Any, low: int, high: int) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or not low <= value <= high:
        raise _err(path, key, f"must be a whole number {low}–{high} (got {value!r})", "fix it")
    return value


def _str(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _err(path, key, f"must be a non-empty string (got {value!r})", 'quote it: "…"')
    return value


def _ints(path: Path, key: str, value: Any, rounds: int, low: int) -> tuple[int, ...]:
    if value is None:
        return ()
    ok = isinstance(value, list) and len(value) == rounds
    if not ok or not all(
        isinstance(v, int) and not isinstance(v, bool) and v >= low for v in value
    ):
        raise _err(
            path, key, f"must list a whole number ≥ {low} for each of the {rounds} rounds", "fix it"
        )
    return tuple(value)


def _web(path: Path, data: Mapping[str, Any]) -> HubWeb:
    _keys(path, "web", data, ("bind", "port", "threads", "organiser_pin"))
    d = HubWeb()
    pin = data.get("organiser_pin", d.organiser_pin)
    if not isinstance(pin, str) or not (pin == "" or (pin.isdigit() and 4 <= len(pin) <= 12)):
        raise _err(path, "web.organiser_pin", "must be 4–12 digits in quotes", 'write "1357"')
    return HubWeb(
        bind=_str(path, "web.bind", data.get("bind", d.bind)),
        port=_int(path, "web.port", data.get("port", d.port), 1, 65535),
        threads=_int(path, "web.threads", data.get("threads", d.threads), 4, 4096),
        organiser_pin=pin,
    )


def _bracket(path: Path, data: Mapping[str, Any], tables: tuple[str, ...]) -> BracketConfig:
    from engine.bracket import BracketError, rounds_for
    from engine.profiles import PROFILE_NAMES

    allowed = ("rules", "entrants", "tables", "best_of", "hand_limit", "time_limit_min")
    _keys(path, "bracket", data, allowed)
    rules = data.get("rules", "A")
    if rules not in PROFILE_NAMES:
        raise _err(path, "bracket.rules", f"{rules!r} is not a profile", ", ".join(PROFILE_NAMES))
    entrants = data.get("entrants", [])
    if not isinstance(entrants, list) or not all(isinstance(e, str) and e for e in entrants):
        raise _err(path, "bracket.entrants", "must be a list of names", 'write ["一队", "二队"]')
    if len(set(entrants)) != len(entrants):
        raise _err(path, "bracket.entrants", "lists a name twice", "give each entrant once")
    try:
        rounds = rounds_for(len(entrants))
    except BracketError as e:
        raise HubConfigError(f"{path}: bracket.entrants: {e}") from None
    plan = data.get("tables", [])
    ok = isinstance(plan, list) and len(plan) <= rounds
    if not ok or not all(isinstance(r, list) and all(isinstance(t, str) for t in r) for r in plan):
        raise _err(
            path,
            "bracket.tables",
            f"must list, for each of the {rounds} rounds, the tables of its matches",
            'write tables = [["T01", "T02"], ["T01"]]',
        )
    for row in plan:
        for t in row:
            if t not in tables:
                raise _err(path, "bracket.tables", f"names {t!r}, not in tables", "add it there")
    return BracketConfig(
        rules=rules,
        entrants=tuple(entrants),
        tables=tuple(tuple(r) for r in plan),
        best_of=_ints(path, "bracket.best_of", data.get("best_of"), rounds, 1),
        hand_limit=_ints(path, "bracket.hand_limit", data.get("hand_limit"), rounds, 0),
        time_limit_min=_ints(path, "bracket.time_limit_min", data.get("time_limit_min"), rounds, 0),
    )


def parse_hub_config(data: Mapping[str, Any], path: Path) -> HubConfig:
    """A validated :class:`HubConfig` from parsed TOML."""
    from engine.profiles import PROFILE_NAMES

    top = ("tables", "rules", "data_dir", "broadcast_delay_s", "mqtt", "web", "bracket")
    _keys(path, "", data, (*top, "table_keys"))
    for section in ("mqtt", "web", "bracket", "table_keys"):
        if section in data and not isinstance(data[section], dict):
            raise _err(path, section, "must be a table", f"write it as a [{section}] section")
    tables = data.get("tables")
    if not isinstance(tables, list) or not tables:
        raise _err(path, "tables", "must list the table ids", 'write tables = ["T01", "T02"]')
    for t in tables:
        try:
            check_table_id("table id", t)
        except LinkError as e:
            raise HubConfigError(f"{path}: tables: {e}") from None
    if len(set(tables)) != len(tables):
        raise _err(path, "tables", "lists a table twice", "give each table id once")
    slugs: dict[str, str] = {}
    for t in tables:
        if topic_slug(t) in slugs:
            other = slugs[topic_slug(t)]
            problem = f"lists {t!r} and {other!r}, whose MQTT topics are the same"
            raise _err(path, "tables", problem, "rename one of them")
        slugs[topic_slug(t)] = t
    rules = data.get("rules", "XX")
    if rules not in PROFILE_NAMES:
        raise _err(path, "rules", f"{rules!r} is not a profile", ", ".join(PROFILE_NAMES))
    delay = data.get("broadcast_delay_s", 0.0)
    if not isinstance(delay, int | float) or isinstance(delay, bool) or not 0 <= delay <= 3600:
        raise _err(path, "broadcast_delay_s", "must be 0–3600 seconds", "write e.g. 30")
    try:
        mqtt = parse_mqtt(path, data.get("mqtt", {}))
    except LinkError as e:
        raise HubConfigError(str(e)) from None
    if mqtt.hmac_key_file:
        raise _err(
            path, "mqtt.hmac_key_file", "is a table's key", "list each table's key in [table_keys]"
        )
    names = tuple(tables)
    bracket = data.get("bracket")
    return HubConfig(
        tables=names,
        rules=rules,
        data_dir=_str(path, "data_dir", data.get("data_dir", "hub-data")),
        broadcast_delay_s=float(delay),
        mqtt=mqtt,
        web=_web(path, data.get("web", {})),
        bracket=None if bracket is None else _bracket(path, bracket, names),
        table_keys=_table_keys(path, data.get("table_keys", {}), names),
    )


def _table_keys(path: Path, data: Mapping[str, Any], tables: tuple[str, ...]) -> dict[str, str]:
    keys: dict[str, str] = {}
    for table, file in data.items():
        where = f"table_keys.{table}"
        if table not in tables:
            raise _err(path, where, "names a table not in tables", "add it there or remove the key")
        if not isinstance(file, str) or not Path(file).is_file():
            raise _err(path, where, f"{file!r} is not a file", "give the path of the table's key")
        try:
            read_key(file)
        except LinkError as e:
            raise HubConfigError(f"{path}: {where}: {e}") from None
        keys[table] = file
    return keys


def load_hub_config(path: Path | str) -> HubConfig:
    """Read and validate hub.toml; a bad file raises a one-line :class:`HubConfigError`."""
    path = Path(path)
    return parse_hub_config(read_toml(path, "hub config", EXAMPLE, HubConfigError), path)
