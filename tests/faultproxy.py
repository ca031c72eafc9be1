"""A fault-injecting HTTP reverse proxy on 127.0.0.1, for tests that put it between
boto3 and moto's server.

    with FaultProxy(moto_url) as proxy:
        proxy.add("503", method="PUT", path=r"/objects/", times=2)
        ...  # point the store's endpoint_url at proxy.url

Every request is forwarded to the upstream unless a fault rule matches it first. Faults:

  500       HTTP 500 InternalError (S3 XML error body)
  503       HTTP 503 SlowDown (S3 XML error body)
  403       HTTP 403 AccessDenied: a permanent, non-retryable refusal
  reset     the request is read, then the TCP connection is reset (RST, no response)
  truncate  the request is forwarded; the response's headers announce the full body but
            only half of it is sent before the connection is closed
  delay     sleep `delay` seconds, then forward normally

A rule matches on method and a regex searched in "path?query"; `after` lets that many
matching requests through first; `times` caps how often it fires (None: always);
`sticky` binds the rule to the first path it fired on (so "the third object PUT fails,
and every retry of that same object fails too"). Rules are checked in the order added.

The proxy is bounded in time: it shuts itself down after `max_lifetime` seconds even if
a test forgets to stop it, and handler threads are daemons.
"""

from __future__ import annotations

import http.client
import re
import socket
import struct
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

FAULTS = ("500", "503", "403", "reset", "truncate", "delay")
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer",
               "upgrade", "expect", "content-length"}


@dataclass
class Rule:
    fault: str
    method: str | None = None
    path: str = ""
    times: int | None = 1
    after: int = 0
    delay: float = 0.0
    sticky: bool = False
    seen: int = 0
    fired: int = 0
    bound: str | None = None
    fired_on: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        if self.fault not in FAULTS:
            raise ValueError(f"unknown fault {self.fault!r}; one of {FAULTS}")
        self._rx = re.compile(self.path)

    def take(self, method: str, target: str) -> bool:
        """Called under the proxy lock: does this rule fire for this request?"""
        if self.method is not None and method != self.method:
            return False
        path = target.split("?", 1)[0]
        if self.bound is not None:
            if path != self.bound:
                return False
        elif not self._rx.search(target):
            return False
        self.seen += 1
        if self.seen <= self.after:
            return False
        if self.times is not None and self.fired >= self.times:
            return False
        self.fired += 1
        self.fired_on.append(f"{method} {target}")
        if self.sticky and self.bound is None:
            self.bound = path
        return True


@dataclass
class Seen:
    method: str
    target: str
    fault: str | None
    status: int | None  # None: no response (reset)
    at: float = 0.0  # time.monotonic() when the answer was sent


def _error_xml(code: str, message: str, resource: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<Error><Code>{code}</Code><Message>{message}</Message>"
        f"<Resource>{resource}</Resource><RequestId>faultproxy</RequestId></Error>"
    ).encode()


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    proxy: "FaultProxy"

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # resets and truncations break connections on purpose


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and Expect: 100-continue, like S3
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass

    def do_GET(self) -> None:  # noqa: N802
        self._proxy()

    do_PUT = do_POST = do_HEAD = do_DELETE = do_GET  # noqa: N815

    def _read_body(self) -> bytes:
        if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass  # trailers
                    return bytes(out)
                out += self.rfile.read(size)
                self.rfile.readline()
        n = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(n) if n else b""

    def _reset(self) -> None:
        self.close_connection = True
        try:
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.connection.close()
        except OSError:
            pass

    def _proxy(self) -> None:
        proxy = self.server.proxy
        body = self._read_body()
        proxy._arrive(self.command, self.path)
        rule = proxy._match(self.command, self.path)
        fault = rule.fault if rule else None
        if fault == "delay":
            time.sleep(rule.delay)  # type: ignore[union-attr]
        if fault in ("500", "503", "403"):
            code, status, msg = {
                "500": ("InternalError", 500, "We encountered an internal error. Please try again."),
                "503": ("SlowDown", 503, "Please reduce your request rate."),
                "403": ("AccessDenied", 403, "Access Denied"),
            }[fault]
            payload = b"" if self.command == "HEAD" else _error_xml(code, msg, self.path.split("?")[0])
            self.send_response(status)
            self.send_header("Content-Type", "application/xml")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            if payload:
                self.wfile.write(payload)
            proxy._record(self.command, self.path, fault, status)
            return
        if fault == "reset":
            proxy._record(self.command, self.path, fault, None)
            self._reset()
            return
        try:
            status, reason, headers, data = proxy._forward(self.command, self.path, self.headers, body)
        except OSError:
            proxy._record(self.command, self.path, "upstream-error", None)
            self._reset()
            return
        self.send_response(status, reason)
        for k, v in headers:
            if k.lower() not in _HOP_BY_HOP:
                self.send_header(k, v)
        if self.command == "HEAD":
            # HEAD answers carry the object's length but no body
            length = dict((k.lower(), v) for k, v in headers).get("content-length", "0")
            self.send_header("Content-Length", length)
            self.end_headers()
            proxy._record(self.command, self.path, fault, status)
            return
        self.send_header("Content-Length", str(len(data) if data else (1 if fault == "truncate" else 0)))
        if fault == "truncate":
            self.send_header("Connection", "close")
        self.end_headers()
        if fault == "truncate":
            self.wfile.write(data[: len(data) // 2])
            self.wfile.flush()
            proxy._record(self.command, self.path, fault, status)
            self.close_connection = True
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            return
        self.wfile.write(data)
        proxy._record(self.command, self.path, fault, status)


class FaultProxy:
    """Reverse proxy to `upstream` (http://host:port) with scripted faults."""

    def __init__(self, upstream: str, *, max_lifetime: float = 120.0, upstream_timeout: float = 30.0) -> None:
        parts = urlsplit(upstream)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"upstream must be http://host:port, got {upstream!r}")
        self.upstream_host = parts.hostname
        self.upstream_port = parts.port or 80
        self.max_lifetime = max_lifetime
        self.upstream_timeout = upstream_timeout
        self.rules: list[Rule] = []
        self.requests: list[Seen] = []
        self.arrived: list[tuple[str, str]] = []  # (method, path?query) as requests come in
        self._lock = threading.Lock()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None
        self._timer: threading.Timer | None = None
        self.url = ""

    # ---- scripting ----
    def add(self, fault: str, *, method: str | None = None, path: str = "", times: int | None = 1,
            after: int = 0, delay: float = 0.0, sticky: bool = False) -> Rule:
        rule = Rule(fault, method=method, path=path, times=times, after=after, delay=delay, sticky=sticky)
        with self._lock:
            self.rules.append(rule)
        return rule

    def clear(self) -> None:
        with self._lock:
            self.rules.clear()

    def faults(self, fault: str | None = None) -> list[Seen]:
        with self._lock:
            return [r for r in self.requests if r.fault is not None and (fault is None or r.fault == fault)]

    def _match(self, method: str, target: str) -> Rule | None:
        with self._lock:
            for rule in self.rules:
                if rule.take(method, target):
                    return rule
        return None

    def _record(self, method: str, target: str, fault: str | None, status: int | None) -> None:
        with self._lock:
            self.requests.append(Seen(method, target, fault, status, time.monotonic()))

    def _arrive(self, method: str, target: str) -> None:
        with self._lock:
            self.arrived.append((method, target))

    def seen(self, method: str | None = None, path: str = "") -> list[Seen]:
        """Answered requests, optionally filtered by method and a regex on path?query."""
        rx = re.compile(path)
        with self._lock:
            return [r for r in self.requests if (method is None or r.method == method) and rx.search(r.target)]

    def _forward(self, method: str, target: str, headers: Any, body: bytes) -> tuple[int, str, list[tuple[str, str]], bytes]:
        conn = http.client.HTTPConnection(self.upstream_host, self.upstream_port, timeout=self.upstream_timeout)
        try:
            out = {k: v for k, v in headers.items() if k.lower() not in _HOP_BY_HOP}
            if method not in ("GET", "HEAD", "DELETE") or body:
                out["Content-Length"] = str(len(body))
            conn.request(method, target, body=body if body else None, headers=out)
            resp = conn.getresponse()
            data = resp.read()
            return resp.status, resp.reason, resp.getheaders(), data
        finally:
            conn.close()

    # ---- life cycle ----
    def start(self) -> "FaultProxy":
        server = _Server(("127.0.0.1", 0), _Handler)
        server.proxy = self
        self._server = server
        self.url = f"http://127.0.0.1:{server.server_address[1]}"
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="faultproxy", daemon=True)
        self._thread.start()
        self._timer = threading.Timer(self.max_lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        return self

    def stop(self) -> None:
        server, self._server = self._server, None
        if self._timer is not None and self._timer is not threading.current_thread():
            self._timer.cancel()
        if server is not None:
            server.shutdown()
            server.server_close()

    def __enter__(self) -> "FaultProxy":
        return self.start()

    def __exit__(self, *_: object) -> None:
        self.stop()
