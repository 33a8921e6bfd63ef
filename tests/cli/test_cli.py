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
    assert done.returncode == 2 and "not JSON" in done.stderr


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
