"""The replay over HTTP: a stdlib threading server, loopback by default, one log line per request.

``http.server`` is enough here: the replay answers from memory, serves one
engineer's client at a time, and must add no dependency to a read-only tool.
The request log (stderr) says for every request what was served and from
which member, or that it was missing, so an engineer sees at once which
commands the bundle cannot answer.
"""

from __future__ import annotations

import contextlib
import ipaddress
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TextIO
from urllib.parse import urlsplit

from ..archive.names import printable_name
from ..errors import UsageError
from .replay import REPLAY_HEADER, Replay, Reply, bodiless

REQUEST_TIMEOUT_S = 60.0
"""A connection silent this long (idle keep-alive, half a request) is closed: it holds a thread."""
MAX_DRAINED_BODY = 1 << 20
"""A refused request's body up to this size is read off the connection, which stays open."""
LINGER_S = 2.0
LINGER_BYTES = 4 << 20
"""Before closing a connection whose request body was not read: at most this long and this
much of what the client still sends is read and dropped (see ``_Handler.finish``)."""
LOGGED_TARGET_LIMIT = 2000
"""A request line may be 64 KiB; the log keeps the start of a longer target, marked with …"""


def loggable(text: str, limit: int = LOGGED_TARGET_LIMIT) -> str:
    """Client-sent text made safe for the engineer's terminal.

    ``http.server`` hands over the request line as Latin-1; read back as UTF-8
    (so a non-ASCII path reads as sent), then every control and format character
    (ESC, BEL, BS, NUL, DEL, C1, bidi overrides) is escaped: a client must not
    move the cursor, erase log lines or retitle the window.
    """
    wire = text.encode("latin-1", "backslashreplace")
    return printable_name(wire.decode("utf-8", "backslashreplace"), limit)


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1), bracketed or not."""
    if host.lower().rstrip(".") == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def host_name(authority: str) -> str:
    """The host of a ``Host`` header or URL authority: port and IPv6 brackets removed."""
    authority = authority.strip()
    if authority.startswith("["):
        return authority[1:].partition("]")[0]
    if authority.count(":") > 1:  # a bare IPv6 address, no port
        return authority
    return authority.partition(":")[0]


def is_unspecified(host: str) -> bool:
    """True for 0.0.0.0 and ::, the addresses that listen on every interface."""
    try:
        return ipaddress.ip_address(host.strip("[]")).is_unspecified
    except ValueError:
        return False


class ReplayServer(ThreadingHTTPServer):
    """Answers every request from a :class:`Replay`; counts what it served and missed."""

    daemon_threads = True
    allow_reuse_address = False

    def __init__(
        self,
        address: tuple[str, int],
        replay: Replay,
        log: TextIO,
        request_timeout: float = REQUEST_TIMEOUT_S,
    ) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        super().__init__(address, _Handler)
        self.replay = replay
        self.log = log
        self.request_timeout = request_timeout
        self.counts: dict[str, int] = {}
        self.log_lost = False
        """True once the log could not be written: answering goes on without it."""
        self._lock = threading.Lock()

    @property
    def url(self) -> str:
        host, port = str(self.server_address[0]), int(self.server_address[1])
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{port}"

    def handle_error(self, request: object, client_address: object) -> None:
        """A connection that failed mid-way (timed out, reset): one log line, no traceback."""
        exc = sys.exc_info()[1]
        reason = f"{type(exc).__name__}: {exc}" if exc is not None else "unknown error"
        self.write_log(
            f"{time.strftime('%H:%M:%S')} connection from {client_address!r} dropped "
            f"({loggable(reason, 200)})"
        )

    def answers_host(self, authority: str) -> bool:
        """Whether a request for ``authority`` (a ``Host`` value) is for this server.

        A web page can rebind its own name to 127.0.0.1 and read a loopback server
        from the engineer's browser; it cannot make the browser send a loopback
        ``Host``. So only loopback names (any port) and the address served are
        answered, and any name when serving on every interface (0.0.0.0, ::), which
        already needs --allow-network and exposes the bundle to the network anyway.
        """
        served = str(self.server_address[0])
        host = host_name(authority).lower().rstrip(".")
        return is_loopback(host) or host == served.lower() or is_unspecified(served)

    def record(self, method: str, target: str, reply: Reply, note: str | None = None) -> None:
        where = loggable(reply.route.member) if reply.route and reply.route.member else note
        line = (
            f"{time.strftime('%H:%M:%S')} {loggable(method, 100)} {loggable(target)} "
            f"-> {reply.status} {reply.kind}"
        )
        with self._lock:
            self.counts[reply.kind] = self.counts.get(reply.kind, 0) + 1
            self.write_log(line + (f" ({where})" if where else ""))

    def write_log(self, line: str) -> None:
        """One line to the log; a log that cannot be written never stops the answers.

        When stderr's reader is gone (a closed pipe, ``2> >(head -3)``) every write
        fails: the request is still answered and counted, and the log is given up.
        """
        if self.log_lost:
            return
        try:
            self.log.write(line + "\n")
            self.log.flush()
        except (OSError, ValueError):  # BrokenPipeError; ValueError: the stream was closed
            self.log_lost = True


class _Handler(BaseHTTPRequestHandler):
    server: ReplayServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True
    """Headers and body go out as two writes: with Nagle, a keep-alive client waits ~40 ms
    for the delayed ACK on every request (measured: 47 ms per request with it, 0.5 ms without)."""

    _unread_body = False
    """Set when a request's body was left on the connection: it is closed after the answer."""

    def version_string(self) -> str:
        return "bundler-serve"

    def setup(self) -> None:
        """Give the connection the server's timeout: a silent client cannot hold a thread."""
        super().setup()
        self.connection.settimeout(self.server.request_timeout)

    def __getattr__(self, name: str) -> Callable[[], None]:
        """Every method is answered by :meth:`_answer` (GET served, any other a 405 ``method``).

        ``http.server`` looks up ``do_<METHOD>`` and, for a method it cannot find
        (PROPFIND, CONNECT, a lowercase ``get``), sends its own 501 HTML page:
        unlogged, without ``X-Bundler-Replay``. The replay decides instead.
        """
        if name.startswith("do_"):
            return self._answer
        raise AttributeError(name)

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """``http.server``'s own rejections (a bad request line, 414, 431, 505), our way.

        The stdlib answers them with an HTML page, unlogged and uncounted; here they
        get the JSON body of every other reply, ``X-Bundler-Replay: bad-request``, a
        log line and a count. The connection is closed: the request could not be read.
        """
        short = self.responses.get(code, ("error", ""))[0]
        detail = f"{message or short}" + (f": {explain}" if explain else "")
        reply = self.server.replay.rejected(code, detail)
        self.close_connection = True
        # What the line held, as far as it was read (a 414's line is not kept at all).
        words = (getattr(self, "requestline", "") or "").split()
        method = self.command or (words[0] if words else "-")
        target = getattr(self, "path", None) or (words[1] if len(words) > 1 else "-")
        self.server.record(method, target, reply)
        if self.request_version == "HTTP/0.9":
            # The stdlib's default until the version is read: it would send the body with
            # no status line. A client sending an unreadable line needs the status most.
            self.request_version = "HTTP/1.0"
        self._send(reply, {"Connection": "close"})

    def _answer(self) -> None:
        foreign = self._foreign_host()
        if foreign is not None:
            reply = self.server.replay.misdirected(foreign)
            note: str | None = f"Host: {loggable(foreign, 200)}"
        else:
            reply, note = self.server.replay.answer(self.command, self.path), None
        self._drain_body()
        # Recorded before the answer goes out: a client that has its answer may stop the
        # server at once (Ctrl-C), and the summary must count what it was answered.
        self.server.record(self.command, self.path, reply, note)
        self._send(reply, {"Connection": "close"} if self.close_connection else None)

    def _send(self, reply: Reply, extra: dict[str, str] | None = None) -> None:
        self.send_response(reply.status)
        for name, value in {**reply.headers, **(extra or {})}.items():
            self.send_header(name, value)
        self.send_header(REPLAY_HEADER, reply.kind)
        if not bodiless(reply.status):  # a 204/304 has no body, so no length either
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if self.command != "HEAD" and reply.body:
            self.wfile.write(reply.body)

    def _foreign_host(self) -> str | None:
        """The ``Host`` (or absolute-form authority) this server does not answer, if any.

        A request without ``Host`` (HTTP/1.0) is answered: a browser always sends one.
        """
        authorities = list(self.headers.get_all("Host") or [])
        if not self.path.startswith("/"):  # absolute-form: the target names the host too
            with contextlib.suppress(ValueError):  # unparsable: the replay answers 400
                if netloc := urlsplit(self.path).netloc:
                    authorities.append(netloc)
        for authority in authorities:
            if not self.server.answers_host(authority):
                return authority
        return None

    def _drain_body(self) -> None:
        """Read (and drop) a request body, so a refused POST still gets a clean answer.

        Only a body framed by a valid ``Content-Length`` of at most 1 MiB is read. Any
        other (``Transfer-Encoding: chunked`` or another coding, a length that is not
        one number, a larger one) closes the connection after the answer: left on it,
        the body's bytes were parsed as the next request and answered 400."""
        framed = self.headers.get_all("Content-Length") or []
        if self.headers.get_all("Transfer-Encoding") or len(framed) > 1:
            self._close_after_answer()
            return
        text = framed[0].strip() if framed else "0"
        length = int(text) if text.isdigit() else -1
        if 0 <= length <= MAX_DRAINED_BODY:
            self.rfile.read(length)
        else:
            self._close_after_answer()

    def _close_after_answer(self) -> None:
        """The request's body stays unread: answer, then close gently (:meth:`finish`)."""
        self.close_connection = True
        self._unread_body = True

    def finish(self) -> None:
        """Flush the answer; with a body left unread, stop sending and drop what arrives.

        A socket closed with unread bytes makes the kernel send a reset, and a client
        still sending its body then loses the answer it was sent (the 405). Like
        Apache's lingering close, read and drop for a bounded time and amount first."""
        super().finish()
        if not self._unread_body:
            return
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_WR)
            deadline = time.monotonic() + LINGER_S
            dropped = 0
            while dropped < LINGER_BYTES and (left := deadline - time.monotonic()) > 0:
                self.connection.settimeout(left)
                chunk = self.connection.recv(65536)
                if not chunk:
                    break
                dropped += len(chunk)

    def log_message(self, format: str, *args: object) -> None:
        """Silence the stdlib's own access log; :meth:`ReplayServer.record` writes ours."""


def start_server(
    replay: Replay,
    host: str,
    port: int,
    log: TextIO,
    request_timeout: float = REQUEST_TIMEOUT_S,
) -> ReplayServer:
    """Bind ``host:port`` (0 = a free port); a one-line UsageError if it cannot."""
    try:
        return ReplayServer((host, port), replay, log, request_timeout)
    except OSError as exc:
        raise UsageError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from exc
