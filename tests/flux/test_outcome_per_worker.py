"""A run proves the outcome of the worker it ran on, on the committed healthy Flux sample.

In ``flux-healthy`` the one workflow run completed on w2; w1 ran nothing and
holds no job. w1's outcome is not a pass borrowed from w2: it is *not
applicable* (outcome is per job, as for a LyftData worker without a canary),
and its "successful bounded canary" check says so rather than passing.
"""

from __future__ import annotations

from bundler.analyze.api import EvidenceSet
from bundler.analyze.engine import analyze
from bundler.products.flux import PROFILE
from schemas import Layer, LayerStatus, TargetReport, Verdict
from tests.support.sample_bundles import load_sample


def _outcome(target: TargetReport) -> tuple[LayerStatus, list[str], str]:
    rung = next(r for r in target.layers if r.name is Layer.OUTCOME)
    canary = next(c.status for c in target.acceptance if c.check == "successful bounded canary")
    return rung.status, [f.code for f in rung.findings], canary


def test_an_idle_worker_does_not_pass_on_another_workers_run() -> None:
    report = analyze(EvidenceSet(*load_sample("flux-healthy")), profile=PROFILE)
    by_worker = {t.worker: t for t in report.targets}
    assert _outcome(by_worker["w1"]) == (
        LayerStatus.NOT_APPLICABLE,
        ["NO_TARGET_JOB"],
        "not_applicable",
    )
    status, found, canary = _outcome(by_worker["w2"])
    assert (status, canary) == (LayerStatus.PASS, "pass")
    assert "FLUX_LAST_RUN_SUCCEEDED" in found
    # Nothing is missing or wrong: an idle worker with a fresh heartbeat is healthy.
    assert report.verdict is Verdict.HEALTHY
