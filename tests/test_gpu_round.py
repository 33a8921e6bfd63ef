"""vision/gpu_round/: the scripts of a GPU training round pass shellcheck, are executable, and
say in one line what to do when what they need is missing (the round itself needs a lent GPU
machine: its CPU dry run is in its README)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

ROUND = Path(__file__).resolve().parent.parent / "vision" / "gpu_round"
SCRIPTS = sorted(ROUND.glob("*.sh"))


def test_the_round_has_its_three_scripts() -> None:
    assert {p.name for p in SCRIPTS} == {"prepare.sh", "round.sh", "evaluate.sh"}


@pytest.mark.parametrize("script", SCRIPTS, ids=lambda p: p.name)
def test_each_script_passes_shellcheck_and_is_executable(script: Path) -> None:
    shellcheck = shutil.which("shellcheck")
    if shellcheck is None:
        pytest.skip("shellcheck is not installed (apt install shellcheck)")
    proc = subprocess.run([shellcheck, str(script)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert os.access(script, os.X_OK), f"{script.name} is not executable: chmod +x"


def test_round_without_its_packed_folder_says_to_run_prepare_first(tmp_path: Path) -> None:
    copy = tmp_path / "repo" / "vision" / "gpu_round"
    copy.mkdir(parents=True)
    shutil.copy(ROUND / "round.sh", copy / "round.sh")
    proc = subprocess.run(
        ["bash", str(copy / "round.sh")],
        capture_output=True,
        text=True,
        env={**os.environ, "OUT": str(tmp_path / "out")},
    )
    assert proc.returncode == 1
    assert proc.stderr.strip() == (
        "round.sh: no .gpu/ here: run vision/gpu_round/prepare.sh first and carry .gpu"
    )


def test_evaluate_without_fetched_models_names_the_missing_file(tmp_path: Path) -> None:
    proc = subprocess.run(
        ["bash", str(ROUND / "evaluate.sh"), str(tmp_path)], capture_output=True, text=True
    )
    assert proc.returncode == 1
    assert "has no card_detector.onnx" in proc.stderr
    assert proc.stderr.count("\n") == 1


@pytest.mark.parametrize("command", ["train", "train-classifier"])
def test_the_training_commands_take_the_rounds_device_and_loader_workers(command: str) -> None:
    from chaodipi.cli import build_parser
    from vision.cli import _run_settings

    args = build_parser().parse_args(
        ["vision", command, "--data", "d", "--device", "0", "--workers", "8"]
    )
    settings = _run_settings(args)
    assert (settings["device"], settings["workers"]) == ("0", 8)
    defaults = _run_settings(build_parser().parse_args(["vision", command, "--data", "d"]))
    assert (defaults["device"], defaults["workers"]) == ("cpu", 0)
