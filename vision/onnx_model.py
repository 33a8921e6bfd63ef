"""What the localiser and the classifier share as ONNX models: opening an onnxruntime session
with a one-line error, reading ultralytics' metadata (class names, input size), and turning BGR
images into the network's input batch.
"""

from __future__ import annotations

import ast
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

REPO_ROOT = Path(__file__).resolve().parent.parent
FloatArray = npt.NDArray[np.float32]


class ModelError(ValueError):
    """The model (or its calibration) cannot be used; the message is one line with the fix."""


def shown_path(path: Path) -> str:
    """``path`` relative to the working directory when it lies below it, for messages."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


def to_blob(images_bgr: Sequence[np.ndarray]) -> FloatArray:
    """Stack same-sized BGR uint8 images into an NCHW float32 RGB batch scaled to 0..1."""
    batch = np.stack([img[:, :, ::-1] for img in images_bgr])  # BGR → RGB
    blob = batch.transpose(0, 3, 1, 2).astype(np.float32) * np.float32(1 / 255)
    return np.ascontiguousarray(blob)


def open_session(path: Path, threads: int, what: str, train_command: str) -> Any:
    """An onnxruntime CPU session for the model at ``path``; a one-line ModelError otherwise."""
    shown = shown_path(path)
    fix = f"run `chaodipi vision {train_command}` or restore it from git"
    if not path.is_file():
        raise ModelError(f"{what} file {shown} is missing: {fix}")
    import onnxruntime as ort  # the one heavy import, kept out of module import time

    options = ort.SessionOptions()
    options.intra_op_num_threads = max(1, int(threads))
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as e:  # onnxruntime raises its own exception types
        reason = str(e).strip().splitlines()[0][:120] if str(e).strip() else type(e).__name__
        raise ModelError(
            f"{what} file {shown} is not a usable ONNX model ({reason}): {fix}"
        ) from None


def read_metadata_names(meta: dict[str, str]) -> tuple[str, ...] | None:
    text = meta.get("names")
    if not text:
        return None
    try:
        names = ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return None
    if isinstance(names, dict):
        return tuple(str(names[k]) for k in sorted(names))
    if isinstance(names, list | tuple):
        return tuple(str(n) for n in names)
    return None


def read_metadata_imgsz(meta: dict[str, str]) -> int | None:
    try:
        value = ast.literal_eval(meta.get("imgsz", ""))
    except (ValueError, SyntaxError):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, list | tuple) and value and all(isinstance(v, int) for v in value):
        return int(value[0])
    return None
