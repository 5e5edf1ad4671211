"""At 1,000 workers a finding names a few, counts the rest and cites a few.

A message listed every worker it concerned ("Workers register with the server:
fw0000, fw0001, ...": 8,000 characters, in every target's ladder) and a
finding cited one piece of evidence per worker. These run the Flux rules on a
fleet and check that what a reader sees stays short while the details keep
everyone.
"""

from __future__ import annotations

from bundler.analyze.wording import CITED, NAMES_LISTED
from bundler.products.flux.normalize.capacity import capacity_evidence
from bundler.products.flux.rules.authorization import flux_registration
from bundler.products.flux.rules.capacity import DESCRIBED, flux_slots
from bundler.products.flux.rules.heartbeat import flux_worker_heartbeat
from bundler.products.flux.rules.placement import flux_execution_placement
from bundler.products.flux.rules.server import flux_server_up
from schemas.evidence import (
    AuthorizationEvidence,
    Job,
    JobPhase,
    JobsEvidence,
    ServerEvidence,
    WorkerAuthorization,
    WorkersEvidence,
)
from tests.support.flux_evidence import FluxCase, line, online, waiting

FLEET = 1000
NAMES = [f"fw{n:04d}" for n in range(FLEET)]
WORKER = "flux.worker"  # the logger a worker logs under


def test_workers_registered_names_eight_and_counts_the_rest() -> None:
    auth = AuthorizationEvidence(
        workers=[WorkerAuthorization(worker=name, decision="allow") for name in NAMES]
    )
    finding = FluxCase(documents=[auth]).run(flux_registration).findings[0]
    assert finding.code == "FLUX_WORKERS_REGISTERED"
    assert f"fw{NAMES_LISTED - 1:04d} and {FLEET - NAMES_LISTED} more." in finding.message
    assert len(finding.message) < 200


def test_connected_eligible_workers_are_counted_and_a_few_cited() -> None:
    job = waiting(labels={"zone": "a"})
    case = FluxCase(workers=[online(n, labels={"zone": "a"}) for n in NAMES], jobs=[job])
    finding = case.run(flux_worker_heartbeat, job=job).findings[0]
    assert finding.code == "FLUX_ELIGIBLE_WORKER_CONNECTED"
    assert finding.message.startswith(f"{FLEET} workers that may run")
    assert f"and {FLEET - NAMES_LISTED} more." in finding.message
    assert len(finding.evidence) == CITED


def test_a_job_that_can_run_anywhere_names_a_few_workers() -> None:
    job = waiting(labels={"zone": "a"})
    case = FluxCase(workers=[online(n, labels={"zone": "a"}) for n in NAMES], jobs=[job])
    finding = case.run(flux_execution_placement, job=job).findings[0]
    assert finding.code == "FLUX_ELIGIBLE_WORKERS"
    assert f"and {FLEET - NAMES_LISTED} more." in finding.message


def _full(slots: dict[str, int], *, listed_whole: bool = False) -> tuple[FluxCase, Job]:
    """Workers (name -> slots) in zone c, each running as many executions as it has slots,
    and one more execution waiting for any of them (``listed_whole``: the executions listing
    counts what each runs as well as its pong)."""
    job = waiting("default/sleeper", labels={"zone": "c"})
    workers = [
        online(name, labels={"zone": "c"}, slots_max=n, in_flight=n,
               metrics={"flux.slots_free": 0.0})
        for name, n in slots.items()
    ]  # fmt: skip
    busy = [
        Job(name="default/sleeper", id=f"e-{name}-{k}", native_state="CLAIMED",
            phase=JobPhase.CLAIMED, assigned_worker=name)
        for name, n in slots.items()
        for k in range(n)
    ]  # fmt: skip
    capacity = capacity_evidence(
        WorkersEvidence(workers=workers), JobsEvidence(jobs=[*busy, job]), listed_whole=listed_whole
    )
    return FluxCase(workers=workers, jobs=[*busy, job], documents=[capacity]), job


def test_a_fleet_of_full_workers_describes_five_and_cites_a_few() -> None:
    case, job = _full(dict.fromkeys(NAMES, 1))
    finding = case.run(flux_slots, job=job).findings[0]
    assert finding.code == "FLUX_SLOTS_SATURATED"
    assert "(fw0000, fw0001, fw0002 and 997 more each run 1 of 1 slot, flux.slots_free 0)" in (
        finding.message
    )
    assert len(finding.details["saturated"]) == FLEET  # the JSON keeps every name
    assert len(finding.message) < 250
    assert len(finding.evidence) <= CITED + 1  # the job, and a few workers
    assert finding.recovery is not None
    assert f"and {FLEET - NAMES_LISTED} more" in finding.recovery.summary


def test_a_server_down_for_the_whole_fleet_cites_a_few_workers_logs() -> None:
    lost = "Connection lost (ConnectError: All connection attempts failed). Reconnecting in 0.5s..."
    down = ServerEvidence(url="http://flux:8000", reachable=False, error_class="ConnectError")
    case = FluxCase(
        documents=[down], worker_logs={n: [line("17:00:01", WORKER, lost)] for n in NAMES[:200]}
    )
    finding = case.run(flux_server_up).findings[0]
    assert finding.code == "FLUX_SERVER_UNREACHABLE"
    assert "200 workers logged that they lost the connection" in finding.message
    assert f"and {200 - NAMES_LISTED} more)" in finding.message
    assert len(finding.details["workers_lost"]) == 200
    assert len(finding.evidence) <= 1 + 2 * CITED


def test_full_workers_at_different_loads_are_described_by_load() -> None:
    # every worker at its own limit: DESCRIBED + 3 different loads
    case, job = _full({f"fw{n:04d}": n + 1 for n in range(DESCRIBED + 3)})
    finding = case.run(flux_slots, job=job).findings[0]
    assert finding.code == "FLUX_SLOTS_SATURATED"
    assert "(fw0000 runs 1 of 1 slot, flux.slots_free 0; fw0001 runs 2 of 2 slots" in (
        finding.message
    )
    assert finding.message.endswith("; and 3 more, all full).")


def test_full_workers_say_which_sources_agree_on_what_they_run() -> None:
    """The finding cites each source that counted a full worker's runs (its pong, the
    executions listing): its message names them too, as the per-worker slot findings do, and
    workers whose counts the same sources bear out stay one group."""
    case, job = _full({"fw0000": 1, "fw0001": 1, "fw0002": 2}, listed_whole=True)
    finding = case.run(flux_slots, job=job).findings[0]
    assert finding.code == "FLUX_SLOTS_SATURATED"
    agree = (
        " (2 sources agree: GET /workers in_flight (the worker's last pong); the executions "
        "listing (GET /executions, every unfinished one))"
    )
    assert (
        f"(fw0000, fw0001 each run 1 of 1 slot, flux.slots_free 0{agree}; "
        f"fw0002 runs 2 of 2 slots, flux.slots_free 0{agree})."
    ) in finding.message
