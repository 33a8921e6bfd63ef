"""Training and evaluating the two models with ultralytics (the ``train`` extra): the corner
localiser and the corner-index classifier (:mod:`~vision.training.train`), exported to ONNX,
and their evaluation on YOLO datasets and crop folders (:mod:`~vision.training.evaluate`,
:mod:`~vision.training.crop_eval`). The table-time reader never imports it.
"""
