"""The synthetic-data factory: card faces of artwork and procedural decks
(:mod:`~vision.synth.faces`), training scenes in YOLO format (:mod:`~vision.synth.scenes`),
the classifier's crops (:mod:`~vision.synth.crop_data`, cut with the runtime's own geometry
from :mod:`vision.crops`), printed-text negatives, and rendered overhead footage of whole
hands with their ground truth (:mod:`~vision.synth.render`). It imports the table-time reader
for its geometry; the reader never imports it.
"""
