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

from bundler.analyze.api import EvidenceSet, RuleContext, Target
from bundler.analyze.ladder import evaluate
from bundler.analyze.rules import GENERIC_RULES
from bundler.products.flux import PROFILE
from schemas import Layer, LayerResult, LayerStatus
from schemas.evidence import ProductInfo
from tests.support.flux_evidence import FluxCase, line, online

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
