"""The recovery acceptance checklist, per target: the product's checks, one evaluation.

Each target's checklist (the product's, :mod:`.checklist`) is evaluated from its ladder.

The checklist is what a *recovered* worker must show, so it is read off the
same rung results the ladder produced, with two extra facts the rungs do not
carry alone: the system information the worker reports (its runtime or
resources, not the host facts the bundler collected itself) for the heartbeat
check, and whether the job needs an external receipt at all. How a check is
judged follows what it proves (:class:`~.checklist.Proof`), never its words, so
every product's table is judged alike. A rung that was
skipped or unknown makes its check ``unknown`` — never ``pass``.

A canary (or its receipt) older than the deployment the worker now runs
(``CANARY_PREDATES_DEPLOYMENT``) proves an earlier revision: it meets neither the
canary check nor the receipt check, though the rung only warns (the work may be
fine, nothing proves it is).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal

from schemas import AcceptanceCheck, Layer, LayerResult, LayerStatus
from schemas.evidence import OutcomeEvidence

from . import codes
from .api import EvidenceSet, Target
from .checklist import LADDER_CHECKLIST, Checklist, Proof
from .facts import worker_records

CheckStatus = Literal["pass", "fail", "unknown", "not_applicable"]

CANARY_FAILURES = {
    codes.CANARY_FAILED,
    codes.CANARY_TIMED_OUT,
    codes.JOB_RUN_FAILED,
    codes.CANARY_NO_OUTPUT,
}
CANARY_UNSETTLED = {
    codes.CANARY_NOT_CONCLUSIVE,
    codes.NO_FINISHED_RUN,
    codes.CANARY_RECORDS_CONFLICT,
}
RECEIPT_FAILURES = {
    codes.RECEIPT_MISSING,
    codes.RECEIPT_NONCE_MISMATCH,
    codes.RECEIPT_ACCEPTED_ONLY,
}
STALE_PROOF = {codes.CANARY_PREDATES_DEPLOYMENT}
"""An outcome that proves an earlier deployment: no proof of the recovered one."""

ADVISORY = {
    codes.ENROLLMENT_KEY_STILL_CONFIGURED,
    codes.CLOCK_SKEW,
    codes.TIME_NOT_SYNCHRONIZED,
    codes.STALE_CONTROL_SOCKET,
    codes.TLS_INSECURE_IN_USE,
}
"""Warnings that do not stop a worker from counting as recovered."""


def _status(results: Sequence[LayerResult]) -> CheckStatus:
    """Strict: a recovered worker passes, so a rung that warns (beyond advice) fails its check."""
    statuses = {r.status for r in results}
    warned = any(
        f.severity == "warn" and f.code not in ADVISORY for r in results for f in r.findings
    )
    if LayerStatus.FAIL in statuses or (LayerStatus.WARN in statuses and warned):
        return "fail"
    if statuses & {LayerStatus.UNKNOWN, LayerStatus.SKIPPED}:
        return "unknown"
    if statuses <= {LayerStatus.NOT_APPLICABLE}:
        return "not_applicable"
    return "pass"


def evaluate(
    ev: EvidenceSet,
    target: Target,
    layers: Sequence[LayerResult],
    checklist: Checklist = LADDER_CHECKLIST,
) -> list[AcceptanceCheck]:
    """Each check of ``checklist`` on this target's ladder, in the checklist's order."""
    by_layer = {r.name: r for r in layers}
    checks: list[AcceptanceCheck] = []
    for check in checklist.checks:
        results = [by_layer[layer] for layer in check.layers]
        status = _status(results)
        if check.proves is Proof.HEARTBEAT:
            status = _heartbeat(ev, target, status)
        elif check.proves is Proof.CANARY:
            status = _canary(by_layer[Layer.OUTCOME], status)
        elif check.proves is Proof.RECEIPT:
            status = _receipt(ev, target, by_layer[Layer.OUTCOME])
        checks.append(AcceptanceCheck(check=check.text, layer=check.layers[-1], status=status))
    return checks


def _heartbeat(ev: EvidenceSet, target: Target, status: CheckStatus) -> CheckStatus:
    if target.worker is None:
        return "not_applicable"
    if status != "pass":
        return status
    # The guide's "system information" is what the worker reports (`lyftdata workers sysinfo`,
    # Flux's runtime and resources): a host the bundler reached over SSH proves the machine
    # answers, not that the worker reports it. A worker whose sysinfo request failed has none.
    # A worker listed more than once reports it only if every record of it does: which
    # record is the true one the bundle cannot tell (WORKER_RECORDS_CONFLICT).
    listed = worker_records(ev, target.worker)
    reported = bool(listed) and all(
        record.resources is not None or record.runtime is not None for _, record in listed
    )
    return "pass" if reported else "unknown"


def _codes(result: LayerResult) -> set[str]:
    return {f.code for f in result.findings}


def _canary(outcome: LayerResult, status: CheckStatus) -> CheckStatus:
    found = _codes(outcome)
    if found & (CANARY_FAILURES | STALE_PROOF):
        return "fail"
    if found & CANARY_UNSETTLED:
        return "unknown"
    problems = {f.code for f in outcome.findings if f.severity in ("fail", "warn")}
    if status == "fail" and problems and problems <= RECEIPT_FAILURES:
        return "pass"  # the canary ran fine; only its receipt is missing (next check)
    if status == "unknown" and found == {codes.RECEIPTS_UNREAD}:
        return "pass"  # the canary ran fine; only whether its receipt came is unknown
    return status


def _receipt(ev: EvidenceSet, target: Target, outcome: LayerResult) -> CheckStatus:
    if outcome.status in (LayerStatus.SKIPPED, LayerStatus.UNKNOWN):
        return "unknown"
    if outcome.status is LayerStatus.NOT_APPLICABLE:
        return "not_applicable"
    if _codes(outcome) & RECEIPT_FAILURES:
        return "fail"
    doc = ev.get(OutcomeEvidence)
    job = target.job.name if target.job else None
    required = any(
        run.receipt_required for run in (doc.canaries if doc else []) if job in (None, run.job)
    )
    if not required:
        return "not_applicable"
    if _codes(outcome) & STALE_PROOF:
        return "fail"  # the receipt of a canary older than the deployment: an earlier revision's
    return "pass" if outcome.status in (LayerStatus.PASS, LayerStatus.WARN) else "unknown"
