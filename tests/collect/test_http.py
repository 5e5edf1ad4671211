"""The HTTP transport against a real server: statuses, retries, timeouts, caps, TLS trust."""

from __future__ import annotations

import time
from datetime import UTC, datetime, timedelta

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import (
    CollectorTimeout,
    ConnectFailed,
    TLSVerifyFailed,
)
from bundler.collect.transports.http import HttpCollector, HttpOptions, display_url
from bundler.errors import UsageError
from tests.support.http_server import Reply, ScriptedHTTPServer, TlsFiles
from tests.support.sshd import free_port


def _client(url: str, **kwargs: object) -> HttpCollector:
    return HttpCollector(HttpOptions(url, backoff_s=0.01, **kwargs))  # type: ignore[arg-type]


def test_get_sends_token_and_reads_body(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/workers", Reply(200, [{"name": "w1"}]))
    client = _client(http_server.url, token="s3cr3t-token")
    try:
        capture = client.get("/workers", {"limit": "5"}, budget=Budget.start(5), max_bytes=1000)
    finally:
        client.close()
    assert capture.status_code == 200
    assert capture.body.content == b'[{"name": "w1"}]'
    assert capture.attempts == 1
    request = http_server.requests[0]
    assert request.method == "GET"
    assert request.query == {"limit": ["5"]}
    assert request.headers["Authorization"] == "Bearer s3cr3t-token"


def test_5xx_is_retried_then_succeeds(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/flaky", [Reply(503), Reply(500), Reply(200, {"ok": True})])
    client = _client(http_server.url)
    capture = client.get("/flaky", {}, budget=Budget.start(5), max_bytes=1000)
    client.close()
    assert capture.status_code == 200
    assert capture.attempts == 3
    assert http_server.paths() == ["/flaky"] * 3


def test_persistent_5xx_returns_the_last_response(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/down", Reply(500, {"detail": "db down"}))
    client = _client(http_server.url)
    capture = client.get("/down", {}, budget=Budget.start(5), max_bytes=1000)
    client.close()
    assert capture.status_code == 500
    assert capture.attempts == 3


def test_4xx_is_not_retried(http_server: ScriptedHTTPServer) -> None:
    client = _client(http_server.url)
    capture = client.get("/absent", {}, budget=Budget.start(5), max_bytes=1000)
    client.close()
    assert capture.status_code == 404
    assert http_server.paths() == ["/absent"]


def test_connection_refused_is_retried_and_recorded() -> None:
    client = _client(f"http://127.0.0.1:{free_port()}")
    with pytest.raises(ConnectFailed) as raised:
        client.get("/health", {}, budget=Budget.start(5), max_bytes=1000)
    client.close()
    assert getattr(raised.value, "attempts", None) == 3


def test_a_server_that_never_answers_times_out_on_budget(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/never", Reply(hang=True))
    client = _client(http_server.url)
    started = time.monotonic()
    with pytest.raises(CollectorTimeout):
        client.get("/never", {}, budget=Budget.start(1.0), max_bytes=1000)
    client.close()
    assert time.monotonic() - started < 3
    assert http_server.paths() == ["/never"]  # a read timeout is not retried


def test_a_dripping_server_is_cut_by_the_budget(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/drip", Reply(200, b"x" * 100, drip_s=0.2))
    client = _client(http_server.url)
    started = time.monotonic()
    with pytest.raises(CollectorTimeout):
        client.get("/drip", {}, budget=Budget.start(1.0), max_bytes=1000)
    client.close()
    assert time.monotonic() - started < 2


def test_size_cap_keeps_head_and_tail_and_can_stop_early(http_server: ScriptedHTTPServer) -> None:
    body = b"".join(f"line {i:05d}\n".encode() for i in range(10_000))
    http_server.route("/big", Reply(200, body, content_type="text/plain"))
    client = _client(http_server.url)
    capped = client.get("/big", {}, budget=Budget.start(5), max_bytes=4000).body
    early = client.get("/big", {}, budget=Budget.start(5), max_bytes=4000, stop_when_over=True)
    client.close()
    assert capped.truncated
    assert capped.content.startswith(b"line 00000\n")
    assert capped.content.endswith(b"line 09999\n")
    assert early.body.truncated
    assert early.body.total_bytes < len(body)


def test_redirects_are_not_followed(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/moved", Reply(302, b"", headers={"Location": "/workers/w1/connect"}))
    client = _client(http_server.url)
    capture = client.get("/moved", {}, budget=Budget.start(5), max_bytes=1000)
    client.close()
    assert capture.status_code == 302
    assert http_server.paths() == ["/moved"]


def test_self_signed_tls_is_refused_without_the_ca(
    https_server: ScriptedHTTPServer, tls_files: TlsFiles
) -> None:
    https_server.route("/health", Reply(200, {"status": "ok"}))
    client = _client(https_server.url)
    with pytest.raises(TLSVerifyFailed, match="--ca-cert"):
        client.get("/health", {}, budget=Budget.start(5), max_bytes=1000)
    client.close()
    trusted = _client(https_server.url, ca_cert=tls_files.ca_cert)
    assert trusted.get("/health", {}, budget=Budget.start(5), max_bytes=100).status_code == 200
    trusted.close()
    insecure = _client(https_server.url, insecure=True)
    assert insecure.get("/health", {}, budget=Budget.start(5), max_bytes=100).status_code == 200
    insecure.close()


def test_server_urls_are_validated_and_shown_without_credentials(tls_files: TlsFiles) -> None:
    assert display_url("https://user:pw@example.com:8443/api?x=1") == "https://example.com:8443/api"
    for bad in ("ftp://x", "example.com", "http://"):
        with pytest.raises(UsageError):
            display_url(bad)
    with pytest.raises(UsageError, match="--ca-cert"):
        HttpCollector(HttpOptions("https://x", ca_cert=tls_files.key.parent / "missing.pem"))


# -- politeness: Retry-After, the request cap, the tally -------------------------------------------


def test_429_with_retry_after_is_waited_for_then_retried(http_server: ScriptedHTTPServer) -> None:
    http_server.route(
        "/workers",
        [Reply(429, {"detail": "slow down"}, headers={"Retry-After": "1"}), Reply(200, [])],
    )
    client = _client(http_server.url)
    capture = client.get("/workers", {}, budget=Budget.start(10), max_bytes=1000)
    client.close()
    assert (capture.status_code, capture.attempts) == (200, 2)
    first, second = http_server.requests
    assert second.received_at - first.received_at >= 0.95
    usage = client.usage.manifest_record()
    assert (usage["requests"], usage["throttled"], usage["throttle_not_waited"]) == (2, 1, 0)
    assert usage["throttle_waited_s"] >= 0.9


def test_503_retry_after_as_an_http_date_is_honoured(http_server: ScriptedHTTPServer) -> None:
    from email.utils import format_datetime

    when = format_datetime(datetime.now(UTC) + timedelta(seconds=2), usegmt=True)
    http_server.route("/ready", [Reply(503, headers={"Retry-After": when}), Reply(200, {})])
    client = _client(http_server.url)
    capture = client.get("/ready", {}, budget=Budget.start(10), max_bytes=1000)
    client.close()
    assert capture.status_code == 200
    first, second = http_server.requests
    assert second.received_at - first.received_at >= 0.5  # the date has one-second resolution


def test_a_retry_after_over_the_bound_is_not_waited_for(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/workers", Reply(429, {"detail": "later"}, headers={"Retry-After": "120"}))
    client = _client(http_server.url, max_retry_after_s=30)
    started = time.monotonic()
    capture = client.get("/workers", {}, budget=Budget.start(10), max_bytes=1000)
    client.close()
    assert time.monotonic() - started < 2
    assert (capture.status_code, capture.retry_after, capture.attempts) == (429, "120", 1)
    assert client.usage.manifest_record()["throttle_not_waited"] == 1
    assert http_server.paths() == ["/workers"]


def test_one_throttled_request_holds_back_the_others(http_server: ScriptedHTTPServer) -> None:
    """The gate is shared: a request that was not told to wait still waits for the server."""
    import threading

    http_server.route("/a", [Reply(429, headers={"Retry-After": "1"}), Reply(200, {})])
    http_server.route("/b", Reply(200, {}))
    client = _client(http_server.url)
    done: list[float] = []
    first = threading.Thread(
        target=lambda: client.get("/a", {}, budget=Budget.start(10), max_bytes=100)
    )
    first.start()
    time.sleep(0.3)  # /a has been answered 429 and the gate is armed
    started = time.monotonic()
    client.get("/b", {}, budget=Budget.start(10), max_bytes=100)
    done.append(time.monotonic() - started)
    first.join()
    client.close()
    assert done[0] >= 0.4  # /b waited for the rest of /a's Retry-After


def test_requests_in_flight_never_exceed_the_cap(http_server: ScriptedHTTPServer) -> None:
    from concurrent.futures import ThreadPoolExecutor

    http_server.route("/slow", Reply(200, {}, delay_s=0.2))
    client = _client(http_server.url, api_concurrency=2)
    with ThreadPoolExecutor(6) as pool:
        captures = list(
            pool.map(
                lambda _: client.get("/slow", {}, budget=Budget.start(10), max_bytes=100),
                range(6),
            )
        )
    client.close()
    assert [c.status_code for c in captures] == [200] * 6
    usage = client.usage.manifest_record()
    assert (usage["requests"], usage["peak_concurrent_requests"]) == (6, 2)
