"""LyftData findings carry LyftData's own recovery texts, and its unknowns say how to decide them.

Read from the committed LyftData samples (collected from the simulator), analyzed as
`bundler analyze` does (evidence re-derived from raw/).
"""

from __future__ import annotations

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.analyze.rederive import rederive
from bundler.products import get_profile
from samples import catalog
from schemas import AnalysisReport, Finding, LayerStatus
from tests.support.sample_bundles import load_sample

LYFTDATA = sorted(e.file[: -len(".zip")] for e in catalog.load_catalog() if e.product == "lyftdata")


def _report(name: str) -> AnalysisReport:
    source, manifest = load_sample(name)
    profile = get_profile("lyftdata")
    return analyze(rederive(EvidenceSet(source, manifest), profile).evidence, profile=profile)


def _findings(report: AnalysisReport) -> list[Finding]:
    return [f for t in report.targets for layer in t.layers for f in layer.findings]


@pytest.mark.parametrize("name", LYFTDATA)
def test_no_lyftdata_finding_cites_flux(name: str) -> None:
    for finding in _findings(_report(name)):
        rec = finding.recovery
        text = (
            " ".join([rec.summary, rec.reference or "", *rec.steps, *rec.cautions]) if rec else ""
        )
        assert "flux" not in text.lower(), (name, finding.code, text)


def test_a_missing_capability_names_the_guides_repair_step() -> None:
    report = _report("lyftdata-capability_missing_running")
    (finding,) = [f for f in _findings(report) if f.code == "CAPABILITY_MISSING"]
    assert "splunk-hec" in finding.message
    assert "running" in finding.message
    assert finding.recovery is not None
    steps = " ".join(finding.recovery.steps)
    assert "add that component to the worker" in steps
    assert "step 7" in steps
    assert "Upgrade or replace a worker" in (finding.recovery.reference or "")


def test_an_unknown_deployment_names_the_member_and_how_to_collect_it() -> None:
    report = _report("lyftdata-deployments_unavailable")
    rungs = [
        layer
        for t in report.targets
        for layer in t.layers
        if layer.name.value == "deployment" and layer.status is LayerStatus.UNKNOWN
    ]
    assert rungs
    finding = rungs[0].findings[0]
    assert finding.code == "DEPLOYMENT_EVIDENCE_UNAVAILABLE"
    assert "evidence/deployments.json" in finding.missing
    assert "http.deployments" in finding.missing
    assert finding.to_decide is not None
    assert "/api/deployments" in finding.to_decide


def test_corruption_only_in_the_api_log_is_corrupt_local_state() -> None:
    report = _report("lyftdata-corrupt_state_api_log")
    corrupt = [f for f in _findings(report) if f.code == "LOCAL_STATE_CORRUPT"]
    assert corrupt
    assert corrupt[0].evidence[0].member.startswith("raw/http/worker-logs/")
    assert corrupt[0].recovery is not None
    assert "--reset-state repair" in " ".join(corrupt[0].recovery.steps)
