"""Card vision: camera frames → card detections → stable plays per seat.

This package owns everything between a frame and a hand record: running the card detector
(an ONNX model from ``models/``) with onnxruntime and OpenCV, tracking detections over frames
until each seat's play is stable, and turning stable plays into the tricks of a
``chaodipi-hand/1`` record for the engine to audit. It also owns the offline side: synthetic
training-data generation and ultralytics training (the ``train`` extra). It never imports Flask;
the dashboard consumes its output.

Built so far: ``classes`` (the 54 identities), ``faces``, ``stroke_font`` and ``synth``
(synthetic training scenes, the ``train`` extra), ``train`` (ultralytics, offline, ONNX export),
``detector`` (onnxruntime: letterbox, tiling, decode, NMS, calibration; with a classifier beside
the model it only localises corner indices), ``crops`` and ``classifier`` (the second stage: a
64 px crop of each localised index from the full-resolution frame — in the pipeline the camera
frame itself, through the homography — read by a 55-way classifier: 54 identities + none),
``grouping`` (corner indices → physical cards), ``evaluate`` (identity precision/recall on YOLO
folders), ``cli`` and ``commands``
(``chaodipi vision synth|crops|train|train-classifier|detect|eval``), ``motion`` (NVR-style
motion gate), ``zone_reads`` (each table zone read at 10 px a cm, only when its pixels
changed), ``index_tracks`` (each corner index read again at one place of a zone: its reads
pooled, weak reads under the bar too), ``fan_strips`` (the ends of a fan no card read
explains: picture jokers shown only by a strip), ``tracking`` (temporal consensus: stable
zone contents → play events), ``events`` (append-only JSON-lines event log) and ``game_feed``
(events → a live hand record audited by the engine). ``gpu_round/`` holds the scripts of one
training round on a lent GPU machine (prepared here, run there as one call, scored back here).
"""
