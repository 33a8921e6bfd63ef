"""Tiny real ONNX models for tests that need a loadable detector or classifier file.

Built with the ``onnx`` package (from the ``train`` extra): a strided convolution with zero
weights, shaped like our exports — a YOLO detector takes ``1×3×S×S`` and returns
``1×(4 + 54)×N`` (it finds nothing), a classifier returns one probability per class. They load
and run in onnxruntime exactly as the trained models do, in milliseconds.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np


def _conv_model(
    path: Path, size: int, channels: int, flat: bool, names: str, bias: np.ndarray | None = None
) -> Path:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    stride = 8
    cells = (size // stride) ** 2
    weight = numpy_helper.from_array(np.zeros((channels, 3, stride, stride), np.float32), name="w")
    offsets = np.zeros(channels, np.float32) if bias is None else bias.astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["images", "w", "b"], ["conv"], strides=[stride, stride]),
    ]
    if flat:  # classifier: mean over the grid → 1 × classes
        nodes.append(helper.make_node("GlobalAveragePool", ["conv"], ["pool"]))
        shape = numpy_helper.from_array(np.array([1, channels], np.int64), name="shape")
        out_shape = [1, channels]
        nodes.append(helper.make_node("Reshape", ["pool", "shape"], ["output0"]))
    else:  # detector: 1 × channels × cells
        shape = numpy_helper.from_array(np.array([1, channels, cells], np.int64), name="shape")
        out_shape = [1, channels, cells]
        nodes.append(helper.make_node("Reshape", ["conv", "shape"], ["output0"]))
    graph = helper.make_graph(
        nodes,
        "tiny",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, size, size])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, out_shape)],
        initializer=[weight, numpy_helper.from_array(offsets, name="b"), shape],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    model.ir_version = 8
    entry = model.metadata_props.add()
    entry.key, entry.value = "names", names
    onnx.checker.check_model(model)
    path.write_bytes(model.SerializeToString())
    return path


def tiny_detector(path: Path, size: int = 64) -> Path:
    """A loadable YOLO-shaped detector (54 card classes) that detects nothing."""
    from vision.classes import CLASS_NAMES

    names = str(dict(enumerate(CLASS_NAMES)))
    return _conv_model(path, size, 4 + len(CLASS_NAMES), flat=False, names=names)


def tiny_localiser(path: Path, size: int = 64, score: float = 1.0) -> Path:
    """A one-class localiser ("item", as ultralytics names a single class) that finds the same
    box, the middle half of the image, with ``score`` in every grid cell (NMS keeps one)."""
    half = size / 2
    bias = np.array([half, half, half, half, score])  # cx, cy, w, h, score
    return _conv_model(path, size, 5, flat=False, names="{0: 'item'}", bias=bias)


def tiny_classifier(
    path: Path, size: int = 64, always: str | None = None, reads: dict[str, float] | None = None
) -> Path:
    """A loadable corner-index classifier (54 identities + none); ``always`` makes it read
    every crop as that class with probability 1, ``reads`` with those probabilities."""
    from vision.crops import CLASSIFIER_NAMES

    names = str(dict(enumerate(CLASSIFIER_NAMES)))
    bias = None
    if always is not None:
        reads = {always: 1.0}
    if reads is not None:
        bias = np.array([reads.get(n, 0.0) for n in CLASSIFIER_NAMES])
    return _conv_model(path, size, len(CLASSIFIER_NAMES), flat=True, names=names, bias=bias)
