"""A registration Flux refused (401, anonymous writes off), read from the committed sample.

``flux-no-anonymous`` was collected from a real Flux whose ``allow_anonymous`` is off with
auth disabled: every ``POST /workers/register`` got 401 and neither worker ever registered.
One cause reads as one finding, in Flux's words: not three, two of them with LyftData's
lease and enrollment-key advice, which Flux does not have.
"""

from __future__ import annotations

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.products.flux import PROFILE
from schemas import AnalysisReport, Finding, Layer, LayerStatus
from tests.support.sample_bundles import load_sample


def _rung(report: AnalysisReport, worker: str, layer: Layer) -> tuple[LayerStatus, list[Finding]]:
    target = next(t for t in report.targets if t.worker == worker and t.job is None)
    rung = next(r for r in target.layers if r.name is layer)
    return rung.status, rung.findings


def _report() -> AnalysisReport:
    return analyze(EvidenceSet(*load_sample("flux-no-anonymous")), profile=PROFILE)


def test_a_refused_registration_is_one_flux_worded_finding() -> None:
    report = _report()
    for worker in ("w1", "w2"):
        status, found = _rung(report, worker, Layer.AUTHORIZATION)
        assert status is LayerStatus.FAIL
        assert [f.code for f in found] == ["FLUX_REGISTRATION_REJECTED"], worker
        (finding,) = found
        assert finding.recovery is not None
        advice = " ".join(
            [finding.recovery.summary, *finding.recovery.steps, *finding.recovery.cautions]
        ).lower()
        assert "allow_anonymous" in advice
        assert "lease" not in advice
        assert "enrollment" not in advice


def test_the_undecided_heartbeat_of_a_refused_worker_asks_for_its_registration() -> None:
    """Doctor read the worker list with its token; the worker is missing from it because the
    server refused it, so "run doctor with --server URL and an API token" would change
    nothing: the hint names what is missing, the worker's registration."""
    report = _report()
    for worker in ("w1", "w2"):
        status, found = _rung(report, worker, Layer.HEARTBEAT)
        assert status is LayerStatus.UNKNOWN
        (finding,) = found
        assert finding.code == "FLUX_WORKER_NEVER_REGISTERED"
        assert f"registration:{worker}" in finding.missing
        assert finding.to_decide is not None
        assert "--server" not in finding.to_decide
        assert "API token" not in finding.to_decide
        assert "register" in finding.to_decide
