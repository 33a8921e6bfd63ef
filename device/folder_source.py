"""A folder of still images as a finite frame source, and the writer for such folders.

This module owns the on-disk frame-folder format: image files (PNG, JPEG, BMP, TIFF, WebP)
played in name order (digit runs compare as numbers, so ``f2`` precedes ``f10``), with their
times in seconds from ``timestamps.csv`` (rows ``name,t``, an optional header) or, failing
that, ``frames.jsonl`` (one ``{"name": ..., "t": ...}`` object a line). A folder with neither
is played at a fixed ``fps``. ``write_frame_folder`` saves frames in exactly this format.
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Iterable
from pathlib import Path

import cv2

from device.source import Frame, FrameSource, SourceError

IMAGE_SUFFIXES = frozenset({".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp"})
TIMESTAMPS_CSV = "timestamps.csv"
FRAMES_JSONL = "frames.jsonl"


def _natural_key(name: str) -> list[int | str]:
    """Sort key comparing digit runs as numbers: ``f2.png`` < ``f10.png``."""
    return [int(part) if part.isdigit() else part.lower() for part in re.split(r"(\d+)", name)]


def list_images(folder: Path) -> list[Path]:
    """The image files directly inside ``folder``, in play order."""
    images = [p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in IMAGE_SUFFIXES]
    return sorted(images, key=lambda p: _natural_key(p.name))


def _float(text: str, where: str) -> float:
    try:
        return float(text)
    except ValueError:
        raise SourceError(f"{where}: {text!r} is not a time in seconds") from None


def read_timestamps(folder: Path) -> dict[str, float] | None:
    """Image name → time from ``timestamps.csv`` or ``frames.jsonl``; ``None`` if neither."""
    csv_path = folder / TIMESTAMPS_CSV
    if csv_path.is_file():
        times: dict[str, float] = {}
        with csv_path.open(newline="", encoding="utf-8") as fh:
            for lineno, row in enumerate(csv.reader(fh), start=1):
                if not row or not row[0].strip():
                    continue
                if len(row) < 2:
                    raise SourceError(f"{csv_path}:{lineno}: expected name,t")
                name, t = row[0].strip(), row[1].strip()
                if lineno == 1 and name.lower() == "name":
                    continue
                times[name] = _float(t, f"{csv_path}:{lineno}")
        return times
    jsonl_path = folder / FRAMES_JSONL
    if jsonl_path.is_file():
        times = {}
        with jsonl_path.open(encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                where = f"{jsonl_path}:{lineno}"
                try:
                    record = json.loads(line)
                    name, t = record["name"], record["t"]
                except (ValueError, TypeError, KeyError):
                    raise SourceError(f'{where}: expected {{"name": ..., "t": ...}}') from None
                times[str(name)] = _float(str(t), where)
        return times
    return None


class FolderSource(FrameSource):
    """Plays the images of ``folder`` in name order with their recorded times.

    Without a timestamps file, frame ``i`` is at ``i / fps`` seconds. Every image must have a
    time when a timestamps file exists, and times must not decrease.
    """

    live = False

    def __init__(self, folder: str | Path, *, fps: float = 10.0) -> None:
        if fps <= 0:
            raise ValueError(f"fps must be positive, got {fps}")
        self.folder = Path(folder)
        self.fps = fps
        self._frames: list[tuple[Path, float]] | None = None
        self._next = 0

    def describe(self) -> str:
        return f"image folder {self.folder}"

    def open(self) -> None:
        if self._frames is not None:
            return
        if not self.folder.is_dir():
            raise SourceError(f"image folder not found: {self.folder}")
        images = list_images(self.folder)
        if not images:
            raise SourceError(f"no images in {self.folder}")
        times = read_timestamps(self.folder)
        frames: list[tuple[Path, float]] = []
        for i, path in enumerate(images):
            if times is None:
                t = round(i / self.fps, 6)
            elif path.name in times:
                t = times[path.name]
            else:
                raise SourceError(f"no timestamp for {path.name} in {self.folder}")
            if frames and t < frames[-1][1]:
                raise SourceError(f"timestamps go backwards at {path.name} in {self.folder}")
            frames.append((path, t))
        self._frames = frames
        self._next = 0

    def __len__(self) -> int:
        self.open()
        assert self._frames is not None
        return len(self._frames)

    def read(self) -> Frame | None:
        if self._frames is None:
            raise SourceError(f"{self.describe()} is not open")
        if self._next >= len(self._frames):
            return None
        path, t = self._frames[self._next]
        image = cv2.imread(str(path), cv2.IMREAD_COLOR)
        if image is None:
            raise SourceError(f"cannot read image {path}")
        frame = Frame(image=image, t=t, index=self._next, source=self.describe())
        self._next += 1
        return frame

    def close(self) -> None:
        self._frames = None
        self._next = 0


def write_frame_folder(
    frames: Iterable[Frame], folder: str | Path, *, ext: str = ".png", prefix: str = "frame_"
) -> int:
    """Save ``frames`` as ``prefix000000.png``, … plus ``timestamps.csv``; return the count.

    ``FolderSource(folder)`` plays them back with the same images (exactly, for PNG) and the
    same times. ``folder`` is created if needed and must not already hold images or a
    timestamps file. ``ext`` is ``.png`` (lossless, the default) or ``.jpg``.
    """
    suffix = ext if ext.startswith(".") else f".{ext}"
    if suffix.lower() not in IMAGE_SUFFIXES:
        raise ValueError(f"unsupported image format {ext!r}")
    out = Path(folder)
    out.mkdir(parents=True, exist_ok=True)
    if list_images(out) or (out / TIMESTAMPS_CSV).exists() or (out / FRAMES_JSONL).exists():
        raise FileExistsError(f"{out} already holds frames; write to an empty folder")
    count = 0
    with (out / TIMESTAMPS_CSV).open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(["name", "t"])
        for frame in frames:
            name = f"{prefix}{count:06d}{suffix}"
            if not cv2.imwrite(str(out / name), frame.image):
                raise SourceError(f"cannot write {out / name}")
            writer.writerow([name, repr(float(frame.t))])
            count += 1
    return count
