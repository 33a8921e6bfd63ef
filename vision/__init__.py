"""Card vision: camera frames → card reads → stable plays per seat.

The modules at this level are the table-time reader, what the pipeline imports; they need only
onnxruntime, OpenCV and numpy. The corner localiser (:mod:`~vision.detector`) finds corner
indices, a 64 px crop of each (:mod:`~vision.crops`, the one crop geometry) is read by the
classifier (:mod:`~vision.classifier`; both models through :mod:`~vision.onnx_model`), and
:mod:`~vision.grouping` joins indices into physical cards. On the table, calibrated by markers
(:mod:`~vision.calibration`, :mod:`~vision.table_geometry`), the motion gate
(:mod:`~vision.motion`) decides when a frame can be trusted, each zone (:mod:`~vision.zones`) is
read only when it changed (:mod:`~vision.zone_reads`, with :mod:`~vision.index_tracks` pooling
an index's reads and :mod:`~vision.fan_strips` reading jokers a fan shows only as a strip),
:mod:`~vision.tracking` turns stable zone contents into play events (:mod:`~vision.events`) —
plays, swept tricks, the kitty, a play taken back before the sweep (悔牌) and a card lying face
up outside every zone — and :mod:`~vision.game_feed` folds them into a live hand record for the
engine.

:mod:`vision.enrolment` teaches a table its tournament's deck: the printed layout mat and
the deck folder read from a photo of the cards lying on it (``chaodipi deck sheet|capture``).

Offline, and never imported by the reader: :mod:`vision.synth` (deck faces, synthetic scenes,
crops and rendered footage) and :mod:`vision.training` (ultralytics training and evaluation).
"""
