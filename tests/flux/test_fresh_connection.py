"""A Flux worker that connected moments before collection: the heartbeat rung, whole.

Flux persists ``workers.last_seen_at`` once per reaper tick, so a worker that registered
seconds before the database was read has no heartbeat time yet (seen in CI). The server's
own "Worker connected" line, dated within heartbeat_timeout before collection, is as
recent a sign of life as a heartbeat (the reaper marks a worker STALE only once its last
sign of life is older than heartbeat_timeout): the Flux rule passes it. The rung used to
stay unknown all the same, because the generic rule's WORKER_HEARTBEAT_UNDATED outranked
that pass. Only that fresh connection replaces the undated finding: an old connection, or
a server whose database bundler cannot read, stays unknown.
"""

from __future__ import annotations

from datetime import timedelta

from bundler.analyze.api import EvidenceSet, RuleContext, Target
from bundler.analyze.ladder import evaluate
from bundler.analyze.rules import GENERIC_RULES
from bundler.products.flux import PROFILE
from schemas import Layer, LayerResult, LayerStatus
from schemas.evidence import ProductInfo
from tests.support.flux_evidence import OBSERVED, FluxCase, line, online

SERVER = "flux.server.routes"


def _heartbeat_rung(case: FluxCase, worker: str = "w1") -> LayerResult:
    """The heartbeat rung as `bundler analyze` judges it for Flux: generic and Flux rules,
    combined with the profile's supersedes."""
    ctx = RuleContext(
        evidence=EvidenceSet(case.source()),
        target=Target(worker=worker, job=None),
        timeline=case.timeline(),
        profile=PROFILE.name,
        supersedes=PROFILE.supersedes,
    )
    rules = [r for r in (*GENERIC_RULES, *PROFILE.rules()) if r.layer is Layer.HEARTBEAT]
    return evaluate(Layer.HEARTBEAT, rules, ctx)


def _connected(stamp: str) -> FluxCase:
    return FluxCase(
        workers=[online("w1", heartbeat_age_s=None)],
        server_log=[line(stamp, SERVER, "Worker connected: w1 (total: 1)")],
    )


def test_a_connection_within_the_heartbeat_timeout_passes_the_rung() -> None:
    rung = _heartbeat_rung(_connected("17:09:57"))  # 3 s before collection, timeout 6 s
    assert rung.status is LayerStatus.PASS, rung
    codes = [f.code for f in rung.findings]
    assert "WORKER_HEARTBEAT_UNDATED" not in codes
    assert "FLUX_WORKER_FRESHLY_CONNECTED" in codes
    (fresh,) = [f for f in rung.findings if f.code == "FLUX_WORKER_FRESHLY_CONNECTED"]
    assert "connected 3s before collection" in fresh.message
    assert fresh.evidence[0].excerpt is not None
    assert "Worker connected: w1" in fresh.evidence[0].excerpt


def test_an_older_connection_leaves_the_rung_unknown() -> None:
    rung = _heartbeat_rung(_connected("17:00:00"))
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["WORKER_HEARTBEAT_UNDATED"]


def test_on_postgresql_the_unread_heartbeat_still_comes_first() -> None:
    case = _connected("17:09:57")
    case.documents.append(
        ProductInfo(
            name="flux",
            settings={"database_url": "postgresql://flux@db.internal/flux"},
            settings_sources={"database_url": "env"},
        )
    )
    rung = _heartbeat_rung(case)
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["FLUX_HEARTBEAT_NOT_READ"]


CLAIMS = "flux.api.worker_routes"


def _back_after_a_hang(*server_log: str) -> FluxCase:
    """w1 listed online, its persisted heartbeat 26 s old (from before a hang: timeout 6 s)."""
    at = OBSERVED - timedelta(seconds=26)
    return FluxCase(
        workers=[online("w1", heartbeat_age_s=26.0, last_heartbeat_at=at)],
        server_log=list(server_log),
    )


def test_a_worker_heard_from_since_its_persisted_heartbeat_is_not_called_stale() -> None:
    """A worker resumed after a hang claims work at once; the database still held its
    heartbeat from before the hang, and the rung said "stopped answering, will be evicted"
    of a worker that had just claimed and run an execution (the flux-hung pair's AFTER)."""
    claim = line("17:09:58", CLAIMS, "Execution 11c9c2445cc74ad4 claimed by worker w1")
    rung = _heartbeat_rung(_back_after_a_hang(claim))
    assert rung.status is LayerStatus.PASS, rung
    codes = [f.code for f in rung.findings]
    assert "FLUX_WORKER_HEARD_SINCE_HEARTBEAT" in codes
    assert not {"FLUX_HEARTBEAT_STALE", "WORKER_HEARTBEAT_LOST", "WORKER_HEARTBEAT_STALE"} & set(
        codes
    )
    (heard,) = [f for f in rung.findings if f.code == "FLUX_WORKER_HEARD_SINCE_HEARTBEAT"]
    assert "2s before collection (it claimed an execution)" in heard.message
    assert "(26s old)" in heard.message


def test_a_sign_of_life_before_the_heartbeat_or_past_the_timeout_leaves_it_stale() -> None:
    before = line("17:09:30", SERVER, "Worker connected: w1 (total: 1)")  # before 17:09:34
    late = line("17:09:50", CLAIMS, "Execution 11c9c2445cc74ad4 claimed by worker w1")  # 10 s
    for case in (_back_after_a_hang(), _back_after_a_hang(before), _back_after_a_hang(late)):
        rung = _heartbeat_rung(case)
        assert rung.status is LayerStatus.FAIL, rung
        assert "FLUX_HEARTBEAT_STALE" in [f.code for f in rung.findings]
