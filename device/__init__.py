"""Camera sources: where the frames for ``vision`` come from.

This package owns frame capture behind one interface: the Raspberry Pi camera through Picamera2
(imported lazily, only on the Pi, via the ``pi`` extra), OpenCV sources for USB cameras, RTSP
streams and video or image files, and a replay source that plays recorded sessions back at
their original timing for tests and benchmarks. Not built yet: this folder holds the layout for
a later issue.
"""
