"""The Flux normalizer on hand-made raw members laid out like a bundle."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bundler.products.base import NormalizeContext, StepResult
from bundler.products.flux import PROFILE
from bundler.source import MemorySource
from schemas.evidence import (
    AuthorizationEvidence,
    ConnectionState,
    DeploymentEvidence,
    HealthState,
    JobPhase,
    JobsEvidence,
    LocalStateEvidence,
    OutcomeEvidence,
    PlacementEvidence,
    ProductInfo,
    ServerEvidence,
    WorkersEvidence,
)
from schemas.manifest import CollectorStatus, HostRole, HostSummary

OK = CollectorStatus.OK
NOW = datetime(2026, 11, 29, 17, 10, 5, tzinfo=UTC)
WORKERS = json.loads(Path(__file__).with_name("data").joinpath("workers.json").read_text())
HOSTS = [
    HostSummary(alias="h01", role=HostRole.SERVER, transport="local"),
    HostSummary(alias="h02", role=HostRole.WORKER, worker="w1", transport="local"),
    HostSummary(alias="h03", role=HostRole.WORKER, worker="w2", transport="local"),
]


class Raw:
    """Collect raw members and step results the way the engine would."""

    def __init__(self) -> None:
        self.source = MemorySource()
        self.results: list[StepResult] = []

    def http(self, step: str, member: str, body: object, **extra: object) -> Raw:
        self.source.add(member, body)
        self.results.append(
            StepResult(step=step, collector=f"http.{step}", status=OK, member=member,
                       http_status=200, **extra)  # type: ignore[arg-type]
        )  # fmt: skip
        return self

    def host(self, step: str, alias: str, text: str, **extra: object) -> Raw:
        member = f"hosts/{alias}/{step}.txt"
        self.source.add(member, text)
        self.results.append(
            StepResult(step=step, collector=f"local.{alias}.{step}", status=OK, member=member,
                       host=alias, **extra)  # type: ignore[arg-type]
        )  # fmt: skip
        return self

    def failed(self, step: str, error_class: str, message: str) -> Raw:
        self.results.append(
            StepResult(step=step, collector=f"http.{step}", status=CollectorStatus.FAILED,
                       error_class=error_class, error_message=message)
        )  # fmt: skip
        return self

    def normalize(self) -> dict[type, object]:
        ctx = NormalizeContext(
            source=self.source, results=self.results, hosts=HOSTS, observed_at=NOW,
            server_url="http://127.0.0.1:8000",
        )  # fmt: skip
        return {type(doc): doc for doc in PROFILE.normalize(ctx)}


def healthy_raw() -> Raw:
    raw = Raw()
    raw.http(
        "health",
        "raw/http/health.json",
        {"status": "healthy", "database": True, "version": "0.87.5"},
    )
    raw.http("ready", "raw/http/ready.json", {"status": "ready", "database": True})
    raw.http("workers", "raw/http/workers.json", WORKERS)
    raw.results.append(
        StepResult(
            step="metrics",
            collector="http.metrics",
            status=CollectorStatus.SKIPPED,
            http_status=404,
        )
    )
    db = [
        {
            "name": "w1",
            "last_seen_at": "2026-11-29 17:10:01.500000",
            "max_concurrent_executions": 16,
            "read_at": "2026-11-29 17:10:02.000",
        },
        {
            "name": "w2",
            "last_seen_at": "2026-11-29 17:09:40.000000",
            "max_concurrent_executions": 1,
            "read_at": "2026-11-29 17:10:02.000",
        },
    ]
    raw.host("db-workers", "h01", json.dumps(db))
    raw.host(
        "flux-env",
        "h01",
        "FLUX_WORKERS__HEARTBEAT_INTERVAL=2\n"
        "FLUX_WORKERS__HEARTBEAT_TIMEOUT=6\nFLUX_WORKERS__BOOTSTRAP_TOKEN=<redacted>\n",
    )
    raw.host("flux-toml", "h01", "[flux.workers]\neviction_grace_period = 6\n")
    return raw  # fmt: skip


def test_server_product_and_workers_from_a_healthy_run():
    docs = healthy_raw().normalize()
    server = docs[ServerEvidence]
    assert (server.reachable, server.healthy, server.ready, server.version) == (
        True, True, True, "0.87.5",
    )  # fmt: skip
    assert server.auth.status == "anonymous"
    product = docs[ProductInfo]
    assert product.observability_enabled is False  # /metrics answered 404
    policy = product.heartbeat
    assert policy is not None
    assert (policy.interval_s, policy.timeout_s, policy.grace_s, policy.source) == (
        2, 6, 6, "settings",
    )  # fmt: skip
    assert "s3cr3t" not in json.dumps(product.model_dump(mode="json"))
    workers = {w.name: w for w in docs[WorkersEvidence].workers}
    assert workers["w1"].heartbeat_age_s == 0.5
    assert workers["w2"].heartbeat_age_s == 22.0
    assert workers["w2"].slots_max == 1
    assert workers["w1"].host_alias == "h02"
    assert workers["w1"].source is not None
    assert workers["w1"].source.pointer == "/0"
    assert all(d.product == "flux" and d.observed_at == NOW for d in docs.values())
    assert docs[DeploymentEvidence].applicable is False


def test_an_unreachable_server_keeps_the_transport_error():
    raw = Raw().failed("health", "ConnectError", "All connection attempts failed")
    raw.failed("workers", "ConnectError", "All connection attempts failed")
    server = raw.normalize()[ServerEvidence]
    assert server.reachable is False
    assert (server.error_class, server.error_message) == (
        "ConnectError",
        "All connection attempts failed",
    )
    assert server.healthy is None


def test_the_control_socket_knows_starvation_first_and_stale_sockets_are_found():
    raw = healthy_raw()
    raw.host("worker-status", "h02", '{"status": "active", "in_flight": 1, "healthy": false}')
    refused = "exit 1: Error talking to worker 'w2': [Errno 111] Connection refused"
    raw.results.append(
        StepResult(step="worker-status", collector="local.h03.worker-status", host="h03",
                   status=CollectorStatus.FAILED, exit_code=1, error_message=refused)
    )  # fmt: skip
    processes = (
        "  301 120 /venv/bin/python /venv/bin/flux start server\n"
        "  302 118 /venv/bin/python /venv/bin/flux start worker w1 --label zone=a\n"
    )
    raw.host("processes", "h03", processes)
    raw.host(
        "state-dir", "h03", "d 755 4096 1795000000.0 .flux\ns 600 0 1795000000.5 worker-w2.sock\n"
    )
    raw.host(
        "state-dir",
        "h01",
        "f 600 64 1795000000.0 bootstrap-token\nf 644 4096 1795000000.0 flux.db\n",
    )
    docs = raw.normalize()
    workers = {w.name: w for w in docs[WorkersEvidence].workers}
    assert workers["w1"].health is HealthState.UNHEALTHY
    assert docs[WorkersEvidence].complete  # a refused socket is an answer, not a gap
    local = docs[LocalStateEvidence]
    (socket,) = local.sockets
    assert (socket.worker, socket.host_alias, socket.responsive) == ("w2", "h03", False)
    assert socket.detail == (
        "stale: the socket file exists but nothing accepts on it (worker process not running)"
    )
    kinds = {f.path: f.kind for f in local.files}
    assert kinds == {"bootstrap-token": "key", "flux.db": "sqlite"}


def test_secret_settings_are_known_by_name_only():
    raw = healthy_raw()
    raw.host("flux-env-secrets", "h01", "FLUX_SECURITY__ENCRYPTION__ENCRYPTION_KEY\n")
    product = raw.normalize()[ProductInfo]
    assert product.settings["security.encryption.encryption_key"] == "<redacted>"
    assert product.settings_sources["security.encryption.encryption_key"] == "env"


def test_executions_get_requirements_from_workflows_and_pins_from_sqlite():
    raw = healthy_raw()
    raw.http(
        "executions.created",
        "raw/http/executions-created.json",
        {
            "executions": [
                {
                    "execution_id": "e1",
                    "workflow_namespace": "default",
                    "workflow_name": "needs_gpu",
                    "state": "CREATED",
                    "worker_name": None,
                },
                {
                    "execution_id": "e2",
                    "workflow_namespace": "default",
                    "workflow_name": "sleeper",
                    "state": "CREATED",
                    "worker_name": None,
                },
            ]
        },
    )
    raw.http(
        "workflow",
        "raw/http/workflow/000.json",
        {
            "id": "x",
            "namespace": "default",
            "name": "needs_gpu",
            "version": 1,
            "requests": {"gpu": 1, "memory": "4Gi", "packages": ["numpy>=2"]},
            "affinity": {"zone": "mars"},
            "metadata": {"runner": "inprocess"},
        },
    )
    raw.host("db-executions", "h01", json.dumps([
        {"execution_id": "e2", "workflow_namespace": "default", "workflow_name": "sleeper",
         "state": "CREATED", "worker_name": None, "claim_generation": 2,
         "required_worker": "w2", "preferred_worker": None, "park_deadline": None,
         "first_event_at": "2026-11-29 17:00:00.000", "last_event_at": "2026-11-29 17:05:00.000",
         "scheduled_count": 2}]))  # fmt: skip
    docs = raw.normalize()
    jobs = {j.id: j for j in docs[JobsEvidence].jobs}
    gpu = jobs["e1"].requirements
    assert gpu is not None
    assert gpu.labels == {"zone": "mars"}
    assert gpu.resources is not None
    assert (gpu.resources.gpu, gpu.resources.memory_bytes) == (1, 4 * 1024**3)
    assert gpu.resources.other == {"packages": ["numpy>=2"], "runner": "inprocess"}
    pinned = jobs["e2"]
    assert pinned.phase is JobPhase.UNASSIGNED
    assert pinned.claim_generation == 2
    assert pinned.requirements is not None
    assert pinned.requirements.required_worker == "w2"
    assert pinned.created_at == datetime(2026, 11, 29, 17, 0, tzinfo=UTC)
    # Flux computes no placement: the document that means "the product's verdict" is absent.
    assert PlacementEvidence not in docs


def test_registration_history_comes_from_both_logs():
    refused = ("2026-11-29 17:00:0{} - flux.worker - WARNING - Connection lost (HTTPStatusError: "
               "Client error '401 Unauthorized' for url 'http://x/workers/register'). "
               "Reconnecting in 1.0s...")  # fmt: skip
    raw = Raw()
    raw.http("workers", "raw/http/workers.json", [])
    raw.host("flux-toml", "h01", "[flux]\nlog_level = 'INFO'\n")
    raw.source.add("hosts/h02/logs/0.log", "\n".join(refused.format(i) for i in range(3)))
    raw.results.append(StepResult(step="logs", collector="local.h02.logs", status=OK,
                                  member="hosts/h02/logs/0.log", host="h02"))  # fmt: skip
    docs = raw.normalize()
    auth = {w.worker: w for w in docs[AuthorizationEvidence].workers}
    assert auth["w1"].decision == "deny"
    assert auth["w1"].registration is not None
    assert (auth["w1"].registration.rejected, auth["w1"].registration.last_status_code) == (3, 401)
    assert auth["w1"].native_code == "anonymous_writes_refused"
    assert auth["w2"].decision == "deny"  # no log, but the policy refuses everyone
    workers = docs[WorkersEvidence]
    assert workers.complete is False
    assert workers.gaps == ["registration:w1", "registration:w2"]


def test_the_last_run_per_workflow_is_the_canary():
    raw = healthy_raw()
    raw.host("db-last-runs", "h01", json.dumps([
        {"workflow_namespace": "default", "workflow_name": "hello_world", "execution_id": "r1",
         "state": "COMPLETED", "worker_name": "w1", "started_at": "2026-11-29 17:00:00.000",
         "finished_at": "2026-11-29 17:00:01.000"}]))  # fmt: skip
    outcome = raw.normalize()[OutcomeEvidence]
    (canary,) = outcome.canaries
    assert (canary.job, canary.phase, canary.mode, canary.worker) == (
        "default/hello_world", "successful", "last_run", "w1",
    )  # fmt: skip
    assert outcome.last_known_good == "default/hello_world run r1"


def test_invalid_raw_records_leave_a_gap_instead_of_a_crash():
    raw = healthy_raw()
    raw.host("db-workers", "h01", "not json at all")
    docs = raw.normalize()
    workers = docs[WorkersEvidence]
    assert "db-workers" in workers.gaps
    assert workers.complete is False
    assert {w.connection for w in workers.workers} == {ConnectionState.ONLINE}


def test_an_unreadable_workflow_record_leaves_the_jobs_document_incomplete():
    # The redactor keeps JSON valid (tests/redact); a record that still cannot be parsed
    # must not pass silently: the job stays, its requirements are unknown, and the
    # document says which step left it incomplete.
    broken = '{"id": "x", "name": "needs_gpu", "requests": {"gpu": 1}, "affinity": '
    raw = healthy_raw()
    raw.http("executions.created", "raw/http/executions-created.json", {"executions": [
        {"execution_id": "e1", "workflow_namespace": "default", "workflow_name": "needs_gpu",
         "state": "CREATED"}]})  # fmt: skip
    member = "raw/http/workflow/000.json"
    raw.source.add(member, broken)
    done = StepResult(step="workflow", collector="http.workflow", status=OK, member=member)
    raw.results.append(done)
    jobs = raw.normalize()[JobsEvidence]
    (job,) = jobs.jobs
    assert job.name.endswith("needs_gpu")
    assert not jobs.complete
    assert "workflow" in jobs.gaps


def test_a_zero_dated_event_is_not_the_start_of_a_run_read_from_the_api():
    """Without db-last-runs a run's times come from its events: one stamped at Go's zero time
    (or the epoch) made a run that ended today start in year 1. It is no moment."""
    raw = healthy_raw()
    events = [
        {"type": "WORKFLOW_STARTED", "time": "0001-01-01T00:00:00Z"},
        {"type": "TASK_STARTED", "time": "2026-11-29T17:00:00Z"},
        {"type": "TASK_COMPLETED", "time": "1970-01-01T00:00:00Z"},
        {"type": "WORKFLOW_COMPLETED", "time": "2026-11-29T17:00:05Z"},
    ]
    raw.http(
        "execution.completed",
        "raw/http/execution-completed/0.json",
        {"execution_id": "r1", "workflow_name": "hello_world", "state": "COMPLETED",
         "current_worker": "w1", "events": events},
    )  # fmt: skip
    (canary,) = raw.normalize()[OutcomeEvidence].canaries
    assert (canary.started_at, canary.finished_at) == (
        datetime(2026, 11, 29, 17, 0, tzinfo=UTC),
        datetime(2026, 11, 29, 17, 0, 5, tzinfo=UTC),
    )
    raw = healthy_raw()
    raw.http(
        "execution.completed",
        "raw/http/execution-completed/0.json",
        {"execution_id": "r1", "workflow_name": "hello_world", "state": "COMPLETED",
         "current_worker": "w1", "events": events[:1]},
    )  # fmt: skip
    (canary,) = raw.normalize()[OutcomeEvidence].canaries
    assert (canary.started_at, canary.finished_at) == (None, None)


def _finished_run(raw: Raw, index: int, run_id: str, state: str, stamps: list[str]) -> None:
    events = [{"type": f"EVENT_{i}", "time": stamp} for i, stamp in enumerate(stamps)]
    raw.http(
        "execution.finished",
        f"raw/http/execution-finished/{index}.json",
        {"execution_id": run_id, "workflow_name": "hello_world", "state": state,
         "current_worker": "w1", "events": events},
    )  # fmt: skip


def test_a_run_with_no_dated_event_is_kept_beside_the_latest_dated_one():
    """One run per workflow was kept, the latest by end time: a run whose every event reads
    a zero time (or that has no event) ended 'never' and was dropped beside any dated run,
    so the analyzer never saw that which run is the last is unknown. It is kept, in either
    order, and the outcome reads RUN_ORDER_UNDATED."""
    from bundler.products.flux.rules.outcome import flux_last_run
    from schemas import LayerStatus
    from tests.support.flux_evidence import FluxCase, online

    runs = [
        ("r1", "COMPLETED", ["2026-11-29T17:00:00Z", "2026-11-29T17:00:05Z"]),
        ("r0", "FAILED", ["0001-01-01T00:00:00Z", "1970-01-01T00:00:00Z"]),
        ("r2", "CANCELLED", []),
    ]
    for order in (runs, runs[::-1]):
        raw = healthy_raw()
        for index, run in enumerate(order):
            _finished_run(raw, index, *run)
        outcome = raw.normalize()[OutcomeEvidence]
        assert [(c.canary_id, c.phase, c.finished_at) for c in outcome.canaries] == [
            ("r0", "failed", None),
            ("r1", "successful", datetime(2026, 11, 29, 17, 0, 5, tzinfo=UTC)),
            ("r2", "inconclusive", None),
        ]
        assert outcome.last_known_good == "default/hello_world run r1"
        result = FluxCase(workers=[online("w1")], documents=[outcome]).run(flux_last_run)
        assert result is not None
        assert (result.status, [f.code for f in result.findings]) == (
            LayerStatus.UNKNOWN,
            ["RUN_ORDER_UNDATED"],
        )


def test_of_dated_runs_only_the_latest_is_kept():
    raw = healthy_raw()
    _finished_run(raw, 0, "r1", "FAILED", ["2026-11-29T17:00:00Z"])
    _finished_run(raw, 1, "r2", "COMPLETED", ["2026-11-29T17:01:00Z"])
    _finished_run(raw, 2, "r3", "COMPLETED", ["2026-11-29T16:59:00Z"])
    (canary,) = raw.normalize()[OutcomeEvidence].canaries
    assert canary.canary_id == "r2"


def test_runs_that_ended_at_the_same_instant_are_all_kept():
    """Of two runs of a workflow that ended at one instant neither is the later; the first
    the API listed was kept and the other dropped, so its order decided the outcome. Both
    are kept, in either order, and the outcome reads RUN_ORDER_TIED."""
    from bundler.products.flux.rules.outcome import flux_last_run
    from schemas import LayerStatus
    from tests.support.flux_evidence import FluxCase, online

    runs = [
        ("r1", "COMPLETED", ["2026-11-29T17:00:00Z", "2026-11-29T17:00:05Z"]),
        ("r2", "FAILED", ["2026-11-29T16:59:00Z", "2026-11-29T17:00:05Z"]),
        ("r0", "COMPLETED", ["2026-11-29T16:00:00Z"]),
    ]
    for order in (runs, runs[::-1]):
        raw = healthy_raw()
        for index, run in enumerate(order):
            _finished_run(raw, index, *run)
        outcome = raw.normalize()[OutcomeEvidence]
        assert [(c.canary_id, c.phase) for c in outcome.canaries] == [
            ("r1", "successful"),
            ("r2", "failed"),
        ]
        result = FluxCase(workers=[online("w1")], documents=[outcome]).run(flux_last_run)
        assert result is not None
        assert (result.status, [f.code for f in result.findings]) == (
            LayerStatus.UNKNOWN,
            ["RUN_ORDER_TIED"],
        )


def test_of_two_undated_successes_neither_is_the_last_known_good():
    raw = healthy_raw()
    _finished_run(raw, 0, "r1", "COMPLETED", ["0001-01-01T00:00:00Z"])
    _finished_run(raw, 1, "r2", "COMPLETED", [])
    outcome = raw.normalize()[OutcomeEvidence]
    assert [c.canary_id for c in outcome.canaries] == ["r1", "r2"]
    assert outcome.last_known_good is None
    raw = healthy_raw()
    _finished_run(raw, 0, "r1", "COMPLETED", ["0001-01-01T00:00:00Z"])
    assert raw.normalize()[OutcomeEvidence].last_known_good == "default/hello_world run r1"


def test_a_failure_whose_last_event_reads_a_zero_time_is_undated():
    """A job's time is its last event's. Stamped at a zero time, the failure fell back to the
    job's first event (17:00), older than a run of the same workflow at 17:05: the failure
    read as history. When it failed is unknown, so whether it is current is unknown."""
    from bundler.analyze.api import EvidenceSet
    from bundler.analyze.facts import job_time
    from bundler.analyze.trouble import job_trouble, latest_success
    from bundler.products.flux.rules.outcome import flux_last_run
    from schemas import LayerStatus
    from tests.support.flux_evidence import FluxCase, online

    raw = healthy_raw()
    for index, (run_id, state, stamps) in enumerate(
        [
            ("e0", "FAILED", ["2026-11-29T17:00:00Z", "0001-01-01T00:00:00Z"]),
            ("e1", "RUNNING", ["2026-11-29T17:05:00Z"]),
        ]
    ):
        raw.http(
            f"execution.{state.lower()}",
            f"raw/http/execution-{state.lower()}/{index}.json",
            {"execution_id": run_id, "workflow_name": "etl", "state": state,
             "current_worker": "w1",
             "events": [{"type": f"E{i}", "time": t} for i, t in enumerate(stamps)]},
        )  # fmt: skip
    jobs = raw.normalize()[JobsEvidence].jobs
    failed = next(j for j in jobs if j.id == "e0")
    assert job_time(failed) == float("-inf")
    case = FluxCase(workers=[online("w1")], jobs=jobs, documents=[OutcomeEvidence()])
    reason = job_trouble(EvidenceSet(case.source()), failed, latest_success(jobs))
    assert reason == "last run failed, undated: it may be later than the job's last success"
    result = case.run(flux_last_run, worker="w1", job=failed)
    assert result is not None
    assert (result.status, [f.code for f in result.findings]) == (
        LayerStatus.UNKNOWN,
        ["JOB_RUN_ORDER_UNDATED"],
    )
    assert "its time reads 0001-01-01 00:00:00Z" in result.findings[0].message


def _detail(raw: Raw, step: str, index: int, run_id: str, state: str, at: str) -> None:
    raw.http(
        f"execution.{step}",
        f"raw/http/execution-{step}/{index}.json",
        {"execution_id": run_id, "workflow_name": "etl", "state": state,
         "current_worker": "w1", "events": [{"type": "E0", "time": at}]},
    )  # fmt: skip


def _listed(raw: Raw, step: str, run_id: str, state: str) -> None:
    raw.http(
        f"executions.{step}",
        f"raw/http/executions-{step}.json",
        {"executions": [{"execution_id": run_id, "workflow_namespace": "default",
                         "workflow_name": "etl", "state": state, "worker_name": "w1"}]},
    )  # fmt: skip


def test_an_execution_read_twice_with_two_states_is_an_entry_dispute() -> None:
    """An execution read twice (it moved between the running and failed listings while they
    were read) kept the last detail read: failed or running by the API's order. Both records
    go to jobs.json, where the run is one entry whose records disagree."""
    from bundler.analyze.api import EvidenceSet
    from bundler.analyze.engine import analyze
    from tests.support.flux_evidence import FluxCase, online

    reads = [("running", "RUNNING"), ("failed", "FAILED")]
    for order in (reads, reads[::-1]):
        raw = healthy_raw()
        for index, (step, state) in enumerate(order):
            _listed(raw, step, "e1", state)
            _detail(raw, step, index, "e1", state, "2026-11-29T17:00:00Z")
        jobs = raw.normalize()[JobsEvidence].jobs
        assert sorted(j.native_state or "" for j in jobs if j.id == "e1") == ["FAILED", "RUNNING"]
        case = FluxCase(workers=[online("w1")], jobs=jobs, documents=[OutcomeEvidence()])
        report = analyze(EvidenceSet(case.source()), profile=PROFILE)
        [target] = [t for t in report.targets if t.job_id == "e1"]
        assert "its records disagree" in target.reason
        outcome = next(layer for layer in target.layers if layer.name.value == "outcome")
        assert outcome.status.value == "unknown"
        assert [f.code for f in outcome.findings] == ["EVIDENCE_RECORDS_CONFLICT"]


def test_an_execution_read_twice_alike_is_one_job() -> None:
    raw = healthy_raw()
    for index, step in enumerate(("running", "claimed")):
        _listed(raw, step, "e1", "RUNNING")
        _detail(raw, step, index, "e1", "RUNNING", "2026-11-29T17:00:00Z")
    [job] = [j for j in raw.normalize()[JobsEvidence].jobs if j.id == "e1"]
    assert job.native_state == "RUNNING"


def test_a_finished_run_read_twice_with_two_outcomes_is_a_canary_dispute() -> None:
    """Read completed and again failed at one time, the run's last detail read decided its
    canary; both records are canaries now, and the outcome is CANARY_RECORDS_CONFLICT."""
    from bundler.products.flux.rules.outcome import flux_last_run
    from schemas import LayerStatus
    from tests.support.flux_evidence import FluxCase, online

    reads = [("completed", "COMPLETED"), ("failed", "FAILED")]
    for order in (reads, reads[::-1]):
        raw = healthy_raw()
        for index, (step, state) in enumerate(order):
            _detail(raw, step, index, "r1", state, "2026-11-29T17:00:05Z")
        outcome = raw.normalize()[OutcomeEvidence]
        assert sorted(c.phase for c in outcome.canaries) == ["failed", "successful"]
        result = FluxCase(workers=[online("w1")], documents=[outcome]).run(flux_last_run)
        assert result is not None
        assert (result.status, [f.code for f in result.findings]) == (
            LayerStatus.UNKNOWN,
            ["CANARY_RECORDS_CONFLICT"],
        )
