"""Footage in, a scored hand out: :mod:`~chaodipi.replay.replay` runs the whole table pipeline
on recorded or rendered footage, :mod:`~chaodipi.replay.scoring` compares what it recovered
with the ground truth, and :mod:`~chaodipi.replay.evaluation` (``chaodipi replay-eval``)
simulates hands with planted infractions, renders them and scores the replays.
"""
