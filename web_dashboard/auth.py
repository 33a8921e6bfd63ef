"""Referee sign-in and the browser's protections: the session key and cookie, the PIN check
with its rate limit, CSRF tokens and the security headers of every response.

This module owns who may change a table. The session cookie is Flask's signed cookie (HttpOnly,
SameSite=Strict, ``Secure`` when the request came over TLS) under a secret key generated once
per data dir (``<data_dir>/secret_key``, mode 0600; never in code or config); it carries only
the token of a server-side session (:mod:`web_dashboard.sessions`), which holds the referee's
name and a CSRF token. Every referee POST must send that token in ``X-CSRF-Token`` (the console
page carries it in ``<meta name="csrf-token">``). Without a session a request gets 401, with a
bad token 403. Five wrong PINs within a minute from one address lock that address out (429)
until the oldest failure is a minute old. The cookie's name comes from the table id through
:func:`cookie_name` (any Unicode id gives a valid, distinct name).

Every response carries a Content-Security-Policy (scripts, styles, pictures and connections from
this server only; no plugins, no ``<base>``), ``X-Content-Type-Options: nosniff`` and a
``Referrer-Policy``; only the stream overlay (endpoint ``overlay``) may be framed by another
site (``frame-ancestors *``: broadcast tools embed it; it shows only public data and has no
controls), every other page refuses framing (``frame-ancestors 'none'``, ``X-Frame-Options``).
"""

from __future__ import annotations

import hmac
import os
import secrets
import threading
import time
from collections import deque
from collections.abc import Callable
from functools import wraps
from pathlib import Path
from typing import Any, TypeVar

from flask import Flask, Response, jsonify, render_template, request
from flask.sessions import SecureCookieSessionInterface

from chaodipi.mqtt_link import topic_slug
from chaodipi.table.evidence import write_atomic
from web_dashboard.sessions import gate

F = TypeVar("F", bound=Callable[..., Any])
MAX_FAILURES = 5
WINDOW_S = 60.0
CSP = (
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; "
    "form-action 'self'; frame-ancestors {frame}"
)
FRAMABLE_ENDPOINTS = frozenset({"overlay"})


def cookie_name(prefix: str, table_id: str) -> str:
    """The session cookie's name for a table id of any characters: ``prefix_`` and the id's
    ASCII slug (:func:`chaodipi.mqtt_link.topic_slug`: the id itself for ``T01``,
    ``Table-7--<hash>`` for "Table 7", ``t--<hash>`` for "七号桌"), a valid cookie name that
    differs from table to table."""
    return f"{prefix}_{topic_slug(table_id)}"


class TlsAwareSessionInterface(SecureCookieSessionInterface):
    """Flask's signed cookie, marked ``Secure`` whenever the request came over TLS (directly,
    or through a trusted proxy that said so in ``X-Forwarded-Proto``)."""

    def get_cookie_secure(self, app: Flask) -> bool:
        return request.is_secure or bool(app.config["SESSION_COOKIE_SECURE"])


def security_headers(response: Response) -> Response:
    """Add the CSP and its companions to a response (a Flask ``after_request`` hook)."""
    framable = request.endpoint in FRAMABLE_ENDPOINTS
    headers = response.headers
    headers.setdefault("Content-Security-Policy", CSP.format(frame="*" if framable else "'none'"))
    headers.setdefault("X-Content-Type-Options", "nosniff")
    headers.setdefault("Referrer-Policy", "same-origin")
    if not framable:
        headers.setdefault("X-Frame-Options", "DENY")
    return response


def protect(app: Flask) -> None:
    """The session cookie's flags and the security headers, for any app of this package."""
    app.config.update(SESSION_COOKIE_HTTPONLY=True, SESSION_COOKIE_SAMESITE="Strict")
    app.session_interface = TlsAwareSessionInterface()
    app.after_request(security_headers)


def secret_key(data_dir: Path) -> bytes:
    """The session key of this data dir, created on first use (mode 0600)."""
    path = data_dir / "secret_key"
    if not path.exists():
        write_atomic(path, secrets.token_bytes(32), mode=0o600)
    key = path.read_bytes()
    if len(key) < 16:
        raise ValueError(f"{path} is too short to be a session key: delete it to make a new one")
    os.chmod(path, 0o600)
    return key


class LoginLimiter:
    """Failed PIN attempts per address over the last minute."""

    def __init__(self, limit: int = MAX_FAILURES, window_s: float = WINDOW_S) -> None:
        self.limit = limit
        self.window_s = window_s
        self._fails: dict[str, deque[float]] = {}
        self._lock = threading.Lock()

    def _recent(self, addr: str, now: float) -> deque[float]:
        q = self._fails.setdefault(addr, deque())
        while q and now - q[0] >= self.window_s:
            q.popleft()
        return q

    def blocked(self, addr: str) -> bool:
        with self._lock:
            return len(self._recent(addr, time.monotonic())) >= self.limit

    def failed(self, addr: str) -> None:
        with self._lock:
            now = time.monotonic()
            self._recent(addr, now).append(now)

    def retry_after(self, addr: str) -> int:
        with self._lock:
            q = self._recent(addr, time.monotonic())
            return max(1, int(self.window_s - (time.monotonic() - q[0])) + 1) if q else 1


def pin_ok(given: str, expected: str) -> bool:
    return bool(expected) and hmac.compare_digest(given.encode(), expected.encode())


def refuse_pin(
    limiter: LoginLimiter, template: str, table: str, expected: str, no_pin_message: str
) -> Any:
    """The sign-in page refusing this request's ``pin`` form field — 429 after too many wrong
    PINs from the address, 403 when no PIN is configured, 401 for a wrong one — or ``None``
    when the PIN is right."""
    addr = request.remote_addr or "?"
    if limiter.blocked(addr):
        wait = limiter.retry_after(addr)
        message = f"错误次数过多，请 {wait} 秒后再试 / too many wrong PINs: wait {wait} s"
        page = render_template(template, table=table, error=message)
        return page, 429, {"Retry-After": str(wait)}
    if not expected:
        return render_template(template, table=table, error=no_pin_message), 403
    if not pin_ok(request.form.get("pin", "").strip(), expected):
        limiter.failed(addr)
        message = "PIN 不正确 / wrong PIN"
        return render_template(template, table=table, error=message), 401
    return None


def sign_in(name: str) -> None:
    gate().sign_in(name)


def sign_out() -> None:
    gate().sign_out()


def referee_name() -> str | None:
    signed = gate().current()
    return signed.name if signed else None


def csrf_token() -> str:
    signed = gate().current()
    return signed.csrf if signed else ""


def error(message: str, status: int) -> Any:
    return jsonify({"ok": False, "error": message}), status


def csrf_ok() -> bool:
    sent = request.headers.get("X-CSRF-Token") or request.form.get("csrf_token") or ""
    token = csrf_token()
    return bool(token) and hmac.compare_digest(sent.encode(), token.encode())


def referee_only(post: bool) -> Callable[[F], F]:
    """401 without a session; for POSTs also 403 without the session's CSRF token."""

    def wrap(view: F) -> F:
        @wraps(view)
        def inner(*args: Any, **kwargs: Any) -> Any:
            if referee_name() is None:
                return error("请先登录裁判台 / sign in to the referee console first", 401)
            if post and not csrf_ok():
                return error("CSRF 令牌无效，请刷新页面 / bad CSRF token: reload the page", 403)
            return view(*args, **kwargs)

        return inner  # type: ignore[return-value]

    return wrap
