"""A real HTTP(S) server on 127.0.0.1, scripted per test: statuses, delays, hangs, bad bodies.

Each route answers with a :class:`Reply` (or a list: one per call, the last
repeating; or a function of the request). Every request is recorded, so a
test can prove what was (and was not) called and with which headers.
``tls=make_tls(dir)`` serves HTTPS with a certificate from a throw-away CA.

Usage::

    with ScriptedHTTPServer() as server:
        server.route("/health", Reply(200, {"status": "healthy"}))
        server.route("/flaky", [Reply(503), Reply(200, [])])
        server.route("/slow", Reply(200, {}, delay_s=5))
        server.route("/never", Reply(hang=True))
        server.route("/odd", Reply(raw=write_by_hand))  # (socket, stopping event)
        ... server.url ...
        assert server.paths() == [...]
"""

from __future__ import annotations

import datetime
import ipaddress
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID


@dataclass
class Reply:
    status: int = 200
    body: Any = b""
    """bytes or str are sent as they are; anything else as JSON."""
    content_type: str = "application/json"
    delay_s: float = 0.0
    hang: bool = False
    """Accept the request and never answer (until the server stops)."""
    drip_s: float | None = None
    """Send the body one byte every ``drip_s`` seconds."""
    headers: dict[str, str] = field(default_factory=dict)
    raw: Callable[[socket.socket, threading.Event], None] | None = None
    """Write the whole answer (status line, headers, body) on the socket yourself, for what
    http.server cannot send: trickled headers, interim 1xx answers, a reset. The event is
    set when the server stops; the connection is closed afterwards."""

    def payload(self) -> bytes:
        if isinstance(self.body, bytes):
            return self.body
        if isinstance(self.body, str):
            return self.body.encode()
        return json.dumps(self.body).encode()


@dataclass(frozen=True)
class RecordedRequest:
    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]
    received_at: float = field(default_factory=time.monotonic)
    """When the request arrived (monotonic): lets a test see how requests were spaced."""


Route = Reply | list[Reply] | Callable[[RecordedRequest], Reply]


@dataclass(frozen=True)
class TlsFiles:
    ca_cert: Path
    cert: Path
    key: Path


def make_tls(directory: Path, host: str = "127.0.0.1") -> TlsFiles:
    """A CA and a server certificate for ``host`` signed by it (PEM files in ``directory``)."""
    now = datetime.datetime.now(datetime.UTC)
    ca_key = ec.generate_private_key(ec.SECP256R1())
    ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "bundler test CA")])
    ca = (
        x509.CertificateBuilder()
        .subject_name(ca_name)
        .issuer_name(ca_name)
        .public_key(ca_key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .add_extension(
            x509.KeyUsage(False, False, False, False, False, True, True, False, False),
            critical=True,
        )
        .add_extension(x509.SubjectKeyIdentifier.from_public_key(ca_key.public_key()), False)
        .sign(ca_key, hashes.SHA256())
    )
    key = ec.generate_private_key(ec.SECP256R1())
    cert = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, host)]))
        .issuer_name(ca_name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5))
        .not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(
            x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address(host))]), False
        )
        .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
        .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), False)
        .add_extension(
            x509.AuthorityKeyIdentifier.from_issuer_public_key(ca_key.public_key()), False
        )
        .sign(ca_key, hashes.SHA256())
    )
    directory.mkdir(parents=True, exist_ok=True)
    files = TlsFiles(directory / "ca.pem", directory / "server.pem", directory / "server.key")
    files.ca_cert.write_bytes(ca.public_bytes(serialization.Encoding.PEM))
    files.cert.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    files.key.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    return files


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True

    def handle_error(self, request: Any, client_address: Any) -> None:
        """Clients hanging up mid-reply are part of the tests, not errors."""


class ScriptedHTTPServer:
    """A threaded http.server on an ephemeral port; stop() also releases hung handlers."""

    def __init__(self, tls: TlsFiles | None = None) -> None:
        self.routes: dict[str, Route] = {}
        self.requests: list[RecordedRequest] = []
        self.stopping = threading.Event()
        self._calls: dict[str, int] = {}
        self._lock = threading.Lock()
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        if tls is not None:
            context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
            context.load_cert_chain(tls.cert, tls.key)
            self._server.socket = context.wrap_socket(self._server.socket, server_side=True)
        self.port = int(self._server.server_address[1])
        self.url = f"{'https' if tls else 'http'}://127.0.0.1:{self.port}"
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )

    def route(self, path: str, reply: Route) -> None:
        self.routes[path] = reply

    def paths(self) -> list[str]:
        return [r.path for r in self.requests]

    def start(self) -> ScriptedHTTPServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self.stopping.set()
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> ScriptedHTTPServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def reply_for(self, request: RecordedRequest) -> Reply:
        with self._lock:
            self.requests.append(request)
            route = self.routes.get(request.path)
            count = self._calls.get(request.path, 0)
            self._calls[request.path] = count + 1
        if route is None:
            return Reply(404, {"detail": "Not Found"})
        if isinstance(route, list):
            return route[min(count, len(route) - 1)]
        if callable(route):
            return route(request)
        return route


def _handler_for(server: ScriptedHTTPServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: tests assert on recorded requests instead."""

        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            parts = urlsplit(self.path)
            request = RecordedRequest(
                self.command, parts.path, parse_qs(parts.query), dict(self.headers.items())
            )
            reply = server.reply_for(request)
            if reply.raw is not None:
                self.close_connection = True
                reply.raw(self.connection, server.stopping)
                return
            if reply.hang:
                server.stopping.wait()
                return
            if reply.delay_s and server.stopping.wait(reply.delay_s):
                return
            payload = reply.payload()
            self.send_response(reply.status)
            self.send_header("Content-Type", reply.content_type)
            self.send_header("Content-Length", str(len(payload)))
            for name, value in reply.headers.items():
                self.send_header(name, value)
            self.end_headers()
            if reply.drip_s is None:
                self.wfile.write(payload)
                return
            for index in range(len(payload)):
                if server.stopping.wait(reply.drip_s):
                    return
                self.wfile.write(payload[index : index + 1])
                self.wfile.flush()

    return Handler
