"""The answer to one request, as data: every kind of reply the replay can give."""

from __future__ import annotations

import json

from bundler.products.flux.routes import MUTATING_ROUTES
from bundler.serve import CapturedRoute, Replay
from schemas import CollectorStatus
from tests.support.serving import captured_route as route

BODIES = {"raw/http/workers.json": b"[]", "raw/http/metrics.json": b"# HELP x\n"}


def replay(*routes: CapturedRoute, unsound: dict[str, str] | None = None) -> Replay:
    return Replay(routes, BODIES, MUTATING_ROUTES, unsound)


def test_a_captured_route_answers_with_its_status_type_and_body() -> None:
    reply = replay(route("/workers")).answer("GET", "/workers")
    assert (reply.status, reply.kind, reply.body) == (200, "captured", b"[]")
    assert reply.headers["Content-Type"] == "application/json"
    assert reply.headers["X-Bundler-Member"] == "raw/http/workers.json"


def test_the_query_matches_in_any_order_and_percent_encoding_does_not_matter() -> None:
    answers = replay(route("/executions/a b", "detailed=true&x=1", member="raw/http/workers.json"))
    assert answers.answer("GET", "/executions/a%20b?x=1&detailed=true").kind == "captured"
    assert answers.answer("GET", "/executions/a%20b?detailed=false").kind == "not-captured"
    assert answers.answer("GET", "/executions/a%20b").status == 404


def test_a_truncated_body_says_so() -> None:
    reply = replay(route("/workers", truncated=True)).answer("GET", "/workers")
    assert reply.headers["X-Bundler-Truncated"] == "true"


def test_a_status_without_a_body_is_replayed_as_status_only() -> None:
    absent = route("/metrics", status=404, member=None, outcome=CollectorStatus.SKIPPED,
                   error="observability off")  # fmt: skip
    reply = replay(absent).answer("GET", "/metrics")
    assert (reply.status, reply.kind) == (404, "status-only")
    assert "observability off" in json.loads(reply.body)["detail"]
    down = route("/health", status=503, member=None, outcome=CollectorStatus.FAILED)
    assert replay(down).answer("GET", "/health").status == 503


def test_a_request_that_got_no_answer_is_a_502_not_collected() -> None:
    refused = route("/health", status=None, member=None, outcome=CollectorStatus.FAILED,
                    error="cannot connect: connection refused")  # fmt: skip
    reply = replay(refused).answer("GET", "/health")
    assert (reply.status, reply.kind) == (502, "not-collected")
    assert "connection refused" in json.loads(reply.body)["detail"]


def test_an_unsound_member_is_never_served() -> None:
    reply = replay(route("/workers"), unsound={"raw/http/workers.json": "sha256 mismatch"})
    answer = reply.answer("GET", "/workers")
    assert (answer.status, answer.kind) == (502, "unsound")
    assert b"[]" not in answer.body


def test_refused_routes_match_encoded_and_decoded_paths_and_win_over_a_capture() -> None:
    answers = replay(route("/workers/w1/connect"))
    assert answers.answer("GET", "/workers/w1/connect").kind == "refused"
    assert answers.answer("GET", "/workers/w%201/connect").kind == "refused"
    assert answers.answer("GET", "/admin/secrets/x").kind == "refused"
    assert answers.answer("GET", "/workflows/ns/wf/cancel/abc").status == 405


def test_every_method_but_get_is_405() -> None:
    answers = replay(route("/workers"))
    for method in ("POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS"):
        reply = answers.answer(method, "/workers")
        assert (reply.status, reply.kind, reply.headers["Allow"]) == (405, "method", "GET")


def test_of_two_captures_of_one_request_the_one_with_a_body_is_served() -> None:
    failed = route("/workers", status=503, member=None, outcome=CollectorStatus.FAILED)
    assert replay(failed, route("/workers")).answer("GET", "/workers").kind == "captured"


def test_a_target_that_cannot_be_parsed_is_a_400_not_an_exception() -> None:
    answers = replay(route("/workers"))
    reply = answers.answer("GET", "http://[/workers")
    assert (reply.status, reply.kind) == (400, "bad-request")
    assert "cannot be parsed" in json.loads(reply.body)["detail"]


def test_a_recorded_status_or_content_type_that_is_not_http_is_unsound() -> None:
    bad = {
        "/a": route("/a", member="raw/http/workers.json", status=1000),
        "/b": route("/b", member="raw/http/workers.json", status=101),
        "/c": route("/c", member="raw/http/workers.json", content_type="a/b\r\nSet-Cookie: x=1"),
        "/d": route("/d", member="raw/http/workers.json", content_type='a/b; p="\u20ac"'),
        "/e": route("/e", member=None, status=99, outcome=CollectorStatus.FAILED),
    }
    answers = replay(*bad.values())
    for path in bad:
        reply = answers.answer("GET", path)
        assert (reply.status, reply.kind) == (502, "unsound"), path
        assert "not served" in json.loads(reply.body)["detail"], path
        assert b"[]" not in reply.body
        assert all("\r" not in v and "\n" not in v for v in reply.headers.values())


def test_a_204_or_304_has_no_body_captured_or_status_only() -> None:
    answers = replay(
        route("/workers", status=204),
        route("/health", status=304, member=None, outcome=CollectorStatus.FAILED),
    )
    captured = answers.answer("GET", "/workers")
    assert (captured.status, captured.kind, captured.body) == (204, "captured", b"")
    status_only = answers.answer("GET", "/health")
    assert (status_only.status, status_only.kind, status_only.body) == (304, "status-only", b"")
    assert "Content-Type" not in status_only.headers


def test_a_recorded_path_doctor_could_not_have_asked_is_unsound_not_a_route() -> None:
    """A manifest edited to record a dot segment or a line break makes no route of it."""
    for path in ("/workers/../admin/secrets", "/workers/%2e%2e/admin/secrets", "/ready\r\nX: 1"):
        answers = replay(route(path, member="raw/http/workers.json"))
        reply = answers.answer("GET", path.replace("\r\n", "%0d%0a"))
        assert reply.body != b"[]", path
        assert reply.kind in ("unsound", "refused"), (path, reply.kind)


def test_refused_routes_match_with_dot_segments_resolved() -> None:
    answers = replay(route("/workers"))
    assert answers.answer("GET", "/workers/x/../w1/connect").kind == "refused"
    assert answers.answer("GET", "/workers/../admin/secrets").kind == "refused"
    assert answers.answer("GET", "/x/%2e%2e/admin/secrets").kind == "refused"
    assert answers.answer("GET", "/workers/./w1/connect").kind == "refused"
    assert answers.answer("GET", "/workers").kind == "captured"
