"""The fleet overview: every worker on one line, and the same grouped by what is wrong.

Computed from the canonical evidence and the report's targets, after the
ladders are walked: a worker's verdict is the worst verdict of the targets
on it, its main finding the one the report leads with (the last failing code
of the first failed layer, the most specific one, else the first warning).
Workers without a target still get a line, with the triage reason (or the host
warning, :mod:`.host_warnings`) when something was flagged but the report's target
limit left it out, so nothing in the fleet is silently missing.

Groups share connection, health, admin state, verdict, first failed layer and
main finding (or triage reason, digits ignored), so 312 evicted workers read
as one line, "312 workers offline since ...", however many ladders were walked.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from schemas import FleetOverview, LayerStatus, TargetReport, Verdict, WorkerGroup, WorkerOverview
from schemas.evidence import (
    AdminState,
    CapacityEvidence,
    ConnectionState,
    HealthState,
    WorkerStatus,
)

from ..timetext import utc
from .api import EvidenceSet
from .contradictions import disagreement
from .facts import cite_worker, dated, heartbeat_age, jobs, workers
from .ladder import VERDICT_ORDER
from .targets import known_workers
from .trouble import worker_trouble

ROW_ORDER = {
    Verdict.BLOCKED: 0,
    Verdict.INCONCLUSIVE: 1,
    Verdict.DEGRADED: 2,
    None: 3,  # flagged by triage, but past the report's target limit
    Verdict.HEALTHY: 4,
}
"""Failing workers first; a worker with neither target nor trouble comes last (rank 5)."""


def fleet_overview(
    ev: EvidenceSet, targets: Sequence[TargetReport], host_warned: Mapping[str, str] | None = None
) -> FleetOverview:
    """One :class:`WorkerOverview` per known worker, failing first, and their groups;
    ``host_warned`` (worker -> why) is the triage reason of a worker its host warns about."""
    warned = host_warned or {}
    records: dict[str, list[tuple[int, WorkerStatus]]] = {}
    for index, record in enumerate(workers(ev)):
        records.setdefault(record.name, []).append((index, record))
    placed = Counter(
        j.assigned_worker for j in jobs(ev) if j.assigned_worker and not j.phase.terminal
    )
    by_worker: dict[str, list[TargetReport]] = {}
    for target in targets:
        if target.worker is not None:
            by_worker.setdefault(target.worker, []).append(target)
    rows = [
        _row(ev, name, _record(name, records), placed[name], by_worker.get(name, []), warned)
        for name in known_workers(ev)
    ]
    rows.sort(key=_rank)
    return FleetOverview(
        workers_total=len(rows),
        by_status=dict(Counter(r.status.value for r in rows).most_common()),
        workers=rows,
        groups=group_workers(rows),
    )


def _record(
    name: str, by_name: dict[str, list[tuple[int, WorkerStatus]]]
) -> tuple[int, WorkerStatus] | None:
    """The record the ladders read for ``name`` (the first, as :func:`find_worker`), so row and
    ladder agree.

    When the bundle lists the worker more than once and the records disagree, the row
    shows what they disagree on as unknown (status, heartbeat) instead of either
    record's word, as its heartbeat rung does (``WORKER_RECORDS_CONFLICT``).
    """
    listed = by_name.get(name, [])
    if len(listed) < 2:
        return listed[0] if listed else None
    differ = disagreement([w for _, w in listed])
    index, first = listed[0]
    if not differ:
        return index, first
    natives = sorted({w.native_status or "?" for _, w in listed})  # not in list order
    doubt: dict[str, Any] = {
        "connection": ConnectionState.UNKNOWN,
        "native_status": " / ".join(natives) if len(natives) > 1 else first.native_status,
    }
    if "health" in differ:
        doubt["health"] = HealthState.UNKNOWN
    if "admin" in differ:
        doubt["admin"] = AdminState.UNKNOWN
    for field in ("id", "group", "last_heartbeat_at", "heartbeat_age_s", "in_flight", "slots_max"):
        if field in differ:
            doubt[field] = None
    if "labels" in differ:  # the labels every record carries alike, not the first record's
        doubt["labels"] = {
            key: value
            for key, value in first.labels.items()
            if all(w.labels.get(key) == value for _, w in listed)
        }
    return index, first.model_copy(update=doubt)


def _row(
    ev: EvidenceSet,
    name: str,
    record: tuple[int, WorkerStatus] | None,
    placed: int,
    targets: list[TargetReport],
    warned: Mapping[str, str],
) -> WorkerOverview:
    worst = min(targets, key=_target_rank) if targets else None
    codes = list(
        dict.fromkeys(
            f.code
            for t in targets
            for layer in t.layers
            for f in layer.findings
            if f.severity in ("fail", "warn")
        )
    )
    row: dict[str, Any] = {
        "name": name,
        "status": ConnectionState.UNKNOWN,
        "jobs_placed": placed,
        "verdict": worst.verdict if worst else None,
        "first_failed_layer": worst.first_failed_layer if worst else None,
        "finding": main_finding(worst) if worst else None,
        "codes": codes,
        "trouble": worker_trouble(ev, name) or warned.get(name),
    }
    if record is not None:  # one model per row, not a base row copied with an update
        index, worker = record
        row.update(
            id=worker.id if worker.id != worker.name else None,
            status=worker.connection,
            native_status=worker.native_status,
            health=worker.health,
            admin=worker.admin,
            group=worker.group,
            labels=dict(worker.labels),
            last_heartbeat_at=dated(worker.last_heartbeat_at),  # a zero time is no time
            heartbeat_age_s=heartbeat_age(ev, worker),
            in_flight=in_use(ev, worker),
            slots_max=worker.slots_max,
            evidence=cite_worker(ev, index),
        )
    return WorkerOverview(**row)


def in_use(ev: EvidenceSet, worker: WorkerStatus) -> int | None:
    """What ``worker`` runs: its listing's ``in_flight``, else the capacity rung's count.

    Flux's listing leaves ``in_flight`` out until a worker's first pong after a run, while
    its capacity record counts the executions listing: the overview read ``—/16`` beside a
    capacity rung saying "0 of 16". Records of the worker that disagree leave it unknown."""
    if worker.in_flight is not None:
        return worker.in_flight
    doc = ev.get(CapacityEvidence)
    counts = {c.slots_in_use for c in (doc.workers if doc else []) if c.worker == worker.name}
    return counts.pop() if len(counts) == 1 else None


def main_finding(target: TargetReport) -> str | None:
    """The code a report leads with for ``target``: its most specific failure, else its first
    warning, else, when a rung could not be judged, why the first such rung is unknown.

    The last case keeps an inconclusive worker from reading "no trouble found" in the fleet
    overview when its own evidence is what is missing (no authorization record, say).
    """
    if target.first_failed_layer is not None:
        layer = next(r for r in target.layers if r.name is target.first_failed_layer)
        failing = [f.code for f in layer.findings if f.severity == "fail"]
        if failing:
            return failing[-1]
    warning = next(
        (f.code for r in target.layers for f in r.findings if f.severity == "warn"), None
    )
    if warning is not None or target.verdict is not Verdict.INCONCLUSIVE:
        return warning
    return next(
        (
            r.findings[0].code
            for r in target.layers
            if r.status is LayerStatus.UNKNOWN and r.findings
        ),
        None,
    )


def _target_rank(target: TargetReport) -> tuple[int, int]:
    layer = target.first_failed_layer
    return VERDICT_ORDER[target.verdict], layer.index if layer else 99


_PARTS = re.compile(r"\d+|\D+")


def _rank(row: WorkerOverview) -> tuple[object, ...]:
    rank = ROW_ORDER[row.verdict] if row.verdict is not None or row.trouble else 5
    layer = row.first_failed_layer.index if row.first_failed_layer else 99
    return rank, layer, natural(row.name)


def natural(name: str) -> tuple[tuple[int, int | str], ...]:
    """Sort key that puts w2 before w10."""
    return tuple((0, int(part)) if part.isdigit() else (1, part) for part in _PARTS.findall(name))


# --- groups -----------------------------------------------------------------------------------

_DIGITS = re.compile(r"\d+(?:\.\d+)?")


def _key(row: WorkerOverview) -> tuple[object, ...]:
    trouble = _DIGITS.sub("#", row.trouble) if row.trouble and row.finding is None else None
    return (
        row.status,
        row.health,
        row.admin,
        row.verdict,
        row.first_failed_layer,
        row.finding,
        trouble,
    )


def group_workers(rows: Sequence[WorkerOverview]) -> list[WorkerGroup]:
    """Rows sharing state, verdict and main finding, in the order of their first row."""
    buckets: dict[tuple[object, ...], list[WorkerOverview]] = {}
    for row in rows:
        buckets.setdefault(_key(row), []).append(row)
    return [_group(members) for members in buckets.values()]


def _group(members: list[WorkerOverview]) -> WorkerGroup:
    first = members[0]
    seen = [m.last_heartbeat_at for m in members if m.last_heartbeat_at is not None]
    common = dict(first.labels)
    for m in members[1:]:
        common = {k: v for k, v in common.items() if m.labels.get(k) == v}
    troubles = {m.trouble for m in members}
    group = WorkerGroup(
        summary="",
        count=len(members),
        status=first.status,
        health=first.health,
        admin=first.admin,
        verdict=first.verdict,
        first_failed_layer=first.first_failed_layer,
        finding=first.finding,
        trouble=first.trouble if len(troubles) == 1 else None,
        labels=common,
        since=min(seen) if seen else None,
        until=max(seen) if seen else None,
        in_flight=sum(m.in_flight or 0 for m in members),
        jobs_placed=sum(m.jobs_placed for m in members),
        workers=[m.name for m in members],
    )
    return group.model_copy(update={"summary": group_summary(group, first)})


def group_summary(group: WorkerGroup, first: WorkerOverview) -> str:
    """``312 workers offline since 2026-11-29 21:40:03Z — FLUX_WORKER_EVICTED (blocked)``."""
    noun = "worker" if group.count == 1 else "workers"
    state = _state_words(group.status, group.health, group.admin)
    when = ""
    if group.since is not None and group.status is not ConnectionState.ONLINE:
        when = f" since {_stamp(group.since)}"
        if group.until is not None and group.until != group.since:
            same_day = group.until.date() == group.since.date()
            until = f"{group.until:%H:%M:%S}Z" if same_day else _stamp(group.until)
            when = f", last seen {_stamp(group.since)[:-1]} – {until}"
    why = group.finding or group.trouble or first.trouble
    if group.verdict is not None:
        tail = f" — {why} ({group.verdict.value})" if why else f" — {group.verdict.value}"
    elif why:
        tail = f" — {why} (not walked: over the target limit)"
    else:
        tail = " — no trouble found"
    return f"{group.count} {noun} {state}{when}{tail}"


def _state_words(status: ConnectionState, health: HealthState, admin: AdminState) -> str:
    words = [status.value.replace("_", " ")]
    if health is HealthState.UNHEALTHY:
        words.append("unhealthy")
    if admin in (AdminState.PAUSED, AdminState.DRAINING):
        words.append(admin.value)
    return ", ".join(words)


def _stamp(at: datetime) -> str:
    return utc(at)


__all__ = ["fleet_overview", "group_summary", "group_workers", "main_finding"]
