"""Calibration, zones and the table config, on synthesized camera views with real OpenCV.

A top-down table image (10 px per cm) gets the four markers from the page generator at known
table positions (each in a different rotation); a known perspective homography (a tilted
camera) turns it into the camera frame, so every pixel's true table position is known.
"""

from __future__ import annotations

import argparse
import struct
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from chaodipi.cli.calibrate import add_calibrate_parser, add_markers_parser
from chaodipi.config import (
    Calibration,
    ConfigError,
    TableGeometry,
    ZoneConfig,
    default_config,
    load_config,
    save_calibration,
    save_config,
    with_calibration,
)
from vision.calibration import (
    CalibrationError,
    calibrate,
    calibrate_manual,
    check_drift,
    find_markers,
    marker_errors_cm,
    marker_image,
    marker_page,
    marker_squares_cm,
    to_image,
    to_table,
    warp_table,
    warp_view,
)
from vision.zones import CENTRE, OUTSIDE, Zones

REPO = Path(__file__).resolve().parents[2]
K = 10.0  # top-down pixels per cm
FRAME = (1280, 960)
GEO = TableGeometry()  # 90 × 90 cm, markers 0–3 of 8 cm, 1 cm from the edges
# Where the camera sees the table corners NW, NE, SE, SW (a tilted, slightly rotated view).
CAMERA_CORNERS = np.array([[262, 118], [1030, 146], [1175, 880], [96, 836]], dtype=np.float32)


def _camera() -> np.ndarray:
    w, h = GEO.width_cm * K, GEO.height_cm * K
    src = np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float32)
    return np.asarray(cv2.getPerspectiveTransform(src, CAMERA_CORNERS), dtype=np.float64)


G = _camera()  # top-down px → camera px


def frame(
    offsets_cm: dict[int, tuple[float, float]] | None = None, skip: tuple[int, ...] = ()
) -> np.ndarray:
    """The camera's view of the table with the markers (moved by ``offsets_cm``, ``skip``
    ones left out)."""
    w, h = round(GEO.width_cm * K), round(GEO.height_cm * K)
    rng = np.random.default_rng(7)
    felt = np.array([40, 110, 45], dtype=np.uint8)
    top = (felt + rng.integers(0, 12, (h, w, 3))).astype(np.uint8)
    size, quiet = round(GEO.marker_size_cm * K), round(GEO.marker_size_cm * K / 8)
    for k, (m, square) in enumerate(marker_squares_cm(GEO).items()):
        if m in skip:
            continue
        dx, dy = (offsets_cm or {}).get(m, (0.0, 0.0))
        tile = np.rot90(marker_image(m, size, quiet), k)  # every marker in another rotation
        x0 = round((square[0, 0] + dx) * K) - quiet
        y0 = round((square[0, 1] + dy) * K) - quiet
        top[y0 : y0 + tile.shape[0], x0 : x0 + tile.shape[1]] = tile[:, :, None]
    return cv2.warpPerspective(top, G, FRAME, flags=cv2.INTER_LINEAR, borderValue=(90, 90, 90))


def cm_to_px(points_cm: np.ndarray) -> np.ndarray:
    pts = np.asarray(points_cm, np.float64).reshape(-1, 1, 2) * K
    return cv2.perspectiveTransform(pts, G).reshape(-1, 2)


GRID_CM = np.array([[x, y] for x in (5.0, 25.0, 45.0, 65.0, 85.0) for y in (5.0, 30, 60, 88)])


@pytest.fixture(scope="module")
def image() -> np.ndarray:
    return frame()


@pytest.fixture(scope="module")
def cal(image: np.ndarray) -> Calibration:
    return calibrate(image, GEO)


# ---------------------------------------------------------------- marker page


def test_marker_page_png_has_dpi_and_detectable_markers(tmp_path: Path) -> None:
    out = marker_page(tmp_path / "page.png", dpi=150)
    data = out.read_bytes()
    at = data.index(b"pHYs")
    ppm_x, ppm_y, unit = struct.unpack(">IIB", data[at + 4 : at + 13])
    assert (ppm_x, ppm_y, unit) == (round(150 / 0.0254),) * 2 + (1,)
    page = cv2.imread(str(out), cv2.IMREAD_GRAYSCALE)
    assert page is not None
    assert page.shape == (round(29.7 / 2.54 * 150), round(21.0 / 2.54 * 150))
    found = find_markers(page)
    assert sorted(found) == [0, 1, 2, 3]
    side_px = np.linalg.norm(found[0][1] - found[0][0])
    assert side_px == pytest.approx(8.0 / 2.54 * 150, abs=2)
    # NW top-left, SE bottom-right on the page
    assert found[0].mean(0)[0] < found[1].mean(0)[0] and found[0].mean(0)[1] < found[3].mean(0)[1]


def test_marker_page_pdf_and_errors(tmp_path: Path) -> None:
    pdf = marker_page(tmp_path / "page.pdf", dpi=100).read_bytes()
    assert pdf.startswith(b"%PDF-1.4") and pdf.rstrip().endswith(b"%%EOF")
    with pytest.raises(CalibrationError, match=r"do not fit.*up to 8\.0 cm"):
        marker_page(tmp_path / "big.png", marker_size_cm=12)
    with pytest.raises(CalibrationError, match=r"\.png or \.pdf"):
        marker_page(tmp_path / "page.gif")


# ---------------------------------------------------------------- calibration


def test_calibrate_maps_pixels_to_table_cm(image: np.ndarray, cal: Calibration) -> None:
    assert cal.method == "aruco" and cal.image_size == FRAME
    assert cal.residual_cm is not None and cal.residual_cm < 0.3
    assert max(marker_errors_cm(cal, GEO).values()) < 0.5
    got = to_table(cm_to_px(GRID_CM), cal)
    assert np.abs(got - GRID_CM).max() < 0.5
    # one point in, one point out; to_image inverts to_table
    assert to_table(cm_to_px(GRID_CM[:1])[0], cal).shape == (2,)
    assert np.abs(to_image(GRID_CM, cal) - cm_to_px(GRID_CM)).max() < 3.0


def test_warp_table_is_top_down(image: np.ndarray, cal: Calibration) -> None:
    top = warp_table(image, cal, px_per_cm=5.0)
    assert top.shape[:2] == (450, 450)
    found = find_markers(top)
    for m, square in marker_squares_cm(GEO).items():
        assert np.abs(found[m].mean(0) / 5.0 - square.mean(0)).max() < 0.5


def test_missing_marker_is_named() -> None:
    with pytest.raises(CalibrationError) as e:
        calibrate(frame(skip=(3,)), GEO)
    msg = str(e.value)
    assert "3 (SW)" in msg and "--manual" in msg and "\n" not in msg
    assert "0 (NW)" not in msg


def test_swapped_markers_are_refused(image: np.ndarray) -> None:
    swapped = replace(GEO, marker_ids=(1, 0, 2, 3))
    with pytest.raises(CalibrationError, match="clockwise"):
        calibrate(image, swapped)


def test_drift_reports_moved_and_missing(image: np.ndarray, cal: Calibration) -> None:
    same = check_drift(image, cal, GEO)
    assert same.ok and not same.moved and not same.missing
    moved = check_drift(frame(offsets_cm={2: (-3.0, 0.0)}), cal, GEO)
    assert not moved.ok and list(moved.moved) == [2]
    assert moved.moved[2] == pytest.approx(3.0, abs=0.4)
    assert "marker 2 (SE) moved 3." in moved.message()
    gone = check_drift(frame(skip=(0,)), cal, GEO)
    assert not gone.ok and gone.missing == [0] and "marker 0 (NW) missing" in gone.message()
    with pytest.raises(CalibrationError, match="640x480"):
        check_drift(cv2.resize(image, (640, 480)), cal, GEO)


def test_manual_fallback_matches_markers(image: np.ndarray, cal: Calibration) -> None:
    corners = np.array([[0, 0], [90, 0], [90, 90], [0, 90]], np.float64)
    manual = calibrate_manual(cm_to_px(corners), GEO, image_size=FRAME)
    assert manual.method == "manual" and manual.residual_cm is None
    px = cm_to_px(GRID_CM)
    assert np.abs(to_table(px, manual) - to_table(px, cal)).max() < 0.5
    centres = np.array([s.mean(0) for s in marker_squares_cm(GEO).values()])
    by_centres = calibrate_manual(cm_to_px(centres), GEO, image_size=FRAME, at="markers")
    assert np.abs(to_table(px, by_centres) - GRID_CM).max() < 0.5
    with pytest.raises(CalibrationError, match="clockwise"):
        calibrate_manual(cm_to_px(corners)[[0, 2, 1, 3]], GEO, image_size=FRAME)
    bare = cv2.warpPerspective(np.full((900, 900, 3), 60, np.uint8), G, FRAME)
    report = check_drift(bare, manual, GEO)
    assert report.ok and not report.checked


# ---------------------------------------------------------------- zones


def test_warp_table_region_keeps_table_cm(image: np.ndarray, cal: Calibration) -> None:
    """A region of the table warps with its top-left corner at the origin, same scale."""
    whole = warp_table(image, cal, px_per_cm=5.0)
    part = warp_table(image, cal, px_per_cm=5.0, region_cm=(10.0, 20.0, 80.0, 60.0))
    assert part.shape[:2] == (200, 350)
    diff = np.abs(part.astype(int) - whole[100:300, 50:400].astype(int))
    assert np.median(diff) <= 2
    with pytest.raises(CalibrationError, match="empty"):
        warp_table(image, cal, region_cm=(30.0, 0.0, 30.0, 90.0))


def test_reading_region_covers_every_zone_plus_half_a_card() -> None:
    zones = Zones.from_config(GEO, ZoneConfig())
    assert zones.reading_region_cm() == (5.0, 5.0, 85.0, 85.0)  # zones span 10–80 cm
    assert zones.reading_region_cm(margin_cm=20.0) == (0.0, 0.0, 90.0, 90.0)  # clipped


def test_zones_seat_of_and_assign(cal: Calibration) -> None:
    zones = Zones.from_config(GEO, ZoneConfig())
    front = {"N": (45, 20), "E": (70, 45), "S": (45, 70), "W": (20, 45), CENTRE: (45, 45)}
    for seat, p in front.items():
        assert zones.seat_of(p) == seat
        # the same card seen by the camera
        assert zones.seat_of(to_table(cm_to_px(np.array([p]))[0], cal)) == seat
    assert zones.seat_of((2, 2)) is None  # the NW corner: nobody's
    assert zones.seat_of((45, 5)) is None  # between N's edge and its play area
    assert zones.seat_of((60, 30)) == "N" and zones.seat_of((62, 30)) == "E"  # split on diagonal
    got = zones.assign([("AS", (45, 20)), ("KH", (70, 45)), ("2C", (1, 1)), ("BJ", (44, 46))])
    assert got == {"N": ["AS"], "E": ["KH"], "S": [], "W": [], CENTRE: ["BJ"], OUTSIDE: ["2C"]}
    drawn = zones.draw(frame(), cal)
    assert drawn.shape == (FRAME[1], FRAME[0], 3)


def test_zones_on_a_wide_table_do_not_overlap() -> None:
    geo = replace(GEO, width_cm=120.0, height_cm=80.0)
    zones = Zones.from_config(geo, ZoneConfig(play_width_cm=80.0, play_depth_cm=30.0))
    for x in np.linspace(0, 120, 49):
        for y in np.linspace(0, 80, 33):
            inside = [s for s, poly in zones.seats.items() if _contains(poly, (x, y))]
            assert len(inside) <= 1 or _on_boundary(x, y, geo)


def _contains(poly: tuple[tuple[float, float], ...], p: tuple[float, float]) -> bool:
    contour = np.array(poly, dtype=np.float32)
    return bool(cv2.pointPolygonTest(contour, (float(p[0]), float(p[1])), False) > 0)


def _on_boundary(x: float, y: float, geo: TableGeometry) -> bool:
    d = sorted([y, geo.width_cm - x, geo.height_cm - y, x])
    return abs(d[0] - d[1]) < 1e-6


# ---------------------------------------------------------------- config


def test_config_round_trip(tmp_path: Path, cal: Calibration) -> None:
    cfg = with_calibration(default_config(), cal)
    save_config(cfg, tmp_path / "t.toml")
    assert load_config(tmp_path / "t.toml") == cfg
    assert load_config(REPO / "deploy" / "table.example.toml") == default_config()


def test_save_calibration_keeps_comments(tmp_path: Path, cal: Calibration) -> None:
    path = tmp_path / "t.toml"
    path.write_text((REPO / "deploy" / "table.example.toml").read_text(encoding="utf-8"))
    save_calibration(path, cal)
    save_calibration(path, cal)  # replaces, does not append a second one
    text = path.read_text(encoding="utf-8")
    assert "# Camera:" in text and text.count("\n[calibration]\n") == 1
    assert load_config(path).calibration == cal


@pytest.mark.parametrize(
    ("toml", "needle"),
    [
        ("[table]\nwidht_cm = 90\n", "table.widht_cm is not a known key"),
        ("[table]\nwidth_cm = -3\n", "table.width_cm must be a number > 0"),
        ('rules = "ZZ"\n', "rules 'ZZ' is not a profile"),
        ("[web]\nport = 99999\n", "web.port"),
        ("table_id = \n", "not valid TOML"),
        ("[calibration]\nmethod = 'aruco'\n", "calibration.homography is missing"),
    ],
)
def test_bad_config_is_one_line(tmp_path: Path, toml: str, needle: str) -> None:
    path = tmp_path / "t.toml"
    path.write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as e:
        load_config(path)
    assert needle in str(e.value) and "\n" not in str(e.value)


# ---------------------------------------------------------------- CLI


def _run(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    add_markers_parser(sub)
    add_calibrate_parser(sub)
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_cli_markers_and_calibrate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(["markers", "--out", str(tmp_path / "m.png"), "--dpi", "100"]) == 0
    assert (tmp_path / "m.png").is_file() and "100 dpi" in capsys.readouterr().out
    cfg_path = tmp_path / "table.toml"
    save_config(default_config(), cfg_path)
    shot = tmp_path / "frame.png"
    cv2.imwrite(str(shot), frame())
    argv = ["calibrate", "--config", str(cfg_path), "--image", str(shot)]
    assert _run([*argv, "--draw", str(tmp_path / "zones.png")]) == 0
    assert "residual 0." in capsys.readouterr().out
    assert load_config(cfg_path).calibration is not None
    drawn = cv2.imread(str(tmp_path / "zones.png"))
    assert drawn is not None and drawn.shape == (FRAME[1], FRAME[0], 3)
    pts = " ".join(f"{x:.1f},{y:.1f}" for x, y in CAMERA_CORNERS.tolist())
    assert _run([*argv, "--manual", pts]) == 0
    manual = load_config(cfg_path).calibration
    assert manual is not None and manual.method == "manual"
    with pytest.raises(CalibrationError, match="four points"):
        _run([*argv, "--manual", "1,2 3,4"])


def test_a_view_much_coarser_than_the_camera_averages_its_pixels_instead_of_skipping_them() -> None:
    """Warping 27 px a cm of sensor noise into a 10 px a cm view: the source is area-halved
    first, so the view's noise is that of a camera half as fine, and a dot lands where the
    homography puts it. A view under two source pixels a pixel is a plain bilinear warp."""
    rng = np.random.default_rng(4)
    noise = rng.normal(128, 10, (540, 540)).clip(0, 255).astype(np.uint8)
    to_view = np.array([[10 / 27, 0, 0], [0, 10 / 27, 0], [0, 0, 1.0]])
    plain = cv2.warpPerspective(noise, to_view, (200, 200), flags=cv2.INTER_LINEAR)
    averaged = warp_view(noise, to_view, (200, 200))
    assert averaged.std() < 0.75 * plain.std()

    dot = np.zeros((540, 540), np.uint8)
    cv2.circle(dot, (270, 135), 8, 255, -1)
    seen = warp_view(dot, to_view, (200, 200)).astype(float)
    ys, xs = np.mgrid[0:200, 0:200]
    centre = ((xs * seen).sum() / seen.sum(), (ys * seen).sum() / seen.sum())
    assert centre == pytest.approx((100, 50), abs=0.3)

    near = np.array([[0.6, 0, 0], [0, 0.6, 0], [0, 0, 1.0]])
    assert np.array_equal(
        warp_view(noise, near, (300, 300)),
        cv2.warpPerspective(noise, near, (300, 300), flags=cv2.INTER_LINEAR),
    )
