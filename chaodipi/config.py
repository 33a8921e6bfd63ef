"""The table config file (TOML): one table's identity, rules, camera, model, geometry, zones,
calibration, web and service settings, with :func:`load_config` (validated, one-line errors
naming the key and the fix), :func:`save_config` (a small writer for exactly this structure,
atomic) and :func:`default_config`; a commented template is ``deploy/table.example.toml``.
"""

from __future__ import annotations

import ipaddress
import itertools
import json
import math
import os
import re
import tempfile
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from chaodipi.mqtt_link import LinkError, MqttConfig, check_table_id, parse_mqtt
from vision.table_geometry import Calibration, TableGeometry, ZoneConfig

METHODS: tuple[str, ...] = ("aruco", "manual")
EXAMPLE = "deploy/table.example.toml"


class ConfigError(ValueError):
    """The table config is unreadable or holds a bad value; the message is one line."""


@dataclass(frozen=True)
class WebConfig:
    """The dashboard's address, the referee console's PIN (digits; empty: none set) and the
    reverse proxies whose ``X-Forwarded-Proto`` / ``X-Forwarded-For`` are believed (IP
    addresses or networks; a TLS proxy on the Pi itself is 127.0.0.1)."""

    bind: str = "127.0.0.1"
    port: int = 8080
    referee_pin: str = ""
    trusted_proxies: tuple[str, ...] = ("127.0.0.1", "::1")


@dataclass(frozen=True)
class ServiceConfig:
    """The table service (``chaodipi run``): where the event log and pictures live, how many
    MB of evidence pictures to keep, and how many page and API requests run at once (live
    spectator streams hold no thread; the referee console has threads of its own)."""

    data_dir: str = "data"
    evidence_cap_mb: int = 500
    web_threads: int = 32


@dataclass(frozen=True)
class TableConfig:
    """Everything one table's service needs."""

    table_id: str = "table-1"
    rules: str = "XX"
    source: str = "picamera"
    model: str = "models/card_detector.onnx"
    table: TableGeometry = field(default_factory=TableGeometry)
    zones: ZoneConfig = field(default_factory=ZoneConfig)
    calibration: Calibration | None = None
    web: WebConfig = field(default_factory=WebConfig)
    service: ServiceConfig = field(default_factory=ServiceConfig)
    mqtt: MqttConfig | None = None  # [mqtt]: stream the log to the hub (chaodipi.table.outbox)


def default_config() -> TableConfig:
    """A config with every default (no calibration yet)."""
    return TableConfig()


# ---------------------------------------------------------------- loading


def _err(path: Path, key: str, problem: str, fix: str) -> ConfigError:
    return ConfigError(f"{path}: {key} {problem}: {fix}")


def _check_keys(path: Path, where: str, data: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in data:
        if key not in allowed:
            name = f"{where}.{key}" if where else key
            raise _err(path, name, "is not a known key", f"use one of {', '.join(allowed)}")


def _number(path: Path, key: str, value: Any, *, positive: bool = True) -> float:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value)
    if not ok or (positive and value <= 0):
        want = "a number > 0" if positive else "a number"
        raise _err(path, key, f"must be {want} (got {value!r})", f"write e.g. {key} = 10.0")
    return float(value)


def _string(path: Path, key: str, value: Any) -> str:
    if not isinstance(value, str) or not value.strip():
        raise _err(path, key, f"must be a non-empty string (got {value!r})", 'quote it: "…"')
    return value


def _points(path: Path, key: str, value: Any, n: int | None) -> tuple[tuple[float, float], ...]:
    fix = f"write {key} = [[x, y], …]" + (f" with {n} points" if n else "")
    if not isinstance(value, list) or (n is not None and len(value) != n):
        raise _err(path, key, "has the wrong shape", fix)
    out = []
    for p in value:
        if not isinstance(p, list) or len(p) != 2:
            raise _err(path, key, "has the wrong shape", fix)
        x, y = (_number(path, key, v, positive=False) for v in p)
        out.append((x, y))
    return tuple(out)


def _geometry(path: Path, data: Mapping[str, Any]) -> TableGeometry:
    names = tuple(f.name for f in fields(TableGeometry))
    _check_keys(path, "table", data, names)
    d = TableGeometry()
    ids = data.get("marker_ids", list(d.marker_ids))
    ok = isinstance(ids, list) and len(ids) == 4
    ok = ok and all(isinstance(i, int) and not isinstance(i, bool) and 0 <= i < 50 for i in ids)
    if not ok or len(set(ids)) != 4:
        raise _err(
            path,
            "table.marker_ids",
            f"must be 4 different ids 0–49 for NW, NE, SE, SW (got {ids!r})",
            "write e.g. marker_ids = [0, 1, 2, 3]",
        )
    geo = TableGeometry(
        width_cm=_number(path, "table.width_cm", data.get("width_cm", d.width_cm)),
        height_cm=_number(path, "table.height_cm", data.get("height_cm", d.height_cm)),
        marker_ids=(ids[0], ids[1], ids[2], ids[3]),
        marker_size_cm=_number(
            path, "table.marker_size_cm", data.get("marker_size_cm", d.marker_size_cm)
        ),
        marker_inset_cm=_number(
            path,
            "table.marker_inset_cm",
            data.get("marker_inset_cm", d.marker_inset_cm),
            positive=False,
        ),
    )
    if geo.marker_inset_cm < 0:
        raise _err(path, "table.marker_inset_cm", "must be ≥ 0", "write e.g. 1.0")
    if 2 * (geo.marker_inset_cm + geo.marker_size_cm) > min(geo.width_cm, geo.height_cm):
        raise _err(
            path,
            "table.marker_size_cm",
            "and marker_inset_cm make the markers overlap on this table",
            "check [table] width_cm, height_cm and the marker sizes",
        )
    return geo


def _zones(path: Path, data: Mapping[str, Any]) -> ZoneConfig:
    names = tuple(f.name for f in fields(ZoneConfig))
    _check_keys(path, "zones", data, names)
    d = ZoneConfig()
    values = {
        n: _number(path, f"zones.{n}", data.get(n, getattr(d, n)), positive=n != "edge_margin_cm")
        for n in names
    }
    if values["edge_margin_cm"] < 0:
        raise _err(path, "zones.edge_margin_cm", "must be ≥ 0", "write e.g. 10.0")
    return ZoneConfig(**values)


def _web(path: Path, data: Mapping[str, Any]) -> WebConfig:
    _check_keys(path, "web", data, tuple(f.name for f in fields(WebConfig)))
    d = WebConfig()
    port = data.get("port", d.port)
    if not isinstance(port, int) or isinstance(port, bool) or not 1 <= port <= 65535:
        raise _err(path, "web.port", f"must be a port 1–65535 (got {port!r})", "write port = 8080")
    pin = data.get("referee_pin", d.referee_pin)
    if not isinstance(pin, str) or not re.fullmatch(r"(\d{4,12})?", pin):
        raise _err(
            path,
            "web.referee_pin",
            f"must be {MIN_PIN_DIGITS}–12 digits in quotes",
            'quote digits only the referee knows, or write "" to lock the console',
        )
    bind = _string(path, "web.bind", data.get("bind", d.bind))
    proxies = data.get("trusted_proxies", list(d.trusted_proxies))
    if not isinstance(proxies, list) or not all(_proxy_ok(p) for p in proxies):
        raise _err(
            path,
            "web.trusted_proxies",
            f"must list IP addresses or networks (got {proxies!r})",
            'write e.g. trusted_proxies = ["127.0.0.1", "10.0.0.5"]',
        )
    return WebConfig(bind=bind, port=port, referee_pin=pin, trusted_proxies=tuple(proxies))


def _proxy_ok(value: Any) -> bool:
    try:
        ipaddress.ip_network(value, strict=False)
    except (TypeError, ValueError):
        return False
    return True


MIN_PIN_DIGITS = 6
DEMO_PINS = frozenset({"8888", "0000", "1234"})  # printed in the README: anyone knows them


def pin_weakness(pin: str) -> str | None:
    """Why ``pin`` is too easy to guess for a real table, or None: under
    :data:`MIN_PIN_DIGITS` digits, a demo PIN, one digit repeated, a run up or down
    (123456, 987654), or a short group repeated (121212, 123123)."""
    if pin in DEMO_PINS:
        return "is a demo PIN everyone knows"
    if len(pin) < MIN_PIN_DIGITS:
        return f"has fewer than {MIN_PIN_DIGITS} digits"
    steps = {(int(b) - int(a)) % 10 for a, b in itertools.pairwise(pin)}
    if steps == {0}:
        return "repeats one digit"
    if steps in ({1}, {9}):
        return "is a run of digits"
    if any(len(pin) % n == 0 and pin == pin[:n] * (len(pin) // n) for n in (2, 3)):
        return "repeats a short group of digits"
    return None


def check_referee_pin(pin: str, path: Path | str | None) -> None:
    """Refuse, for ``chaodipi run``, a referee PIN that is set but easy to guess (see
    :func:`pin_weakness`): a one-line :class:`ConfigError` naming the fix. An empty PIN is
    allowed (the console stays locked)."""
    problem = pin_weakness(pin) if pin else None
    if problem is not None:
        where = f"{path}: " if path else ""
        raise ConfigError(
            f"{where}web.referee_pin {problem}: choose {MIN_PIN_DIGITS}–12 digits only the "
            "referee knows (chaodipi demo has its own PIN)"
        )


def _service(path: Path, data: Mapping[str, Any]) -> ServiceConfig:
    _check_keys(path, "service", data, tuple(f.name for f in fields(ServiceConfig)))
    d = ServiceConfig()
    out: dict[str, Any] = {
        "data_dir": _string(path, "service.data_dir", data.get("data_dir", d.data_dir))
    }
    if Path(out["data_dir"]).is_file():
        problem = f"is the file {out['data_dir']}, not a folder"
        raise _err(path, "service.data_dir", problem, "name a folder (a missing one is created)")
    for key, low, example in (("evidence_cap_mb", 1, 500), ("web_threads", 4, 32)):
        v = data.get(key, getattr(d, key))
        if not isinstance(v, int) or isinstance(v, bool) or v < low:
            problem = f"must be a whole number ≥ {low} (got {v!r})"
            raise _err(path, f"service.{key}", problem, f"write {key} = {example}")
        out[key] = v
    return ServiceConfig(**out)


def _calibration(path: Path, data: Mapping[str, Any], geo: TableGeometry) -> Calibration:
    allowed = tuple(f.name for f in fields(Calibration))
    _check_keys(path, "calibration", data, allowed)
    fix = "run chaodipi calibrate again, or delete the [calibration] table"
    for key in ("homography", "image_size", "table_size_cm", "points_px", "when"):
        if key not in data:
            raise _err(path, f"calibration.{key}", "is missing", fix)
    h = data["homography"]
    rows_ok = isinstance(h, list) and len(h) == 3
    if not rows_ok or not all(isinstance(r, list) and len(r) == 3 for r in h):
        raise _err(path, "calibration.homography", "must be a 3×3 array", fix)
    nums = [[_number(path, "calibration.homography", v, positive=False) for v in r] for r in h]
    hom = tuple((r[0], r[1], r[2]) for r in nums)
    size = data["image_size"]
    if not (isinstance(size, list) and len(size) == 2 and all(isinstance(v, int) for v in size)):
        raise _err(path, "calibration.image_size", "must be [width, height] in pixels", fix)
    tsize = data["table_size_cm"]
    if not isinstance(tsize, list) or len(tsize) != 2:
        raise _err(path, "calibration.table_size_cm", "must be [width, height] in cm", fix)
    table_size = tuple(_number(path, "calibration.table_size_cm", v) for v in tsize)
    if table_size != (geo.width_cm, geo.height_cm):
        raise _err(
            path,
            "calibration.table_size_cm",
            f"{tsize} differs from [table] {geo.width_cm} × {geo.height_cm} cm",
            fix,
        )
    method = data.get("method", "aruco")
    if method not in METHODS:
        raise _err(path, "calibration.method", f"must be one of {', '.join(METHODS)}", fix)
    residual = data.get("residual_cm")
    markers_in = data.get("markers", {})
    if not isinstance(markers_in, dict):
        raise _err(path, "calibration.markers", "must be a table of id = [[x, y] × 4]", fix)
    markers = {}
    for key, corners in markers_in.items():
        if not key.isdigit():
            raise _err(path, f"calibration.markers.{key}", "is not a marker id", fix)
        markers[int(key)] = _points(path, f"calibration.markers.{key}", corners, 4)
    return Calibration(
        homography=hom,
        image_size=(size[0], size[1]),
        table_size_cm=(table_size[0], table_size[1]),
        points_px=_points(path, "calibration.points_px", data["points_px"], 4),
        when=_string(path, "calibration.when", data["when"]),
        method=method,
        residual_cm=(
            None
            if residual is None
            else _number(path, "calibration.residual_cm", residual, positive=False)
        ),
        markers=markers,
    )


def parse_config(data: Mapping[str, Any], path: Path) -> TableConfig:
    """A validated :class:`TableConfig` from parsed TOML; ``path`` is named in errors."""
    top = ("table_id", "rules", "source", "model", "table", "zones", "calibration", "web")
    _check_keys(path, "", data, (*top, "service", "mqtt"))
    for section in ("table", "zones", "calibration", "web", "service", "mqtt"):
        if section in data and not isinstance(data[section], dict):
            raise _err(path, section, "must be a table", f"write it as a [{section}] section")
    d = default_config()
    rules = _string(path, "rules", data.get("rules", d.rules))
    from engine.profiles import PROFILE_NAMES

    if rules not in PROFILE_NAMES:
        raise _err(path, "rules", f"{rules!r} is not a profile", f"use {', '.join(PROFILE_NAMES)}")
    geo = _geometry(path, data.get("table", {}))
    cal = data.get("calibration")
    table_id = _string(path, "table_id", data.get("table_id", d.table_id))
    mqtt = None
    if "mqtt" in data:
        try:
            mqtt = parse_mqtt(path, data["mqtt"])
            check_table_id("table_id", table_id)
        except LinkError as e:
            message = str(e) if str(e).startswith(str(path)) else f"{path}: {e}"
            raise ConfigError(message) from None
    return TableConfig(
        table_id=table_id,
        rules=rules,
        source=_string(path, "source", data.get("source", d.source)),
        model=_string(path, "model", data.get("model", d.model)),
        table=geo,
        zones=_zones(path, data.get("zones", {})),
        calibration=None if cal is None else _calibration(path, cal, geo),
        web=_web(path, data.get("web", {})),
        service=_service(path, data.get("service", {})),
        mqtt=mqtt,
    )


def read_toml(
    path: Path, what: str, example: str, error: type[Exception] = ConfigError
) -> dict[str, Any]:
    """The TOML document at ``path``; a missing, unparsable or non-UTF-8 file raises a one-line
    ``error`` naming the file (``what``, e.g. "config") and the fix."""
    if not path.is_file():
        raise error(f"{what} {path} does not exist: copy {example} there and edit it")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise error(f"{path} is not valid TOML ({e}): fix the line it names") from None
    except UnicodeDecodeError:
        raise error(f"{path} is not UTF-8 text: save it as UTF-8") from None


def load_config(path: Path | str) -> TableConfig:
    """Read and validate a table config; a bad file raises a one-line :class:`ConfigError`."""
    path = Path(path)
    return parse_config(read_toml(path, "config", EXAMPLE), path)


# ---------------------------------------------------------------- writing


def _value(v: Any) -> str:
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, tuple | list):
        return "[" + ", ".join(_value(x) for x in v) + "]"
    raise TypeError(f"cannot write {type(v).__name__} to TOML")


def _section(name: str, obj: Any) -> list[str]:
    lines = [f"[{name}]"]
    for f in fields(obj):
        v = getattr(obj, f.name)
        if v is not None and not isinstance(v, dict):
            lines.append(f"{f.name} = {_value(v)}")
    return lines


def _calibration_lines(cal: Calibration) -> list[str]:
    lines = _section("calibration", cal)
    if cal.markers:
        lines += ["", "[calibration.markers]"]
        lines += [f"{i} = {_value(c)}" for i, c in sorted(cal.markers.items())]
    return lines


def dumps_config(cfg: TableConfig) -> str:
    """The TOML text of a config (what :func:`save_config` writes)."""
    lines = [f"{k} = {_value(getattr(cfg, k))}" for k in ("table_id", "rules", "source", "model")]
    lines += ["", *_section("table", cfg.table), "", *_section("zones", cfg.zones)]
    lines += ["", *_section("web", cfg.web), "", *_section("service", cfg.service)]
    if cfg.mqtt is not None:
        lines += ["", *_section("mqtt", cfg.mqtt)]
    if cfg.calibration is not None:
        lines += ["", *_calibration_lines(cfg.calibration)]
    return "\n".join(lines) + "\n"


def _write_atomic(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private; keep the old file's mode, or use rw-r--r--.
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def save_config(cfg: TableConfig, path: Path | str) -> None:
    """Write a whole config atomically (a temporary file beside it, then ``os.replace``)."""
    _write_atomic(Path(path), dumps_config(cfg))


# A TOML table header line (not an array row): ``[name]``, ``[a.b]`` or ``[[name]]``.
_HEADER = re.compile(r'^\s*\[\[?\s*([A-Za-z_"][\w.\-" ]*?)\s*\]\]?\s*(#.*)?$')


def save_calibration(path: Path | str, calibration: Calibration | None) -> TableConfig:
    """Replace only the ``[calibration]`` section of an existing config file, atomically.

    The rest of the file (with its comments) is kept verbatim; the result is validated before
    it is written and returned.
    """
    path = Path(path)
    load_config(path)  # the file must be valid before we touch it
    kept: list[str] = []
    skipping = False
    for line in path.read_text(encoding="utf-8").splitlines():
        header = _HEADER.match(line)
        if header:
            name = header.group(1)
            skipping = name == "calibration" or name.startswith("calibration.")
        if not skipping:
            kept.append(line)
    while kept and not kept[-1].strip():
        kept.pop()
    if calibration is not None:
        kept += ["", *_calibration_lines(calibration)]
    text = "\n".join(kept) + "\n"
    cfg = parse_config(tomllib.loads(text), path)
    _write_atomic(path, text)
    return cfg


def with_calibration(cfg: TableConfig, calibration: Calibration | None) -> TableConfig:
    """A copy of ``cfg`` with its calibration replaced."""
    return replace(cfg, calibration=calibration)


def port_number(text: str) -> int:
    """An argparse type for ``--port``: 0 (any free port) or 1–65535."""
    import argparse

    try:
        port = int(text)
    except ValueError:
        port = -1
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no port: give 1–65535, or 0 for any free one"
        )
    return port
