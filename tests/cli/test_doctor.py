"""``chaodipi doctor``: each check passes on a good table and fails with its fix on a bad one.

Real inputs throughout: a rendered camera view of the table with its four ArUco markers
(``vision.synth.render_scene``) in a folder source, a tiny real ONNX detector and classifier
(``tests.tiny_models``), a stored calibration from ``vision.calibration``, real sockets for
the broker (a listening one, a closed port), and small scripts standing in for
``timedatectl`` where the test machine has no systemd.
"""

from __future__ import annotations

import socket
import stat
import threading
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from chaodipi.cli.doctor import (
    check_broker,
    check_camera,
    check_clock,
    check_data_dir,
    check_markers,
    check_models,
    check_temperature,
    run_checks,
)
from chaodipi.cli.main import main
from chaodipi.config import (
    TableConfig,
    TableGeometry,
    default_config,
    load_config,
    save_config,
)
from tests.tiny_models import tiny_classifier, tiny_detector, tiny_localiser
from vision.calibration import calibrate
from vision.synth.render_scene import make_camera, render_base

GEO = TableGeometry()
SIZE = (960, 720)


def table_frame(seed: int = 5) -> np.ndarray:
    """The empty table as an overhead camera sees it, markers and all."""
    rng = np.random.default_rng(seed)
    return render_base(rng, make_camera(rng, SIZE, GEO), GEO)


@pytest.fixture(scope="module")
def frame() -> np.ndarray:
    return table_frame()


@pytest.fixture()
def table(tmp_path: Path, frame: np.ndarray) -> TableConfig:
    """A good table: a folder source with the frame, a loadable model, a calibration."""
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "frame_000000.png"), frame)
    models = tmp_path / "models"
    models.mkdir()
    model = tiny_detector(models / "card_detector.onnx")
    tiny_classifier(models / "card_classifier.onnx")
    data = tmp_path / "data"
    data.mkdir()
    cfg = default_config()
    return replace(
        cfg,
        source=str(frames),
        model=str(model),
        calibration=calibrate(frame, GEO),
        service=replace(cfg.service, data_dir=str(data)),
    )


def script(folder: Path, name: str, body: str) -> Path:
    path = folder / name
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return path


def by_name(checks: list) -> dict:  # type: ignore[type-arg]
    return {c.name: c for c in checks}


# ---------------------------------------------------------------- a good table


def test_good_table_passes_every_check(table: TableConfig, tmp_path: Path) -> None:
    synced = script(tmp_path, "timedatectl", "echo yes")
    thermal = tmp_path / "temp"
    thermal.write_text("48312\n")
    checks = by_name(
        run_checks(
            table,
            camera_timeout_s=10,
            clock_command=[str(synced)],
            thermal=thermal,
            save_frame=tmp_path / "seen.jpg",
        )
    )
    assert list(checks) == [
        "camera", "model", "classifier", "markers", "data dir", "disk", "clock", "temperature"
    ]  # fmt: skip
    assert all(c.ok for c in checks.values()), [c.lines() for c in checks.values()]
    assert "960×720" in checks["camera"].detail
    assert "64 px input, read by card_classifier.onnx, 54 card identities" in checks["model"].detail
    assert "markers in place" in checks["markers"].detail
    assert checks["temperature"].detail == "48.3 °C"
    assert cv2.imread(str(tmp_path / "seen.jpg")).shape == (720, 960, 3)


def test_cli_exit_0_and_one_line_per_check(
    table: TableConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.toml"
    save_config(table, path)
    code = main(["doctor", "--config", str(path), "--skip", "clock", "--skip", "temperature"])
    out = capsys.readouterr().out.splitlines()
    assert code == 0, out
    assert out[0] == f"✓ config: {path}"
    assert [line[0] for line in out[:-1]] == ["✓"] * 7
    assert out[-1] == "all good"


def test_uncalibrated_table_needs_only_visible_markers(
    table: TableConfig, frame: np.ndarray
) -> None:
    check = check_markers(replace(table, calibration=None), frame)
    assert check.ok and "no stored calibration" in check.detail


# ---------------------------------------------------------------- failures and their fixes


def test_bad_source_fails_with_its_fix(
    table: TableConfig, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "table.toml"
    save_config(replace(table, source=str(tmp_path / "no-such-folder")), path)
    code = main(["doctor", "--config", str(path), "--skip", "clock"])
    out = capsys.readouterr().out.splitlines()
    assert code == 1
    camera = out.index(next(line for line in out if line.startswith("✗ camera")))
    assert "unknown camera source" in out[camera]
    assert out[camera + 1].startswith("    fix: set source = in the config")
    assert any(line.startswith("? markers: not checked") for line in out)
    assert out[-1].endswith("checks passed")


def test_camera_fixes_name_the_kind_of_source(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    check, image = check_camera(str(empty), timeout_s=5)
    assert check.ok is False and image is None and "no images" in check.detail
    check, _ = check_camera("picamera", timeout_s=5)  # no picamera2 off the Pi
    if check.ok is False:
        assert "python3-picamera2" in check.fix or "rpicam-hello" in check.fix


def test_missing_and_broken_models_fail_with_their_fix(tmp_path: Path) -> None:
    (missing,) = check_models(tmp_path / "card_detector.onnx", None)
    assert missing.ok is False and "no detector model at" in missing.detail
    assert missing.fix.startswith("copy the trained card_detector.onnx to")
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a model")
    (bad,) = check_models(broken, None)
    assert bad.ok is False and "not a usable ONNX model" in bad.detail
    assert "set model =" in bad.fix


def test_broken_classifier_fails_on_its_own(tmp_path: Path) -> None:
    model = tiny_detector(tmp_path / "card_detector.onnx")
    (tmp_path / "card_classifier.onnx").write_bytes(b"junk")
    checks = by_name(check_models(model, None))
    assert checks["model"].ok and checks["classifier"].ok is False
    assert "card_classifier.onnx" in checks["classifier"].fix


def test_a_localiser_passes_with_its_classifier_and_fails_without(tmp_path: Path) -> None:
    model = tiny_localiser(tmp_path / "card_detector.onnx")
    (alone,) = check_models(model, None)
    assert alone.ok is False and "card_classifier.onnx" in alone.detail
    tiny_classifier(tmp_path / "card_classifier.onnx")
    checks = by_name(check_models(model, np.zeros((120, 160, 3), np.uint8)))
    assert checks["model"].ok and checks["classifier"].ok
    assert "read by card_classifier.onnx, 54 card identities" in checks["model"].detail


def test_hidden_marker_is_named(table: TableConfig, frame: np.ndarray) -> None:
    assert table.calibration is not None
    se = np.array(table.calibration.markers[2], np.int32)  # marker 2 lies at SE
    covered = frame.copy()
    cv2.fillConvexPoly(covered, cv2.convexHull(se), (30, 30, 30))
    check = check_markers(table, covered)
    assert check.ok is False and "marker 2 (SE) not seen" in check.detail
    assert "chaodipi markers" in check.fix


def test_moved_camera_is_drift(table: TableConfig) -> None:
    other = table_frame(seed=11)  # another camera pose: every marker elsewhere
    check = check_markers(table, other)
    assert check.ok is False and "moved" in check.detail
    assert check.fix == "put it back, or run chaodipi calibrate again"
    small = cv2.resize(other, (640, 480))
    check = check_markers(table, small)
    assert check.ok is False and "calibration was made at 960x720" in check.detail


def test_data_dir_missing_and_disk_full(tmp_path: Path) -> None:
    gone, disk = check_data_dir(tmp_path / "nope")
    assert gone.ok is False and "does not exist" in gone.detail
    assert gone.fix.startswith("sudo mkdir -p") and "chown chaodipi:" in gone.fix
    assert disk.ok
    _, full = check_data_dir(tmp_path, min_free_gb=1e9)
    assert full.ok is False and "journalctl --vacuum-size" in full.fix


def test_clock_answers(tmp_path: Path) -> None:
    assert check_clock([str(script(tmp_path, "yes.sh", "echo yes"))]).ok is True
    unsynced = check_clock([str(script(tmp_path, "no.sh", "echo no"))])
    assert unsynced.ok is False and "set-ntp true" in unsynced.fix
    odd = check_clock([str(script(tmp_path, "odd.sh", "echo 'no systemd' >&2; exit 1"))])
    assert odd.ok is None and "unknown" in odd.detail and "no systemd" in odd.detail
    absent = check_clock([str(tmp_path / "no-such-tool")])
    assert absent.ok is None and absent.lines()[0].startswith("? clock: sync unknown")


def test_temperature(tmp_path: Path) -> None:
    path = tmp_path / "temp"
    path.write_text("82500")
    hot = check_temperature(path)
    assert hot is not None and hot.ok is None and hot.warn
    assert hot.lines()[0] == "! temperature: 82.5 °C: hot, the CPU slows down at 80 °C"
    assert check_temperature(tmp_path / "none") is None


@pytest.fixture()
def listener() -> Iterator[int]:
    """A real TCP listener on a free port (a broker's socket, accepting and closing)."""
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def serve() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            conn.sendall(b"not TLS\r\n")  # a TLS client fails its handshake on this
            conn.close()

    threading.Thread(target=serve, daemon=True).start()
    yield port
    server.close()


def test_broker_reachable_closed_and_not_tls(listener: int) -> None:
    assert check_broker("127.0.0.1", listener).ok
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()  # nothing listens there now
    check = check_broker("127.0.0.1", port, timeout_s=2)
    assert check.ok is False and f"127.0.0.1:{port} unreachable" in check.detail
    assert "systemctl start mosquitto" in check.fix
    tls = check_broker("127.0.0.1", listener, tls=True, timeout_s=2)
    assert tls.ok is False and "(TLS)" in tls.detail


def test_broker_from_the_config(listener: int, tmp_path: Path) -> None:
    """A config with [mqtt] gets the broker check (once the config knows [mqtt])."""
    path = tmp_path / "table.toml"
    closed = socket.create_server(("127.0.0.1", 0))
    port = closed.getsockname()[1]
    closed.close()
    skip = ("camera", "model", "disk", "clock", "temperature")
    for broker_port, ok in ((listener, True), (port, False)):
        path.write_text(f'table_id = "t1"\n[mqtt]\nhost = "127.0.0.1"\nport = {broker_port}\n')
        cfg = load_config(path)
        (check,) = run_checks(cfg, skip=skip)
        assert check.name == "broker" and check.ok is ok
    (tmp_path / "ca.pem").write_text("not a certificate\n")
    tls = tmp_path / "tls.toml"
    ca = tmp_path / "ca.pem"
    tls.write_text(f'[mqtt]\nhost = "127.0.0.1"\nport = {listener}\nca_file = "{ca}"\n')
    (check,) = run_checks(load_config(tls), skip=skip)
    assert check.ok is False and "cannot use the TLS files" in check.detail
    assert check.fix == "correct [mqtt] ca_file, cert_file, key_file"


def test_bad_config_is_one_failure(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "table.toml"
    path.write_text('rules = "ZZ"\n')
    assert main(["doctor", "--config", str(path)]) == 1
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("✗ config:") and "'ZZ' is not a profile" in out[0]
    assert out[1].startswith("    fix: edit")
    assert out[-1] == "0 of 1 checks passed"
