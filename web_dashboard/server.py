"""Serving the dashboard: one asyncio server in front, the Flask app behind it in thread pools,
the live streams answered natively without a thread each.

This module owns :class:`WebServer` — what ``chaodipi run``, ``chaodipi demo`` and
``chaodipi hub`` serve with (``web_dashboard/README.md`` explains the design):

* **uvicorn** (asyncio, HTTP/1.1 through h11) accepts every connection and reads every request.
  :class:`HeaderTimeoutProtocol` closes a connection whose request headers are not all there
  :data:`HEADER_TIMEOUT_S` after it opened or after its last response; uvicorn closes a
  connection idle :data:`KEEP_ALIVE_S` between requests. Proxy headers (``X-Forwarded-Proto``,
  ``X-Forwarded-For``) count only from ``trusted_proxies``.
* **Live streams** (the paths given as ``streams``, e.g. ``/api/stream``): one
  :class:`StateFeed` per table — one thread waits on the table's log, builds the state message
  once per change (per transaction) and hands it to the event loop, which wakes the streams
  :data:`WAKE_BATCH` at a time so that pages are answered in between — and one small coroutine
  per open stream that writes every message it has not sent yet, in order, from the feed's
  last :data:`HISTORY` messages (a stream that fell further behind skips to those; nothing else
  is queued per stream). A stream that has not taken a message for :data:`SEND_TIMEOUT_S` is
  cut. At most ``max_streams`` streams are open at once (also kept under the process's file
  limit); one more gets 503.
* **Everything else** goes to the Flask app through a2wsgi's WSGI adapter, in a thread pool of
  ``threads`` threads that streams never occupy; the referee's (or organisers') paths have a pool
  of their own (:data:`RESERVED_THREADS`), so a crowd of spectators cannot keep the console
  waiting. A request body is read whole in the event loop first (at most :data:`MAX_BODY`
  bytes within :data:`BODY_TIMEOUT_S`), so a slow sender never holds a thread either.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import resource
import socket
import sqlite3
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

import uvicorn
from a2wsgi import WSGIMiddleware
from uvicorn.protocols.http.h11_impl import H11Protocol

from chaodipi.table.live import LiveTable
from chaodipi.table.store import StoredEvent, StoreError
from chaodipi.table.table_state import TableState
from web_dashboard.api import SSE_HEADERS, SSE_HEARTBEAT, sse_state

Scope = dict[str, Any]
Message = dict[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]

HEADER_TIMEOUT_S = 10.0
KEEP_ALIVE_S = 5
BODY_TIMEOUT_S = 10.0
SEND_TIMEOUT_S = 30.0
MAX_BODY = 1 << 20
DEFAULT_MAX_STREAMS = 5000
HISTORY = 32  # state messages a feed keeps for streams that fell behind
WAKE_BATCH = 50
RESERVED_THREADS = 4
FILES_KEPT_FOR_PAGES = 256  # file descriptors left for pages, the log and the camera
START_TIMEOUT_S = 30.0
TRUSTED_PROXIES: tuple[str, ...] = ("127.0.0.1", "::1")
STREAM_HEADERS = [
    (b"content-type", b"text/event-stream; charset=utf-8"),
    *((k.lower().encode(), v.encode()) for k, v in SSE_HEADERS.items()),
    (b"x-content-type-options", b"nosniff"),
    (b"content-security-policy", b"default-src 'none'; frame-ancestors 'none'"),
]
CUT_MESSAGE = "ASGI callable returned without completing response."


def raise_open_file_limit() -> int:
    """Raise this process's soft limit of open files to its hard limit; returns the soft limit
    now in force (every open stream is a socket)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 16)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening TCP socket on ``host:port`` (0: any free port); ``OSError`` when the port is
    taken or the address is not this machine's."""
    family, kind, proto, _, address = socket.getaddrinfo(
        host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE
    )[0]
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError:
        sock.close()
        raise
    sock.set_inheritable(True)
    return sock


class HeaderTimeoutProtocol(H11Protocol):
    """uvicorn's HTTP/1.1 protocol that also closes a connection whose next request's headers
    have not all arrived :data:`HEADER_TIMEOUT_S` after the connection opened or its last
    response ended (uvicorn's own keep-alive timer stops at the first byte of a request)."""

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm_header_timer(None)

    def on_response_complete(self) -> None:
        finished = self.cycle
        super().on_response_complete()
        self._arm_header_timer(finished)

    def _arm_header_timer(self, finished: object) -> None:
        self.loop.call_later(HEADER_TIMEOUT_S, self._headers_late, finished)

    def _headers_late(self, finished: object) -> None:
        if self.cycle is finished and not self.transport.is_closing():
            self.transport.close()


class _QuietCut(logging.Filter):
    """uvicorn names a stream cut for not reading as an error; it is the design."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.getMessage() != CUT_MESSAGE


class StateFeed:
    """The newest state message of one table, shared by every open stream of it.

    A thread waits on the table's log (:meth:`chaodipi.table.store.EventStore.wait`) and, on
    each change, builds the message once and posts it to the event loop, which keeps the last
    :data:`HISTORY` messages and wakes the streams. ``seq`` is -1 until the first message;
    ``closed`` once the log closed.
    """

    def __init__(self, live: LiveTable) -> None:
        self.live = live
        self.seq = -1
        self.history: deque[tuple[int, bytes]] = deque(maxlen=HISTORY)
        self.closed = False
        self.listeners: set[asyncio.Event] = set()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self, loop: asyncio.AbstractEventLoop) -> None:
        self._loop = loop
        self._thread = threading.Thread(target=self._watch, daemon=True, name="state-feed")
        self._thread.start()

    def _watch(self) -> None:
        """Fold the log on this feed's own copy of the state, one message per transaction (the
        events of one append share its time), so that no change is merged into the next however
        late this thread runs."""
        store = self.live.store
        try:
            with self.live.locked() as shown:
                state = TableState(shown.table, shown.rules)
            first = True
            while not self._stop.is_set() and not store.closed:
                events = store.events(since=state.seq)
                if first or events:
                    for group in self._transactions(events, whole=first):
                        for event in group:
                            state.apply(event)
                        text = json.dumps(state.to_public_json(time.time()), ensure_ascii=False)
                        self._post(self._publish, state.seq, sse_state(state.seq, text).encode())
                    first = False
                    continue
                store.wait(state.seq, 1.0)
        except (StoreError, sqlite3.Error):
            pass  # the log closed while the state was being read: the service is stopping
        finally:
            self._post(self.close)

    @staticmethod
    def _transactions(events: list[StoredEvent], whole: bool) -> list[list[StoredEvent]]:
        """``events`` split where the append time changes (all of them at once when
        ``whole``: a new feed shows the state as it is now)."""
        if whole:
            return [events]
        groups: list[list[StoredEvent]] = []
        for event in events:
            if groups and groups[-1][-1].t == event.t:
                groups[-1].append(event)
            else:
                groups.append([event])
        return groups

    def _post(self, callback: Callable[..., None], *args: Any) -> None:
        assert self._loop is not None
        with contextlib.suppress(RuntimeError):  # the loop has already stopped
            self._loop.call_soon_threadsafe(callback, *args)

    def _publish(self, seq: int, message: bytes) -> None:
        self.seq = seq
        self.history.append((seq, message))
        self._wake(list(self.listeners), 0)

    def _wake(self, wakes: list[asyncio.Event], start: int) -> None:
        """Wake the streams :data:`WAKE_BATCH` at a time, each batch queued behind whatever
        the loop already has to do, so that pages answer between batches."""
        for wake in wakes[start : start + WAKE_BATCH]:
            wake.set()
        if start + WAKE_BATCH < len(wakes) and self._loop is not None:
            self._loop.call_soon(self._wake, wakes, start + WAKE_BATCH)

    def since(self, sent: int) -> bytes:
        """The messages after ``sent``, in order (only the newest for a new stream)."""
        if sent < 0:
            return self.history[-1][1] if self.history else b""
        return b"".join(message for seq, message in self.history if seq > sent)

    def close(self) -> None:
        """End every stream of this table (call in the event loop)."""
        self._stop.set()
        self.closed = True
        for wake in self.listeners:
            wake.set()


def _error(status: int, message: str, extra: Iterable[tuple[bytes, bytes]] = ()) -> list[Message]:
    body = json.dumps({"ok": False, "error": message}, ensure_ascii=False).encode()
    headers = [
        (b"content-type", b"application/json"),
        (b"content-length", str(len(body)).encode()),
        (b"x-content-type-options", b"nosniff"),
        (b"connection", b"close"),
        *extra,
    ]
    return [
        {"type": "http.response.start", "status": status, "headers": headers},
        {"type": "http.response.body", "body": body},
    ]


class Front:
    """The ASGI app uvicorn runs: live streams here, every other request to Flask (see the
    module docstring)."""

    def __init__(
        self,
        wsgi_app: Any,
        streams: Mapping[str, LiveTable],
        *,
        threads: int,
        reserved_prefixes: tuple[str, ...],
        heartbeat_s: float,
        max_streams: int,
    ) -> None:
        self.feeds = {path: StateFeed(live) for path, live in streams.items()}
        self.pages = WSGIMiddleware(wsgi_app, workers=threads)
        self.reserved = WSGIMiddleware(wsgi_app, workers=RESERVED_THREADS)
        self.reserved_prefixes = reserved_prefixes
        self.heartbeat_s = heartbeat_s
        self.max_streams = max_streams
        self.open_streams = 0
        self.loop: asyncio.AbstractEventLoop | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
            return
        if scope["type"] != "http":
            return
        feed = self.feeds.get(scope["path"])
        if feed is not None and scope["method"] in ("GET", "HEAD"):
            await self._stream(feed, scope, receive, send)
            return
        replay = await self._read_body(scope, receive, send)
        if replay is None:
            return
        pool = self.reserved if scope["path"].startswith(self.reserved_prefixes) else self.pages
        await pool(scope, replay, send)  # type: ignore[arg-type]

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.loop = asyncio.get_running_loop()
                for feed in self.feeds.values():
                    feed.start(self.loop)
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                self.close()
                await send({"type": "lifespan.shutdown.complete"})
                return

    def close(self) -> None:
        """End every open stream (call in the event loop)."""
        for feed in self.feeds.values():
            feed.close()

    def shutdown_pools(self) -> None:
        self.pages.executor.shutdown(wait=False, cancel_futures=True)
        self.reserved.executor.shutdown(wait=False, cancel_futures=True)

    async def _read_body(self, scope: Scope, receive: Receive, send: Send) -> Receive | None:
        """The request body read whole here, replayed to the WSGI adapter; None when the
        request was answered instead (too large, too slow, or gone)."""
        length = dict(scope["headers"]).get(b"content-length", b"0")
        if not length.isdigit() or int(length) > MAX_BODY:
            for message in _error(413, f"请求体过大 / the body is over {MAX_BODY} bytes"):
                await send(message)
            return None
        chunks: list[bytes] = []
        size = 0
        try:
            async with asyncio.timeout(BODY_TIMEOUT_S):
                while True:
                    message = await receive()
                    if message["type"] == "http.disconnect":
                        return None
                    chunks.append(message.get("body", b""))
                    size += len(chunks[-1])
                    if size > MAX_BODY:
                        for reply in _error(413, f"请求体过大 / the body is over {MAX_BODY} bytes"):
                            await send(reply)
                        return None
                    if not message.get("more_body", False):
                        break
        except TimeoutError:
            for reply in _error(408, "请求体超时 / the body did not arrive in time: send it again"):
                await send(reply)
            return None
        first: Message | None = {"type": "http.request", "body": b"".join(chunks)}

        async def replay() -> Message:
            nonlocal first
            if first is not None:
                message, first = first, None
                return message
            return await receive()

        return replay

    async def _stream(self, feed: StateFeed, scope: Scope, receive: Receive, send: Send) -> None:
        if feed.closed or self.open_streams >= self.max_streams:
            why = "直播连接已满，请稍后再试 / too many live streams: try again shortly"
            for message in _error(503, why, [(b"retry-after", b"30")]):
                await send(message)
            return
        self.open_streams += 1
        wake = asyncio.Event()
        feed.listeners.add(wake)
        gone = False

        async def watch_disconnect() -> None:
            nonlocal gone
            while (await receive())["type"] != "http.disconnect":
                pass
            gone = True
            wake.set()

        watcher = asyncio.get_running_loop().create_task(watch_disconnect())
        try:
            await send({"type": "http.response.start", "status": 200, "headers": STREAM_HEADERS})
            if scope["method"] == "HEAD":
                await send({"type": "http.response.body", "body": b""})
                return
            if not await self._pump(feed, wake, lambda: gone, send):
                return  # cut: uvicorn closes the connection
            if not gone:
                await send({"type": "http.response.body", "body": b""})
        finally:
            self.open_streams -= 1
            feed.listeners.discard(wake)
            watcher.cancel()

    async def _pump(
        self, feed: StateFeed, wake: asyncio.Event, gone: Callable[[], bool], send: Send
    ) -> bool:
        """Write the newest state on every change and a heartbeat after each quiet
        ``heartbeat_s``, until the feed closes or the client leaves; False when the client
        stopped reading."""
        loop = asyncio.get_running_loop()
        sent = -1
        last_write = loop.time()
        while not gone() and not feed.closed:
            body = b""
            if feed.seq >= 0 and feed.seq != sent:
                sent, body = feed.seq, feed.since(sent)
            elif loop.time() - last_write >= self.heartbeat_s:
                body = SSE_HEARTBEAT.encode()
            if body:
                try:
                    async with asyncio.timeout(SEND_TIMEOUT_S):
                        await send({"type": "http.response.body", "body": body, "more_body": True})
                except TimeoutError:
                    return False
                last_write = loop.time()
                continue
            wake.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(self.heartbeat_s - (loop.time() - last_write)):
                    await wake.wait()
        return True


class WebServer:
    """A WSGI app and its live streams served on one port (see the module docstring)."""

    def __init__(
        self,
        app: Any,
        streams: Mapping[str, LiveTable],
        *,
        threads: int,
        reserved_prefixes: tuple[str, ...] = ("/referee", "/api/referee"),
        heartbeat_s: float = 15.0,
        max_streams: int = DEFAULT_MAX_STREAMS,
        trusted_proxies: tuple[str, ...] = TRUSTED_PROXIES,
    ) -> None:
        files = raise_open_file_limit()
        self.max_streams = max(1, min(max_streams, files - FILES_KEPT_FOR_PAGES))
        self.front = Front(
            app,
            streams,
            threads=threads,
            reserved_prefixes=reserved_prefixes,
            heartbeat_s=heartbeat_s,
            max_streams=self.max_streams,
        )
        self.trusted_proxies = trusted_proxies
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    def start(self, host: str, port: int) -> tuple[str, int]:
        """Bind ``host:port`` (``OSError`` when taken) and serve in a thread; returns the
        address served (the port chosen when ``port`` is 0)."""
        sock = bind_socket(host, port)
        config = uvicorn.Config(
            self.front,
            http=HeaderTimeoutProtocol,
            ws="none",
            loop="asyncio",
            interface="asgi3",
            lifespan="on",
            log_config=None,
            log_level="warning",
            access_log=False,
            proxy_headers=True,
            forwarded_allow_ips=list(self.trusted_proxies),
            server_header=False,
            timeout_keep_alive=KEEP_ALIVE_S,
            timeout_graceful_shutdown=3,
        )
        logging.getLogger("uvicorn.error").addFilter(_QuietCut())
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [sock]}, daemon=True, name="web"
        )
        self._thread.start()
        deadline = time.monotonic() + START_TIMEOUT_S
        while not self._server.started and self._thread.is_alive():
            if time.monotonic() > deadline:
                break
            time.sleep(0.01)
        if not self._server.started:
            sock.close()
            raise OSError(f"the web server did not start on {host}:{port}")
        bound = sock.getsockname()
        return str(bound[0]), int(bound[1])

    @property
    def open_streams(self) -> int:
        return self.front.open_streams

    def stop(self) -> None:
        """End the streams, finish the requests in progress (3 s at most) and close."""
        server, thread = self._server, self._thread
        if server is None or thread is None:
            return
        loop = self.front.loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self.front.close)
        server.should_exit = True
        thread.join(timeout=10)
        self.front.shutdown_pools()
        self._server = self._thread = None
