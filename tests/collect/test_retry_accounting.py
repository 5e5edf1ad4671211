"""What the manifest says about retries and throttling is what happened.

Found: three 500s were recorded as attempts=1 (the error class's default hid
the count), a 429 whose Retry-After was waited for twice read only "not waited
for" with attempts=1, and ``throttle_waited_s`` summed every request's wait
(19-26 s for a 5 s run). Real server, real engine, real waits (short ones).
"""

from __future__ import annotations

import threading
import time

from bundler.archive.contracts import MemorySink
from bundler.collect.budget import Budget
from bundler.collect.context import EngineSettings
from bundler.collect.engine import CollectionResult, Engine
from bundler.collect.transports.http import HttpCollector, HttpOptions
from bundler.collect.transports.politeness import ApiUsage, Throttle
from tests.collect.testprofile import SampleProfile
from tests.support.http_server import Reply, ScriptedHTTPServer


def _run(url: str) -> tuple[CollectionResult, dict[str, object]]:
    http = HttpCollector(HttpOptions(url, backoff_s=0.01))
    try:
        profile = SampleProfile()
        engine = Engine(
            MemorySink(),
            [],
            plan=profile.plan(),
            profile=profile,
            settings=EngineSettings(timeout_s=20, deadline_s=60),
            http=http,
        )
        return engine.run(), http.usage.manifest_record()
    finally:
        http.close()


def _health(result: CollectionResult) -> object:
    return next(o for o in result.outcomes if o.id == "http.health")


def test_a_status_error_after_retries_records_every_attempt(
    http_server: ScriptedHTTPServer,
) -> None:
    http_server.route("/health", Reply(500, {"detail": "db down"}))
    result, _ = _run(http_server.url)
    health = _health(result)
    assert health.error_class == "HttpStatusError"  # type: ignore[attr-defined]
    assert health.attempts == 3  # type: ignore[attr-defined]
    assert http_server.paths().count("/health") == 3


def test_a_throttle_waited_for_says_so_and_counts_its_last_answer(
    http_server: ScriptedHTTPServer,
) -> None:
    http_server.route("/health", Reply(429, {"detail": "slow down"}, headers={"Retry-After": "1"}))
    result, api = _run(http_server.url)
    health = _health(result)
    assert health.attempts == 3  # type: ignore[attr-defined]
    assert "held back" in (health.note or "")  # type: ignore[attr-defined]
    assert "retried (3 attempts made)" in (health.note or "")  # type: ignore[attr-defined]
    assert api["throttled"] == 3
    assert api["throttle_not_waited"] == 1  # the last answer, with no attempt left


def test_requests_waiting_together_count_the_wait_once() -> None:
    usage = ApiUsage(max_in_flight=8, max_retry_after_s=30)
    throttle = Throttle(usage)
    budget = Budget.start(30)
    assert throttle.asked_to_wait(0.5, budget)
    ready = threading.Barrier(8)

    def request() -> None:
        ready.wait()
        throttle.acquire(budget)
        throttle.release()

    threads = [threading.Thread(target=request) for _ in range(8)]
    started = time.monotonic()
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    assert usage.requests == 8
    assert 0 < usage.waited_s <= elapsed  # wall-clock time held back, not 8 waits summed
