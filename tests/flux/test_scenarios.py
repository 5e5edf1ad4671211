"""The nine Flux scenarios against a real Flux: real faults, collected and analyzed.

Component level (see tests/support/flux.py): the profile's plan is run against
the live lab by the plan-runner stand-in, normalized, and walked by the
ladder stand-in with the Flux rules. INTEGRATION POINT: when ``bundler
doctor`` and ``bundler analyze`` are on main, ``test_e2e_cli.py`` runs the
same scenarios through the CLI.
"""

from __future__ import annotations

import importlib.util

import pytest

from bundler.analyze.api import EvidenceSet, Timeline
from bundler.products.flux import PROFILE
from samples.flux_lab.scenarios import SCENARIOS, Scenario
from schemas import Layer, LayerStatus
from tests.support.flux import LabFactory, analyze_source, bundle_source, collect_lab
from tests.support.ladder import MiniReport

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


CLI_LANDED = all(
    importlib.util.find_spec(name) is not None
    for name in ("bundler.cli.doctor", "bundler.cli.analyze")
)
"""Once doctor and analyze are on main, test_e2e_cli.py runs these scenarios for real and
this component-level version is skipped (it would only double the minutes of live Flux)."""


def params() -> list:
    marks = {True: [pytest.mark.flux, pytest.mark.slow], False: [pytest.mark.flux]}
    return [pytest.param(s, id=s.name, marks=marks[s.slow]) for s in SCENARIOS]


def run(scenario: Scenario, factory: LabFactory) -> tuple[MiniReport, Timeline]:
    lab = factory(scenario.config)
    scenario.inject(lab)
    source = bundle_source(collect_lab(lab))
    timeline = Timeline(list(PROFILE.parse_logs(EvidenceSet(source))))
    return analyze_source(source), timeline


@pytest.mark.skipif(CLI_LANDED, reason="covered end to end by test_e2e_cli.py")
@pytest.mark.parametrize("scenario", params())
def test_scenario(scenario: Scenario, flux_lab_factory: LabFactory) -> None:
    report, timeline = run(scenario, flux_lab_factory)
    kinds = {e.kind for e in timeline}
    assert kinds >= EXPECTED_KINDS[scenario.name], EXPECTED_KINDS[scenario.name] - kinds
    if scenario.expect_layer is None:
        for ladder in report.targets:
            statuses = {o.status for o in ladder.layers.values()}
            assert statuses <= {LayerStatus.PASS, LayerStatus.NOT_APPLICABLE}, ladder
        assert report.first_failed_layer is None
        return
    layer = Layer(scenario.expect_layer)
    assert report.first_failed_layer is layer
    assert scenario.expect_code in report.codes(layer)
    CHECKS[scenario.name](report)


def check_unmatched(report: MiniReport) -> None:  # (or any report with findings(code))
    unmatched = {
        u for f in report.findings("FLUX_NO_ELIGIBLE_WORKER") for u in f.details["unmatched"]
    }
    assert unmatched == {"zone=mars", "gpu=1"}
    (mars,) = [f for f in report.findings("FLUX_NO_ELIGIBLE_WORKER") if "zone=mars" in f.message]
    assert "w1 (worker has zone=a)" in mars.message
    assert "w2 (worker has zone=b)" in mars.message


def check_saturated(report: MiniReport) -> None:
    findings = report.findings("FLUX_SLOTS_SATURATED")
    assert len(findings) >= 1
    assert all(f.details["saturated"] == ["w3"] for f in findings)
    assert "w3 runs 1 of 1 slot(s)" in findings[0].message


def check_hung(report: MiniReport) -> None:
    (finding, *_) = report.findings("FLUX_WORKER_EVICTED")
    excerpts = " ".join(c.excerpt or "" for c in finding.evidence)
    assert "marked STALE" in excerpts
    assert "evicted (stale for" in excerpts
    assert "Unclaimed execution" in excerpts
    (reclaimed,) = finding.details["unclaimed"]
    assert reclaimed in finding.message


def check_killed(report: MiniReport) -> None:
    (finding, *_) = report.findings("FLUX_WORKER_OFFLINE")
    assert finding.details["stale_socket"] == "worker-w2.sock"
    assert finding.details["clean_shutdown"] is False
    assert any(c.member == "evidence/local_state.json" for c in finding.evidence)


def check_starved(report: MiniReport) -> None:
    (finding, *_) = report.findings("FLUX_WORKER_UNHEALTHY")
    assert finding.details["inprocess_executions"]
    assert "in-process runner" in finding.message
    assert any("Event loop starved" in (c.excerpt or "") for c in finding.evidence)


def check_server_down(report: MiniReport) -> None:
    (finding, *_) = report.findings("FLUX_SERVER_UNREACHABLE")
    assert finding.details["error_class"]  # the transport's own class, e.g. ConnectError
    assert "refused" in finding.message
    assert finding.details["workers_lost"] == ["w1", "w2"]
    lost = [c for c in finding.evidence if "Connection lost (" in (c.excerpt or "")]
    assert {c.member.split("/logs/")[0] for c in lost} >= {"hosts/h02", "hosts/h03"}


def check_no_anonymous(report: MiniReport) -> None:
    findings = report.findings("FLUX_REGISTRATION_REJECTED")
    assert {f.message.split()[1] for f in findings} == {"w1", "w2"}
    assert all("401" in f.message for f in findings)
    assert any("allow_anonymous" in step for step in findings[0].recovery.steps)


def check_eviction_loop(report: MiniReport) -> None:
    (finding, *_) = report.findings("FLUX_EVICTION_LOOP")
    assert finding.details["evictions"] >= 2
    assert "5x heartbeat_interval" in finding.message
    assert any("idle timeout" in step for step in finding.recovery.steps)


CHECKS = {
    "unmatched": check_unmatched,
    "saturated": check_saturated,
    "hung": check_hung,
    "killed": check_killed,
    "starved": check_starved,
    "server-down": check_server_down,
    "no-anonymous": check_no_anonymous,
    "eviction-loop": check_eviction_loop,
}
