"""The training path never rots: a handful of synthetic images, one epoch, small input.

Needs the ``train`` extra (ultralytics + torch); skipped where it is not installed.
"""

from __future__ import annotations

from pathlib import Path

import pytest


def test_one_epoch_on_a_few_synthetic_images_trains_and_exports_an_onnx_model(
    tmp_path: Path,
) -> None:
    pytest.importorskip("ultralytics")
    from vision.synth import synthesize
    from vision.train import train

    data = tmp_path / "data"
    synthesize(6, data, seed=1, designs=["procedural"], imgsz=96, split="train")
    result = train(
        data,
        epochs=1,
        imgsz=96,
        batch=3,
        threads=1,
        project=tmp_path / "runs",
        name="smoke",
        export_to=tmp_path / "smoke.onnx",
    )
    assert Path(result.best_weights).is_file()
    assert result.onnx_path is not None and Path(result.onnx_path).stat().st_size > 1_000_000
