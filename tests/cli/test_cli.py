"""The ``chaodipi`` command as a user runs it: exit codes, JSON shape, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.builders import record

ROOT = Path(__file__).resolve().parents[2]


def chaodipi(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def write(tmp_path: Path, data: Any, name: str = "hand.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def test_audit_exits_zero_for_a_well_formed_record_with_infractions(tmp_path: Path) -> None:
    path = write(tmp_path, record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]))
    done = chaodipi("audit", path)
    assert done.returncode == 0, done.stderr
    assert "吃苍蝇/跟错牌 revoke" in done.stdout
    assert "W" in done.stdout


def test_audit_json_has_the_documented_keys(tmp_path: Path) -> None:
    path = write(tmp_path, record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]))
    out = json.loads(chaodipi("audit", path, "--json").stdout)
    assert {"tricks", "defender_points", "kitty", "penalties", "infractions", "result"} <= set(out)
    assert set(out["tricks"][0]) >= {"winner", "points"}
    assert set(out["kitty"]) >= {"points", "multiplier"}
    inf = out["infractions"][0]
    assert {k: inf[k] for k in ("kind", "seat", "trick", "cards", "penalty")} == {
        "kind": "revoke",
        "seat": "W",
        "trick": 1,
        "cards": ["3D"],
        "penalty": 10,
    }
    assert "proof" in inf
    assert out["result"] is None  # the hand is still in progress


def test_audit_reads_stdin(tmp_path: Path) -> None:
    done = chaodipi("audit", "--json", stdin=json.dumps(record(["S:AS W:3S N:4S E:5S"])))
    assert done.returncode == 0
    assert json.loads(done.stdout)["tricks"][0]["winner"] == "S"


def test_malformed_record_exits_2_with_one_line_naming_the_problem(tmp_path: Path) -> None:
    bad = record(["S:AS W:3S N:4S E:5S"])
    bad["tricks"][0]["plays"][1]["cards"] = ["3X"]
    done = chaodipi("audit", write(tmp_path, bad))
    assert done.returncode == 2
    assert done.stderr.count("\n") == 1
    assert "trick 1 play 2" in done.stderr and "3X" in done.stderr


def test_missing_or_non_json_file_exits_2(tmp_path: Path) -> None:
    assert chaodipi("audit", str(tmp_path / "nope.json")).returncode == 2
    (tmp_path / "x.json").write_text("{not json", encoding="utf-8")
    done = chaodipi("audit", str(tmp_path / "x.json"))
    assert done.returncode == 2 and "not valid JSON" in done.stderr


def test_overrides_from_a_toml_file_change_the_audit(tmp_path: Path) -> None:
    plays = ["S:AS W:3D N:4S E:5S", "S:KC W:3C N:4C E:5C", "S:KS W:6S N:7S E:8S"]
    path = write(tmp_path, record(plays))
    (tmp_path / "rules.toml").write_text("[rules]\nhidden_card_after_tricks = 3\n", "utf-8")
    plain = json.loads(chaodipi("audit", path, "--json").stdout)
    overridden = json.loads(
        chaodipi("audit", path, "--json", "--overrides", str(tmp_path / "rules.toml")).stdout
    )
    assert [i["kind"] for i in plain["infractions"]] == ["hidden_cards"]
    assert [i["kind"] for i in overridden["infractions"]] == ["revoke"]
    (tmp_path / "bad.toml").write_text("nonsense_knob = 1\n", "utf-8")
    done = chaodipi("audit", path, "--overrides", str(tmp_path / "bad.toml"))
    assert done.returncode == 2 and "nonsense_knob" in done.stderr


def one_line_refusal(done: subprocess.CompletedProcess[str], command: str) -> str:
    """The one stderr line of a refused command (exit status 2, no traceback)."""
    assert done.returncode == 2, done.stderr
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith(f"chaodipi {command}")
    return done.stderr


def test_a_bad_knob_value_in_an_overrides_file_names_the_file_and_the_knob(tmp_path: Path) -> None:
    path = write(tmp_path, record(["S:AS W:3S N:4S E:5S"]))
    (tmp_path / "rules.toml").write_text("[rules]\npoints_per_level = 0\n", "utf-8")
    line = one_line_refusal(
        chaodipi("audit", path, "--overrides", str(tmp_path / "rules.toml")), "audit"
    )
    assert "rules.toml: rules.points_per_level: must be an integer from 5 to 200, got 0" in line


def test_a_record_field_of_the_wrong_kind_is_one_line_naming_it(tmp_path: Path) -> None:
    path = write(tmp_path, {**record(["S:AS W:3S N:4S E:5S"]), "first_hand": "false"})
    line = one_line_refusal(chaodipi("audit", path), "audit")
    assert 'first_hand: must be true or false, got "false"' in line


def test_a_record_that_is_not_text_or_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "hand.json").write_bytes(b"\xff\xfe\x00{")
    assert "not UTF-8" in one_line_refusal(chaodipi("audit", str(tmp_path / "hand.json")), "audit")
    assert "Is a directory" in one_line_refusal(chaodipi("audit", str(tmp_path)), "audit")


def test_bad_arguments_are_one_line_with_where_help_is() -> None:
    line = one_line_refusal(chaodipi("simulate", "--seed", "x"), "simulate")
    assert "--seed" in line and "chaodipi simulate --help" in line


def test_a_port_out_of_range_is_one_line_for_every_serving_command() -> None:
    for command in ("run", "hub", "demo"):
        line = one_line_refusal(chaodipi(command, "--port", "99999"), command)
        assert "--port" in line and "65535" in line


def test_simulate_creates_the_folders_of_its_out_file(tmp_path: Path) -> None:
    out = tmp_path / "new" / "folder" / "hand.json"
    done = chaodipi("simulate", "--seed", "2", "--inject", "revoke", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert json.loads(out.read_text("utf-8"))["format"] == "chaodipi-hand/1"
    assert json.loads(out.with_suffix(".truth.json").read_text("utf-8"))["injected"]


def test_simulate_into_a_path_under_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", "utf-8")
    line = one_line_refusal(
        chaodipi("simulate", "--out", str(tmp_path / "file" / "hand.json")), "simulate"
    )
    assert "cannot write --out" in line


def test_run_with_a_data_dir_that_is_a_file_or_cannot_be_made_is_one_line(tmp_path: Path) -> None:
    hand = write(tmp_path, record(["S:AS W:3S N:4S E:5S"]))
    (tmp_path / "file").write_text("", "utf-8")
    config = tmp_path / "table.toml"
    config.write_text(f'[service]\ndata_dir = "{tmp_path / "file"}"\n', "utf-8")
    line = one_line_refusal(
        chaodipi("run", "--config", str(config), "--feed", hand, "--port", "0"), "run"
    )
    assert "service.data_dir is the file" in line
    under_a_file = str(tmp_path / "file" / "data")
    line = one_line_refusal(
        chaodipi("run", "--feed", hand, "--data-dir", under_a_file, "--port", "0"), "run"
    )
    assert f"cannot create data_dir {under_a_file}" in line


def test_the_hub_with_a_data_dir_that_is_a_file_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("", "utf-8")
    config = tmp_path / "hub.toml"
    config.write_text(
        f'tables = ["T01"]\ndata_dir = "{tmp_path / "file"}"\n'
        '[mqtt]\nhost = "127.0.0.1"\nport = 1\ntournament = "cup"\n[web]\nport = 18123\n',
        "utf-8",
    )
    line = one_line_refusal(chaodipi("hub", "--config", str(config)), "hub")
    assert str(tmp_path / "file") in line
