"""Rung 1, heartbeat: is the worker connected and reporting recent status?

Freshness is judged against the product's own interval, timeout and grace
(``WorkersEvidence.heartbeat``), at the time the evidence was observed — never
against the analyst's clock. A worker listed "online" whose last heartbeat is
older than the timeout fails here: some products (Flux) keep listing a stale
worker as online until its grace period ends.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from schemas import Citation, Layer, LayerStatus
from schemas.evidence import ConnectionState, WorkersEvidence, WorkerStatus

from .. import codes
from ..api import Bounds, RuleContext, RuleResult, Timeline, TimelineEvent, make_finding, rule
from ..contradictions import (
    conflicting_worker,
    conflicts_unknown,
    settled,
    worker_conflict,
)
from ..doubt import undecided_heartbeat
from ..facts import (
    citations,
    cite,
    cite_source,
    cite_worker,
    dependents,
    dependents_undecided,
    find_worker,
    heartbeat_age,
    heartbeat_policy,
    stale_after,
)
from ..logsource import disagreement
from ..matching import ADMIN_STATE_CODES

HISTORY_KINDS = ("stale", "evicted", "disconnected", "connection_lost", "unhealthy")
FLAP_KINDS = ("evicted", "disconnected", "connection_lost")
FLAP_THRESHOLD = 3
"""Separate outages (see :data:`OUTAGE_WINDOW_S`) of an online worker that make it 'flapping'."""
OUTAGE_WINDOW_S = 120.0
"""Disconnect-type lines within this long of an outage's first line are that one outage: a
single hang reads 'evicted', 'disconnected' and, when it resumes, 'connection lost'."""

_STATE_FAILURES = {
    ConnectionState.STALE: (codes.WORKER_HEARTBEAT_STALE, "is marked stale: heartbeats stopped"),
    ConnectionState.LOST: (codes.WORKER_HEARTBEAT_LOST, "went silent past its grace period"),
    # Not "(disconnected or evicted)": eviction is Flux's word, and its own finding says it.
    ConnectionState.OFFLINE: (codes.WORKER_OFFLINE, "is offline"),
    ConnectionState.NEVER_CONNECTED: (codes.WORKER_NEVER_CONNECTED, "has never connected"),
    ConnectionState.REMOVED: (codes.WORKER_REMOVED, "was removed from the control plane"),
}


@rule(Layer.HEARTBEAT, needs=(WorkersEvidence,))
def worker_heartbeat(ctx: RuleContext) -> RuleResult | None:
    """Connection state and heartbeat age of the target worker (or of the fleet)."""
    doc = ctx.evidence.need(WorkersEvidence)
    if ctx.target.worker is None:
        return _fleet(ctx, doc)
    found = find_worker(ctx.evidence, ctx.target.worker)
    if found is None:
        if not doc.complete:
            return RuleResult.unknown(
                codes.WORKER_NOT_IN_EVIDENCE,
                f"Worker {ctx.target.worker} is not in the (incomplete) worker list.",
                [cite(ctx.evidence, WorkersEvidence, "gaps", value=doc.gaps)],
            )
        return RuleResult.fail(
            codes.WORKER_UNKNOWN_TO_SERVER,
            f"The control plane does not know a worker called {ctx.target.worker}: it was "
            "removed, never registered, or registered with another server.",
            evidence=[cite(ctx.evidence, WorkersEvidence, "workers")],
        )
    conflict = worker_conflict(ctx, ctx.target.worker)
    if conflict is not None:  # records that disagree: judging either one is a guess
        return conflict
    index, worker = found
    if worker.connection in _STATE_FAILURES:
        return _disconnected(ctx, index, worker)
    if worker.connection is ConnectionState.UNKNOWN:
        return RuleResult.unknown(
            codes.WORKER_CONNECTION_UNKNOWN,
            f"The bundle does not say whether worker {worker.name} is connected.",
            [cite_worker(ctx.evidence, index, "connection", value="unknown")],
        )
    return _freshness(ctx, index, worker)


def _fleet(ctx: RuleContext, doc: WorkersEvidence) -> RuleResult:
    """Is any worker online? A worker whose records disagree on it counts neither way."""
    found = settled(list(enumerate(doc.workers)), lambda w: w.connection is ConnectionState.ONLINE)
    online = [w.name for _, w in found.yes]
    known = len(found.yes) + len(found.no) + len(found.disputed)
    where = [cite(ctx.evidence, WorkersEvidence, "workers")]
    if online:
        return RuleResult.pass_(
            make_finding(
                codes.WORKERS_ONLINE,
                "pass",
                f"{len(online)} of {known} workers are online.",
                evidence=where,
                online=online,
            )
        )
    if found.disputed:  # online by one record, not by another: no proof either way
        return conflicts_unknown(ctx.evidence, found.disputed)
    if not doc.complete:
        return RuleResult.unknown(
            codes.WORKERS_EVIDENCE_INCOMPLETE,
            "No online worker in an incomplete worker list.",
            where,
        )
    return RuleResult.fail(
        codes.NO_WORKERS_ONLINE,
        f"No worker is online ({known} known, none connected).",
        evidence=where,
        known=[w.name for _, w in found.no],
    )


def _product_word(worker: WorkerStatus) -> str:
    """`` (product status: paused-offline)``, only where the product's word adds to ours: "is
    offline (product status: offline)" said one fact twice."""
    native = worker.native_status
    ours = worker.connection.value.replace("_", " ")
    if not native or native.strip().lower().replace("_", " ") == ours:
        return ""
    return f" (product status: {native})"


def _disconnected(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult:
    code, text = _STATE_FAILURES[worker.connection]
    native = _product_word(worker)
    disagree, both = _copies_disagree(ctx, worker.name, HISTORY_KINDS)
    evidence = citations(
        cite_worker(ctx.evidence, index, "connection", value=worker.connection.value),
        cite_source(worker.source),
        *_history(ctx, worker.name),
    )
    evidence += [line for line in both if line not in evidence]
    details: dict[str, Any] = {"worker": worker.name, "age_s": heartbeat_age(ctx.evidence, worker)}
    busy = dependents(ctx.evidence, worker.name)
    idle = worker.departed or (
        ctx.target.job is None and worker.connection is not ConnectionState.STALE
    )
    if idle and not busy and (gaps := dependents_undecided(ctx.evidence)):
        return RuleResult(
            LayerStatus.UNKNOWN,
            [
                make_finding(
                    codes.WORKER_DEPENDENTS_UNKNOWN,
                    "info",
                    f"Worker {worker.name} {text}{native}; whether an unfinished job depends "
                    f"on it is unknown: the job evidence is incomplete (gaps: {', '.join(gaps)})."
                    f"{disagree}",
                    evidence=evidence,
                    missing=gaps,
                    **details,
                )
            ],
        )
    if worker.departed and not busy:
        return RuleResult.not_applicable(
            codes.WORKER_DEPARTED,
            f"Worker {worker.name} {text}{native}: the product keeps this record of a worker "
            "that left, and no unfinished job depends on it (expected, not an incident).",
        )
    if ctx.target.job is None and not busy and worker.connection is not ConnectionState.STALE:
        return RuleResult.warn(
            codes.WORKER_OFFLINE_IDLE,
            f"Worker {worker.name} {text}{native}, but no unfinished job depends on it "
            f"(a leftover record, or a worker that was stopped on purpose).{disagree}",
            evidence=evidence,
            **details,
        )
    work = ""
    if busy:
        work = (
            "; 1 unfinished job depends on it"
            if len(busy) == 1
            else (f"; {len(busy)} unfinished jobs depend on it")
        )
    return RuleResult.fail(
        code,
        f"Worker {worker.name} {text}{native}{work}.{disagree}",
        evidence=evidence,
        **details,
        dependent_jobs=[j.id or j.name for j in busy],
    )


def _freshness(ctx: RuleContext, index: int, worker: WorkerStatus) -> RuleResult:
    age = heartbeat_age(ctx.evidence, worker)
    found = heartbeat_policy(ctx.evidence)
    policy, policy_cite = found if found else (None, None)
    timeout = stale_after(policy)
    grace = (policy.grace_s or 0.0) if policy else 0.0
    where = citations(
        cite_worker(
            ctx.evidence,
            index,
            "heartbeat_age_s" if worker.heartbeat_age_s is not None else "last_heartbeat_at",
            value=age if age is not None else None,
        ),
        policy_cite,
    )
    if age is not None and timeout is not None and age > timeout:
        lost = age > timeout + grace
        code = codes.WORKER_HEARTBEAT_LOST if lost else codes.WORKER_HEARTBEAT_STALE
        disagree, both = _copies_disagree(ctx, worker.name, HISTORY_KINDS)
        history = where + _history(ctx, worker.name)
        return RuleResult.fail(
            code,
            f"Worker {worker.name} is listed online, but its last heartbeat was {age:.0f}s "
            f"before collection (timeout {timeout:.0f}s"
            + (f", grace {grace:.0f}s" if grace else "")
            + f").{disagree}",
            evidence=history + [line for line in both if line not in history],
            worker=worker.name,
            age_s=age,
            timeout_s=timeout,
            grace_s=grace,
        )
    undecided = undecided_heartbeat(ctx, index, worker, age)
    if undecided is not None:
        return undecided
    assert age is not None  # undecided above otherwise
    if timeout is None:
        message = f"Worker {worker.name} is online; last heartbeat {age:.0f}s before collection."
    else:
        message = (
            f"Worker {worker.name} is online; last heartbeat {age:.0f}s before "
            f"collection (timeout {timeout:.0f}s)."
        )
    evidence = where or [cite_worker(ctx.evidence, index, "connection", value="online")]
    return RuleResult.pass_(make_finding(codes.WORKER_ONLINE, "pass", message, evidence=evidence))


def _agreed(ctx: RuleContext) -> tuple[int, WorkerStatus] | None:
    """The target worker's record, unless its records disagree (then worker_heartbeat says so
    and nothing else on this rung may speak from one of them)."""
    if conflicting_worker(ctx.evidence, ctx.target.worker) is not None:
        return None
    return find_worker(ctx.evidence, ctx.target.worker)


def _history(ctx: RuleContext, worker: str, limit: int = 3) -> list[Citation]:
    """The latest connection events for ``worker`` from the logs, newest last."""
    events = ctx.timeline.of_kind(*HISTORY_KINDS, worker=worker)
    return [e.citation() for e in events[-limit:]]


def _copies_disagree(
    ctx: RuleContext, worker: str, kinds: tuple[str, ...]
) -> tuple[str, list[Citation]]:
    """Where one copy of the worker's log holds a connection event another copy covering its
    time lacks (the host's log and the API's, say): the sentence that says so and both
    copies' citations, so a finding read from those events prefers neither copy silently."""
    return disagreement(ctx.timeline, ctx.timeline.of_kind(*kinds, worker=worker), worker)


@rule(Layer.HEARTBEAT, needs=(WorkersEvidence,))
def worker_health(ctx: RuleContext) -> RuleResult | None:
    """Self-reported unhealthy: still connected, but declining new work."""
    found = _agreed(ctx)
    if found is None or found[1].health.value != "unhealthy":
        return None
    index, worker = found
    disagree, both = _copies_disagree(ctx, worker.name, HISTORY_KINDS)
    evidence = citations(
        cite_worker(ctx.evidence, index, "health", value="unhealthy"), *_history(ctx, worker.name)
    )
    return RuleResult.warn(
        codes.WORKER_UNHEALTHY,
        f"Worker {worker.name} is connected but reports itself unhealthy (e.g. a starved event "
        f"loop): it finishes running work and declines new work until it recovers.{disagree}",
        evidence=evidence + [line for line in both if line not in evidence],
        worker=worker.name,
    )


@rule(Layer.HEARTBEAT, needs=(WorkersEvidence,))
def worker_admin_state(ctx: RuleContext) -> RuleResult | None:
    """Paused or draining by an operator: connected, deliberately taking no new work."""
    found = _agreed(ctx)
    if found is None or found[1].admin.value not in ("paused", "draining"):
        return None
    index, worker = found
    state = worker.admin.value
    return RuleResult.warn(
        ADMIN_STATE_CODES[worker.admin],
        f"Worker {worker.name} is {state}: it takes no new work until an operator resumes it.",
        evidence=[cite_worker(ctx.evidence, index, "admin", value=state)],
        worker=worker.name,
    )


@rule(Layer.HEARTBEAT, needs=(WorkersEvidence,))
def heartbeat_flapping(ctx: RuleContext) -> RuleResult | None:
    """Online now, but the logs show it dropping out again and again."""
    found = _agreed(ctx)
    if found is None or found[1].connection is not ConnectionState.ONLINE:
        return None
    events = ctx.timeline.of_kind(*FLAP_KINDS, worker=found[1].name)
    outages = _outages(ctx.timeline, events)
    if len(outages) < FLAP_THRESHOLD:
        return None
    disagree, both = _copies_disagree(ctx, found[1].name, FLAP_KINDS)
    evidence = [first.citation() for first in outages[-4:]]
    return RuleResult.warn(
        codes.HEARTBEAT_FLAPPING,
        f"Worker {found[1].name} is online now, but the logs show {len(outages)} separate "
        f"disconnections or evictions: something keeps cutting its heartbeat.{disagree}",
        evidence=evidence + [line for line in both if line not in evidence],
        worker=found[1].name,
        events=len(events),
        outages=len(outages),
    )


def _outages(timeline: Timeline, events: list[TimelineEvent]) -> list[TimelineEvent]:
    """The first line of each outage, in timeline order.

    Lines dated on the server's clock within OUTAGE_WINDOW_S of an outage's first line are
    that outage. A line with no moment there (undated: no time, or a zero time; or stamped
    by a worker whose clock is off, a span of server time, :meth:`Timeline.bounds`) is an
    outage of its own only when its bounds prove it lies outside every other outage;
    otherwise it may be a line of one. Counting an undated line made a warning out of a few
    lines of one hang, and a worker two hours ahead logged each eviction's lost connection
    as an outage of its own two hours later.
    """
    moments = [e for e in events if _is_moment(timeline.bounds(e))]
    firsts = _dated_outages(timeline, moments)
    spans: list[Bounds] = [timeline.bounds(f) for f in firsts]
    for event in events:
        if _is_moment(timeline.bounds(event)):
            continue
        if all(_apart(timeline.bounds(event), s) for s in spans):
            firsts.append(event)
            spans.append(timeline.bounds(event))
    kept = {id(e) for e in firsts}
    return [e for e in events if id(e) in kept]


def _is_moment(bounds: Bounds) -> bool:
    return bounds[0] is not None and bounds[0] == bounds[1]


def _dated_outages(timeline: Timeline, events: list[TimelineEvent]) -> list[TimelineEvent]:
    """Of lines that each have a moment on the server's clock, the first of each outage."""
    firsts: list[tuple[datetime, TimelineEvent]] = []
    for event in events:
        at = timeline.bounds(event)[0]
        assert at is not None
        if not firsts or (at - firsts[-1][0]).total_seconds() > OUTAGE_WINDOW_S:
            firsts.append((at, event))
    return [event for _, event in firsts]


def _apart(one: Bounds, other: Bounds) -> bool:
    """True when every moment of ``one`` lies more than OUTAGE_WINDOW_S from every moment of
    ``other``: two lines that cannot be of one outage."""
    window = timedelta(seconds=OUTAGE_WINDOW_S)
    (lo, hi), (other_lo, other_hi) = one, other
    return bool(
        (lo is not None and other_hi is not None and lo - other_hi > window)
        or (hi is not None and other_lo is not None and other_lo - hi > window)
    )


RULES = (worker_heartbeat, worker_health, worker_admin_state, heartbeat_flapping)
