"""The analysis says what LyftData's *Worker Recovery and Serviceability* guide says.

Each test builds a real bundle from a simulator scenario (the real doctor against the
running simulator, sealed, extracted and read back) and checks one place where the
analysis once told a support engineer something the guide does not: a rung or an
acceptance check read as passed on evidence that does not show it. The audit these
come from is in docs/lyftdata-contract.md ("Fidelity to the guide").
"""

from __future__ import annotations

from pathlib import Path

from bundler.analyze.checklist import BOUNDED_CANARY
from bundler.analyze.engine import analyze
from bundler.products.lyftdata import PROFILE
from schemas import AnalysisReport, Layer, LayerStatus, TargetReport
from tests.support.lyftdata_collect import collect
from tests.support.lyftdata_sim import running_simulator
from tests.support.requirements import need
from tests.support.shared import shared_path

CANARY = BOUNDED_CANARY
RECEIPT = "external receipt where the job has an external effect"


def _report(scenario: str, tmp_path: Path) -> AnalysisReport:
    with running_simulator(scenario, tmp_path) as sim:
        return analyze(collect(sim).evidence(), profile=PROFILE)


def _target(report: AnalysisReport) -> TargetReport:
    [target] = report.targets
    return target


def _checks(target: TargetReport) -> dict[str, str]:
    return {c.check: c.status for c in target.acceptance}


def _guide_ladder() -> list[str]:
    """The questions of the guide's ladder table, in its order (read from ../shared)."""
    seeds = shared_path("seeds")
    need(seeds is not None, "the shared seeds (the LyftData guide) are not here")
    assert seeds is not None
    [guide] = [
        p for p in seeds.glob("*.txt") if "Worker Recovery and Serviceability" in p.read_text()
    ]
    text = guide.read_text()
    table = text.split("Layer\tQuestion\n", 1)[1].split("\n\n", 1)[0]
    return [line.split("\t", 1)[1] for line in table.splitlines()]


def test_each_rung_asks_the_guides_question_in_the_guides_order() -> None:
    """Every report names a rung by the guide's question; the capacity rung's lacked the
    guide's "by the job" (whose resources and capabilities it weighs)."""
    assert [layer.question for layer in Layer.ordered()] == _guide_ladder()


def test_a_canary_older_than_the_deployment_meets_no_acceptance_check(tmp_path: Path) -> None:
    """The guide's acceptance asks a recovered worker for a successful bounded canary and its
    receipt. The job was redeployed 20 minutes ago and its last canary and receipt are three
    hours old: the outcome rung says they prove an earlier revision, and the checklist used
    to tick both checks anyway."""
    target = _target(_report("canary_stale", tmp_path))
    [outcome] = [layer for layer in target.layers if layer.name.value == "outcome"]
    assert outcome.status is LayerStatus.WARN
    assert {f.code for f in outcome.findings} == {"CANARY_PREDATES_DEPLOYMENT"}
    checks = _checks(target)
    assert checks[CANARY] == "fail"
    assert checks[RECEIPT] == "fail"


def test_a_running_job_larger_than_its_worker_fails_capacity(tmp_path: Path) -> None:
    """ingest-events requests 8 cores and 16 GiB and reads as running on edge-01, which has
    2 cores and 4 GiB in all. The guide's capacity rung asks whether the worker has the
    resources the job requires; for a running job the request was never compared, and the
    rung passed saying the worker "has the resources ... the job asks for"."""
    report = _report("capacity_short_running", tmp_path)
    target = _target(report)
    assert target.first_failed_layer is not None
    assert target.first_failed_layer.value == "capacity"
    [capacity] = [layer for layer in target.layers if layer.name.value == "capacity"]
    found = {f.details.get("requirement"): f for f in capacity.findings}
    assert set(found) == {"resources/cpu", "resources/memory"}
    memory = found["resources/memory"]
    assert memory.code == "RESOURCES_INSUFFICIENT"
    assert "16.0 GiB requested, 4.0 GiB in total" in memory.message
    assert memory.recovery is not None
    assert _checks(target)["adequate measured capacity for the target job"] == "fail"
    outcome = [layer for layer in target.layers if layer.name.value == "outcome"]
    assert outcome[0].status is LayerStatus.SKIPPED  # the guide: stop at the first failed layer


def test_a_canary_is_not_proof_when_the_deployment_records_were_not_read(tmp_path: Path) -> None:
    """``GET /api/deployments`` answered 404: the deployment rung is unknown, and so is
    whether the canary ran after the current deployment. The outcome rung used to pass and
    tick the canary and receipt checks on a canary that may prove an earlier revision."""
    target = _target(_report("deployments_unavailable", tmp_path))
    rungs = {layer.name.value: layer for layer in target.layers}
    assert rungs["deployment"].status is LayerStatus.UNKNOWN
    outcome = rungs["outcome"]
    assert outcome.status is LayerStatus.UNKNOWN
    [finding] = [f for f in outcome.findings if f.code == "CANARY_AGE_UNJUDGED"]
    assert "http.deployments" in finding.message
    checks = _checks(target)
    assert checks[CANARY] == "unknown"
    assert checks[RECEIPT] == "unknown"
