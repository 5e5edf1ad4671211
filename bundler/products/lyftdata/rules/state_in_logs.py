"""Corrupt local state that only the worker's log reports (no host access, or a file not listed).

When bundler reached the worker host it checks the SQLite files itself
(``local_state``). Without SSH, or when the corrupt file is not one it
checks, the worker's own log line ("database disk image is malformed"),
returned by the server's ``GET /api/workers/{id}/logs``, is the only evidence,
and it names the same repair: LyftData's one-time ``--reset-state repair``. Every copy of
the log that holds the line is cited; where one copy covering its time lacks it, the
finding says so and cites both (:func:`~bundler.analyze.logsource.disagreement`).
"""

from __future__ import annotations

from schemas import Layer
from schemas.evidence import LocalStateEvidence

from ....analyze.api import RuleContext, RuleResult, rule
from ....analyze.codes import LOCAL_STATE_CORRUPT
from ....analyze.logsource import copies, disagreement, named
from ..recovery import RESET_STATE_REPAIR


@rule(Layer.DEPLOYMENT, products=["lyftdata"])
def corrupt_state_in_worker_log(ctx: RuleContext) -> RuleResult | None:
    worker = ctx.target.worker
    if worker is None:
        return None
    reported = ctx.timeline.of_kind("state_corrupt", worker=worker)
    if not reported:
        return None
    state = ctx.evidence.get(LocalStateEvidence)
    checked = [
        f
        for f in (state.files if state else [])
        if f.kind == "sqlite" and f.integrity == "corrupt" and f.worker in (None, worker)
    ]
    if checked:
        return None  # the local-state rule reports the checked file itself
    latest = reported[-1]
    where = named(copies(latest))
    disagree, both = disagreement(ctx.timeline, reported, worker)
    evidence = [copy.citation() for event in reported[-3:] for copy in copies(event)]
    return RuleResult.fail(
        LOCAL_STATE_CORRUPT,
        f"Worker {worker}'s own log ({where}) reports corrupt local state "
        f"({latest.text.split('> ', 1)[-1]}): a LyftData worker cannot persist or start jobs "
        "on it. bundler did not check the state files itself (no host access, or a file it "
        f"does not check).{disagree}",
        evidence=evidence + [c for c in both if c not in evidence],
        recovery=RESET_STATE_REPAIR.model_copy(deep=True),
        acceptance=["recent heartbeat and system information"],
        source=where,
    )
