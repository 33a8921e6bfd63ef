"""Deck enrolment: the printed mat's layout, and reading a deck off a photograph of it.

The photographs are synthetic: the mat as ``chaodipi deck sheet`` draws it, with the four
ArUco markers of the marker page at the table's corners, seen through the tilted, rolled camera
of the footage renderer (:func:`vision.synth.render_scene.make_camera`); the faces of a built-in
deck lie in their slots a little shifted and turned, as hands leave them. The table is then
calibrated from that photograph with ``chaodipi calibrate``, so the whole command path runs.
"""

from __future__ import annotations

import contextlib
import functools
import io
import shlex
import struct
from collections.abc import Sequence
from itertools import combinations
from pathlib import Path

import cv2
import numpy as np
import pytest

from chaodipi.cli.main import main
from vision.calibration import marker_image, marker_squares_cm
from vision.classes import CLASS_NAMES, JOKERS
from vision.enrolment.mat import (
    PAD_GREY,
    EnrolmentError,
    MatLayout,
    Rect,
    mat_layout,
    render_mat,
)
from vision.synth.decks import DeckError, load_deck, read_rgba
from vision.synth.render_scene import Camera, card_homography, draw_card, make_camera
from vision.table_geometry import TableGeometry

GEO = TableGeometry()  # 90 × 90 cm, the default table
SMALL = TableGeometry(width_cm=70.0, height_cm=70.0)  # too small for the whole mat
DECK = "byron_knoll"  # its faces' ink runs off their edges: the hard case for finding cards
FRAME = (1600, 1200)  # the table ≈ 12.5 px a cm (≈ 16 on the small table)
MAT_PX_PER_CM = 15.0  # the printed mat as drawn before the camera sees it


# ---------------------------------------------------------------- a photograph of the mat


def _centre(rect: Rect) -> tuple[float, float]:
    return (rect[0] + rect[2]) / 2, (rect[1] + rect[3]) / 2


def _face(card: str, camera: Camera) -> np.ndarray:
    """The deck's face (BGRA) shrunk near the camera's scale, as the renderer draws cards."""
    face = cv2.cvtColor(read_rgba(load_deck(DECK).faces[card]), cv2.COLOR_RGBA2BGRA)
    f = 1.25 * camera.px_per_cm * 8.8 / face.shape[0]
    return cv2.resize(face, None, fx=f, fy=f, interpolation=cv2.INTER_AREA)


def photograph(
    layout: MatLayout,
    camera: Camera,
    *,
    seed: int = 0,
    leave_out: Sequence[str] = (),
    extra: Sequence[tuple[str, float, float, float]] = (),
    coin_on: str | None = None,
    blur_slot: str | None = None,
    sleeve_over: str | None = None,
    mat: bool = True,
) -> np.ndarray:
    """The camera's BGR frame of the table with the mat, the markers and the cards of
    ``layout`` in their slots (less ``leave_out``; ``extra``: more cards at (x, y) cm, turned
    by an angle); ``coin_on``: a dark coin over that card's right edge; ``blur_slot``: that
    slot out of focus; ``sleeve_over``: a sleeve over that slot and the paper around it;
    ``mat=False``: the bare table, markers only."""
    rng = np.random.default_rng(seed)
    geo = layout.table
    k = MAT_PX_PER_CM
    if mat:
        top = render_mat(layout, k).astype(np.float32)
    else:
        top = np.full((round(geo.height_cm * k), round(geo.width_cm * k)), 90, np.float32)
    top = 20 + top * 0.85  # printed paper and ink under the table's light
    for marker_id, square in marker_squares_cm(geo).items():
        quiet = round(geo.marker_size_cm / 8 * k)
        tile = marker_image(marker_id, round(geo.marker_size_cm * k), quiet)
        x0, y0 = round(square[0, 0] * k) - quiet, round(square[0, 1] * k) - quiet
        top[y0 : y0 + tile.shape[0], x0 : x0 + tile.shape[1]] = 20 + tile * 0.85
    w, h = camera.size
    frame = np.full((h, w, 3), 45, np.uint8)
    to_frame = camera.table_to_image @ np.diag([1 / k, 1 / k, 1.0])
    bgr = cv2.cvtColor(np.clip(top, 0, 255).astype(np.uint8), cv2.COLOR_GRAY2BGR)
    cv2.warpPerspective(bgr, to_frame, (w, h), dst=frame, borderMode=cv2.BORDER_TRANSPARENT)
    places = []
    for slot in layout.slots:
        x, y = _centre(slot.card_cm)
        dx, dy, angle = rng.uniform(-0.25, 0.25), rng.uniform(-0.25, 0.25), rng.uniform(-2.5, 2.5)
        if slot.card not in leave_out:
            places.append((slot.card, x + dx, y + dy, angle))
    for card, x, y, angle in [*places, *extra]:
        face = _face(card, camera)
        draw_card(frame, face, card_homography(camera, face, x, y, angle))
    by_card = {s.card: s for s in layout.slots}
    if coin_on is not None:
        r = by_card[coin_on].card_cm
        centre = camera.project([[r[2], (r[1] + r[3]) / 2]])[0]
        radius = round(1.2 * camera.px_per_cm)
        cv2.circle(frame, (round(centre[0]), round(centre[1])), radius, (35, 35, 40), -1)
    if blur_slot is not None:
        p = by_card[blur_slot].pad_cm
        corners = camera.project([[p[0] - 1, p[1] - 1], [p[2] + 1, p[3] + 1]]).astype(int)
        (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
        frame[y0:y1, x0:x1] = cv2.GaussianBlur(frame[y0:y1, x0:x1], (0, 0), 3.5)
    if sleeve_over is not None:
        p = by_card[sleeve_over].pad_cm
        quad = camera.project(
            [[p[0] - 1, p[1] - 2], [p[2] + 2, p[1] - 2], [p[2] + 2, p[3] + 1], [p[0] - 1, p[3] + 1]]
        )
        cv2.fillConvexPoly(frame, np.round(quad).astype(np.int32), (60, 70, 95))
    lens = cv2.GaussianBlur(frame, (0, 0), 0.6)
    noise = rng.normal(0, 2.5, frame.shape)
    return np.asarray(np.clip(lens + noise, 0, 255).astype(np.uint8))


def read(path: Path, flags: int = cv2.IMREAD_COLOR) -> np.ndarray:
    image = cv2.imread(str(path), flags)
    assert image is not None, path
    return image


def write_frame(path: Path, frame: np.ndarray) -> Path:
    assert cv2.imwrite(str(path), frame, [cv2.IMWRITE_JPEG_QUALITY, 95])
    return path


def calibrated_config(tmp: Path, geo: TableGeometry, frame: np.ndarray) -> Path:
    """A table config for ``geo``, calibrated with ``chaodipi calibrate`` on ``frame``."""
    config = tmp / "table.toml"
    config.write_text(
        f'table_id = "t1"\n\n[table]\nwidth_cm = {geo.width_cm}\nheight_cm = {geo.height_cm}\n',
        encoding="utf-8",
    )
    shot = write_frame(tmp / "calibration.jpg", frame)
    said = io.StringIO()
    with contextlib.redirect_stdout(said):
        assert main(["calibrate", "--config", str(config), "--image", str(shot)]) == 0
    assert "calibrated (aruco" in said.getvalue()
    return config


def _signature(gray: np.ndarray) -> np.ndarray:
    """A face at 24 × 34 px without its outer 6% (the round corners), zero mean, unit norm."""
    h, w = gray.shape
    inner = gray[round(0.06 * h) : round(0.94 * h), round(0.06 * w) : round(0.94 * w)]
    v = cv2.resize(inner, (24, 34), interpolation=cv2.INTER_AREA).astype(np.float64)
    v -= v.mean()
    return np.asarray(v / np.linalg.norm(v))


@functools.cache
def _originals() -> dict[str, np.ndarray]:
    out = {}
    for card, path in load_deck(DECK).faces.items():
        rgba = read_rgba(path).astype(np.float64)
        alpha = rgba[..., 3:] / 255  # the round corners: paper
        rgb = (rgba[..., :3] * alpha + 255 * (1 - alpha)).astype(np.uint8)
        out[card] = _signature(cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY))
    return out


def resemblance(written: Path) -> dict[str, float]:
    """Normalized correlation of a written face with each of the deck's own faces, both
    grayscale (see :func:`_signature`)."""
    got = _signature(read(written, cv2.IMREAD_GRAYSCALE))
    return {card: float(np.sum(got * own)) for card, own in _originals().items()}


def looks_like(written: Path, card: str) -> bool:
    """The written face matches ``card``'s own face closely, and better than any other."""
    scores = resemblance(written)
    return scores[card] > 0.95 and max(scores, key=scores.__getitem__) == card


@pytest.fixture(scope="module")
def camera() -> Camera:
    return make_camera(np.random.default_rng(3), FRAME, GEO)


@pytest.fixture(scope="module")
def full_mat() -> MatLayout:
    return mat_layout(GEO)


@pytest.fixture
def config(tmp_path: Path, camera: Camera, full_mat: MatLayout) -> Path:
    return calibrated_config(tmp_path, GEO, photograph(full_mat, camera, mat=False))


def run(capsys: pytest.CaptureFixture[str], command: str) -> tuple[int, str, list[str]]:
    """Run ``chaodipi COMMAND`` (split as a shell would) and return its exit status, stdout
    and stderr lines."""
    code = main(shlex.split(command))
    out, err = capsys.readouterr()
    return code, out, err.splitlines()


# ---------------------------------------------------------------- the mat


def _grow(r: Rect, by: float) -> Rect:
    return r[0] - by, r[1] - by, r[2] + by, r[3] + by


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _inside(r: Rect, outer: Rect) -> bool:
    return outer[0] <= r[0] and outer[1] <= r[1] and r[2] <= outer[2] and r[3] <= outer[3]


def check_layout(layout: MatLayout) -> None:
    """Every slot's pad and label lie on the table, clear of the markers' paper (the black
    square and its quiet zone) and of each other; the card fits inside its pad."""
    geo = layout.table
    table = (0.0, 0.0, geo.width_cm, geo.height_cm)
    quiet = geo.marker_size_cm / 8
    markers = [
        _grow((*sq.min(axis=0), *sq.max(axis=0)), quiet) for sq in marker_squares_cm(geo).values()
    ]
    cells = [(s.pad_cm[0], s.pad_cm[1], s.pad_cm[2], s.label_cm[3]) for s in layout.slots]
    for slot, cell in zip(layout.slots, cells, strict=True):
        assert _inside(cell, table), slot
        assert _inside(slot.card_cm, slot.pad_cm), slot
        assert not any(_overlap(cell, m) for m in markers), slot
    for a, b in combinations(cells, 2):
        assert not _overlap(a, b)


def test_the_mat_has_54_numbered_slots_in_card_order_clear_of_the_markers(
    full_mat: MatLayout,
) -> None:
    assert [s.number for s in full_mat.slots] == list(range(1, 55))
    assert tuple(s.card for s in full_mat.slots) == CLASS_NAMES  # 2S 2H 2D 2C 3S … AC BJ SJ
    assert full_mat.columns % 4 == 0  # whole ranks to a row
    check_layout(full_mat)
    for slot in full_mat.slots:  # poker-card slots with room to lie a little off
        x0, y0, x1, y1 = slot.card_cm
        assert (x1 - x0, y1 - y0) == pytest.approx((6.3, 8.8))
        assert slot.card_cm[0] - slot.pad_cm[0] >= 0.5


def test_half_mats_hold_27_slots_each_in_the_same_places() -> None:
    first, second = mat_layout(GEO, 1), mat_layout(GEO, 2)
    assert [s.number for s in first.slots] == list(range(1, 28))
    assert [s.number for s in second.slots] == list(range(28, 55))
    assert [s.card for s in first.slots + second.slots] == list(CLASS_NAMES)
    assert [s.pad_cm for s in first.slots] == [s.pad_cm for s in second.slots]
    for layout in (first, second, mat_layout(SMALL, 1)):
        check_layout(layout)


def test_a_small_table_takes_half_mats_and_a_tiny_one_none() -> None:
    with pytest.raises(EnrolmentError, match=r"70 x 70 cm cannot hold 54 .*--halves"):
        mat_layout(SMALL)
    with pytest.raises(EnrolmentError, match="cannot hold even a half-mat"):
        mat_layout(TableGeometry(width_cm=50.0, height_cm=50.0), 1)


def test_deck_sheet_prints_the_mat_at_the_tables_size(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], full_mat: MatLayout
) -> None:
    code, said, _ = run(capsys, f"deck sheet --out {tmp_path / 'mat.png'} --dpi 72")
    assert code == 0 and "54 card slots for a 90 x 90 cm table at 72 dpi" in said
    data = (tmp_path / "mat.png").read_bytes()
    at = data.index(b"pHYs")
    assert struct.unpack(">IIB", data[at + 4 : at + 13]) == (round(72 / 0.0254),) * 2 + (1,)
    sheet = read(tmp_path / "mat.png", cv2.IMREAD_GRAYSCALE)
    side = round(90 / 2.54 * 72)
    assert sheet.shape == (side, side)  # the whole table, 1 px = 2.54 / 72 cm

    def at_cm(x: float, y: float) -> int:
        return int(sheet[round(y * 72 / 2.54), round(x * 72 / 2.54)])

    for slot in full_mat.slots:  # each pad is dark where the layout puts it, paper above it
        x0, y0, _, _ = slot.pad_cm
        assert (at_cm(x0 + 0.3, y0 + 0.3), at_cm(x0 + 0.3, y0 - 0.15)) == (PAD_GREY, 255)
    for square in marker_squares_cm(GEO).values():  # the markers' places are left free
        assert at_cm(*(square.min(axis=0) + 0.5)) == 255

    small = tmp_path / "small.toml"
    small.write_text("[table]\nwidth_cm = 70.0\nheight_cm = 70.0\n", encoding="utf-8")
    code, said, _ = run(
        capsys, f"deck sheet --out {tmp_path / 'small.pdf'} --config {small} --halves"
    )
    assert code == 0 and "small-1.pdf" in said and "27 card slots each" in said
    for k in (1, 2):  # a page of the table's size: 70 cm is 1984.25 pt
        pdf = (tmp_path / f"small-{k}.pdf").read_bytes()
        assert pdf.startswith(b"%PDF") and b"/MediaBox [0 0 1984.25 1984.25]" in pdf

    code, _, err = run(capsys, f"deck sheet --out {tmp_path / 'm.png'} --config {small}")
    assert code == 2 and len(err) == 1 and err[0].endswith("use two half-mats (--halves)")
    gif = tmp_path / "mat.gif"
    code, _, err = run(capsys, f"deck sheet --out {gif}")
    assert code == 2 and err == [f"chaodipi deck: cannot write {gif}: name it .png or .pdf"]


# ---------------------------------------------------------------- capture


def test_capture_reads_every_face_into_a_deck_folder(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    camera: Camera,
    full_mat: MatLayout,
    config: Path,
) -> None:
    shot = write_frame(tmp_path / "mat.jpg", photograph(full_mat, camera, seed=1))
    out = tmp_path / "tournament"
    command = f"deck capture --config {config} --image {shot} --out {out} --name 'Spring Open'"
    code, said, err = run(capsys, command)
    assert (code, err) == (0, [])
    assert said == f"wrote {out}: 54 faces and deck.toml\n"
    deck = load_deck(str(out))
    assert deck.name == "Spring Open" and deck.has_jokers
    assert sorted(deck.faces) == sorted(CLASS_NAMES)
    for card, path in deck.faces.items():  # upright, the card's aspect, the card's picture
        face = read(path)
        assert face.shape[0] == 500 and face.shape[1] == pytest.approx(500 * 241 / 350, abs=12)
        assert looks_like(path, card), card
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "calibration.jpg",
        "mat.jpg",
        "table.toml",
        "tournament",
    ]  # no temporary folder left beside


def test_unreadable_slots_are_listed_one_line_each_and_nothing_is_written(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    camera: Camera,
    full_mat: MatLayout,
    config: Path,
) -> None:
    x, y = _centre(full_mat.slots[21].card_cm)  # slot 22, the 7H: an 8S lies over it too
    frame = photograph(
        full_mat,
        camera,
        seed=2,
        leave_out=["5D", "SJ"],  # a lone BJ: both jokers or none
        extra=[("8S", x + 0.8, y + 0.6, 6.0)],
        coin_on="QC",
        blur_slot="3D",
        sleeve_over="KS",
    )
    shot = write_frame(tmp_path / "mat.jpg", frame)
    out = tmp_path / "deck"
    code, said, err = run(capsys, f"deck capture --config {config} --image {shot} --out {out}")
    assert code == 2 and said == ""
    assert err == [
        "slot 7 (3D): blurred: hold the camera still and in focus, and capture again",
        "slot 15 (5D): empty: lay the 5D face up in it",
        "slot 22 (7H): two cards: leave only the 7H in it",
        "slot 44 (QC): covered: something lies over the QC; clear it",
        "slot 45 (KS): covered: the mat is hidden here; clear it",
        "slot 54 (SJ): empty: lay the SJ in it too, or take the other joker out (52 cards)",
        "chaodipi deck: 6 slots could not be read, so nothing was written: fix them and "
        "capture again",
    ]
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "calibration.jpg",
        "mat.jpg",
        "table.toml",
    ]


def test_two_half_mats_make_one_deck_and_empty_joker_slots_a_52_card_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    camera = make_camera(np.random.default_rng(5), FRAME, SMALL)
    first, second = mat_layout(SMALL, 1), mat_layout(SMALL, 2)
    config = calibrated_config(tmp_path, SMALL, photograph(first, camera, mat=False))
    out = tmp_path / "deck"
    # Half 1 in two frames, each slot read in one or the other (the 5D is missing in one).
    shots = [
        write_frame(tmp_path / f"half1-{k}.jpg", photograph(first, camera, seed=k, leave_out=gone))
        for k, gone in enumerate([["5D"], []])
    ]
    code, said, err = run(
        capsys, f"deck capture --config {config} --image {shots[0]} {shots[1]} --out {out} --half 1"
    )
    assert (code, err) == (0, [])
    assert said.startswith(f"half-mat 1: 27 faces kept in {out / '.partial'}; now lay half-mat 2")
    with pytest.raises(DeckError, match="lacks 52 faces"):  # no deck until both halves are in
        load_deck(str(out))

    # Half 2 from the camera (a frame folder here), without the jokers.
    camera_folder = tmp_path / "camera"
    camera_folder.mkdir()
    write_frame(camera_folder / "frame_000000.jpg", photograph(second, camera, leave_out=JOKERS))
    code, said, err = run(
        capsys, f"deck capture --config {config} --source {camera_folder} --out {out} --half 2"
    )
    assert (code, err) == (0, [])
    assert said == f"wrote {out}: 52 faces (no jokers) and deck.toml\n"
    deck = load_deck(str(out))
    assert len(deck.faces) == 52 and not deck.has_jokers and deck.name == "deck"
    assert not (out / ".partial").exists()
    for card, path in deck.faces.items():
        assert looks_like(path, card), card


def test_bad_input_is_refused_in_one_line_naming_the_fix(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    camera: Camera,
    full_mat: MatLayout,
    config: Path,
) -> None:
    out = tmp_path / "deck"

    def capture(image: Path, cfg: Path = config) -> str:
        code, said, err = run(capsys, f"deck capture --config {cfg} --image {image} --out {out}")
        assert code == 2 and said == "" and len(err) == 1, err
        return err[0]

    missing = tmp_path / "nope.jpg"
    assert (
        capture(missing) == f"chaodipi deck: image {missing} does not exist: give a JPG or PNG file"
    )
    junk = tmp_path / "junk.jpg"
    junk.write_bytes(b"not an image")
    assert capture(junk) == f"chaodipi deck: cannot decode image {junk}: give a JPG or PNG file"
    small = write_frame(tmp_path / "small.jpg", np.zeros((600, 800, 3), np.uint8))
    assert capture(small) == (
        f"chaodipi deck: {small} is 800x600 but the calibration was made at 1600x1200: "
        "photograph the mat at that size (the camera's full resolution), or run chaodipi "
        "calibrate again"
    )
    bare = write_frame(tmp_path / "bare.jpg", photograph(full_mat, camera, mat=False))
    assert capture(bare).startswith(f"chaodipi deck: {bare} shows no mat where the layout puts it")
    sleeve = photograph(full_mat, camera)
    x, y = np.round(camera.project([[20, 20]])[0]).astype(int)
    sleeve[:y, :x] = 40  # a sleeve over the NW corner
    shot = write_frame(tmp_path / "sleeve.jpg", sleeve)
    assert capture(shot).startswith(f"chaodipi deck: {shot}: marker 0 (NW) missing")
    out.mkdir()
    (out / "AS.png").write_bytes(b"")
    assert capture(shot) == (
        f"chaodipi deck: {out} already holds AS.png: give a new deck folder, or delete that one"
    )
    plain = tmp_path / "plain.toml"
    plain.write_text('table_id = "t2"\n', encoding="utf-8")
    assert capture(shot, plain) == (
        f"chaodipi deck: {plain} has no calibration: run chaodipi calibrate first"
    )
    assert [p.name for p in out.iterdir()] == ["AS.png"]
