"""Which requests a bundle answers: recorded exactly, or rebuilt from the plan for older bundles."""

from __future__ import annotations

import hashlib
import json

import pytest

from bundler.products.flux import PROFILE
from bundler.serve import captured_routes
from bundler.source import MemorySource
from schemas import CollectorOutcome, EncryptionInfo, HttpExchange, Manifest, MemberEntry, ToolInfo

WORKERS = [{"name": "w1"}, {"name": "w 2"}]


def entry(path: str, data: bytes) -> MemberEntry:
    return MemberEntry(path=path, sha256=hashlib.sha256(data).hexdigest(), size=len(data),
                       media_type="application/json")  # fmt: skip


def old_bundle() -> tuple[Manifest, MemorySource]:
    """Collectors as a bundler before ``CollectorOutcome.http`` wrote them."""
    body = json.dumps(WORKERS).encode()
    source = MemorySource({"raw/http/workers.json": body, "raw/http/worker/001.json": b"{}"})
    collectors = [
        CollectorOutcome(id="http.workers", kind="http", target="/workers", status="ok",
                         members=["raw/http/workers.json"]),
        CollectorOutcome(id="http.worker.001", kind="http", target="/workers/{name}",
                         status="ok", members=["raw/http/worker/001.json"]),
        CollectorOutcome(id="http.metrics", kind="http", target="/metrics", status="skipped",
                         note="observability off"),
        CollectorOutcome(id="http.health", kind="http", target="/health", status="failed",
                         error_class="HttpStatusError", error_message="HTTP 503: db down"),
        CollectorOutcome(id="http.execution.running.000", kind="http",
                         target="/executions/{execution_id}", status="skipped", attempts=0,
                         note="not run"),
    ]  # fmt: skip
    manifest = Manifest(
        tool=ToolInfo(version="0.1"),
        created_at="2026-12-01T00:00:00Z",  # type: ignore[arg-type]
        bundle_id="b1",
        profile="flux",
        members=[entry("raw/http/workers.json", body), entry("raw/http/worker/001.json", b"{}")],
        collectors=collectors,
        encryption=EncryptionInfo(mode="password"),
    )
    return manifest, source


def test_an_older_bundle_is_rebuilt_from_the_plan() -> None:
    manifest, source = old_bundle()
    routes = {r.collector: r for r in captured_routes(manifest, source, PROFILE)}
    assert (routes["http.workers"].shown, routes["http.workers"].status) == ("/workers", 200)
    second = routes["http.worker.001"]
    assert (second.path, second.member, second.exact) == (
        "/workers/w%202",
        "raw/http/worker/001.json",
        False,
    )
    assert routes["http.metrics"].status == 404  # an optional route skipped after asking: a 404
    assert routes["http.health"].status == 503  # from the recorded error
    assert "http.execution.running.000" not in routes  # nothing to expand: never asked


def _with_workers(body: bytes) -> tuple[Manifest, MemorySource]:
    """:func:`old_bundle` with ``body`` as the stored ``GET /workers`` answer."""
    manifest, source = old_bundle()
    source.add("raw/http/workers.json", body)
    members = [entry("raw/http/workers.json", body), *manifest.members[1:]]
    return manifest.model_copy(update={"members": members}), source


@pytest.mark.parametrize(
    ("body", "why"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested past any stack"),
        (b'[{"name": "w1"}, {"name": "w 2", "name": "w3"}]', "a key named twice"),
        (b'[{"name": "w1"}, {"name": "w\\ud800"}]', "a lone surrogate"),
    ],
)
def test_an_older_bundle_s_parent_document_is_parsed_as_every_reader_parses_it(
    body: bytes, why: str
) -> None:
    """A fan-out's requests are rebuilt from the parent's stored document; one the readers
    refuse rebuilds none (and raises nothing): 100,000 ``[`` was a RecursionError."""
    manifest, source = _with_workers(body)
    routes = {r.collector: r for r in captured_routes(manifest, source, PROFILE)}
    assert "http.worker.001" not in routes, why
    assert routes["http.workers"].shown == "/workers"


def test_an_older_bundle_s_parent_document_over_the_json_cap_rebuilds_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    body = json.dumps(WORKERS + [{"name": f"w{n}"} for n in range(3, 200)]).encode()
    manifest, source = _with_workers(body)
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", "1KiB")
    routes = {r.collector: r for r in captured_routes(manifest, source, PROFILE)}
    assert len(body) > 1024
    assert "http.worker.001" not in routes
    monkeypatch.setenv("BUNDLER_MAX_JSON_BYTES", "1MiB")
    routes = {r.collector: r for r in captured_routes(manifest, source, PROFILE)}
    assert routes["http.worker.001"].path == "/workers/w%202"


def test_a_recorded_request_wins_over_the_plan() -> None:
    manifest, source = old_bundle()
    manifest.collectors[1].http = HttpExchange(
        path="/workers/w%202", query="", status_code=200, content_type="application/json; x=1"
    )
    routes = {r.collector: r for r in captured_routes(manifest, source, PROFILE)}
    assert routes["http.worker.001"].exact is True
    assert routes["http.worker.001"].content_type == "application/json; x=1"


def test_without_the_profile_an_older_bundle_has_no_routes() -> None:
    manifest, source = old_bundle()
    assert captured_routes(manifest, source, None) == []


def test_a_body_member_must_be_this_collectors_captured_response() -> None:
    """Only a member under ``raw/http/`` (no dot segment) that the manifest does not list as
    another collector's is a route's answer; anything else is a problem, never a body."""
    manifest, source = old_bundle()
    manifest.members[0].collector = "http.workers"
    problems = {r.collector: r.body_problem for r in captured_routes(manifest, source, PROFILE)}
    assert problems["http.workers"] is None
    assert problems["http.worker.001"] is None  # listed without a collector: taken as its own
    for named in ("manifest.json", "raw/http/x/../../manifest.json", "raw/http/", "raw/httpx"):
        manifest.collectors[1].members = [named]
        (route,) = [r for r in captured_routes(manifest, source, PROFILE) if r.member == named]
        assert route.body_problem is not None, named
        assert "is not a captured HTTP response (raw/http/)" in route.body_problem
    manifest.collectors[1].members = ["raw/http/workers.json"]
    routes = {r.collector: r for r in captured_routes(manifest, source, PROFILE)}
    assert routes["http.worker.001"].body_problem == (
        "the recorded body member 'raw/http/workers.json' is not this request's response "
        "(the manifest lists it as made by 'http.workers')"
    )
