"""The HTTP transport against servers that answer in ways http.server would not: by hand.

Each server writes its answer on the socket itself (``Reply.raw``): headers that
trickle, interim answers that never end. Whatever it does, the request ends
within the collector's budget, with a named error class.
"""

from __future__ import annotations

import socket
import threading

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectorTimeout
from bundler.collect.transports.http import HttpCollector, HttpOptions
from tests.support.http_server import Reply, ScriptedHTTPServer

BUDGET_S = 1.0
SLACK_S = 1.5
"""A cut-off may come one socket wait late, never more."""


def _trickled_headers(sock: socket.socket, stopping: threading.Event) -> None:
    """A status line, then one header byte every 0.2 s: each read gets a byte in time."""
    sock.sendall(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    while not stopping.wait(0.2):
        sock.sendall(b"x")


def _endless_interim(sock: socket.socket, stopping: threading.Event) -> None:
    """``103 Early Hints`` over and over: headers that end, an answer that never comes."""
    while not stopping.wait(0.2):
        sock.sendall(b"HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n")


def _get_within(client: HttpCollector, path: str, wait_s: float) -> BaseException | None:
    """GET ``path`` on a thread; what it raised, or fail if it is still waiting after ``wait_s``.

    On a thread so that a transport that is not cut fails the test instead of hanging it.
    """
    raised: list[BaseException | None] = []

    def get() -> None:
        try:
            client.get(path, {}, budget=Budget.start(BUDGET_S), max_bytes=1000)
            raised.append(None)
        except BaseException as exc:
            raised.append(exc)

    thread = threading.Thread(target=get, daemon=True)
    thread.start()
    thread.join(wait_s)
    assert not thread.is_alive(), f"still waiting after {wait_s:g}s on a {BUDGET_S:g}s budget"
    return raised[0]


@pytest.mark.parametrize("answer", [_trickled_headers, _endless_interim])
def test_an_answer_that_never_completes_its_headers_is_cut_by_the_budget(
    http_server: ScriptedHTTPServer, answer: object
) -> None:
    """httpx's read timeout starts again with every byte; the collector's --timeout does not."""
    http_server.route("/health", Reply(raw=answer))  # type: ignore[arg-type]
    client = HttpCollector(HttpOptions(http_server.url, backoff_s=0.01))
    try:
        raised = _get_within(client, "/health", BUDGET_S + SLACK_S)
    finally:
        http_server.stop()  # ends the trickle (and, without the bound, the request)
        client.close()
    assert isinstance(raised, CollectorTimeout), raised
    assert "response timed out: after 1s (--timeout, per collector)" in str(raised)
    assert http_server.paths() == ["/health"]  # a timeout is not retried
