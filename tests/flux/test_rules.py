"""Every Flux rule on small hand-made evidence: the case it must fail, and the one it must not."""

from __future__ import annotations

from datetime import UTC, datetime

from bundler.products.flux.normalize.capacity import capacity_evidence
from bundler.products.flux.rules.authorization import flux_registration
from bundler.products.flux.rules.capacity import flux_slots
from bundler.products.flux.rules.claims import flux_release_storm, flux_stale_claims
from bundler.products.flux.rules.gauges import flux_untrusted_gauges
from bundler.products.flux.rules.health import flux_starvation_history
from bundler.products.flux.rules.heartbeat import flux_worker_heartbeat
from bundler.products.flux.rules.inapplicable import (
    flux_no_deployment_step,
    flux_no_requirements_report,
)
from bundler.products.flux.rules.outcome import flux_last_run, flux_terminal_checkpoint_lost
from bundler.products.flux.rules.placement import flux_execution_placement
from bundler.products.flux.rules.server import flux_server_up
from bundler.products.flux.settings import effective_settings
from schemas import LayerStatus
from schemas.evidence import (
    AdminState,
    AuthorizationEvidence,
    CanaryRun,
    ConnectionState,
    ControlSocket,
    DeploymentEvidence,
    HealthState,
    HeartbeatPolicy,
    Job,
    JobPhase,
    JobRequirements,
    JobsEvidence,
    LocalStateEvidence,
    OutcomeEvidence,
    ProductInfo,
    RegistrationAttempts,
    RequirementsEvidence,
    ResourceRequest,
    ServerEvidence,
    WorkerAuthorization,
    WorkersEvidence,
)
from tests.support.flux_evidence import FluxCase, line, online, waiting

SERVER = "flux.server"
ROUTES = "flux.api.worker_routes"
WORKER = "flux.worker"


def codes(result) -> list[str]:
    return [f.code for f in result.findings]


def cycle(worker: str, start: int) -> list[str]:
    """One STALE -> evicted -> connected sequence, ``start`` seconds past 17:00."""
    return [
        line(f"17:00:{start:02d}", SERVER, f"Worker {worker} missed heartbeat, marked STALE "
             "(grace period: 6s)"),
        line(f"17:00:{start + 6:02d}", SERVER, f"Worker {worker} evicted (stale for >6s)"),
        line(f"17:00:{start + 7:02d}", ROUTES, f"Worker connected: {worker}"),
    ]  # fmt: skip


# -- server -------------------------------------------------------------------------------------


def test_server_down_cites_the_error_and_every_worker_that_lost_it():
    lost = "Connection lost (ConnectError: All connection attempts failed). Reconnecting in 0.5s..."
    case = FluxCase(
        documents=[
            ServerEvidence(
                url="http://flux:8000",
                reachable=False,
                error_class="ConnectError",
                error_message="All connection attempts failed",
            )
        ],
        worker_logs={w: [line("17:00:01", WORKER, lost)] for w in ("w1", "w2")},
    )
    result = case.run(flux_server_up, worker="w1")
    assert result.status is LayerStatus.FAIL
    assert codes(result) == ["FLUX_SERVER_UNREACHABLE"]
    finding = result.findings[0]
    assert "ConnectError" in finding.message
    assert finding.details["workers_lost"] == ["w1", "w2"]
    members = {c.member for c in finding.evidence}
    assert {"evidence/server.json", "hosts/h02/logs/0.log", "hosts/h03/logs/0.log"} <= members
    assert finding.recovery is not None


def test_server_unhealthy_and_healthy():
    sick = FluxCase(documents=[ServerEvidence(reachable=True, healthy=False, database_ok=None)])
    assert codes(sick.run(flux_server_up)) == ["FLUX_SERVER_UNHEALTHY"]
    no_database = FluxCase(
        documents=[ServerEvidence(reachable=True, healthy=False, database_ok=False)]
    )
    assert codes(no_database.run(flux_server_up)) == ["FLUX_DATABASE_UNAVAILABLE"]
    well = FluxCase().run(flux_server_up)
    assert well.status is LayerStatus.PASS


def _sqlite_case(source: str | None) -> FluxCase:
    extra = {} if source is None else {"settings_sources": {"database_url": source}}
    product = ProductInfo(  # type: ignore[call-arg]  # settings_sources is an extra
        name="flux",
        settings={"database_url": "sqlite:///.flux/flux.db"},
        heartbeat=HeartbeatPolicy(interval_s=10, timeout_s=30, grace_s=15, source="default"),
        **extra,
    )
    return FluxCase(workers=[online("w1"), online("w2")], documents=[product])


def test_sqlite_under_a_fleet_is_noted_when_the_database_url_is_known():
    for source in ("env", "flux.toml", "default", None):  # default: the configuration was read
        result = _sqlite_case(source).run(flux_server_up)
        assert "FLUX_SQLITE_MULTI_WORKER" in codes(result), source


def test_sqlite_assumed_because_no_configuration_was_read_is_no_finding():
    """A fleet on PostgreSQL whose server host was not collected: the URL is only the default."""
    result = _sqlite_case("unknown").run(flux_server_up)
    assert result is not None
    assert result.status is LayerStatus.PASS
    assert "FLUX_SQLITE_MULTI_WORKER" not in codes(result)


def test_settings_nobody_set_are_unknown_when_no_configuration_was_read():
    unread = effective_settings(toml_text=None, env=None, log_timings={})
    assert unread.source("database_url") == "unknown"
    assert unread.heartbeat_policy().source == "unknown"
    read = effective_settings(toml_text="", env=None, log_timings={})
    assert read.source("database_url") == "default"
    assert read.heartbeat_policy().source == "default"
    logged = effective_settings(
        toml_text=None, env=None, log_timings={"workers.heartbeat_timeout": 9}
    )
    assert logged.heartbeat_policy().source == "settings"


# -- heartbeat ----------------------------------------------------------------------------------


def test_an_eviction_loop_fails_with_the_load_balancer_advice():
    case = FluxCase(workers=[online("w2")], server_log=cycle("w2", 0) + cycle("w2", 20))
    result = case.run(flux_worker_heartbeat, worker="w2")
    assert result.status is LayerStatus.FAIL
    assert codes(result) == ["FLUX_EVICTION_LOOP"]
    finding = result.findings[0]
    assert finding.details["evictions"] == 2
    assert "5x heartbeat_interval" in finding.message
    assert len(finding.evidence) == 6
    assert any("idle timeout" in step for step in finding.recovery.steps)


def test_one_eviction_that_came_back_is_not_a_loop():
    case = FluxCase(workers=[online("w2")], server_log=cycle("w2", 0))
    result = case.run(flux_worker_heartbeat, worker="w2")
    assert result.status is LayerStatus.PASS


def test_an_evicted_worker_names_the_executions_taken_from_it():
    evicted = [
        *cycle("w2", 0)[:2],
        line("17:00:07", SERVER, "Unclaimed execution e1 from evicted worker w2"),
    ]
    offline = online("w2", connection=ConnectionState.OFFLINE, native_status="offline")
    result = FluxCase(workers=[offline], server_log=evicted).run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_WORKER_EVICTED"]
    assert result.findings[0].details["unclaimed"] == ["e1"]
    assert len(result.findings[0].evidence) == 4


def test_a_job_pinned_to_an_evicted_worker_is_blocked_at_its_heartbeat():
    offline = online("w2", connection=ConnectionState.OFFLINE, native_status="offline")
    job = waiting(required_worker="w2")
    case = FluxCase(workers=[offline], jobs=[job], server_log=cycle("w2", 0)[:2])
    assert codes(case.run(flux_worker_heartbeat, job=job)) == ["FLUX_WORKER_EVICTED"]


def test_a_killed_worker_is_offline_with_its_stale_socket():
    offline = online("w2", connection=ConnectionState.OFFLINE, native_status="offline")
    local = LocalStateEvidence(
        sockets=[ControlSocket(worker="w2", path="worker-w2.sock", responsive=False)]
    )
    case = FluxCase(
        workers=[offline],
        documents=[local],
        server_log=[line("17:00:01", ROUTES, "Worker w2 disconnected (remaining: 1)")],
        worker_logs={"w2": [line("16:59:00", WORKER, "Connection established successfully")]},
    )
    result = case.run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_WORKER_OFFLINE"]
    details = result.findings[0].details
    assert details == details | {"stale_socket": "worker-w2.sock", "clean_shutdown": False}
    assert "stale control socket" in result.findings[0].message


def _cut_off_case(*, responsive: bool | None, evicted: bool = False) -> FluxCase:
    """w2 marked STALE, then its stream closed by the server (listed offline), not yet
    evicted unless ``evicted``: what Flux shows seconds after a network cut (its persisted
    heartbeat frozen since the cut)."""
    offline = online(
        "w2", connection=ConnectionState.OFFLINE, native_status="offline", heartbeat_age_s=12.0
    )
    sockets = [] if responsive is None else [
        ControlSocket(worker="w2", path="worker-w2.sock", responsive=responsive)
    ]  # fmt: skip
    server_log = [
        line("17:00:06", SERVER, "Worker w2 missed heartbeat, marked STALE (grace period: 30s)"),
        line("17:00:10", ROUTES, "Worker w2 disconnected (remaining: 1)"),
    ]
    if evicted:
        server_log.append(line("17:00:36", SERVER, "Worker w2 evicted (stale for >30s)"))
    return FluxCase(
        workers=[offline], documents=[LocalStateEvidence(sockets=sockets)], server_log=server_log
    )


def test_a_stale_worker_whose_stream_the_server_closed_is_stale_not_ended():
    """Seen with a real network cut: GET /workers says offline a few seconds after the STALE
    line, long before the eviction. Its process answering on its host is no crash."""
    result = _cut_off_case(responsive=True).run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_HEARTBEAT_STALE"]
    (finding,) = result.findings
    assert "marked it STALE (missed heartbeat), then closed its stream" in finding.message
    assert "has not evicted it yet" in finding.message
    assert "process ended" not in finding.message
    assert "cut off by the network" in finding.message
    assert finding.details["cut_off"] is True
    assert "network path" in finding.recovery.summary
    assert any("when it evicts it" in step for step in finding.recovery.steps)
    assert not any("were unclaimed" in step for step in finding.recovery.steps)
    cited = [c.pointer or "" for c in finding.evidence]
    assert len(cited) == 4  # status, the STALE line, the disconnect, the socket that answered
    assert cited[-1].endswith("/responsive")


def test_a_stale_worker_whose_host_was_not_read_is_stale_without_a_cause():
    result = _cut_off_case(responsive=None).run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_HEARTBEAT_STALE"]
    assert result.findings[0].details["cut_off"] is False
    assert "stopped, hung or starved" in result.findings[0].recovery.steps[0]


def test_a_stale_worker_whose_socket_refuses_has_ended_whatever_the_server_says():
    result = _cut_off_case(responsive=False).run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_WORKER_OFFLINE"]
    assert result.findings[0].details["stale_socket"] == "worker-w2.sock"


def test_an_evicted_worker_cut_off_says_its_executions_were_unclaimed():
    result = _cut_off_case(responsive=True, evicted=True).run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_WORKER_EVICTED"]
    assert any("were unclaimed" in step for step in result.findings[0].recovery.steps)


def test_an_offline_worker_that_answers_on_its_host_is_cut_off_not_ended():
    """No STALE line in the bundle (rotated out), only the disconnect: the process runs."""
    case = _cut_off_case(responsive=True)
    case.server_log = case.server_log[1:]
    result = case.run(flux_worker_heartbeat, worker="w2")
    assert codes(result) == ["FLUX_WORKER_OFFLINE"]
    (finding,) = result.findings
    assert "process ended" not in finding.message
    assert "cut off by the network" in finding.message
    assert finding.details["cut_off"] is True
    assert "network path" in finding.recovery.summary


def test_a_worker_healed_before_its_eviction_is_not_stale():
    """Cut off, STALE, its stream closed; the path healed within the grace period: it
    reconnects, and the server says it recovered. Without a persisted heartbeat (PostgreSQL)
    the STALE line was still read as the log's last word, a failure."""
    case = _cut_off_case(responsive=True)
    case.server_log += [
        line("17:00:20", ROUTES, "Worker connected: w2"),
        line("17:00:22", SERVER, "Worker w2 recovered from stale state"),
    ]
    case.workers = [online("w2", heartbeat_age_s=None)]
    result = case.run(flux_worker_heartbeat, worker="w2")
    assert "FLUX_HEARTBEAT_STALE" not in codes(result)
    assert result.status is LayerStatus.UNKNOWN  # no heartbeat time read: undecided
    case.workers = [online("w2", heartbeat_age_s=1.0)]
    assert case.run(flux_worker_heartbeat, worker="w2").status is LayerStatus.PASS


def test_a_cleanly_stopped_worker_is_said_to_be_so():
    offline = online("w2", connection=ConnectionState.OFFLINE, native_status="offline")
    case = FluxCase(
        workers=[offline], worker_logs={"w2": [line("16:59:00", WORKER, "Worker shutting down...")]}
    )
    result = case.run(flux_worker_heartbeat, worker="w2")
    assert result.findings[0].details["clean_shutdown"] is True


def test_an_offline_worker_nobody_runs_is_a_phantom_not_an_incident():
    phantom = online(
        "old", connection=ConnectionState.OFFLINE, native_status="offline", host_alias=None
    )
    result = FluxCase(workers=[phantom]).run(flux_worker_heartbeat, worker="old")
    assert result.status is LayerStatus.NOT_APPLICABLE
    assert codes(result) == ["FLUX_PHANTOM_WORKER"]


def test_a_frozen_persisted_heartbeat_fails_before_the_server_says_stale():
    frozen = FluxCase(workers=[online("w1", heartbeat_age_s=20.0)])
    result = frozen.run(flux_worker_heartbeat, worker="w1")
    assert codes(result) == ["FLUX_HEARTBEAT_STALE"]
    within_a_tick = FluxCase(workers=[online("w1", heartbeat_age_s=7.5)])
    assert within_a_tick.run(flux_worker_heartbeat, worker="w1").status is LayerStatus.PASS


def test_online_with_no_persisted_heartbeat_is_unknown_not_connected():
    """GET /workers says online for up to timeout + grace after the last pong."""
    undated = FluxCase(workers=[online("w1", heartbeat_age_s=None)])
    result = undated.run(flux_worker_heartbeat, worker="w1")
    assert result.status is LayerStatus.UNKNOWN
    assert codes(result) == ["WORKER_HEARTBEAT_UNDATED"]
    ahead = FluxCase(workers=[online("w1", heartbeat_age_s=-3600.0)])
    assert codes(ahead.run(flux_worker_heartbeat, worker="w1")) == [
        "WORKER_HEARTBEAT_AFTER_COLLECTION"
    ]


def test_a_worker_that_connected_just_before_collection_is_fresh_without_a_persisted_heartbeat():
    """Flux flushes last_seen_at once per tick: a worker seconds old has none yet (seen in CI)."""
    just_connected = [line("17:09:57", SERVER, "Worker connected: w1 (total: 1)")]
    case = FluxCase(workers=[online("w1", heartbeat_age_s=None)], server_log=just_connected)
    result = case.run(flux_worker_heartbeat, worker="w1")
    assert result.status is LayerStatus.PASS
    assert "connected 3s before collection" in result.findings[0].message
    long_ago = [line("17:00:00", SERVER, "Worker connected: w1 (total: 1)")]
    stale = FluxCase(workers=[online("w1", heartbeat_age_s=None)], server_log=long_ago)
    assert codes(stale.run(flux_worker_heartbeat, worker="w1")) == ["WORKER_HEARTBEAT_UNDATED"]


def test_a_worker_listed_online_and_offline_is_unknown_whichever_comes_first():
    """GET /workers naming w2 twice: neither row is believed over the other."""
    up = online("w2")
    down = online("w2", connection=ConnectionState.OFFLINE, native_status="offline")
    for rows in ([up, down], [down, up]):
        result = FluxCase(workers=[online("w1"), *rows]).run(flux_worker_heartbeat, worker="w2")
        assert result.status is LayerStatus.UNKNOWN
        assert codes(result) == ["WORKER_RECORDS_CONFLICT"]
        assert [c.pointer for c in result.findings[0].evidence] == [
            "/workers/1/native_status",
            "/workers/2/native_status",
        ]
    twice = FluxCase(workers=[up, online("w2")]).run(flux_worker_heartbeat, worker="w2")
    assert twice.status is LayerStatus.PASS  # the same row twice is one worker


def test_a_persisted_heartbeat_at_go_zero_time_is_undated_not_stale():
    """A heartbeat time of 0001-01-01T00:00:00Z is "never": the age measured from it (63
    billion seconds) is no age, so the rung is unknown, not FLUX_HEARTBEAT_STALE."""
    never = datetime(1, 1, 1, tzinfo=UTC)
    case = FluxCase(workers=[online("w1", last_heartbeat_at=never, heartbeat_age_s=6.4e10)])
    result = case.run(flux_worker_heartbeat, worker="w1")
    assert result.status is LayerStatus.UNKNOWN
    assert codes(result) == ["WORKER_HEARTBEAT_UNDATED"]
    assert "0001-01-01 00:00:00Z, the zero time" in result.findings[0].message


def test_starvation_on_the_inprocess_runner_is_explained():
    starver = Job(
        name="default/loop_starver",
        id="s1",
        native_state="CLAIMED",
        phase=JobPhase.CLAIMED,
        assigned_worker="w1",
        requirements=JobRequirements(resources=ResourceRequest(other={"runner": "inprocess"})),
    )
    starved = "Event loop starved (lag 1.55s >= 1.0s for 3 probes); marking worker unhealthy"
    case = FluxCase(
        workers=[online("w1", health=HealthState.UNHEALTHY)],
        jobs=[starver],
        worker_logs={"w1": [line("17:09:30", WORKER, starved)]},
    )
    result = case.run(flux_worker_heartbeat, worker="w1")
    assert codes(result) == ["FLUX_WORKER_UNHEALTHY"]
    finding = result.findings[0]
    assert finding.details["inprocess_executions"] == ["s1"]
    assert finding.details["after_freeze"] is False
    assert "for 30s" in finding.message
    assert "subprocess runner" in finding.recovery.steps[0]


def test_a_lag_measured_across_a_freeze_is_not_blamed_on_code():
    starved = "Event loop starved (lag 6.02s >= 1.0s for 3 probes); marking worker unhealthy"
    case = FluxCase(
        workers=[online("w2", health=HealthState.UNHEALTHY)],
        server_log=cycle("w2", 0)[:1],
        worker_logs={"w2": [line("17:00:08", WORKER, starved)]},
    )
    finding = case.run(flux_worker_heartbeat, worker="w2").findings[0]
    assert finding.details["after_freeze"] is True
    assert "frozen" in finding.message


def test_a_worker_refused_registration_has_no_heartbeat_to_judge():
    auth = AuthorizationEvidence(workers=[WorkerAuthorization(worker="w1", decision="deny")])
    result = FluxCase(documents=[auth]).run(flux_worker_heartbeat, worker="w1")
    assert result.status is LayerStatus.UNKNOWN
    assert codes(result) == ["FLUX_WORKER_NEVER_REGISTERED"]


def test_an_unassigned_job_is_judged_by_the_workers_that_may_take_it():
    job = waiting(labels={"zone": "a"})
    case = FluxCase(workers=[online("w1", labels={"zone": "a"}), online("w2")], jobs=[job])
    result = case.run(flux_worker_heartbeat, job=job)
    assert codes(result) == ["FLUX_ELIGIBLE_WORKER_CONNECTED"]
    nobody = waiting(labels={"zone": "mars"})
    assert case.run(flux_worker_heartbeat, job=nobody).status is LayerStatus.NOT_APPLICABLE


def test_stale_claims_are_expected_after_an_eviction_and_flagged_without_one():
    claim = line(
        "17:00:30", WORKER, "Execution e1 was reassigned (stale claim); aborting the local copy"
    )
    explained = FluxCase(workers=[online("w2")], server_log=cycle("w2", 0),
                         worker_logs={"w2": [claim]})  # fmt: skip
    assert explained.run(flux_stale_claims, worker="w2") is None
    unexplained = FluxCase(workers=[online("w2")], worker_logs={"w2": [claim]})
    result = unexplained.run(flux_stale_claims, worker="w2")
    assert result.status is LayerStatus.WARN
    assert codes(result) == ["FLUX_UNEXPLAINED_STALE_CLAIM"]


# -- authorization ------------------------------------------------------------------------------

REFUSED = (
    "Connection lost (HTTPStatusError: Client error '401 Unauthorized' for url "
    "'http://127.0.0.1:8000/workers/register'). Reconnecting in 1.2s..."
)


def denied_case() -> FluxCase:
    auth = AuthorizationEvidence(
        workers=[
            WorkerAuthorization(
                worker=w,
                decision="deny",
                message="2 registration attempt(s) refused with 401",
                native_code="anonymous_writes_refused",
                registration=RegistrationAttempts(attempts=2, rejected=2, last_status_code=401),
            )
            for w in ("w1", "w2")
        ]
    )
    product = ProductInfo(name="flux", settings={"security.auth.allow_anonymous": False})
    logs = {w: [line("17:00:01", WORKER, REFUSED), line("17:00:03", WORKER, REFUSED)]
            for w in ("w1", "w2")}  # fmt: skip
    return FluxCase(documents=[auth, product], worker_logs=logs)


def test_a_401_registration_loop_fails_authorization_with_the_fix():
    result = denied_case().run(flux_registration, worker="w1")
    assert result.status is LayerStatus.FAIL
    assert codes(result) == ["FLUX_REGISTRATION_REJECTED"]
    finding = result.findings[0]
    assert finding.native_code == "anonymous_writes_refused"
    cited = {c.member for c in finding.evidence}
    assert {"evidence/authorization.json", "hosts/h02/logs/0.log", "evidence/product.json"} <= cited
    assert "allow_anonymous" in finding.recovery.steps[0]


def test_the_fleet_fails_authorization_when_no_worker_could_register():
    assert codes(denied_case().run(flux_registration)) == ["FLUX_REGISTRATION_REJECTED"]


def test_a_registered_worker_passes_and_a_session_loop_warns():
    auth = AuthorizationEvidence(
        workers=[
            WorkerAuthorization(worker="w2", decision="allow", bootstrap_method="bootstrap_token")
        ]
    )
    case = FluxCase(documents=[auth])
    assert case.run(flux_registration, worker="w2").status is LayerStatus.PASS
    rejected = "Session token rejected mid-operation, re-registering..."
    lines = [line(f"17:00:0{i}", WORKER, rejected) for i in range(4)]
    loop = FluxCase(documents=[auth], worker_logs={"w2": lines})
    assert codes(loop.run(flux_registration, worker="w2")) == ["FLUX_SESSION_REREGISTER_LOOP"]


# -- placement ----------------------------------------------------------------------------------


def test_no_worker_with_the_label_names_the_label_and_every_worker():
    job = waiting("default/affinity_nomatch", labels={"zone": "mars"})
    case = FluxCase(
        workers=[online("w1", labels={"zone": "a"}), online("w2", labels={"zone": "b"})], jobs=[job]
    )
    result = case.run(flux_execution_placement, job=job)
    assert result.status is LayerStatus.FAIL
    finding = result.findings[0]
    assert finding.code == "FLUX_NO_ELIGIBLE_WORKER"
    assert finding.details["unmatched"] == ["zone=mars"]
    assert "w1 (worker has zone=a)" in finding.message
    assert "w2 (worker has zone=b)" in finding.message


def test_no_eligible_worker_in_a_big_fleet_names_a_few_and_counts_the_rest():
    job = waiting("default/affinity_nomatch", labels={"zone": "mars"})
    fleet = [online(f"w{i:04d}", labels={"zone": "a"}) for i in range(1000)]
    finding = FluxCase(workers=fleet, jobs=[job]).run(flux_execution_placement, job=job).findings[0]
    assert finding.code == "FLUX_NO_ELIGIBLE_WORKER"
    assert "zone=mars: w0000, w0001, w0002 and 997 more (worker has zone=a))" in finding.message
    assert "w0003" not in finding.message
    assert len(finding.details["workers_checked"]) == 1000  # the JSON keeps every name


def test_no_worker_with_a_gpu():
    job = waiting("default/needs_gpu", resources=ResourceRequest(gpu=1))
    case = FluxCase(workers=[online("w1"), online("w2")], jobs=[job])
    finding = case.run(flux_execution_placement, job=job).findings[0]
    assert finding.details["unmatched"] == ["gpu=1"]


def test_the_only_eligible_worker_being_offline_is_said_so():
    job = waiting(required_worker="w2")
    offline = online("w2", connection=ConnectionState.OFFLINE, native_status="offline")
    result = FluxCase(workers=[online("w1"), offline], jobs=[job]).run(
        flux_execution_placement, job=job
    )
    assert codes(result) == ["FLUX_ELIGIBLE_WORKERS_UNAVAILABLE"]
    assert result.findings[0].details["eligible"] == ["w2"]


def test_unavailable_eligible_workers_get_each_cause_s_next_step_in_fluxs_words():
    """A support engineer reading the finding gets the step for why each worker cannot take
    work (resume the paused one, start the offline one), and no step for a cause not found."""
    job = waiting(labels={"zone": "a"})
    zone = {"labels": {"zone": "a"}}
    workers = [
        online("w1"),  # online, but does not match
        online("w2", admin=AdminState.PAUSED, **zone),
        online("w3", connection=ConnectionState.OFFLINE, native_status="offline", **zone),
    ]
    finding = FluxCase(workers=workers, jobs=[job]).run(flux_execution_placement, job=job)
    [unavailable] = finding.findings
    assert unavailable.code == "FLUX_ELIGIBLE_WORKERS_UNAVAILABLE"
    rec = unavailable.recovery
    assert rec is not None
    assert rec.reference is not None
    assert rec.summary.startswith("Let w2, w3 take work again")
    steps = " ".join(rec.steps)
    assert "w2 is paused" in steps
    assert "`flux worker resume NAME`" in steps
    assert "w3 is offline" in steps
    assert "`flux start worker NAME --label key=value`" in steps
    assert "draining" not in steps
    assert "unhealthy" not in steps
    assert rec.steps[-1].startswith("Confirm the execution is CLAIMED")


def test_placement_passes_when_held_or_when_someone_can_take_it():
    held = Job(name="default/s", id="e2", native_state="CLAIMED", phase=JobPhase.CLAIMED,
               assigned_worker="w1")  # fmt: skip
    case = FluxCase(workers=[online("w1")], jobs=[held])
    assert codes(case.run(flux_execution_placement, job=held)) == ["FLUX_EXECUTION_PLACED"]
    free = waiting()
    assert codes(case.run(flux_execution_placement, job=free)) == ["FLUX_ELIGIBLE_WORKERS"]
    worker_only = case.run(flux_execution_placement, worker="w1")
    assert worker_only.status is LayerStatus.NOT_APPLICABLE


def test_placement_does_not_rest_on_the_row_of_a_worker_listed_twice_that_suits_it():
    """w1 is offline; w2 is listed online once and offline once: whether any worker can take
    the execution is unknown, not a pass on w2's online row (nor a fail on its offline one)."""
    job = waiting()
    down = {"connection": ConnectionState.OFFLINE, "native_status": "offline"}
    for rows in ([online("w2"), online("w2", **down)], [online("w2", **down), online("w2")]):
        case = FluxCase(workers=[online("w1", **down), *rows], jobs=[job])
        result = case.run(flux_execution_placement, job=job)
        assert result.status is LayerStatus.UNKNOWN
        assert codes(result) == ["WORKER_RECORDS_CONFLICT"]
        connected = case.run(flux_worker_heartbeat, job=job)
        assert connected is None  # not FLUX_ELIGIBLE_WORKER_CONNECTED on w2's online row


# -- capacity -----------------------------------------------------------------------------------


def saturation(slots_free: float, slots_max: int | None = 1) -> tuple[FluxCase, Job]:
    job = waiting("default/zone_c_sleeper", labels={"zone": "c"})
    busy = Job(name="default/zone_c_sleeper", id="e0", native_state="CLAIMED",
               phase=JobPhase.CLAIMED, assigned_worker="w3")  # fmt: skip
    w3 = online("w3", labels={"zone": "c"}, slots_max=slots_max, in_flight=1,
                metrics={"flux.slots_free": slots_free})  # fmt: skip
    workers = [online("w1", labels={"zone": "a"}), w3]
    jobs = [busy, job]
    capacity = capacity_evidence(WorkersEvidence(workers=workers), JobsEvidence(jobs=jobs))
    return FluxCase(workers=workers, jobs=jobs, documents=[capacity]), job


def test_every_eligible_slot_busy_names_the_saturated_worker():
    case, job = saturation(0.0)
    result = case.run(flux_slots, job=job)
    assert result.status is LayerStatus.FAIL
    finding = result.findings[0]
    assert finding.code == "FLUX_SLOTS_SATURATED"
    assert finding.details["saturated"] == ["w3"]
    assert "w3 runs 1 of 1 slot, flux.slots_free 0" in finding.message


def test_a_slot_limit_nobody_reported_is_said_so_not_shown_as_a_question_mark():
    case, job = saturation(0.0, slots_max=None)  # no database row: the limit is unknown
    finding = case.run(flux_slots, job=job).findings[0]
    assert finding.code == "FLUX_SLOTS_SATURATED"
    assert "w3 runs 1 execution, its slot limit not reported, flux.slots_free 0" in (
        finding.message
    )
    assert "?" not in finding.message


def test_a_free_slot_and_still_waiting_points_at_dispatch_debugging():
    case, job = saturation(1.0)
    result = case.run(flux_slots, job=job)
    assert codes(result) == ["FLUX_DISPATCH_PENDING"]
    assert "FLUX_LOG_LEVEL=DEBUG" in result.findings[0].message


def test_worker_capacity_warns_only_when_full_with_work_waiting():
    case, _ = saturation(0.0)
    assert codes(case.run(flux_slots, worker="w3")) == ["FLUX_WORKER_SATURATED"]
    assert codes(case.run(flux_slots, worker="w1")) == ["FLUX_SLOTS_AVAILABLE"]


def test_past_starvation_is_a_capacity_warning_with_its_duration():
    logs = [
        line("17:00:00", WORKER, "Event loop starved (lag 2.00s >= 1.0s for 3 probes)"),
        line("17:00:16", WORKER, "Event loop recovered; worker healthy — accepting work again"),
    ]
    case = FluxCase(workers=[online("w1")], worker_logs={"w1": logs})
    result = case.run(flux_starvation_history, worker="w1")
    assert codes(result) == ["FLUX_EVENT_LOOP_STARVATION"]
    assert result.findings[0].details["longest_s"] == 16
    assert FluxCase(workers=[online("w1")]).run(flux_starvation_history, worker="w1") is None


def test_a_release_storm_is_flagged():
    message = "Worker w1 released execution e1 (state now CREATED); re-dispatching"
    storm = [line(f"17:00:{i:02d}", ROUTES, message) for i in range(12)]
    case = FluxCase(workers=[online("w1")], server_log=storm)
    assert codes(case.run(flux_release_storm, worker="w1")) == ["FLUX_RELEASE_STORM"]
    calm = FluxCase(workers=[online("w1")], server_log=storm[:3])
    assert calm.run(flux_release_storm, worker="w1") is None


def test_a_negative_active_workers_gauge_is_called_untrusted_once():
    product = ProductInfo(name="flux", untrusted_gauges={"flux_workers_active": -2.0})
    case = FluxCase(workers=[online("w1"), online("w2")], documents=[product])
    result = case.run(flux_untrusted_gauges)
    assert result.status is LayerStatus.NOT_APPLICABLE
    assert codes(result) == ["FLUX_GAUGE_UNTRUSTED"]
    assert "-2" in result.findings[0].message
    assert case.run(flux_untrusted_gauges, worker="w1") is None


# -- outcome and inapplicable layers ------------------------------------------------------------


def outcome(*phases: str) -> OutcomeEvidence:
    return OutcomeEvidence(
        canaries=[
            CanaryRun(
                job="default/job",
                canary_id=f"r{i}",
                worker="w1",
                mode="last_run",
                phase=phase,
                finished_at=datetime(2026, 11, 29, 17, i, tzinfo=UTC),
            )
            for i, phase in enumerate(phases)
        ]
    )


def test_the_last_run_judges_the_outcome():
    job = waiting()
    assert codes(
        FluxCase(documents=[outcome("successful", "failed")]).run(flux_last_run, job=job)
    ) == ["FLUX_LAST_RUN_FAILED"]
    good = FluxCase(documents=[outcome("failed", "successful")])
    assert good.run(flux_last_run, job=job).status is LayerStatus.PASS
    assert good.run(flux_last_run, worker="w1").status is LayerStatus.PASS
    none = FluxCase(documents=[OutcomeEvidence()]).run(flux_last_run, job=job)
    assert none.status is LayerStatus.UNKNOWN


def test_a_run_proves_only_the_outcome_of_the_worker_it_ran_on():
    """w1's successful run says nothing about w9: no pass on a colleague's run."""
    case = FluxCase(documents=[outcome("failed", "successful")])
    # No job and no run of its own: the generic rule's "outcome is per job" (n/a) stands.
    assert case.run(flux_last_run, worker="w9") is None
    elsewhere = case.run(flux_last_run, worker="w9", job=waiting())
    assert elsewhere.status is LayerStatus.UNKNOWN
    assert codes(elsewhere) == ["FLUX_NO_FINISHED_RUN"]
    assert "on w9" in elsewhere.findings[0].message
    # The fleet's own ladder reads the fleet's latest run, not its latest success.
    assert case.run(flux_last_run).status is LayerStatus.PASS
    latest_failed = FluxCase(documents=[outcome("successful", "failed")])
    assert codes(latest_failed.run(flux_last_run)) == ["FLUX_LAST_RUN_FAILED"]


def test_one_run_listed_with_two_outcomes_is_unknown_in_either_order():
    [done] = outcome("successful").canaries
    failed = done.model_copy(update={"phase": "failed"})
    for runs in ([done, failed], [failed, done]):
        case = FluxCase(documents=[OutcomeEvidence(canaries=runs)])
        for target in ({"job": waiting()}, {"worker": "w1"}, {}):
            result = case.run(flux_last_run, **target)
            assert result.status is LayerStatus.UNKNOWN, target
            assert codes(result) == ["CANARY_RECORDS_CONFLICT"]
            assert result.findings[0].message.endswith("run the job again.")  # no canary


def test_a_lost_terminal_checkpoint_warns_that_completed_is_misleading():
    given_up = (
        "Terminal checkpoint for execution e1 (sleeper, state=COMPLETED) not delivered "
        "within 300s; giving up. The server reaper will requeue the execution."
    )
    case = FluxCase(worker_logs={"w2": [line("17:05:00", WORKER, given_up)]})
    result = case.run(flux_terminal_checkpoint_lost, worker="w2")
    assert codes(result) == ["FLUX_TERMINAL_CHECKPOINT_LOST"]
    assert case.run(flux_terminal_checkpoint_lost, worker="w1") is None


def test_deployment_and_requirements_are_not_applicable_to_flux():
    case = FluxCase(
        documents=[DeploymentEvidence(applicable=False), RequirementsEvidence(applicable=False)]
    )
    assert case.run(flux_no_deployment_step).status is LayerStatus.NOT_APPLICABLE
    assert case.run(flux_no_requirements_report).status is LayerStatus.NOT_APPLICABLE
    missing = FluxCase().run(flux_no_deployment_step)  # needs deployment.json: never silent
    assert missing is not None
    assert missing.status is LayerStatus.UNKNOWN
    assert [f.code for f in missing.findings] == ["DEPLOYMENT_EVIDENCE_MISSING"]


def test_a_run_finished_after_collection_proves_nothing():
    """OBSERVED is 17:10; a success stamped a day later is two clocks disagreeing."""
    ahead = outcome("successful")
    ahead.canaries[0].finished_at = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
    result = FluxCase(documents=[ahead]).run(flux_last_run, job=waiting())
    assert result.status is LayerStatus.UNKNOWN
    assert codes(result) == ["CANARY_AFTER_COLLECTION"]
    assert result.findings[0].message.startswith("The last run of default/job on w1 is dated")
    failed = outcome("failed")
    failed.canaries[0].finished_at = datetime(2026, 11, 30, 17, 0, tzinfo=UTC)
    assert codes(FluxCase(documents=[failed]).run(flux_last_run, job=waiting())) == [
        "FLUX_LAST_RUN_FAILED"
    ]
