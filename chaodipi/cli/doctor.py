"""``chaodipi doctor``: is this table (or hub) ready to run? One line per check, a fix per failure.

This module owns the pre-flight checks an organiser runs on a freshly installed Raspberry Pi
(``deploy/README.md``): the config loads; the camera opens and delivers a frame (the
configured source, with a timeout); the detector model — and the corner-index classifier when
one lies beside it — loads with onnxruntime; the four corner markers are visible in that frame
and, when a calibration is stored, still where it put them (``vision.calibration``); the data
dir exists, is writable and has room; the clock is synchronised (``timedatectl``); the MQTT
broker is reachable when the config has an ``[mqtt]`` section (a TCP connect, TLS when
configured); and the CPU is not too hot. Each check is a :class:`Check`: ``ok`` True (✓),
False (✗, with ``fix``: one line saying what to do), or None (``?``/``!``: unknown or a warning,
which does not fail). The exit status is 0 when nothing failed, 1 otherwise.
"""

from __future__ import annotations

import argparse
import os
import queue
import shutil
import socket
import ssl
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from chaodipi.config import ConfigError, TableConfig, default_config, load_config

SYSTEM_CONFIG = Path("/etc/chaodipi/table.toml")
THERMAL = Path("/sys/class/thermal/thermal_zone0/temp")
CLOCK_COMMAND = ("timedatectl", "show", "-p", "NTPSynchronized", "--value")
MIN_FREE_GB = 1.0
HOT_C = 75.0  # the Pi 4 and 5 start throttling at 80 °C (85 °C hard)
WARMUP_S = 2.0  # a live camera's exposure (and the Module 3's lens) settle this long
SERVICE = "chaodipi-table"
SKIPPABLE = ("camera", "model", "markers", "disk", "clock", "broker", "temperature")


@dataclass(frozen=True)
class Check:
    """One line of the report: ``ok`` True ✓, False ✗ (``fix`` says what to do), None ?/!."""

    name: str
    ok: bool | None
    detail: str
    fix: str = ""
    warn: bool = False  # with ok None: ``!`` (a warning) rather than ``?`` (unknown)

    def lines(self) -> list[str]:
        mark = "✓" if self.ok else "✗" if self.ok is False else "!" if self.warn else "?"
        out = [f"{mark} {self.name}: {self.detail}"]
        if self.fix and self.ok is not True:
            out.append(f"    fix: {self.fix}")
        return out


# ---------------------------------------------------------------- camera


def _camera_fix(spec: str, message: str) -> str:
    text = spec.strip().lower()
    if "picamera2 is not installed" in message:
        return (
            "sudo apt install python3-picamera2 and use a venv made with "
            "--system-site-packages (deploy/install-pi.sh does both)"
        )
    if text.startswith("picamera"):
        return (
            f"check the ribbon cable and `rpicam-hello --list-cameras`; a running {SERVICE} "
            f"holds the camera: sudo systemctl stop {SERVICE}, then run doctor again"
        )
    if text.isdigit():
        return "check the USB cable and `ls /dev/video*`, or set source = in the config"
    if text.startswith(("rtsp://", "rtsps://", "rtmp://", "http://", "https://")):
        return "check the stream URL, the camera's power and the network, or set source ="
    return "set source = in the config to a camera (picamera, 0) or an existing folder or file"


def _read_frames(spec: str, warmup_s: float) -> tuple[str, np.ndarray | None]:
    """Open ``spec`` and return (its description, the last frame of the warm-up)."""
    from device import open_source

    source = open_source(spec)
    try:
        source.open()
        frame = source.read()
        if frame is not None and source.live:
            end = time.monotonic() + warmup_s
            while time.monotonic() < end:
                frame = source.read() or frame
        return source.describe(), None if frame is None else frame.image
    finally:
        source.close()


def check_camera(spec: str, timeout_s: float = 15.0) -> tuple[Check, np.ndarray | None]:
    """Open the configured source and read a frame within ``timeout_s``."""
    result: queue.Queue[tuple[str, np.ndarray | None] | Exception] = queue.Queue()
    warmup = min(WARMUP_S, timeout_s / 3)

    def work() -> None:
        try:
            result.put(_read_frames(spec, warmup))
        except Exception as e:  # SourceError and whatever a driver raises
            result.put(e)

    started = time.monotonic()
    threading.Thread(target=work, daemon=True, name="doctor-camera").start()
    try:
        got = result.get(timeout=timeout_s)
    except queue.Empty:
        detail = f"{spec}: no frame within {timeout_s:g} s"
        return Check("camera", False, detail, _camera_fix(spec, detail)), None
    if isinstance(got, Exception):
        message = str(got).strip() or type(got).__name__
        return Check("camera", False, message, _camera_fix(spec, message)), None
    describe, image = got
    if image is None:
        fix = "give a folder or video with at least one frame, or a live camera"
        return Check("camera", False, f"{describe} delivered no frame", fix), None
    h, w = image.shape[:2]
    took = time.monotonic() - started
    return Check("camera", True, f"{describe}: a {w}×{h} frame in {took:.1f} s"), image


# ---------------------------------------------------------------- models


def check_models(model: Path, image: np.ndarray | None) -> list[Check]:
    """The classifier beside the detector loads, and the detector loads with it (a one-class
    localiser needs it) and runs once on the camera frame."""
    from vision.classifier import CardClassifier
    from vision.detector import CardDetector
    from vision.onnx_model import ModelError

    fix = (
        f"copy the trained card_detector.onnx to {model} (see models/README.md) "
        "or set model = in the config"
    )
    if not model.is_file():
        return [Check("model", False, f"no detector model at {model}", fix)]
    beside = model.with_name("card_classifier.onnx")
    classifier = None  # the classifier file, once it loads
    classifier_checks = []
    if beside.is_file():
        try:
            CardClassifier(beside)
            classifier = beside
            classifier_checks.append(Check("classifier", True, f"{beside} loads"))
        except ModelError as e:
            fix_classifier = f"copy the trained card_classifier.onnx to {beside}, or remove it"
            classifier_checks.append(Check("classifier", False, str(e), fix_classifier))
    try:
        detector = CardDetector(model, classifier_path=classifier)
    except ModelError as e:
        return [Check("model", False, str(e), fix), *classifier_checks]
    reading = f", read by {classifier.name}" if classifier is not None else ""
    identities = len(detector.names)
    detail = f"{model} loads ({detector.size} px input{reading}, {identities} card identities)"
    if image is not None:
        started = time.monotonic()
        found = detector.detect(image)
        took = time.monotonic() - started
        detail += f"; one pass over the frame {took:.2f} s, {len(found)} corner indices"
    return [Check("model", True, detail), *classifier_checks]


# ---------------------------------------------------------------- markers


def check_markers(config: TableConfig, image: np.ndarray | None) -> Check:
    """All four corner markers visible in the frame, and where a stored calibration put them."""
    from vision.calibration import CalibrationError, check_drift, find_markers

    if image is None:
        return Check("markers", None, "not checked: no camera frame")
    geometry = config.table
    found = find_markers(image)
    missing = [m for m in geometry.marker_ids if m not in found]
    if missing:
        names = ", ".join(f"{m} ({geometry.corner_name(m)})" for m in missing)
        fix = (
            "uncover and light them, put them in the camera's view (chaodipi markers prints "
            "them), or correct [table] marker_ids"
        )
        return Check("markers", False, f"marker {names} not seen of {geometry.marker_ids}", fix)
    calibration = config.calibration
    if calibration is None:
        detail = "all 4 visible; no stored calibration (the service calibrates from them)"
        return Check("markers", True, detail)
    try:
        report = check_drift(image, calibration, geometry)
    except CalibrationError as e:
        message, _, fix = str(e).partition(": ")
        return Check("markers", False, message, fix or "run chaodipi calibrate again")
    message, _, fix = report.message().partition(": ")
    if not report.ok:
        return Check("markers", False, message, fix)
    return Check("markers", True, f"all 4 visible, {message}")


# ---------------------------------------------------------------- machine


def check_data_dir(data_dir: Path, min_free_gb: float = MIN_FREE_GB) -> list[Check]:
    """The data dir exists and is writable (by this user); its file system has room."""
    user = _user()
    data_dir = data_dir.absolute()
    own = f"sudo mkdir -p {data_dir} && sudo chown chaodipi: {data_dir}"
    checks = []
    if not data_dir.is_dir():
        what = "is not a directory" if data_dir.exists() else "does not exist"
        checks.append(Check("data dir", False, f"{data_dir} {what}", own))
    else:
        try:
            with tempfile.TemporaryFile(dir=data_dir):
                pass
            checks.append(Check("data dir", True, f"{data_dir} is writable by {user}"))
        except OSError as e:
            detail = f"{data_dir} is not writable by {user} ({e.strerror})"
            checks.append(Check("data dir", False, detail, own))
    where = data_dir
    while not where.exists() and where != where.parent:
        where = where.parent
    free = shutil.disk_usage(where).free / 1e9
    detail = f"{free:.1f} GB free on the file system of {data_dir} (need {min_free_gb:g})"
    if free < min_free_gb:
        fix = (
            "free space: old evidence and corrections in the data dir, "
            "`sudo journalctl --vacuum-size=100M`, or a bigger SD card / USB disk"
        )
        checks.append(Check("disk", False, detail, fix))
    else:
        checks.append(Check("disk", True, detail))
    return checks


def _user() -> str:
    try:
        import pwd

        return pwd.getpwuid(os.geteuid()).pw_name
    except (ImportError, KeyError):
        return "this user"


def check_clock(command: Sequence[str] = CLOCK_COMMAND, timeout_s: float = 5.0) -> Check:
    """``timedatectl``'s NTPSynchronized: yes ✓, no ✗, anything else unknown."""
    fix = (
        "sudo timedatectl set-ntp true and check the network; at a venue without internet "
        "serve time from the hub (deploy/README.md, Time)"
    )
    try:
        proc = subprocess.run(list(command), capture_output=True, text=True, timeout=timeout_s)
    except (OSError, subprocess.TimeoutExpired):
        return Check("clock", None, f"sync unknown: cannot run {command[0]}")
    answer = proc.stdout.strip().lower()
    if proc.returncode != 0 or answer not in ("yes", "no"):
        why = (proc.stderr.strip().splitlines() or [answer or "no answer"])[0][:80]
        return Check("clock", None, f"sync unknown: {command[0]} says {why}")
    if answer == "no":
        return Check("clock", False, "not synchronised (play clocks and times drift)", fix)
    return Check("clock", True, "synchronised (NTP)")


def check_broker(
    host: str,
    port: int,
    *,
    tls: bool = False,
    ca_file: str | None = None,
    cert_file: str | None = None,
    key_file: str | None = None,
    timeout_s: float = 3.0,
) -> Check:
    """A TCP connection to the MQTT broker (and a TLS handshake when ``tls``, verifying the
    broker against ``ca_file`` and showing ``cert_file``/``key_file`` when given)."""
    where = f"{host}:{port}{' (TLS)' if tls else ''}"
    context = None
    if tls:
        try:
            context = ssl.create_default_context(cafile=ca_file)
            if cert_file:
                context.load_cert_chain(cert_file, key_file or None)
        except (ssl.SSLError, OSError) as e:
            reason = getattr(e, "reason", None) or e.strerror or str(e)
            detail = f"{where}: cannot use the TLS files {ca_file}, {cert_file} ({reason})"
            return Check("broker", False, detail, "correct [mqtt] ca_file, cert_file, key_file")
    fix = (
        f"start the broker on {host} (sudo systemctl start mosquitto), check the network and "
        "[mqtt] host/port; the table keeps its outbox meanwhile"
    )
    try:
        with socket.create_connection((host, port), timeout=timeout_s) as sock:
            if context is not None:
                with context.wrap_socket(sock, server_hostname=host):
                    pass
    except ssl.SSLError as e:
        tls_fix = "check [mqtt] TLS settings and the CA file against the broker's certificate"
        return Check("broker", False, f"{where}: TLS handshake failed ({e.reason})", tls_fix)
    except OSError as e:
        reason = e.strerror or str(e) or type(e).__name__
        return Check("broker", False, f"{where} unreachable ({reason})", fix)
    return Check("broker", True, f"{where} reachable")


def _mqtt_check(config: Any, timeout_s: float) -> Check | None:
    """The broker check when the config has an ``[mqtt]`` section (``chaodipi.mqtt_link.
    MqttConfig``: TLS when it names a CA file), else None."""
    mqtt = getattr(config, "mqtt", None)
    if mqtt is None or not getattr(mqtt, "host", ""):
        return None
    return check_broker(
        str(mqtt.host),
        int(getattr(mqtt, "port", 1883)),
        tls=bool(getattr(mqtt, "tls", False)),
        ca_file=getattr(mqtt, "ca_file", "") or None,
        cert_file=getattr(mqtt, "cert_file", "") or None,
        key_file=getattr(mqtt, "key_file", "") or None,
        timeout_s=timeout_s,
    )


def check_temperature(path: Path = THERMAL, hot_c: float = HOT_C) -> Check | None:
    """The SoC temperature (a warning when hot); None where Linux does not report one."""
    try:
        celsius = int(path.read_text().strip()) / 1000
    except (OSError, ValueError):
        return None
    if celsius >= hot_c:
        fix = "add a heatsink and fan (Pi 5: the Active Cooler), ventilate the case"
        detail = f"{celsius:.1f} °C: hot, the CPU slows down at 80 °C"
        return Check("temperature", None, detail, fix, warn=True)
    return Check("temperature", True, f"{celsius:.1f} °C")


# ---------------------------------------------------------------- the command


def run_checks(
    config: TableConfig,
    *,
    camera_timeout_s: float = 15.0,
    min_free_gb: float = MIN_FREE_GB,
    clock_command: Sequence[str] = CLOCK_COMMAND,
    thermal: Path = THERMAL,
    save_frame: Path | None = None,
    skip: Sequence[str] = (),
) -> list[Check]:
    """Every check for one table config not in ``skip`` (see ``SKIPPABLE``), in order."""
    checks: list[Check] = []
    image = None
    if "camera" not in skip:
        camera, image = check_camera(config.source, camera_timeout_s)
        checks.append(camera)
    if image is not None and save_frame is not None:
        import cv2

        cv2.imwrite(str(save_frame), image)
    if "model" not in skip:
        checks += check_models(Path(config.model), image)
    if "markers" not in skip and "camera" not in skip:
        checks.append(check_markers(config, image))
    if "disk" not in skip:
        checks += check_data_dir(Path(config.service.data_dir), min_free_gb)
    if "clock" not in skip:
        checks.append(check_clock(clock_command))
    broker = None if "broker" in skip else _mqtt_check(config, min(5.0, camera_timeout_s))
    temperature = None if "temperature" in skip else check_temperature(thermal)
    checks += [c for c in (broker, temperature) if c is not None]
    return checks


def _config(path: Path | None) -> tuple[Check, TableConfig | None]:
    if path is None and SYSTEM_CONFIG.is_file():
        path = SYSTEM_CONFIG
    if path is None:
        return Check("config", True, "none given: the built-in defaults"), default_config()
    try:
        return Check("config", True, f"{path}"), load_config(path)
    except ConfigError as e:  # the message names the key and the fix
        fix = f"edit {path} as the line above says (template: deploy/table.example.toml)"
        return Check("config", False, str(e), fix), None
    except OSError as e:
        return Check("config", False, f"cannot read {path} ({e.strerror})", "check its owner"), None


def cmd_doctor(args: argparse.Namespace, out: Callable[[str], None] = print) -> int:
    """Print the report; 0 when every check passed (warnings allowed), 1 otherwise."""
    first, config = _config(args.config)
    checks = [first]
    if config is not None:
        checks += run_checks(
            config,
            camera_timeout_s=args.timeout,
            min_free_gb=args.min_free_gb,
            save_frame=args.save_frame,
            skip=args.skip or (),
        )
    for check in checks:
        for line in check.lines():
            out(line)
    failed = [c.name for c in checks if c.ok is False]
    out(f"{len(checks) - len(failed)} of {len(checks)} checks passed" if failed else "all good")
    return 1 if failed else 0


def add_doctor_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``doctor`` to the CLI."""
    p: argparse.ArgumentParser = sub.add_parser(
        "doctor", help="check camera, model, markers, disk, clock and broker, with fixes"
    )
    p.add_argument(
        "--config",
        type=Path,
        metavar="table.toml",
        help=f"table config (default: {SYSTEM_CONFIG} when it exists, else the defaults)",
    )
    p.add_argument("--timeout", type=float, default=15.0, help="seconds for a camera frame")
    p.add_argument(
        "--min-free-gb", type=float, default=MIN_FREE_GB, help="free disk space needed (GB)"
    )
    p.add_argument("--save-frame", type=Path, metavar="FRAME.jpg", help="keep the camera frame")
    p.add_argument(
        "--skip",
        action="append",
        choices=SKIPPABLE,
        help="leave a check out (repeatable), e.g. --skip camera while the service runs",
    )
    p.set_defaults(func=cmd_doctor)
    return p
