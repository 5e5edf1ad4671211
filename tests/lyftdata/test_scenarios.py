"""Every scenario through collection, normalization and the ladder engine (component level).

The simulator runs as a real process; collection is the real doctor, in-process
(tests/support/lyftdata_collect.py); the ladder is the real analyzer engine
with the LyftData profile's rules. Each scenario's ``expect`` block says what
the analysis must conclude.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bundler.analyze.engine import analyze
from bundler.products.lyftdata import PROFILE
from samples.lyftdata_sim.loader import load_scenario, scenario_names
from tests.support.lyftdata_collect import collect
from tests.support.lyftdata_sim import running_simulator

from .expectations import UNTRUSTED, assert_matches_expectation, failed_layer_findings


@pytest.mark.parametrize("name", scenario_names())
def test_scenario_reaches_its_expected_rung(name: str, tmp_path: Path) -> None:
    scenario = load_scenario(name)
    expect = scenario.expect
    with running_simulator(name, tmp_path) as sim:
        collected = collect(
            sim, trust_ca=name not in UNTRUSTED, timeout_s=scenario.client.timeout_s
        )
        writes = [r for r in sim.requests() if r["method"] != "GET"]
    assert writes == []
    report = analyze(collected.evidence(), profile=PROFILE)
    assert_matches_expectation(report, expect)


def test_license_recovery_says_no_restart_is_needed(tmp_path: Path) -> None:
    with running_simulator("license_expired", tmp_path) as sim:
        report = analyze(collect(sim).evidence(), profile=PROFILE)
    finding = next(
        f for f in failed_layer_findings(report) if f.code == "LICENSE_EXPIRED_OR_INVALID"
    )
    assert finding.recovery is not None
    advice = " ".join(
        [finding.recovery.summary, *finding.recovery.steps, *finding.recovery.cautions]
    )
    assert "restart" in advice.lower()
    assert "lease" in advice.lower()


def test_corrupt_state_points_at_the_repair_path_with_its_cautions(tmp_path: Path) -> None:
    for name in ("corrupt_state", "corrupt_state_crashloop"):
        with running_simulator(name, tmp_path / name) as sim:
            report = analyze(collect(sim).evidence(), profile=PROFILE)
        finding = next(f for f in failed_layer_findings(report) if f.code == "LOCAL_STATE_CORRUPT")
        assert finding.recovery is not None
        text = " ".join([*finding.recovery.steps, *finding.recovery.cautions])
        assert "--reset-state repair" in text, name
        assert "auth-cache" in text, name
        assert "last resort" in text, name


def test_trust_root_problem_points_at_trust_health_and_reset(tmp_path: Path) -> None:
    with running_simulator("trust_root_broken", tmp_path) as sim:
        report = analyze(collect(sim).evidence(), profile=PROFILE)
    finding = next(f for f in failed_layer_findings(report) if f.code == "TRUST_ROOT_PROBLEM")
    assert finding.recovery is not None
    text = " ".join([*finding.recovery.steps, *finding.recovery.cautions])
    assert "trust-health" in text
    assert "trust-reset" in text
    assert "auth-cache" in text


def test_each_blocker_gets_the_guides_own_repair(tmp_path: Path) -> None:
    """The guide words each repair ("update worker database settings or the exact job ACL",
    "repair the source or Provider Pack setup journey"); each blocker's finding read the
    product-neutral sentence instead."""
    with running_simulator("requirements_blocked", tmp_path) as sim:
        report = analyze(collect(sim).evidence(), profile=PROFILE)
    repairs = {f.code: f.recovery.summary for f in failed_layer_findings(report) if f.recovery}
    assert repairs == {
        "CREDENTIAL_NOT_BOUND": "Bind the required credential to the job.",
        "CREDENTIAL_WORKER_NOT_ALLOWED": "Add the worker to the credential's allowed workers.",
        "DB_ACL_DENIED": "Update worker database settings or the exact job ACL.",
        "SOURCE_PATH_MISSING": "Repair the source or Provider Pack setup journey.",
    }
