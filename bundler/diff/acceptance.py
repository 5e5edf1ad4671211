"""The Recovery acceptance checklist, judged on AFTER, for the targets BEFORE showed in trouble.

Each AFTER target already carries the product's checklist (``bundler.analyze.acceptance``);
here it is combined over the recovery targets (a check fails if it fails on
any of them, is unknown if unknown on any, passes only if it passes on one
and applies nowhere else), and two checks only a before/after pair can make
are added: a successful canary, and where required a receipt, *newer than
BEFORE* (in the product's words, :class:`~bundler.analyze.checklist.Checklist`; a
product without receipts has no receipt check). An older success proves nothing
about the repair; one dated after AFTER itself was collected (beyond the clock tolerance of
:mod:`bundler.analyze.doubt`) proves nothing either: the clocks that wrote and
read it disagree, so "newer than BEFORE" cannot be told. Such a check is
unknown, never a pass.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from schemas import TargetReport
from schemas.diff import AcceptanceResult, CheckStatus
from schemas.evidence import CanaryRun, OutcomeEvidence, Receipt

from ..analyze.checklist import LADDER_CHECKLIST, Checklist
from ..analyze.doubt import seconds_after
from ..analyze.facts import dated, run_time
from ..timetext import utc
from .targets import Pair, is_recovery_target, subject


def combine(statuses: Sequence[CheckStatus]) -> CheckStatus:
    if "fail" in statuses:
        return "fail"
    if "unknown" in statuses:
        return "unknown"
    if "pass" in statuses:
        return "pass"
    return "not_applicable"


def judged_pairs(pairs: Sequence[Pair]) -> list[Pair]:
    """The recovery targets; when BEFORE was healthy everywhere, every AFTER target."""
    recovering = [p for p in pairs if is_recovery_target(p[0])]
    return recovering or [p for p in pairs if p[1] is not None]


def evaluate(
    pairs: Sequence[Pair],
    outcome: OutcomeEvidence | None,
    before_at: datetime | None,
    after_at: datetime | None = None,
    checklist: Checklist = LADDER_CHECKLIST,
) -> list[AcceptanceResult]:
    """``checklist`` over the recovery targets, plus its "newer than BEFORE" checks.

    ``before_at`` is when BEFORE was collected (the lower bound of a proof of
    repair), ``after_at`` when AFTER's outcome evidence was read (the upper
    bound: nothing can have run after it was read). ``checklist`` is the one AFTER was
    analyzed with (the product's), so each check is found on each AFTER target by its words.
    """
    judged = judged_pairs(pairs)
    runs = _Runs(outcome)
    results: list[AcceptanceResult] = []
    for check in checklist.checks:
        per: dict[str, CheckStatus] = {}
        for before, after, _ in judged:
            named = after or before
            assert named is not None
            per[subject(named.worker, named.job)] = _listed(after, check.text)
        results.append(_result(check.text, per))
    canary: dict[str, CheckStatus] = {}
    receipt: dict[str, CheckStatus] = {}
    details: list[str] = []
    receipt_details: list[str] = []
    for before, after, _ in judged:
        named = after or before
        assert named is not None
        where = subject(named.worker, named.job)
        canary[where], note = _newer_canary(after, runs, before_at, after_at)
        receipt[where], receipt_note = _newer_receipt(after, runs, before_at, after_at)
        if note:
            details.append(f"{where}: {note}")
        if receipt_note:
            receipt_details.append(f"{where}: {receipt_note}")
    results.append(_result(checklist.canary_newer, canary, "; ".join(details) or None))
    if checklist.receipt_newer is not None:
        receipt_detail = "; ".join(receipt_details) or None
        results.append(_result(checklist.receipt_newer, receipt, receipt_detail))
    return results


def _result(check: str, per: dict[str, CheckStatus], detail: str | None = None) -> AcceptanceResult:
    return AcceptanceResult(
        check=check, status=combine(list(per.values())), targets=per, detail=detail
    )


def _listed(after: TargetReport | None, check: str) -> CheckStatus:
    if after is None:
        return "unknown"  # the target is gone from AFTER: nothing proves it recovered
    for item in after.acceptance:
        if item.check == check:
            return item.status
    return "unknown"


class _Runs:
    """AFTER's canary runs by job and by worker, and its receipts by run and by job.

    Indexed once: the checks look up the runs of each recovery target, and a scan of every
    run and receipt per target was the fleet's size times the targets'. Only which runs and
    receipts match is asked (a newest time, whether any), never their order.
    """

    def __init__(self, outcome: OutcomeEvidence | None) -> None:
        self.outcome = outcome
        self.by_job: dict[str, list[CanaryRun]] = {}
        self.by_worker: dict[str | None, list[CanaryRun]] = {}
        self.receipts_by_run: dict[str, list[Receipt]] = {}
        self.receipts_by_job: dict[str | None, list[Receipt]] = {}
        for run in outcome.canaries if outcome is not None else []:
            self.by_job.setdefault(run.job, []).append(run)
            self.by_worker.setdefault(run.worker, []).append(run)
        for receipt in outcome.receipts if outcome is not None else []:
            if receipt.canary_id is not None:
                self.receipts_by_run.setdefault(receipt.canary_id, []).append(receipt)
            else:
                self.receipts_by_job.setdefault(receipt.job, []).append(receipt)

    def matching(self, after: TargetReport) -> list[CanaryRun]:
        """The runs of ``after``'s job (any, without one) on its worker or on none."""
        if after.job is not None:
            runs = self.by_job.get(after.job, [])
            if after.worker is None:
                return list(runs)
            return [run for run in runs if run.worker in (None, after.worker)]
        if after.worker is None:
            return list(self.outcome.canaries) if self.outcome is not None else []
        return self.by_worker.get(None, []) + self.by_worker.get(after.worker, [])

    def receipts(self, ids: set[str | None], jobs: set[str]) -> list[Receipt]:
        """Receipts of the runs ``ids``, and those naming no run of the jobs ``jobs`` (every
        one naming no run, when a run without an id is among ``ids``)."""
        found = [rc for run in ids if run is not None for rc in self.receipts_by_run.get(run, [])]
        if None in ids:
            return found + [rc for listed in self.receipts_by_job.values() for rc in listed]
        return found + [rc for job in jobs for rc in self.receipts_by_job.get(job, [])]


def _newer_canary(
    after: TargetReport | None,
    runs_of: _Runs,
    before_at: datetime | None,
    after_at: datetime | None,
) -> tuple[CheckStatus, str | None]:
    if after is None or runs_of.outcome is None or before_at is None:
        return "unknown", None
    matching = runs_of.matching(after)
    runs = [r for r in matching if r.phase == "successful"]
    if not runs:
        return ("fail" if matching else "unknown"), "no successful run"
    when = [run_time(r) for r in runs]  # a zero time ("never") is no time
    newest = max((w for w in when if w is not None), default=None)
    if newest is None:
        return "unknown", "the successful run carries no time"
    future = _after_collection("the last successful run", newest, after_at)
    if future:
        return "unknown", future
    if newest > before_at:
        return "pass", None
    return "fail", f"the last successful run ({utc(newest)}) predates BEFORE"


def _newer_receipt(
    after: TargetReport | None,
    runs_of: _Runs,
    before_at: datetime | None,
    after_at: datetime | None,
) -> tuple[CheckStatus, str | None]:
    if after is None or runs_of.outcome is None:
        return "unknown", None
    runs = runs_of.matching(after)
    if not any(r.receipt_required for r in runs):
        return "not_applicable", None
    if before_at is None:
        return "unknown", None
    ids = {r.canary_id for r in runs if r.receipt_required}
    jobs = {r.job for r in runs if r.receipt_required}
    receipts = [
        rc
        for rc in runs_of.receipts(ids, jobs)
        if rc.acked is not False and rc.nonce_matched is not False
    ]
    times = [at for rc in receipts if (at := dated(rc.observed_at)) is not None]
    if not receipts:
        return "fail", "no confirmed receipt"
    if not times:
        return "unknown", "the receipt carries no time"
    future = _after_collection("the last receipt", max(times), after_at)
    if future:
        return "unknown", future
    if max(times) > before_at:
        return "pass", None
    return "fail", f"the last receipt ({utc(max(times))}) predates BEFORE"


def _after_collection(what: str, when: datetime, after_at: datetime | None) -> str | None:
    """Why ``when`` is no proof, when it is dated after AFTER's evidence was read."""
    if seconds_after(when, after_at) is None:
        return None
    assert after_at is not None
    return (
        f"{what} ({utc(when)}) is dated after AFTER was collected "
        f"({utc(after_at)}): the clocks disagree, so it proves nothing"
    )
