"""How the table's web server holds up (web_dashboard.server, what ``chaodipi run`` serves
with): more live streams than it has threads do not keep pages, the API or the referee console
waiting; closed streams free everything; unfinished request heads hang nothing and are cut; the
stream count is capped; a port in use is one line and exit status 2 for ``chaodipi run`` and
``chaodipi hub``.
Correctness with deadlines only: the speed figures come from bench/spectator_bench.py."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from chaodipi.config import TableConfig, WebConfig
from chaodipi.table.live import LiveTable
from tests.table_helpers import hand, table
from tests.waiting import DEADLINE_S, wait_until
from web_dashboard import server as server_module
from web_dashboard.app import STREAM_PATH, create_app
from web_dashboard.server import WebServer

ROOT = Path(__file__).resolve().parents[2]
CONFIG = TableConfig(table_id="T1", web=WebConfig(referee_pin="902741"))
THREADS = 4
MANY_STREAMS = 300  # far more than the server's threads


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveTable]:
    t = table(tmp_path, hand())
    yield t
    t.store.close()


@contextmanager
def serving(live: LiveTable, **options: int) -> Iterator[tuple[int, WebServer]]:
    server = WebServer(
        create_app(live.store, CONFIG, live=live), {STREAM_PATH: live}, threads=THREADS, **options
    )
    _, port = server.start("127.0.0.1", 0)
    try:
        yield port, server
    finally:
        server.stop()


def open_stream(port: int) -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
    sock.sendall(b"GET /api/stream HTTP/1.1\r\nHost: t\r\n\r\n")
    return sock


def read_until(sock: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = sock.recv(65536)
        if not chunk:
            break
        data += chunk
    return data


def get(port: int, path: str) -> int:
    url = f"http://127.0.0.1:{port}{path}"
    with urllib.request.urlopen(url, timeout=DEADLINE_S) as res:
        res.read()
        return int(res.status)


def test_more_open_streams_than_threads_leave_pages_and_the_api_answered(
    live: LiveTable,
) -> None:
    with serving(live) as (port, server):
        streams = [open_stream(port) for _ in range(MANY_STREAMS)]
        try:
            for sock in streams:
                assert b"event: state\nid: " in read_until(sock, b"\n\n")
            assert server.open_streams == MANY_STREAMS
            for path in ("/", "/api/state", "/referee", "/overlay"):
                assert get(port, path) == 200
            seq = live.store.append(
                "camera_health", {"fps": 9.0, "last_frame_age_s": 0.1}, "camera"
            )
            for sock in streams:  # every spectator gets the new state
                assert f"id: {seq}\n".encode() in read_until(sock, f"id: {seq}\n".encode())
        finally:
            for sock in streams:
                sock.close()
        assert wait_until(lambda: server.open_streams == 0), "closed streams are let go"
        assert get(port, "/") == 200


def test_many_unfinished_request_heads_do_not_hang_the_server(live: LiveTable) -> None:
    with serving(live) as (port, _):
        slow = []
        for _ in range(MANY_STREAMS):
            sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
            sock.sendall(b"GET / HTTP/1.1\r\nHost: t\r\nX-Slow: ")  # the head never ends
            slow.append(sock)
        try:
            for path in ("/", "/api/state", "/referee"):
                assert get(port, path) == 200
        finally:
            for sock in slow:
                sock.close()


def test_a_connection_that_never_finishes_its_headers_is_closed(
    live: LiveTable, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(server_module, "HEADER_TIMEOUT_S", 0.5)
    with serving(live) as (port, _):
        slow = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
        silent = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
        slow.sendall(b"GET / HTTP/1.1\r\nHost: t\r\n")  # and never the blank line
        assert slow.recv(100) == b"" and silent.recv(100) == b""  # closed by the server
        slow.close()
        silent.close()
        assert get(port, "/") == 200


def test_streams_beyond_the_cap_get_503_and_pages_still_answer(live: LiveTable) -> None:
    with serving(live, max_streams=2) as (port, _):
        first, second = open_stream(port), open_stream(port)
        assert b"200 OK" in read_until(first, b"\n\n") + read_until(second, b"\n\n")
        third = open_stream(port)
        reply = read_until(third, b"}")
        assert b" 503 " in reply.split(b"\r\n")[0] and b"retry-after: 30" in reply.lower()
        assert get(port, "/api/state") == 200
        for sock in (first, second, third):
            sock.close()


def test_an_oversized_body_is_refused_before_it_reaches_a_thread(live: LiveTable) -> None:
    with serving(live) as (port, _):
        sock = socket.create_connection(("127.0.0.1", port), timeout=DEADLINE_S)
        sock.sendall(b"POST /referee/login HTTP/1.1\r\nHost: t\r\nContent-Length: 99999999\r\n\r\n")
        reply = read_until(sock, b"}")
        assert b" 413 " in reply.split(b"\r\n")[0]
        sock.close()


def test_a_tls_proxy_on_this_machine_gets_secure_cookies(live: LiveTable) -> None:
    with serving(live) as (port, _):

        def login_cookie(headers: dict[str, str]) -> str:
            request = urllib.request.Request(
                f"http://127.0.0.1:{port}/referee/login",
                data=b"pin=902741",
                headers={"Content-Type": "application/x-www-form-urlencoded", **headers},
            )
            opener = urllib.request.build_opener(NoRedirect)
            with pytest.raises(urllib.error.HTTPError) as answer:
                opener.open(request, timeout=DEADLINE_S)
            assert answer.value.code == 303
            return str(answer.value.headers["Set-Cookie"])

        assert "Secure" in login_cookie({"X-Forwarded-Proto": "https"})
        assert "Secure" not in login_cookie({})


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


@pytest.fixture
def taken() -> Iterator[int]:
    """A port something else listens on."""
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    yield busy.getsockname()[1]
    busy.close()


def test_run_on_a_port_in_use_says_so_in_one_line(tmp_path: Path, taken: int) -> None:
    record = tmp_path / "hand.json"
    record.write_text(json.dumps(hand()), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "run", "--feed", str(record),
         "--data-dir", str(tmp_path / "data"), "--port", str(taken)],
        cwd=ROOT, capture_output=True, text=True, timeout=2 * DEADLINE_S,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert f"port {taken}" in done.stderr and "already in use" in done.stderr
    assert "--port" in done.stderr


def test_hub_on_a_port_in_use_says_so_in_one_line(tmp_path: Path, taken: int) -> None:
    config = tmp_path / "hub.toml"
    config.write_text(
        f'tables = ["T1"]\ndata_dir = "{tmp_path / "hub"}"\n'
        '[mqtt]\nhost = "127.0.0.1"\nport = 1\ntournament = "cup"\n'
        f'[web]\nbind = "127.0.0.1"\nport = {taken}\n',
        encoding="utf-8",
    )
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "hub", "--config", str(config)],
        cwd=ROOT, capture_output=True, text=True, timeout=2 * DEADLINE_S,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().count("\n") == 0 and "Traceback" not in done.stderr
    assert f"port {taken}" in done.stderr and "already in use" in done.stderr
