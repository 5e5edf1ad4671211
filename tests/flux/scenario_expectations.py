"""What each Flux lab scenario must produce: log-line kinds and finding details.

Kept apart from ``test_e2e_cli.py`` so the expectations read as a table of
the nine scenarios, while the test module holds only the run through the
CLI. The checks take the real :class:`schemas.AnalysisReport` that
``bundler analyze --format json`` prints.
"""

from __future__ import annotations

from collections.abc import Callable

from schemas import AnalysisReport, Finding

# Log-line kinds each scenario must produce, read by the parser from the real logs.
EXPECTED_KINDS: dict[str, set[str]] = {
    "healthy": {"server_started", "reaper_started", "registered", "connected", "claimed",
                "starting", "control_socket", "registering", "connection_established",
                "execution_scheduled", "execution_claimed", "execution_completed"},
    "unmatched": {"registered", "connected"},
    "saturated": {"claimed", "execution_claimed"},
    "hung": {"stale", "evicted", "unclaimed", "sse_closed_by_reaper", "disconnected"},
    "killed": {"disconnected"},
    "starved": {"unhealthy"},
    "server-down": {"connection_lost", "server_stopping"},
    "no-anonymous": {"auth_rejected", "registering", "starting"},
    "eviction-loop": {"stale", "evicted", "connected", "sse_closed", "reconnecting"},
}  # fmt: skip


def findings(report: AnalysisReport, code: str) -> list[Finding]:
    """Every finding with ``code``: per-target layers first, then fleet-wide ones."""
    per_target = [f for t in report.targets for layer in t.layers for f in layer.findings]
    return [f for f in per_target + report.fleet_findings if f.code == code]


def check_unmatched(report: AnalysisReport) -> None:
    unmatched = {
        u for f in findings(report, "FLUX_NO_ELIGIBLE_WORKER") for u in f.details["unmatched"]
    }
    assert unmatched == {"zone=mars", "gpu=1"}
    (mars,) = [f for f in findings(report, "FLUX_NO_ELIGIBLE_WORKER") if "zone=mars" in f.message]
    assert "w1 (worker has zone=a)" in mars.message
    assert "w2 (worker has zone=b)" in mars.message


def check_saturated(report: AnalysisReport) -> None:
    saturated = findings(report, "FLUX_SLOTS_SATURATED")
    assert len(saturated) >= 1
    assert all(f.details["saturated"] == ["w3"] for f in saturated)
    assert "w3 runs 1 of 1 slot" in saturated[0].message


def check_hung(report: AnalysisReport) -> None:
    (finding, *_) = findings(report, "FLUX_WORKER_EVICTED")
    excerpts = " ".join(c.excerpt or "" for c in finding.evidence)
    assert "marked STALE" in excerpts
    assert "evicted (stale for" in excerpts
    assert "Unclaimed execution" in excerpts
    (reclaimed,) = finding.details["unclaimed"]
    assert reclaimed in finding.message


def check_killed(report: AnalysisReport) -> None:
    (finding, *_) = findings(report, "FLUX_WORKER_OFFLINE")
    assert finding.details["stale_socket"] == "worker-w2.sock"
    assert finding.details["clean_shutdown"] is False
    assert any(c.member == "evidence/local_state.json" for c in finding.evidence)


def check_starved(report: AnalysisReport) -> None:
    (finding, *_) = findings(report, "FLUX_WORKER_UNHEALTHY")
    assert finding.details["inprocess_executions"]
    assert "in-process runner" in finding.message
    assert any("Event loop starved" in (c.excerpt or "") for c in finding.evidence)


def check_server_down(report: AnalysisReport) -> None:
    (finding, *_) = findings(report, "FLUX_SERVER_UNREACHABLE")
    assert finding.details["error_class"]  # the transport's own class, e.g. ConnectError
    assert "refused" in finding.message
    assert finding.details["workers_lost"] == ["w1", "w2"]
    lost = [c for c in finding.evidence if "Connection lost (" in (c.excerpt or "")]
    assert {c.member.split("/logs/")[0] for c in lost} >= {"hosts/h02", "hosts/h03"}


def check_no_anonymous(report: AnalysisReport) -> None:
    rejected = findings(report, "FLUX_REGISTRATION_REJECTED")
    assert {f.message.split()[1] for f in rejected} == {"w1", "w2"}
    assert all("401" in f.message for f in rejected)
    recovery = rejected[0].recovery
    assert recovery is not None
    assert any("allow_anonymous" in step for step in recovery.steps)


def check_eviction_loop(report: AnalysisReport) -> None:
    (finding, *_) = findings(report, "FLUX_EVICTION_LOOP")
    assert finding.details["evictions"] >= 2
    assert "5x heartbeat_interval" in finding.message
    assert finding.recovery is not None
    assert any("idle timeout" in step for step in finding.recovery.steps)


CHECKS: dict[str, Callable[[AnalysisReport], None]] = {
    "unmatched": check_unmatched,
    "saturated": check_saturated,
    "hung": check_hung,
    "killed": check_killed,
    "starved": check_starved,
    "server-down": check_server_down,
    "no-anonymous": check_no_anonymous,
    "eviction-loop": check_eviction_loop,
}
"""Scenario-specific checks beyond the first failed layer and code; "healthy" has none."""
