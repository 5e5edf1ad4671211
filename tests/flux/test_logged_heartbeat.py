"""A Flux worker's heartbeat dated by the server's DEBUG ``Pong received`` lines.

On PostgreSQL doctor reads no ``workers.last_seen_at``, so the rung read unknown
(FLUX_HEARTBEAT_NOT_READ) and asked for the server log at ``FLUX_LOG_LEVEL=DEBUG``; yet
the parser ignored the very lines it asked for. The latest of them now dates the
worker's last heartbeat as the persisted one would: within heartbeat_timeout (6 s here)
before collection (17:10:00) it passes, older it is stale, and without one the rung
still says why it is unknown and what to collect.
"""

from __future__ import annotations

from bundler.analyze.api import EvidenceSet, RuleContext, Target
from bundler.analyze.ladder import evaluate
from bundler.analyze.rules import GENERIC_RULES
from bundler.products.flux import PROFILE
from schemas import Layer, LayerResult, LayerStatus
from schemas.evidence import ProductInfo
from tests.support.flux_evidence import FluxCase, line, online

ROUTES = "flux.api.worker_routes"


def _pong(stamp: str, worker: str = "w1") -> str:
    """The line as a real Flux 0.87.5 server writes it at DEBUG (seen in the lab)."""
    return f"2026-11-29 {stamp} - {ROUTES} - DEBUG - Pong received from worker {worker}"


def _on_postgresql(*server_log: str) -> FluxCase:
    case = FluxCase(workers=[online("w1", heartbeat_age_s=None)], server_log=list(server_log))
    case.documents.append(
        ProductInfo(
            name="flux",
            settings={"database_url": "postgresql://flux@db.internal/flux"},
            settings_sources={"database_url": "env"},
        )
    )
    return case


def _heartbeat_rung(case: FluxCase) -> LayerResult:
    """The heartbeat rung as `bundler analyze` judges it: generic and Flux rules, with the
    profile's supersedes."""
    ctx = RuleContext(
        evidence=EvidenceSet(case.source()),
        target=Target(worker="w1", job=None),
        timeline=case.timeline(),
        profile=PROFILE.name,
        supersedes=PROFILE.supersedes,
    )
    rules = [r for r in (*GENERIC_RULES, *PROFILE.rules()) if r.layer is Layer.HEARTBEAT]
    return evaluate(Layer.HEARTBEAT, rules, ctx)


def test_a_pong_within_the_timeout_passes_the_rung_citing_the_latest_line() -> None:
    rung = _heartbeat_rung(
        _on_postgresql(_pong("17:09:50"), _pong("17:09:56"), _pong("17:09:58", "w2"))
    )
    assert rung.status is LayerStatus.PASS, rung
    (finding,) = rung.findings  # neither "no heartbeat time" nor "not read" is left
    assert finding.code == "FLUX_HEARTBEAT_LOGGED"
    assert "4s before collection" in finding.message
    excerpts = [c.excerpt or "" for c in finding.evidence]
    assert any("17:09:56" in e and "Pong received from worker w1" in e for e in excerpts)


def test_a_pong_older_than_the_timeout_is_stale() -> None:
    rung = _heartbeat_rung(_on_postgresql(_pong("17:09:40"), _pong("17:09:50")))
    assert rung.status is LayerStatus.FAIL, rung
    (finding,) = rung.findings
    assert finding.code == "FLUX_HEARTBEAT_STALE"
    assert "10s before collection" in finding.message
    assert finding.details["heartbeat_age_s"] == 10
    assert any("17:09:50" in (c.excerpt or "") for c in finding.evidence)
    assert finding.recovery is not None


def test_without_a_pong_line_the_unread_heartbeat_still_says_what_to_collect() -> None:
    other = line("17:09:58", ROUTES, "Pong received from worker w2")
    rung = _heartbeat_rung(_on_postgresql(other))
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["FLUX_HEARTBEAT_NOT_READ"]


def test_a_pong_dated_only_after_collection_decides_nothing() -> None:
    rung = _heartbeat_rung(_on_postgresql(_pong("17:10:30")))  # the clocks disagree
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["FLUX_HEARTBEAT_NOT_READ"]
