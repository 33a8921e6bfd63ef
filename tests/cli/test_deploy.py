"""deploy/: shell scripts pass shellcheck, systemd units pass ``systemd-analyze verify``, the
config templates load with chaodipi's loaders (their commented TLS and signing settings too,
with the files ``make-certs.sh`` makes), logrotate accepts its file, the installer's dry run
shows its plan, ``make-certs.sh`` makes certificates openssl verifies, and the broker config
allows no anonymous client and no plain MQTT beyond this machine
(``tests/hub/test_hub_tls.py`` runs it in a real Mosquitto).

``systemd-analyze verify`` refuses a unit whose ExecStart binary does not exist, and
``/opt/chaodipi/venv/bin/chaodipi`` exists only on an installed Pi. So each unit is verified as
a copy in a temporary folder whose ExecStart points at this checkout's own ``chaodipi``
entry point (the same program the Pi's venv has, with the same arguments); every other line
is the file's own.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chaodipi.config import default_config, load_config

REPO = Path(__file__).resolve().parents[2]
DEPLOY = REPO / "deploy"
SCRIPTS = sorted(DEPLOY.glob("*.sh"))
UNITS = sorted(DEPLOY.glob("*.service"))
PI_BIN = "/opt/chaodipi/venv/bin/chaodipi"


def needs(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (apt install {tool})")
    return path


def entry_point() -> str:
    """This checkout's ``chaodipi`` console script (beside the running Python)."""
    script = Path(sys.executable).parent / "chaodipi"
    found = str(script) if script.is_file() else shutil.which("chaodipi")
    assert found is not None, "no chaodipi entry point: pip install -e ."
    return found


def test_there_is_something_to_check() -> None:
    names = {p.name for p in [*SCRIPTS, *UNITS]}
    assert {"install-pi.sh", "make-certs.sh", "chaodipi-table.service"} <= names
    assert "chaodipi-hub.service" in names


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_shellcheck(script: Path) -> None:
    shellcheck = needs("shellcheck")
    proc = subprocess.run([shellcheck, str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert os.access(script, os.X_OK), f"{script.name} is not executable: chmod +x"


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_systemd_analyze_verify(unit: Path, tmp_path: Path) -> None:
    analyze = needs("systemd-analyze")
    text = unit.read_text(encoding="utf-8")
    assert f"ExecStart={PI_BIN} " in text
    copy = tmp_path / unit.name
    copy.write_text(text.replace(f"ExecStart={PI_BIN} ", f"ExecStart={entry_point()} "))
    proc = subprocess.run(
        [analyze, "verify", copy.name], cwd=tmp_path, capture_output=True, text=True
    )
    assert proc.returncode == 0 and not proc.stderr.strip(), proc.stderr


@pytest.mark.parametrize("unit", UNITS, ids=lambda p: p.name)
def test_units_restart_watchdog_and_hardening(unit: Path) -> None:
    settings: dict[str, list[str]] = {}
    for line in unit.read_text(encoding="utf-8").splitlines():
        if "=" in line and not line.lstrip().startswith(("#", ";")):
            key, value = line.split("=", 1)
            settings.setdefault(key.strip(), []).append(value.strip())
    for key, value in {
        "Type": "notify",
        "Restart": "always",
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "PrivateTmp": "yes",
        "ReadWritePaths": "/var/lib/chaodipi",
        "User": "chaodipi",
    }.items():
        assert settings.get(key) == [value], key
    assert int(settings["WatchdogSec"][0]) >= 10
    assert {"time-sync.target", "network-online.target"} <= set(settings["After"][0].split())
    command = settings["ExecStart"][0].split()
    config = {"run": "/etc/chaodipi/table.toml", "hub": "/etc/chaodipi/hub.toml"}[command[1]]
    assert command[0] == PI_BIN and command[2:4] == ["--config", config]
    if command[1] == "run":
        assert settings["SupplementaryGroups"] == ["video"]
        assert "PrivateDevices" not in settings  # it would hide the camera


def test_the_command_line_matches_the_cli() -> None:
    """The table unit's ExecStart is a command line the CLI accepts."""
    from chaodipi.cli.main import build_parser

    (line,) = re.findall(r"^ExecStart=(.*)$", (DEPLOY / "chaodipi-table.service").read_text(), re.M)
    args = build_parser().parse_args(line.split()[1:])
    assert args.command == "run" and str(args.config) == "/etc/chaodipi/table.toml"


def test_table_template_loads() -> None:
    assert load_config(DEPLOY / "table.example.toml") == default_config()


def test_installer_rewrites_template_paths_the_service_can_use(tmp_path: Path) -> None:
    """install-pi.sh's sed makes data_dir and model absolute; the result still loads."""
    sed = needs("sed")
    out = subprocess.run(
        [sed, "-e", 's|^data_dir = "data"|data_dir = "/var/lib/chaodipi"|',
         "-e", 's|^model = "models/|model = "/opt/chaodipi/models/|',
         str(DEPLOY / "table.example.toml")],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert out.count("/var/lib/chaodipi") >= 1
    path = tmp_path / "table.toml"
    path.write_text(out)
    cfg = load_config(path)
    assert cfg.service.data_dir == "/var/lib/chaodipi"
    assert cfg.model == "/opt/chaodipi/models/card_detector.onnx"
    # The script's sed lines are exactly these.
    script = (DEPLOY / "install-pi.sh").read_text()
    assert 's|^data_dir = \\"data\\"|data_dir = \\"$DATA_DIR\\"|' in script
    assert 's|^model = \\"models/|model = \\"$PREFIX/models/|' in script


def test_hub_template_loads() -> None:
    from chaodipi.hub.config import load_hub_config

    load_hub_config(DEPLOY / "hub.example.toml")


def test_constraints_keep_numpy_1_for_apt_picamera2() -> None:
    lines = [
        line.split("#")[0].strip()
        for line in (DEPLOY / "pi-constraints.txt").read_text().splitlines()
    ]
    pins = [line for line in lines if line]
    assert "numpy<2" in pins
    (opencv,) = [p for p in pins if p.startswith("opencv-python-headless")]
    major, minor = (int(v) for v in opencv.split("==")[1].split(".")[:2])
    assert (major, minor) < (4, 12)  # 4.12 and later require numpy>=2


def test_logrotate_accepts_the_file(tmp_path: Path) -> None:
    """logrotate parses the file and rotates a log for real (user and folder made local)."""
    logrotate = needs("logrotate")
    import grp
    import pwd

    user = pwd.getpwuid(os.geteuid()).pw_name
    group = grp.getgrgid(os.getegid()).gr_name
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "table.log").write_text("a line\n")
    text = (DEPLOY / "logrotate" / "chaodipi").read_text()
    assert "/var/log/chaodipi/*.log {" in text and "su chaodipi chaodipi" in text
    text = text.replace("/var/log/chaodipi", str(logs))
    text = text.replace("su chaodipi chaodipi", f"su {user} {group}")
    conf = tmp_path / "chaodipi"
    conf.write_text(text)
    conf.chmod(0o644)
    state = tmp_path / "state"
    proc = subprocess.run(
        [logrotate, "--force", "--state", str(state), str(conf)], capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert (logs / "table.log.1").read_text() == "a line\n"  # delaycompress: .1 stays plain
    assert (logs / "table.log").read_text() == ""  # copytruncate


def test_journald_dropin_is_a_journal_section() -> None:
    text = (DEPLOY / "journald-chaodipi.conf").read_text()
    assert "[Journal]" in text and re.search(r"^SystemMaxUse=\d+M$", text, re.M)


def test_installer_dry_run_shows_the_plan() -> None:
    bash = needs("bash")
    proc = subprocess.run(
        [bash, str(DEPLOY / "install-pi.sh"), "--dry-run", "--role", "both", "--skip-apt"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "python3 -m venv --system-site-packages /opt/chaodipi/venv" in out
    assert f"--constraint {DEPLOY}/pi-constraints.txt" in out
    assert "systemctl enable chaodipi-table.service" in out
    assert "systemctl enable chaodipi-hub.service" in out
    assert "chaodipi doctor --config /etc/chaodipi/table.toml" in out
    assert "apt-get" not in out  # --skip-apt
    bad = subprocess.run(
        [bash, str(DEPLOY / "install-pi.sh"), "--role", "moon"], capture_output=True, text=True
    )
    assert bad.returncode == 1
    assert bad.stderr.strip() == "install-pi: --role moon: use table, hub or both"


def test_hub_speaks_the_notify_protocol_its_unit_expects() -> None:
    """chaodipi-hub.service is ``Type=notify`` with ``WatchdogSec=``: ``chaodipi hub`` must send
    READY=1 (else systemd fails the start after TimeoutStartSec) and WATCHDOG=1 pings (else
    it is killed every WatchdogSec), with ``chaodipi.sdnotify`` as ``chaodipi run`` does."""
    hub = REPO / "chaodipi" / "hub" / "command.py"
    text = hub.read_text(encoding="utf-8")
    assert "sdnotify.ready(" in text and "Watchdog(" in text, (
        "chaodipi/hub/hub.py: call sdnotify.ready() once serving and Watchdog().tick() in the main "
        "loop (see cmd_run in chaodipi/table/service.py), or change deploy/chaodipi-hub.service"
    )


# ------------------------------------------------------------------ broker: TLS, passwords, keys


def make_certs(out: Path, *names: str, broker: str = "hub.local,192.168.1.10") -> None:
    needs("openssl")
    script = str(DEPLOY / "make-certs.sh")
    subprocess.run([script, "--out", str(out), "--broker", broker, *names], check=True,
                   capture_output=True, text=True)  # fmt: skip


def test_make_certs_makes_a_venue_ca_certificates_passwords_and_keys(tmp_path: Path) -> None:
    openssl = needs("openssl")
    out = tmp_path / "venue"
    make_certs(out, "T01", "t--b107a17e48")
    users = ("hub", "T01", "t--b107a17e48")
    certs = [str(out / f"{name}.crt") for name in ("broker", *users)]
    verify = subprocess.run(
        [openssl, "verify", "-CAfile", str(out / "ca.crt"), *certs], capture_output=True, text=True
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    san = subprocess.run(
        [openssl, "x509", "-in", str(out / "broker.crt"), "-noout", "-ext", "subjectAltName"],
        capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    assert "DNS:hub.local" in san and "IP Address:192.168.1.10" in san
    secrets = [
        "ca.key",
        "broker.key",
        *(f"{u}.{ext}" for u in users for ext in ("key", "password")),
    ]
    secrets += ["T01.hmac", "t--b107a17e48.hmac"]
    for name in secrets:
        assert (out / name).stat().st_mode & 0o777 == 0o600, name
    assert len((out / "T01.hmac").read_text().strip()) == 64
    assert not (out / "hub.hmac").exists()  # the hub signs nothing
    if shutil.which("mosquitto_passwd"):
        assert sorted(
            line.split(":")[0] for line in (out / "passwd").read_text().split()
        ) == sorted(users)

    # again with a table more: the CA, keys and passwords already there stay as they are
    before = {p.name: p.read_bytes() for p in out.iterdir() if p.name != "passwd"}
    make_certs(out, "T02")
    after = {p.name: p.read_bytes() for p in out.iterdir()}
    assert all(after[name] == data for name, data in before.items() if name != "ca.srl")
    assert {"T02.crt", "T02.key", "T02.password", "T02.hmac"} <= set(after)


def test_make_certs_refuses_bad_arguments_in_one_line(tmp_path: Path) -> None:
    needs("openssl")
    script = str(DEPLOY / "make-certs.sh")
    for args, words in (
        (["七号桌"], "give its MQTT user name, the table's topic slug"),
        (["--broker", "hub.local", "七号桌"], "give its MQTT user name, the table's topic slug"),
        (["--broker", "hub.local"], "name at least one table"),
        (["--broker", "hub.local", "hub"], "the hub's own MQTT user"),
        (["--days", "many", "--broker", "hub.local", "T01"], "--days many"),
    ):
        proc = subprocess.run(
            [script, "--out", str(tmp_path / "x"), *args], capture_output=True, text=True
        )
        assert proc.returncode == 2, (args, proc.stderr)
        assert proc.stderr.count("\n") == 1 and proc.stderr.startswith("make-certs: "), proc.stderr
        if args[0] != "七号桌":
            assert words in proc.stderr, proc.stderr
    assert not (tmp_path / "x").exists()


def test_the_broker_config_wants_passwords_and_tls_and_keeps_plain_mqtt_local() -> None:
    lines = [
        line.split("#")[0].strip()
        for line in (DEPLOY / "mosquitto" / "chaodipi.conf").read_text().splitlines()
    ]
    settings = [line.split() for line in lines if line]
    assert ["allow_anonymous", "false"] in settings
    assert ["allow_anonymous", "true"] not in settings
    assert any(s[0] == "password_file" for s in settings) and any(
        s[0] == "acl_file" for s in settings
    )
    listeners: dict[str, dict[str, str]] = {}
    current: dict[str, str] | None = None
    for words in settings:
        if words[0] == "listener":
            current = listeners.setdefault(" ".join(words[1:]), {})
        elif current is not None:
            current[words[0]] = " ".join(words[1:])
    assert set(listeners) == {"1883 127.0.0.1", "8883"}
    tls = listeners["8883"]
    assert {"cafile", "certfile", "keyfile"} <= set(tls)
    assert tls["require_certificate"] == "true" and tls["tls_version"] == "tlsv1.2"
    for port, options in listeners.items():
        if not port.endswith(("127.0.0.1", "localhost", "::1")):
            assert "certfile" in options, f"listener {port} serves plain MQTT beyond this machine"
    # Debian's mosquitto.conf sets these already; saying them again stops the broker
    assert not any(s[0].startswith("persistence") for s in settings)


def uncomment(text: str) -> str:
    """A template's commented-out settings (``# key = "…"``, ``# [section]``) switched on."""
    return re.sub(r'^# (\[\w+\]$|[\w"]+ = ["\d])', r"\1", text, flags=re.M)


def test_the_table_template_takes_tls_a_password_and_a_signing_key(tmp_path: Path) -> None:
    out = tmp_path / "venue"
    make_certs(out, "table-1")
    text = uncomment((DEPLOY / "table.example.toml").read_text(encoding="utf-8"))
    for etc, mine in {
        "mqtt.password": "table-1.password",
        "ca.crt": "ca.crt",
        "table.crt": "table-1.crt",
        "table.key": "table-1.key",
        "table.hmac": "table-1.hmac",
    }.items():
        assert f'"/etc/chaodipi/{etc}"' in text, etc
        text = text.replace(f'"/etc/chaodipi/{etc}"', f'"{out / mine}"')
    path = tmp_path / "table.toml"
    path.write_text(text, encoding="utf-8")
    mqtt = load_config(path).mqtt
    assert mqtt is not None and mqtt.tls and mqtt.port == 8883
    assert (mqtt.username, mqtt.hmac_key_file) == ("table-1", str(out / "table-1.hmac"))


def test_the_hub_template_takes_tls_and_every_tables_key(tmp_path: Path) -> None:
    from chaodipi.hub.config import load_hub_config

    out = tmp_path / "venue"
    tables = [f"T0{i}" for i in range(1, 9)]
    make_certs(out, *tables)
    text = (DEPLOY / "hub.example.toml").read_text(encoding="utf-8")
    local = (
        'host = "127.0.0.1"        # the broker on this machine: its plain listener, local only\n'
    )
    assert local + "port = 1883\n" in text
    text = uncomment(text.replace(local + "port = 1883\n", ""))
    text = text.replace("/etc/chaodipi/keys/", f"{out}/").replace("/etc/chaodipi/", f"{out}/")
    path = tmp_path / "hub.toml"
    path.write_text(text, encoding="utf-8")
    config = load_hub_config(path)
    assert config.mqtt.tls and config.mqtt.port == 8883 and config.mqtt.username == "hub"
    assert config.mqtt.cert_file == str(out / "hub.crt")
    assert config.table_keys == {t: str(out / f"{t}.hmac") for t in tables}
