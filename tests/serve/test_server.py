"""The real :class:`ReplayServer` on 127.0.0.1, driven by raw sockets and real HTTP clients.

Raw sockets, because the requests these tests send (bad targets, control
bytes, unknown methods, wrong ``Host``) are exactly what a well-behaved
client library refuses to send.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import signal
import socket
import struct
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import httpx
import pytest

from bundler.archive.names import printable_name
from bundler.interrupts import terminate_as_interrupt
from bundler.printable import printable
from bundler.products.flux.routes import MUTATING_ROUTES
from bundler.serve import CapturedRoute, Replay, ReplayServer, start_server
from tests.support.serving import captured_route as route

ROUTES = [route("/workers"), route("/health")]
BODIES = {"raw/http/workers.json": b'[{"name": "w1"}]', "raw/http/health.json": b'{"ok": true}'}


@dataclass
class Running:
    server: ReplayServer
    log: io.StringIO

    @property
    def port(self) -> int:
        return int(self.server.server_address[1])

    @property
    def url(self) -> str:
        return self.server.url

    def send(self, raw: bytes, timeout: float = 5.0) -> bytes:
        """Send raw bytes, read until the server closes (or ``timeout``): the whole reply."""
        with socket.create_connection(("127.0.0.1", self.port), timeout=timeout) as sock:
            sock.sendall(raw)
            chunks = []
            try:
                while chunk := sock.recv(65536):
                    chunks.append(chunk)
            except TimeoutError:
                chunks.append(b"<<timeout>>")
            return b"".join(chunks)


@contextmanager
def running(
    routes: list[CapturedRoute] = ROUTES, bodies: dict[str, bytes] = BODIES, **kw: object
) -> Iterator[Running]:
    """A real server on a free loopback port, served from a thread, always shut down."""
    log = io.StringIO()
    replay = Replay(routes, bodies, MUTATING_ROUTES)
    server = start_server(replay, "127.0.0.1", 0, log, **kw)  # type: ignore[arg-type]
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05})
    thread.start()
    try:
        yield Running(server, log)
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def request(target: bytes, method: bytes = b"GET", host: bytes | None = b"127.0.0.1") -> bytes:
    """One raw HTTP/1.1 request that asks the server to close the connection after it."""
    head = method + b" " + target + b" HTTP/1.1\r\n"
    if host is not None:
        head += b"Host: " + host + b"\r\n"
    return head + b"Connection: close\r\n\r\n"


def status_of(reply: bytes) -> int:
    return int(reply.split(b" ", 2)[1])


def body_of(reply: bytes) -> bytes:
    return reply.partition(b"\r\n\r\n")[2]


def test_an_absolute_target_with_a_bad_host_is_a_logged_400() -> None:
    with running() as served:
        reply = served.send(request(b"http://[/workers"))
        assert status_of(reply) == 400
        assert b"X-Bundler-Replay: bad-request" in reply
        assert json.loads(body_of(reply))["bundler_replay"] == "bad-request"
        ok = httpx.get(f"{served.url}/workers", timeout=5)  # the server is still answering
        assert ok.status_code == 200
    assert "GET http://[/workers -> 400 bad-request" in served.log.getvalue()
    assert served.server.counts["bad-request"] == 1


def test_a_204_goes_out_without_a_body_so_keep_alive_framing_holds() -> None:
    routes = [route("/workers", status=204), route("/health")]
    with running(routes) as served:
        two = b"GET /workers HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n" + request(b"/health")
        reply = served.send(two)
    first, _, second = reply.partition(b"\r\n\r\n")
    assert status_of(first) == 204
    assert b"Content-Length" not in first
    assert second.startswith(b"HTTP/1.1 200 "), reply  # the next answer starts right after
    assert body_of(second) == BODIES["raw/http/health.json"]
    with running(routes) as served, httpx.Client(base_url=served.url, timeout=5) as client:
        assert [client.get(p).status_code for p in ("/workers", "/health")] == [204, 200]


def test_a_recorded_content_type_cannot_inject_headers_or_break_the_answer() -> None:
    routes = [
        route("/workers", content_type="application/json\r\nSet-Cookie: injected=1"),
        route("/health", content_type='application/json; profile="Flux-\u20ac"'),
    ]
    with running(routes) as served:
        for path in (b"/workers", b"/health"):
            reply = served.send(request(path))
            assert status_of(reply) == 502, reply
            assert b"\r\nSet-Cookie" not in reply.partition(b"\r\n\r\n")[0]
            assert b"X-Bundler-Replay: unsound" in reply
            assert json.loads(body_of(reply))["bundler_replay"] == "unsound"
    assert "GET /health -> 502 unsound" in served.log.getvalue()


def test_control_characters_in_the_request_never_reach_the_log_raw() -> None:
    hostile = (
        b"/x\x1b[1A\x1b[2K\x1b]0;pwned\x07\x08\x00\x7f\xc2\x9b31m"  # ESC, BEL, BS, NUL, DEL, C1 CSI
        + "\u202egnp.exe".encode()  # a bidi override, as UTF-8 bytes
    )
    with running() as served:
        reply = served.send(request(hostile))
        assert status_of(reply) == 404
    log = served.log.getvalue()
    line = log.splitlines()[-1]
    assert line.endswith("-> 404 not-captured")
    assert all(ch == "\n" or ch.isprintable() for ch in log), repr(log)
    assert "/x\\x1b[1A\\x1b[2K\\x1b]0;pwned\\x07\\x08\\x00\\x7f\\x9b31m\\u202egnp.exe" in line


def test_the_request_log_escape_names_every_code_point_unambiguously() -> None:
    """bundler.printable, which the log and bundler.archive.names.printable_name share."""
    escaped = printable("a\x00\x7f\x9bb\u202ec\U000e0001")
    assert escaped == "a\\x00\\x7f\\x9bb\\u202ec\\U000e0001"
    assert printable("plain /path é") == "plain /path é"
    assert printable_name("a\x1b[31mb") == "a\\x1b[31mb"


def test_only_a_loopback_host_is_answered_any_other_is_a_logged_421() -> None:
    with running() as served:
        port = str(served.port).encode()
        for host in (b"127.0.0.1:" + port, b"127.0.0.2", b"localhost:" + port, b"LOCALHOST",
                     b"[::1]:" + port, None):  # fmt: skip
            reply = served.send(request(b"/workers", host=host))
            assert (status_of(reply), body_of(reply)) == (200, BODIES["raw/http/workers.json"])
        for host in (b"attacker.example", b"attacker.example:" + port, b"10.0.0.1", b""):
            reply = served.send(request(b"/workers", host=host))
            assert status_of(reply) == 421, host
            assert b"X-Bundler-Replay: misdirected" in reply
            assert BODIES["raw/http/workers.json"] not in reply
        absolute = served.send(request(b"http://attacker.example/workers"))
        assert status_of(absolute) == 421
        twice = request(b"/workers").replace(b"\r\n\r\n", b"\r\nHost: evil\r\n\r\n")
        assert status_of(served.send(twice)) == 421
        query = served.send(request(b"/workers?next=http://x/y"))
        assert status_of(query) == 404  # a URL in the query is not a target's authority
    log = served.log.getvalue()
    assert "GET /workers -> 421 misdirected (Host: attacker.example)" in log
    assert served.server.counts["misdirected"] == 6


def test_every_method_but_get_is_a_logged_405_in_json() -> None:
    with running() as served:
        for method in (b"PROPFIND", b"CONNECT", b"MKCOL", b"get", b"BREW"):
            reply = served.send(request(b"/workers", method=method))
            assert status_of(reply) == 405, method
            assert b"X-Bundler-Replay: method" in reply
            assert b"Allow: GET" in reply
            assert json.loads(body_of(reply))["bundler_replay"] == "method"
        with httpx.Client(base_url=served.url, timeout=5) as client:
            assert client.request("PROPFIND", "/workers").status_code == 405
    log = served.log.getvalue()
    assert "PROPFIND /workers -> 405 method" in log
    assert "get /workers -> 405 method" in log
    assert served.server.counts["method"] == 6


def test_requests_http_server_rejects_itself_are_logged_json_and_counted() -> None:
    rejected = {
        b"GET /" + b"a" * 66000 + b" HTTP/1.1\r\n\r\n": 414,
        b"GET /workers HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n": 505,
        b"GET /workers HTTP/x.y\r\n\r\n": 400,
        b"GET /workers HTTP/1.1 extra\r\n\r\n": 400,
        b"GET /workers HTTP/1.1\r\n" + b"X-A: b\r\n" * 101 + b"\r\n": 431,
    }
    with running() as served:
        for raw, status in rejected.items():
            reply = served.send(raw)
            assert status_of(reply) == status, reply[:200]
            assert b"X-Bundler-Replay: bad-request" in reply
            assert json.loads(body_of(reply))["bundler_replay"] == "bad-request"
        assert httpx.get(f"{served.url}/workers", timeout=5).status_code == 200
    log = served.log.getvalue()
    assert served.server.counts["bad-request"] == len(rejected)
    assert "- - -> 414 bad-request" in log
    assert "GET /workers -> 400 bad-request" in log
    assert "GET /workers -> 505 bad-request" in log
    assert len(log.splitlines()) == len(rejected) + 1


def test_a_silent_connection_is_closed_after_the_request_timeout() -> None:
    with running(request_timeout=0.5) as served:
        baseline = threading.active_count()
        idle = [socket.create_connection(("127.0.0.1", served.port)) for _ in range(20)]
        for sock in idle[:10]:
            sock.sendall(b"GET /wor")  # half a request line
        try:
            for sock in idle:
                sock.settimeout(5)
                assert sock.recv(1024) == b""  # closed by the server, nothing sent
            deadline = time.monotonic() + 5
            while threading.active_count() > baseline and time.monotonic() < deadline:
                time.sleep(0.05)
            assert threading.active_count() == baseline  # every connection's thread ended
        finally:
            for sock in idle:
                sock.close()
        assert httpx.get(f"{served.url}/workers", timeout=5).status_code == 200
        slow = served.send(
            b"POST /workers HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 9\r\n\r\nab"
        )
        assert slow == b""  # a body that never comes: closed, not waited on for ever
    assert "Traceback" not in served.log.getvalue()


def test_a_client_gone_mid_answer_is_one_log_line_not_a_traceback(
    capfd: pytest.CaptureFixture[str],
) -> None:
    big = {"raw/http/workers.json": b"x" * (32 << 20)}  # more than any socket buffer holds
    with running(bodies=big) as served:
        with socket.create_connection(("127.0.0.1", served.port)) as sock:
            sock.sendall(request(b"/workers"))
            sock.recv(1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        deadline = time.monotonic() + 10  # closed with a reset: the server's write fails
        while "dropped" not in served.log.getvalue() and time.monotonic() < deadline:
            time.sleep(0.05)
    log = served.log.getvalue()
    assert "dropped (ConnectionResetError" in log or "dropped (BrokenPipeError" in log, log
    assert "Traceback" not in capfd.readouterr().err


def test_a_body_the_server_does_not_read_closes_the_connection_after_the_405() -> None:
    """A chunked POST's body was left on the connection: its bytes were read as the next
    request and answered 400 (and a request pipelined after it was never answered as
    itself). Now one 405, ``Connection: close``, and the connection is closed."""
    head = b"POST /workers HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    unframed = {
        "chunked": head + b"Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "any coding": head + b"transfer-encoding: gzip, Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
        "bad length": head + b"Content-Length: 5x\r\n\r\nhello",
        "two lengths": head + b"Content-Length: 5\r\nContent-Length: 5\r\n\r\nhello",
    }
    with running() as served:
        for why, raw in unframed.items():
            reply = served.send(raw + request(b"/health"))  # a GET pipelined behind it
            assert status_of(reply) == 405, why
            assert reply.count(b"HTTP/1.1 ") == 1, (why, reply)  # nothing after it: closed
            assert b"Connection: close" in reply, why
            assert b"X-Bundler-Replay: method" in reply, why
        framed = served.send(head + b"Content-Length: 5\r\n\r\nhello" + request(b"/health"))
        assert [status_of(b"X" + part) for part in framed.split(b"HTTP/1.1")[1:]] == [405, 200]
    log = served.log.getvalue()
    assert "bad-request" not in log
    assert served.server.counts == {"method": 5, "captured": 1}


def test_a_stop_signal_while_a_request_is_taken_in_still_stops_the_server() -> None:
    """SIGTERM's handler raises in the main thread wherever it is. socketserver catches
    ``Exception`` around taking a request in, so serve's own handler, which raised one,
    had a stop that arrived in that moment swallowed and ``bundler serve`` ran on (seen
    under load: alive 30 s after SIGTERM). serve now relies on the CLI's
    ``terminate_as_interrupt``, whose ``KeyboardInterrupt`` socketserver re-raises."""
    server = start_server(Replay(ROUTES, BODIES, MUTATING_ROUTES), "127.0.0.1", 0, io.StringIO())

    def signal_arrives(request: object, client_address: object) -> None:
        os.kill(os.getpid(), signal.SIGTERM)  # the handler runs here, in the main thread
        time.sleep(1)  # ... by now, or the request "succeeded" and serving went on

    server.process_request = signal_arrives  # type: ignore[assignment,method-assign]
    watchdog = threading.Timer(10, server.shutdown)  # a swallowed stop would serve forever
    watchdog.start()
    client = threading.Thread(target=_ask_once, args=(server.url,))
    client.start()
    try:
        with terminate_as_interrupt(), pytest.raises(KeyboardInterrupt):
            server.serve_forever(poll_interval=0.05)
    finally:
        watchdog.cancel()
        server.server_close()
        client.join(timeout=10)


def _ask_once(url: str) -> None:
    with contextlib.suppress(httpx.HTTPError):
        httpx.get(f"{url}/workers", timeout=5)
