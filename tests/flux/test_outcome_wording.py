"""The outcome rung of a Flux target, whole, in Flux's words: no canary, no receipt.

Flux has neither (its last finished run plays the canary's part), but the rung as
``bundler analyze`` judges it combined the generic rule's findings with Flux's: a failed
execution read three times (JOB_RUN_FAILED, CANARY_FAILED, FLUX_EXECUTION_FAILED), the
generic recovery "run a bounded canary ... confirm the downstream receipt", "No canary or
finished run of ...", "The canary of ... is dated after collection" and "run a bounded
canary again". Each is said once now, in Flux's terms, the failure with Flux's recovery
(the real lab's report: ``test_failing_workflow.py``).
"""

from __future__ import annotations

from datetime import UTC, datetime

from bundler.analyze.api import EvidenceSet, RuleContext, Target
from bundler.analyze.engine import analyze
from bundler.analyze.ladder import evaluate
from bundler.analyze.rules import GENERIC_RULES
from bundler.products.flux import PROFILE
from bundler.source import MemorySource
from schemas import Finding, Layer, LayerResult, LayerStatus
from schemas.evidence import CanaryRun, Job, JobPhase, Source
from tests.support.flux_evidence import FluxCase, OutcomeEvidence, online, waiting
from tests.support.sample_bundles import load_sample

FLUXS_OUTCOME = PROFILE.recovery_paths.get("outcome")
"""Flux's text for the generic outcome path (None before Flux had one)."""
ENDED = datetime(2026, 11, 29, 17, 5, tzinfo=UTC)  # before collection (OBSERVED, 17:10)
LISTED = Source(method="api", member="raw/http/executions-failed.json", pointer="/executions/0")
"""Where doctor read a failed execution (``GET /executions?state=FAILED``)."""
LAST_RUN = Source(method="db", member="hosts/h01/db-last-runs.json", pointer="/0")
"""Where doctor read a workflow's last run (SQLite, ``db-last-runs``)."""


def _outcome_rung(case: FluxCase, worker: str | None = "w1", job: Job | None = None) -> LayerResult:
    """The outcome rung as `bundler analyze` judges it for Flux: generic and Flux rules, the
    profile's supersedes, recovery paths and acceptance checklist."""
    ctx = RuleContext(
        evidence=EvidenceSet(case.source()),
        target=Target(worker=worker, job=job),
        timeline=case.timeline(),
        profile=PROFILE.name,
        recovery_paths=PROFILE.recovery_paths,
        supersedes=PROFILE.supersedes,
        checklist=PROFILE.acceptance_checklist,
    )
    rules = [r for r in (*GENERIC_RULES, *PROFILE.rules()) if r.layer is Layer.OUTCOME]
    return evaluate(Layer.OUTCOME, rules, ctx)


def _run(phase: str, ended: datetime = ENDED, run: str = "r1") -> CanaryRun:
    return CanaryRun(
        job="default/job", canary_id=run, worker="w1", mode="last_run", phase=phase,
        finished_at=ended, source=LAST_RUN,
    )  # fmt: skip


def _failed(error: str = "RuntimeError: no") -> Job:
    """Execution e1 of default/job, FAILED with ``error``, as read from the executions list."""
    return waiting().model_copy(
        update={"phase": JobPhase.FAILED, "native_state": "FAILED", "error": error,
                "source": LISTED}
    )  # fmt: skip


def _cited(finding: Finding) -> list[str]:
    return [c.label() for c in finding.evidence]


def _case(*runs: CanaryRun, jobs: list[Job] | None = None) -> FluxCase:
    return FluxCase(
        workers=[online("w1")],
        jobs=jobs or [],
        documents=[OutcomeEvidence(canaries=list(runs))],
    )


def _said(finding: Finding) -> str:
    """What a reader of ``finding`` is told in words, lower-cased: its code is an identifier
    (a generic code such as CANARY_AFTER_COLLECTION is an API name, kept for every product)."""
    rec = finding.recovery
    told = [finding.message, *finding.acceptance, finding.to_decide or ""]
    if rec is not None:
        told += [rec.summary, *rec.steps, *rec.cautions, rec.reference or ""]
    return " ".join(told).lower()


def _speaks_flux(rung: LayerResult) -> None:
    for finding in rung.findings:
        assert "canary" not in _said(finding), finding
        assert "receipt" not in _said(finding), finding


def test_a_failed_execution_is_one_finding_with_fluxs_recovery() -> None:
    failed = _failed()
    rung = _outcome_rung(_case(_run("failed", run="e1"), jobs=[failed]), job=failed)
    assert rung.status is LayerStatus.FAIL
    assert [f.code for f in rung.findings] == ["FLUX_EXECUTION_FAILED"]
    assert FLUXS_OUTCOME is not None
    assert rung.findings[0].recovery == FLUXS_OUTCOME
    assert rung.findings[0].acceptance == [
        "the latest execution COMPLETED (of the target workflow, on the target worker)"
    ]
    _speaks_flux(rung)


def test_a_worker_whose_last_run_failed_reads_one_finding_with_fluxs_recovery() -> None:
    rung = _outcome_rung(_case(_run("failed")))
    assert rung.status is LayerStatus.FAIL
    assert [f.code for f in rung.findings] == ["FLUX_LAST_RUN_FAILED"]
    assert FLUXS_OUTCOME is not None
    assert rung.findings[0].recovery == FLUXS_OUTCOME
    _speaks_flux(rung)


def test_no_finished_run_says_no_canary() -> None:
    rung = _outcome_rung(_case(), job=waiting())
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["FLUX_NO_FINISHED_RUN"]
    _speaks_flux(rung)


def test_a_run_dated_after_collection_is_a_last_run_not_a_canary() -> None:
    rung = _outcome_rung(_case(_run("successful", ended=datetime(2026, 11, 30, tzinfo=UTC))))
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["CANARY_AFTER_COLLECTION"]
    assert rung.findings[0].message.startswith("The last run of default/job on w1 is dated")
    _speaks_flux(rung)


def test_a_run_listed_twice_asks_for_the_job_to_run_again_not_a_canary() -> None:
    rung = _outcome_rung(_case(_run("successful"), _run("failed")))
    assert rung.status is LayerStatus.UNKNOWN
    assert [f.code for f in rung.findings] == ["CANARY_RECORDS_CONFLICT"]
    assert rung.findings[0].message.endswith("run the job again.")
    _speaks_flux(rung)


# -- what the finding cites: the raw records the generic findings it replaces cited ---------------

RAW_OF_E1 = [
    "raw/http/executions-failed.json#/executions/0",
    "evidence/outcome.json#/canaries/0/phase",
    "hosts/h01/db-last-runs.json#/0",
]
"""The failed execution's list entry, its entry among the last runs and that entry's row."""


def test_a_failed_execution_cites_its_raw_records_not_only_its_error() -> None:
    """JOB_RUN_FAILED cited the raw executions member, CANARY_FAILED the outcome document's
    entry and its database row: FLUX_EXECUTION_FAILED, which replaces both, cites them."""
    failed = _failed()
    rung = _outcome_rung(_case(_run("failed", run="e1"), jobs=[failed]), job=failed)
    (finding,) = rung.findings
    assert _cited(finding) == ["evidence/jobs.json#/jobs/0/error", *RAW_OF_E1]


def test_a_run_on_a_full_disk_cites_the_failed_executions_raw_records_too() -> None:
    """FLUX_WORKER_DISK_FULL replaces the same generic findings: the same records, then df."""
    failed = _failed("OSError: [Errno 28] No space left on device")
    rung = _outcome_rung(_case(_run("failed", run="e1"), jobs=[failed]), job=failed)
    (finding,) = rung.findings
    assert finding.code == "FLUX_WORKER_DISK_FULL"
    assert _cited(finding)[:4] == ["evidence/jobs.json#/jobs/0/error", *RAW_OF_E1]


def test_a_last_run_that_failed_cites_the_row_it_was_read_from() -> None:
    """FLUX_LAST_RUN_FAILED replaces CANARY_FAILED, which cited the run's database row."""
    rung = _outcome_rung(_case(_run("failed")))
    (finding,) = rung.findings
    assert _cited(finding) == RAW_OF_E1[1:]


def test_a_bundle_without_its_outcome_document_says_what_flux_would_have_given() -> None:
    """The generic words named "(canaries, receipts, last runs)" and asked doctor for
    "canary runs and their receipts": a Flux bundle missing evidence/outcome.json (the
    committed healthy sample, less that member) names Flux's runs and where they are read."""
    source, manifest = load_sample("flux-healthy")
    members = {m: source.read_bytes(m) for m in source.names() if m != OutcomeEvidence.member_path}
    report = analyze(EvidenceSet(MemorySource(members), manifest), profile=PROFILE)
    assert report.targets
    for target in report.targets:
        (rung,) = [r for r in target.layers if r.name is Layer.OUTCOME]
        assert rung.status is LayerStatus.UNKNOWN
        assert [f.code for f in rung.findings] == ["OUTCOME_EVIDENCE_MISSING"]
        (finding,) = rung.findings
        assert "each workflow's last finished run" in finding.message
        assert finding.missing == [OutcomeEvidence.member_path]
        assert "`GET /executions?state=COMPLETED`" in (finding.to_decide or "")
        assert "`db-last-runs`" in (finding.to_decide or "")
        _speaks_flux(rung)
