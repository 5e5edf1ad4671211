"""The simulator's HTTP server: a real socket, bearer-token checks, a log of every request.

Contract routes (``/api/...``) answer GETs only and need ``Authorization:
Bearer <token>``. Every other method gets 405 and is remembered, so a test
can prove bundler never wrote (``GET /_sim/requests``). Simulator-only routes
live under ``/_sim/`` and need no token.
"""

from __future__ import annotations

import hmac
import json
import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from .doctor import doctor_report
from .routes import respond
from .scenario import Scenario


@dataclass
class SimState:
    scenario: Scenario
    name: str
    token: str | None
    requests: list[dict[str, Any]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)
    started: datetime = field(default_factory=lambda: datetime.now(UTC))
    """When the simulator started: the worker logs' "now", on the hosts and in the API."""

    def record(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.requests.append(entry)


class Handler(BaseHTTPRequestHandler):
    server_version = "lyftdata-sim"
    sys_version = ""
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    """Headers and body go out in two writes; with Nagle on, keep-alive clients wait ~40 ms
    for a delayed ACK on every request."""

    @property
    def state(self) -> SimState:
        return self.server.sim_state  # type: ignore[attr-defined,no-any-return]

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the request log is served on /_sim/requests instead."""

    def _send(self, status: int, body: Any) -> None:
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        if status == 401:
            self.send_header("WWW-Authenticate", 'Bearer realm="lyftdata"')
        self.end_headers()
        self.wfile.write(data)

    def _authorized(self) -> bool:
        if self.state.scenario.server.reject_tokens:
            return False
        if self.state.token is None:
            return True
        header = self.headers.get("Authorization", "")
        scheme, _, presented = header.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(
            presented.strip().encode(), self.state.token.encode()
        )

    def do_GET(self) -> None:
        url = urlsplit(self.path)
        query = dict(parse_qsl(url.query))
        now = datetime.now(UTC)
        if url.path.startswith("/_sim/"):
            self._sim_route(url.path, now)
            return
        if not self._authorized():
            status, body = 401, {"error": "unauthorized", "message": "token rejected"}
        else:
            status, body = respond(
                self.state.scenario, now, url.path, query, started=self.state.started
            )
        self.state.record({"method": "GET", "path": url.path, "query": query, "status": status})
        self._send(status, body)

    def _sim_route(self, path: str, now: datetime) -> None:
        if path == "/_sim/requests":
            with self.state.lock:
                self._send(200, list(self.state.requests))
        elif path == "/_sim/doctor":
            self._send(200, doctor_report(self.state.scenario, now))
        elif path == "/_sim/scenario":
            self._send(200, {"name": self.state.name, **self.state.scenario.model_dump()})
        else:
            self._send(404, {"error": "not_found"})

    def _refuse_write(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(min(length, 1 << 20))
        path = urlsplit(self.path).path
        self.state.record({"method": self.command, "path": path, "query": {}, "status": 405})
        self._send(405, {"error": "method_not_allowed", "message": "the simulator is read-only"})

    do_POST = do_PUT = do_PATCH = do_DELETE = _refuse_write


class SimServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(
        self, address: tuple[str, int], state: SimState, *, reuse_address: bool = False
    ) -> None:
        # Off unless asked: a port still held by a previous simulator's closed
        # connections (TIME_WAIT) is refused; asked, a restarted "server" keeps its URL.
        self.allow_reuse_address = reuse_address
        super().__init__(address, Handler)
        self.sim_state = state
