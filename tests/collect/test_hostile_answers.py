"""Answers a broken or hostile control plane gives: recorded as what they are, never lost.

Through a real server and the real engine: whatever the body, the collector
ends with a named error class and, where the body is evidence, keeps it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bundler import products
from bundler.archive.contracts import MemorySink
from bundler.collect.transports.politeness import retry_after_seconds
from bundler.collect.validate import check_json
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.exit_codes import ExitCode
from bundler.secret_options import SealOptions
from tests.collect.test_engine import _by_id, _entry, _run
from tests.collect.testprofile import SampleProfile
from tests.support.archive import PASSWORD, open_test_bundle
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


@pytest.mark.parametrize(
    ("status", "body", "says"),
    [
        (204, b"", "HTTP 204 No Content: no body where a JSON document was expected"),
        (200, b"", "HTTP 200 with an empty body where a JSON document was expected"),
        (200, b" \r\n", "HTTP 200 with a body of only whitespace (3 bytes) where a JSON"),
    ],
)
def test_an_empty_answer_to_a_json_step_says_so(
    http_server: ScriptedHTTPServer, status: int, body: bytes, says: str
) -> None:
    """json's own words for an empty document ('Expecting value: line 1 column 1') name no
    cause: the server said nothing, and the outcome says that, with the status it said it in."""
    http_server.route("/health", Reply(status, body))
    sink = MemorySink()
    health = _by_id(_run(sink, profile=SampleProfile(), server=http_server.url))["http.health"]
    message = health.error_message or ""  # type: ignore[attr-defined]
    assert health.error_class == "InvalidJSON", message  # type: ignore[attr-defined]
    assert message.startswith(says), message
    assert "Expecting value" not in message
    assert health.members == ("raw/http/health.json",)  # type: ignore[attr-defined]
    assert _entry(sink, "raw/http/health.json").size == len(body)


def test_check_json_names_an_empty_document() -> None:
    """A command step's empty output (no status to name) is called empty too."""
    for body in (b"", b"\n\t "):
        check = check_json(body, "Health", {})
        assert check.parse_error is not None
        assert "Expecting value" not in check.parse_error
        assert "where a JSON document was expected" in check.parse_error


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


def test_a_retry_after_past_a_floats_range_is_quoted_not_inf(
    http_server: ScriptedHTTPServer,
) -> None:
    """400 digits are valid delay-seconds and float() makes them inf: the message said 'infs'."""
    asked = {"Retry-After": "9" * 400}
    http_server.route("/health", Reply(429, {"detail": "slow down"}, headers=asked))
    sink = MemorySink()
    health = _by_id(_run(sink, profile=SampleProfile(), server=http_server.url))["http.health"]
    message = health.error_message or ""  # type: ignore[attr-defined]
    assert health.error_class == "HttpStatusError", message  # type: ignore[attr-defined]
    assert "retry after a 400-digit number of seconds; not waited for" in message
    assert "inf" not in message
    assert http_server.paths().count("/health") == 1  # asked too long: not waited, not retried


@pytest.mark.parametrize("status", [301, 302, 307, 308])
def test_a_redirect_to_another_origin_is_named_and_never_followed(
    http_server: ScriptedHTTPServer, status: int
) -> None:
    """The other origin gets nothing (not the token, not a request); the outcome says where."""
    with ScriptedHTTPServer() as elsewhere:
        elsewhere.route("/health", Reply(200, {"status": "ok", "version": "1"}))
        moved = f"{elsewhere.url}/health"
        http_server.route("/health", Reply(status, b"", headers={"Location": moved}))
        sink = MemorySink()
        outcomes = _by_id(_run(sink, profile=SampleProfile(), server=http_server.url))
    health = outcomes["http.health"]
    assert health.error_class == "HttpStatusError"  # type: ignore[attr-defined]
    assert health.error_message == (  # type: ignore[attr-defined]
        f"HTTP {status}: redirect to '{moved}' not followed (doctor asks only --server, read-only)"
    )
    assert elsewhere.requests == []
    assert http_server.paths().count("/health") == 1


def test_a_304_is_not_called_a_redirect(http_server: ScriptedHTTPServer) -> None:
    http_server.route("/health", Reply(304, b""))
    sink = MemorySink()
    health = _by_id(_run(sink, profile=SampleProfile(), server=http_server.url))["http.health"]
    assert health.error_message == (  # type: ignore[attr-defined]
        "HTTP 304 (not modified) to a request that asked no condition"
    )


ERROR_PAGE = (
    b"<html><h1>500 Internal Server Error</h1><pre>upstream db-primary refused the "
    b"connection: password=hunter2-Secret-Value-1</pre>"
    + b"<!-- the stack trace was here -->\n" * 20
    + b"<p>request id 7f3a: the end of the page</p></html>"
)
"""Longer than the 200 characters a message quotes: its end is only in the member."""


def test_an_error_page_is_kept_as_evidence_redacted(
    http_server: ScriptedHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What a failing server said is evidence: the whole page, redacted, not 200 characters."""
    monkeypatch.setitem(products.PROFILES, "testprod", "tests.collect.testprofile")
    http_server.route("/health", Reply(500, ERROR_PAGE, content_type="text/html"))
    http_server.route("/workers", Reply(200, [{"name": "w1", "status": "online"}]))
    asked = {"Retry-After": "90"}  # over the bound: not waited for, kept
    http_server.route("/workers/w1", Reply(503, {"detail": "draining"}, headers=asked))
    target = tmp_path / "support.zip"
    request = DoctorRequest(
        profile="testprod",
        server=http_server.url,
        timeout_s=10,
        bundle=target,
        seal=SealOptions(password_env="BUNDLE_PW"),
    )
    monkeypatch.setenv("BUNDLE_PW", PASSWORD)  # the password is read from the process's own
    run_doctor(request, environ={"BUNDLE_PW": PASSWORD}, warn=lambda _: None)
    with open_test_bundle(target) as bundle:
        assert bundle.manifest is not None
        outcomes = {c.id: c for c in bundle.manifest.collectors}
        page = bundle.read_bytes("raw/http/health.json")
        throttled = bundle.read_bytes("raw/http/workers/000.json")
        entry = bundle.listed("raw/http/health.json")
    health = outcomes["http.health"]
    assert (health.status.value, health.error_class) == ("failed", "HttpStatusError")
    assert health.members == ["raw/http/health.json"]
    assert b"request id 7f3a: the end of the page" in page
    assert b"hunter2-Secret-Value-1" not in page
    assert b"password=[REDACTED:password:" in page
    assert entry is not None
    assert entry.media_type == "text/plain"
    assert outcomes["http.worker.000"].error_class == "HttpStatusError"
    assert throttled == b'{"detail": "draining"}'
    assert b"hunter2-Secret-Value-1" not in target.read_bytes()


def test_a_run_whose_every_collector_failed_keeps_the_error_pages_in_a_bundle(
    http_server: ScriptedHTTPServer, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every route answers 500 with a page: nothing succeeded, but the pages are evidence.

    The bundle is written (before, exit 4 and no bundle: what the server said was lost),
    and the live verdict, not "nothing collected", sets the exit code.
    """
    monkeypatch.setitem(products.PROFILES, "testprod", "tests.collect.testprofile")
    http_server.route("/health", Reply(500, ERROR_PAGE, content_type="text/html"))
    http_server.route("/workers", Reply(500, ERROR_PAGE, content_type="text/html"))
    target = tmp_path / "support.zip"
    request = DoctorRequest(
        profile="testprod",
        server=http_server.url,
        timeout_s=10,
        bundle=target,
        seal=SealOptions(password_env="BUNDLE_PW"),
    )
    monkeypatch.setenv("BUNDLE_PW", PASSWORD)
    outcome = run_doctor(request, environ={"BUNDLE_PW": PASSWORD}, warn=lambda _: None)
    assert outcome.result.collected == 0
    assert outcome.exit_code != ExitCode.NOTHING_COLLECTED
    assert outcome.summary.bundle is not None
    with open_test_bundle(target) as bundle:
        page = bundle.read_bytes("raw/http/health.json")
    assert b"request id 7f3a: the end of the page" in page
    assert b"hunter2-Secret-Value-1" not in target.read_bytes()
