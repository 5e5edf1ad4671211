"""The normalizer against the running simulator: each scenario's cause shows up as evidence.

Collection is the real doctor, in-process (tests/support/lyftdata_collect.py);
the CLI end-to-end runs are in test_end_to_end.py.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bundler.products.base import NormalizeContext
from bundler.products.lyftdata import PROFILE
from bundler.products.lyftdata.normalize import normalize
from bundler.source import MemorySource
from schemas import EVIDENCE_KINDS
from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    ConnectionState,
    DeploymentEvidence,
    JobPhase,
    LocalStateEvidence,
    OutcomeEvidence,
    PlacementEvidence,
    ProductInfo,
    RequirementsEvidence,
    ServerEvidence,
    WorkersEvidence,
)
from schemas.manifest import CollectorStatus
from tests.support.lyftdata_collect import Collected, collect
from tests.support.lyftdata_sim import running_simulator

CACHED_KEY = b"LDWK-SIM-CACHED-KEY"


@pytest.fixture
def collected(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Collected]:
    scenario, trust_ca = (
        request.param if isinstance(request.param, tuple) else (request.param, True)
    )
    with running_simulator(scenario, tmp_path) as sim:
        yield collect(sim, trust_ca=trust_ca)


def _roundtrip(result: Collected) -> None:
    """Every document validates against its schema as written into the bundle."""
    for doc in result.docs:
        cls = EVIDENCE_KINDS[doc.schema_name]
        cls.model_validate_json(result.source.read_bytes(cls.member_path))


@pytest.mark.parametrize("collected", ["healthy"], indirect=True)
def test_healthy_every_rung_is_evidenced(collected: Collected) -> None:
    _roundtrip(collected)
    assert all(d.complete and not d.gaps for d in collected.docs), [
        (d.member_path, d.gaps) for d in collected.docs if d.gaps
    ]
    server = collected.doc(ServerEvidence)
    assert server.reachable
    assert server.healthy
    assert server.auth.status == "ok"
    assert server.tls.verified is True
    assert server.license.state == "valid"
    assert server.version == "1.4.2"
    (worker,) = collected.doc(WorkersEvidence).workers
    assert worker.connection is ConnectionState.ONLINE
    assert worker.heartbeat_age_s < 30
    assert worker.labels == {"zone": "dmz", "os": "linux"}
    assert worker.host_alias == "h01"
    assert worker.metadata["service.ActiveState"] == "active"
    (auth,) = collected.doc(AuthorizationEvidence).workers
    assert auth.decision == "allow"
    assert auth.lease.signature.verified is True
    (placement,) = collected.doc(PlacementEvidence).placements
    assert [(v.worker, v.verdict) for v in placement.per_worker] == [("edge-01", "placed")]
    (record,) = collected.doc(DeploymentEvidence).deployments
    assert [jd.state for jd in record.job_deployments] == ["active"]
    assert record.last_known_good == "dep_7f3c@6"
    (report,) = collected.doc(RequirementsEvidence).reports
    assert report.blockers == []
    assert not report.secret_values_included
    (capacity,) = collected.doc(CapacityEvidence).workers
    assert capacity.memory_total_bytes == 8 << 30
    assert capacity.cpu_available == 3.2
    outcome = collected.doc(OutcomeEvidence)
    assert outcome.canaries[0].phase == "successful"
    assert outcome.receipts[0].strength == "indexed"
    product = collected.doc(ProductInfo)
    assert product.worker_versions == {"edge-01": "1.4.2"}
    assert product.heartbeat.interval_s == 15
    files = {f.path: f for f in collected.doc(LocalStateEvidence).files}
    assert {p: f.integrity for p, f in files.items() if f.kind == "sqlite"} == {
        "worker.db": "ok",
        "auth-cache.db": "ok",
        "settings.db": "ok",
    }
    assert files["identity/api-key"].kind == "key"
    assert files["identity/api-key"].integrity == "not_checked"


@pytest.mark.parametrize("collected", ["healthy"], indirect=True)
def test_the_ca_file_given_is_recorded(collected: Collected) -> None:
    assert collected.doc(ServerEvidence).tls.ca_file_used


@pytest.mark.parametrize("collected", ["healthy"], indirect=True)
def test_cached_keys_are_listed_never_read(collected: Collected) -> None:
    for name in collected.source.names():
        assert CACHED_KEY not in collected.source.read_bytes(name), name


@pytest.mark.parametrize("collected", [("tls_untrusted", False)], indirect=True)
def test_untrusted_certificate_is_a_tls_failure(collected: Collected) -> None:
    server = collected.doc(ServerEvidence)
    assert server.reachable is False
    assert server.tls.verified is False
    assert server.tls.error == "certificate_verify_failed"
    assert not server.complete
    assert "http.health" in server.gaps
    assert not collected.doc(WorkersEvidence).complete


@pytest.mark.parametrize("collected", ["token_rejected"], indirect=True)
def test_rejected_token_is_an_auth_failure(collected: Collected) -> None:
    server = collected.doc(ServerEvidence)
    assert server.reachable is True
    assert server.auth.status == "rejected"
    assert server.auth.http_status == 401
    http = [r for r in collected.results if r.host is None]
    fanned = {s.id for s in PROFILE.plan().http_steps() if s.for_each}
    # every request the token could make was refused; nothing was there to fan out over
    assert {r.status for r in http if r.step not in fanned} == {CollectorStatus.REFUSED}
    assert {r.status for r in http if r.step in fanned} == {CollectorStatus.SKIPPED}


@pytest.mark.parametrize("collected", ["heartbeat_stale"], indirect=True)
def test_stale_heartbeat(collected: Collected) -> None:
    workers = collected.doc(WorkersEvidence)
    (worker,) = workers.workers
    assert worker.connection is ConnectionState.OFFLINE
    # 412 s before the simulator answered; the age is measured from when that
    # response arrived, not from the start of the run, so it never reads low
    assert 412 <= worker.heartbeat_age_s < 412 + 60
    policy = workers.heartbeat
    assert worker.heartbeat_age_s > policy.timeout_s + policy.grace_s


@pytest.mark.parametrize("collected", ["clock_skew"], indirect=True)
def test_clock_skew_is_measured_by_the_product(collected: Collected) -> None:
    auth = collected.doc(AuthorizationEvidence)
    (entry,) = auth.workers
    assert (entry.clock_skew_s, auth.lease_clock_tolerance_s) == (300, 60)
    assert (entry.decision, entry.native_code) == ("deny", "lease_clock_skew")


@pytest.mark.parametrize("collected", ["placement_wrong_group"], indirect=True)
def test_wrong_group_placement(collected: Collected) -> None:
    (placement,) = collected.doc(PlacementEvidence).placements
    assert placement.native_code == "NO_ELIGIBLE_WORKERS"
    assert placement.eligible == 0
    assert placement.per_worker[0].reasons == ["NOT_IN_WORKER_GROUP"]
    assert placement.desired.worker_group == "dmz-ingest"


@pytest.mark.parametrize("collected", ["requirements_blocked"], indirect=True)
def test_requirement_blockers_are_each_named(collected: Collected) -> None:
    (report,) = collected.doc(RequirementsEvidence).reports
    assert sorted(b.code for b in report.blockers) == [
        "CREDENTIAL_NOT_BOUND",
        "CREDENTIAL_WORKER_NOT_ALLOWED",
        "DB_ACL_DENIED",
        "SOURCE_PATH_MISSING",
    ]
    statuses = {r.id: r.status for r in report.requirements}
    assert statuses["dbacl:analytics.events"] == "denied"
    assert statuses["cred-allow:hec_token"] == "satisfied"


@pytest.mark.parametrize("collected", ["corrupt_state"], indirect=True)
def test_corrupt_sqlite_is_found_by_a_read_only_check(collected: Collected) -> None:
    files = {f.path: f for f in collected.doc(LocalStateEvidence).files}
    assert files["worker.db"].integrity == "corrupt"
    assert "malformed" in files["worker.db"].detail
    assert files["worker.db"].source.member == "hosts/h01/sqlite-worker.txt"
    assert files["auth-cache.db"].integrity == "ok"


@pytest.mark.parametrize("collected", ["capacity_insufficient"], indirect=True)
def test_capacity_shortfall_keeps_the_job_waiting(collected: Collected) -> None:
    from schemas.evidence import JobsEvidence

    (job,) = collected.doc(JobsEvidence).jobs
    assert job.phase is JobPhase.SCHEDULED
    assert job.assigned_worker == "edge-01"
    assert job.requirements.resources.memory_bytes == 16 << 30
    (capacity,) = collected.doc(CapacityEvidence).workers
    assert capacity.memory_available_bytes == 3 << 30


def test_nothing_collected_means_incomplete_not_empty_success() -> None:
    ctx = NormalizeContext(
        source=MemorySource(), results=[], hosts=[], observed_at=datetime.now(UTC)
    )
    docs = normalize(ctx)
    assert {d.schema_name for d in docs} >= {"evidence.server", "evidence.workers"}
    workers = next(d for d in docs if isinstance(d, WorkersEvidence))
    assert workers.complete is False
    assert workers.workers == []
    assert next(d for d in docs if isinstance(d, ServerEvidence)).reachable is None


def test_responses_that_break_the_contract_are_skipped_not_fatal() -> None:
    from bundler.products.base import StepResult

    source = MemorySource(
        {
            "raw/http/workers.json": [{"id": "w1", "state": "online"}, {"no_id": True}],
            "raw/http/license.json": {"mode": "licensed"},
        }
    )
    results = [
        StepResult("workers", "http.workers", CollectorStatus.OK, "raw/http/workers.json"),
        StepResult("license", "http.license", CollectorStatus.OK, "raw/http/license.json"),
    ]
    ctx = NormalizeContext(source=source, results=results, hosts=[], observed_at=datetime.now(UTC))
    docs = {d.schema_name: d for d in normalize(ctx)}
    assert [w.name for w in docs["evidence.workers"].workers] == ["w1"]
    assert docs["evidence.server"].license is None
    # ... but what was skipped is a gap: the analyzer must not judge a fleet without it
    assert docs["evidence.workers"].gaps == ["http.workers"]
    assert docs["evidence.workers"].complete is False
    assert "http.license" in docs["evidence.server"].gaps


def test_a_worker_listed_twice_differently_keeps_both_entries_words() -> None:
    """The per-worker status answers once per id: it must not make two contradicting list
    entries read as one agreeing worker (the analyzer judges the contradiction)."""
    from bundler.products.base import StepResult

    source = MemorySource(
        {
            "raw/http/workers.json": [
                {"id": "w1", "state": "online"},
                {"id": "w1", "state": "offline"},
                {"id": "w2", "state": "online"},
                {"id": "w2", "state": "online"},
            ],
            "raw/http/worker-status/000.json": {"id": "w1", "state": "online"},
            "raw/http/worker-status/001.json": {"id": "w2", "state": "stale"},
        }
    )
    results = [
        StepResult("workers", "http.workers", CollectorStatus.OK, "raw/http/workers.json"),
        *(
            StepResult(
                "worker-status",
                f"http.worker-status.00{i}",
                CollectorStatus.OK,
                f"raw/http/worker-status/00{i}.json",
                bound={"id": name},
            )
            for i, name in enumerate(("w1", "w2"))
        ),
    ]
    ctx = NormalizeContext(source=source, results=results, hosts=[], observed_at=datetime.now(UTC))
    workers = next(d for d in normalize(ctx) if isinstance(d, WorkersEvidence)).workers
    assert [(w.name, w.native_status) for w in workers] == [
        ("w1", "online"),
        ("w1", "offline"),
        ("w2", "stale"),  # entries that agree: the status answer is still the fresher word
        ("w2", "stale"),
    ]
    assert [w.source.pointer for w in workers[:2] if w.source] == ["/0", "/1"]


def test_a_member_that_misfits_when_read_makes_its_document_incomplete() -> None:
    """A member the collector did not validate (an older bundle, re-derived evidence)
    shows it does not fit only when read, after the document's gaps were listed."""
    from bundler.products.base import StepResult

    source = MemorySource({"raw/http/workers/w1/auth.json": {"decision": ["not", "a", "word"]}})
    results = [
        StepResult(
            "worker-auth",
            "http.worker-auth.w1",
            CollectorStatus.OK,
            "raw/http/workers/w1/auth.json",
            bound={"id": "w1"},
        )
    ]
    ctx = NormalizeContext(source=source, results=results, hosts=[], observed_at=datetime.now(UTC))
    auth = next(d for d in normalize(ctx) if isinstance(d, AuthorizationEvidence))
    assert auth.workers == []
    assert auth.gaps == ["http.worker-auth.w1"]
    assert auth.complete is False


def test_tls_failures_are_classified_from_the_transport_error() -> None:
    from bundler.products.base import StepResult
    from bundler.products.lyftdata.normalize.server import tls_error_code

    def failed(error_class: str, message: str) -> StepResult:
        return StepResult(
            "health",
            "http.health",
            CollectorStatus.REFUSED,
            error_class=error_class,
            error_message=message,
        )

    engine = failed(
        "TLSVerifyFailed",
        "TLS certificate not trusted (unable to get local issuer certificate); pass --ca-cert FILE",
    )
    assert tls_error_code(engine) == "certificate_verify_failed"
    assert (
        tls_error_code(
            failed(
                "ConnectError",
                "[SSL: CERTIFICATE_VERIFY_FAILED] certificate verify failed: Hostname mismatch",
            )
        )
        == "hostname_mismatch"
    )
    assert (
        tls_error_code(
            failed("TLSVerifyFailed", "TLS certificate not trusted (certificate has expired)")
        )
        == "certificate_expired"
    )
    assert tls_error_code(failed("ConnectFailed", "connection refused")) is None


def test_sqlite_exit_codes_are_findings() -> None:
    from bundler.products.base import StepResult
    from bundler.products.lyftdata.normalize.host_files import classify_integrity

    def ran(exit_code: int, status: CollectorStatus = CollectorStatus.OK) -> StepResult:
        return StepResult("sqlite-worker", "ssh.h01.sqlite-worker", status, exit_code=exit_code)

    assert classify_integrity(ran(0), "ok\n").status == "ok"
    damaged = classify_integrity(ran(0), "*** in database main ***\nPage 4: never used\n")
    assert damaged.status == "corrupt"
    assert "Page 4" in (damaged.detail or "")
    assert classify_integrity(ran(11), "Page 3: btreeInitPage() returns error code 11").status == (
        "corrupt"
    )
    assert classify_integrity(ran(26), "").status == "corrupt"
    assert classify_integrity(ran(1), "").status == "absent"
    assert classify_integrity(ran(127, CollectorStatus.SKIPPED), "").status == "not_checked"
