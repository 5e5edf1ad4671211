"""Answers a broken or hostile control plane gives: recorded as what they are, never lost.

Through a real server and the real engine: whatever the body, the collector
ends with a named error class and, where the body is evidence, keeps it.
"""

from __future__ import annotations

import pytest

from bundler.archive.contracts import MemorySink
from bundler.collect.transports.politeness import retry_after_seconds
from bundler.collect.validate import check_json
from tests.collect.test_engine import _by_id, _entry, _run
from tests.collect.testprofile import SampleProfile
from tests.support.http_server import Reply, ScriptedHTTPServer

DEEP = b"[" * 100_000 + b"]" * 100_000
"""json.loads raises RecursionError on it."""
NESTED_200 = b'{"status": ' + b"[" * 200 + b"]" * 200 + b', "version": "1"}'
"""Parses, but deeper than any walk of it should have to go."""
BIGINT = b'{"status": "ok", "version": ' + b"9" * 5000 + b"}"
"""json.loads raises a plain ValueError (Python's 4,300-digit limit)."""
TWICE = b'{"status": "online", "version": "1", "status": "offline"}'
"""json.loads keeps the last: the health read would be the order of two keys."""


@pytest.mark.parametrize(
    ("body", "says"),
    [
        (DEEP, "nested deeper than 128 levels"),
        (NESTED_200, "nested deeper than 128 levels"),
        (BIGINT, "Exceeds the limit (4300 digits) for integer string conversion"),
        (b"{not json", "not valid JSON: Expecting property name"),
        (TWICE, "not usable as JSON: the response has a duplicate key at /status (one object"),
    ],
)
def test_json_the_collector_cannot_use_is_kept_as_text(
    http_server: ScriptedHTTPServer, body: bytes, says: str
) -> None:
    http_server.route("/health", Reply(200, body))
    sink = MemorySink()
    health = _by_id(_run(sink, profile=SampleProfile(), server=http_server.url))["http.health"]
    assert health.error_class == "InvalidJSON", health.error_message  # type: ignore[attr-defined]
    assert says in (health.error_message or "")  # type: ignore[attr-defined]
    assert health.members == ("raw/http/health.json",)  # type: ignore[attr-defined]
    assert _entry(sink, "raw/http/health.json").media_type == "text/plain"


def test_check_json_answers_every_unusable_document_in_one_line() -> None:
    for body in (DEEP, NESTED_200, BIGINT, b"\xff\xfe", b""):
        check = check_json(body, "Health", {})
        assert check.parsed is None
        assert check.valid is False
        assert check.parse_error
        assert "\n" not in check.parse_error


@pytest.mark.parametrize("value", ["\u00b2", "\u0663", "1\u00b2", "\uff11"])
def test_a_retry_after_of_non_ascii_digits_is_no_delay(value: str) -> None:
    assert retry_after_seconds(value) is None
    assert retry_after_seconds("2") == 2.0


def test_a_latin1_superscript_retry_after_is_an_http_status_error(
    http_server: ScriptedHTTPServer,
) -> None:
    """'Retry-After: \\xb2' reads as '²', which str.isdigit() took and float() refused."""
    http_server.route("/health", Reply(429, {"detail": "slow down"}, headers={"Retry-After": "²"}))
    sink = MemorySink()
    health = _by_id(_run(sink, profile=SampleProfile(), server=http_server.url))["http.health"]
    assert health.error_class == "HttpStatusError", health.error_message  # type: ignore[attr-defined]
    assert "HTTP 429" in (health.error_message or "")  # type: ignore[attr-defined]

