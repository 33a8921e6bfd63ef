"""Evidence pictures beside the event log, under a size cap, and referee corrections as data.

This module owns the files of ``<data_dir>/evidence/`` and ``<data_dir>/corrections/``.

**Evidence.** The service saves a JPEG of every trick as the camera saw it when its fourth play
was accepted (``snapshot {trick, path}`` events point at it, paths relative to the data dir).
An infraction's evidence is the snapshots of its trick and of the trick that proved it; a
recognition conflict's is the snapshot of its trick. Files are written atomically (a temporary
file beside it, then ``os.replace``): a crash leaves either the whole picture or none.

**Size cap and deletion policy** (``[service] evidence_cap_mb``, default 500 MB). Before a new
picture is written, if the folder would exceed the cap, pictures are deleted in this order
until it fits:

1. only snapshots of *finished* hands (the hand in play is never pruned: any of its tricks may
   still prove an infraction);
2. never a snapshot that is evidence of an *open* or *confirmed* infraction (of any hand);
   evidence of dismissed infractions and plain trick snapshots may go;
3. oldest first (by hand, then trick, then the time in the name).

If nothing may be deleted, the new snapshot is not saved (``save`` returns None, a warning is
logged): the cap is a promise about disk space, and the event log — the record that matters —
is unaffected. Deleting a picture never touches the log; a ``snapshot`` event whose file is
gone simply has no picture to show.

**Corrections.** When the referee corrects a play, the trick's picture and its labels (cards,
seat, trick, hand, the cards the camera read) are saved as new training data in
``corrections/images/<name>.jpg`` and ``corrections/labels/<name>.json``. The referee gives
identities only, not boxes, so the labels carry ``"boxes": null`` and say so; box them before
training a detector on them (they can train the crop classifier directly once cropped).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import tempfile
import time
from collections.abc import Collection, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

EVIDENCE_DIR = "evidence"
CORRECTIONS_DIR = "corrections"
DEFAULT_CAP_BYTES = 500 * 1024 * 1024
_NAME = re.compile(r"^h(\d+)-t(\d+)-(\d+)\.jpg$")


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Write ``data`` to ``path`` all at once (temporary file, fsync, ``os.replace``)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


@dataclass(frozen=True)
class Picture:
    """One evidence file: its path relative to the data dir and where it belongs."""

    path: str
    hand: int
    trick: int
    stamp: int
    size: int


class Evidence:
    """The evidence folder of one table (see the module docstring for the policy)."""

    def __init__(self, data_dir: str | Path, cap_bytes: int = DEFAULT_CAP_BYTES) -> None:
        if cap_bytes <= 0:
            raise ValueError(f"evidence cap must be > 0 bytes (got {cap_bytes}): e.g. 500 MB")
        self.data_dir = Path(data_dir)
        self.folder = self.data_dir / EVIDENCE_DIR
        self.cap_bytes = cap_bytes

    def pictures(self) -> list[Picture]:
        """Every evidence picture, oldest first (hand, trick, time)."""
        out: list[Picture] = []
        if not self.folder.is_dir():
            return out
        for p in self.folder.iterdir():
            m = _NAME.match(p.name)
            if m is None:
                continue
            try:
                size = p.stat().st_size
            except FileNotFoundError:
                continue
            rel = f"{EVIDENCE_DIR}/{p.name}"
            out.append(Picture(rel, int(m[1]), int(m[2]), int(m[3]), size))
        return sorted(out, key=lambda x: (x.hand, x.trick, x.stamp))

    def usage(self) -> int:
        """Bytes used by the pictures."""
        return sum(p.size for p in self.pictures())

    def path_of(self, rel: str) -> Path | None:
        """The file of a relative evidence path, or None when it is not one of ours."""
        name = rel.removeprefix(f"{EVIDENCE_DIR}/")
        if "/" in name or _NAME.match(name) is None:
            return None
        return self.folder / name

    def save(
        self,
        jpeg: bytes,
        hand: int,
        trick: int,
        *,
        current_hand: int,
        protected: Collection[str] = (),
    ) -> str | None:
        """Save a trick's picture; returns its path relative to the data dir, or None when
        the cap is reached and nothing may be deleted (see the module docstring)."""
        if not self.make_room(len(jpeg), current_hand=current_hand, protected=protected):
            log.warning(
                "evidence cap %d MB reached and nothing may be deleted: snapshot of hand %d "
                "trick %d not saved (raise [service] evidence_cap_mb)",
                self.cap_bytes // (1024 * 1024),
                hand,
                trick,
            )
            return None
        stamp = time.time_ns() // 1000
        rel = f"{EVIDENCE_DIR}/h{hand:04d}-t{trick:02d}-{stamp}.jpg"
        write_atomic(self.data_dir / rel, jpeg)
        return rel

    def make_room(self, size: int, *, current_hand: int, protected: Collection[str] = ()) -> bool:
        """Delete deletable pictures, oldest first, until ``size`` more bytes fit the cap."""
        pics = self.pictures()
        used = sum(p.size for p in pics)
        keep = set(protected)
        for pic in pics:
            if used + size <= self.cap_bytes:
                break
            if pic.hand >= current_hand or pic.path in keep:
                continue
            with contextlib.suppress(FileNotFoundError):
                (self.data_dir / pic.path).unlink()
            used -= pic.size
            log.info("evidence cap: deleted %s", pic.path)
        return used + size <= self.cap_bytes


def save_correction(
    data_dir: str | Path, name: str, jpeg: bytes | None, labels: Mapping[str, Any]
) -> tuple[Path | None, Path]:
    """Save a referee-corrected frame and its labels as training data; returns the paths.

    ``labels`` holds the cards and seat (and where they came from); ``boxes`` is always null:
    the referee names the cards, not where they lie in the picture.
    """
    root = Path(data_dir) / CORRECTIONS_DIR
    image = None
    if jpeg is not None:
        image = root / "images" / f"{name}.jpg"
        write_atomic(image, jpeg)
    body = {
        **labels,
        "image": None if image is None else f"images/{name}.jpg",
        "boxes": None,
        "boxes_note": "YOLO boxes unknown: the referee corrected the identities only; box the "
        "cards before training a detector (the crop classifier can use the crops once cut)",
    }
    label = root / "labels" / f"{name}.json"
    write_atomic(label, (json.dumps(body, ensure_ascii=False, indent=1) + "\n").encode())
    return image, label
