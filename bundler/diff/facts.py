"""What changed about the fleet itself: workers, deployments and collection.

Workers are compared by name on the facts an engineer checks after a repair
(connection, health, admin state, version, labels, capacity); deployments by
job and worker on their identity (deployment id, state, staged revision);
collectors by id, on whether they succeeded. A worker or deployment listed
twice shows what each record says where they differ, whatever their order.
"""

from __future__ import annotations

import json
from typing import Any

from schemas import Manifest
from schemas.diff import CollectorChange, FieldChange
from schemas.evidence import CapacityEvidence, DeploymentEvidence, WorkersEvidence

from .sides import Side

OK_STATUSES = ("ok", "skipped")
"""Skipped is on purpose (an optional feature absent), not a failure."""


def _worker_facts(side: Side) -> dict[str, dict[str, Any]]:
    """Each worker's facts; a worker listed more than once shows every record's word for a fact
    its records disagree on (``offline / online``), never the last or the first record's."""
    said: dict[str, list[dict[str, Any]]] = {}
    workers = side.workers.workers if isinstance(side.workers, WorkersEvidence) else []
    versions = side.product.worker_versions if side.product is not None else {}
    for worker in workers:
        runtime = worker.runtime
        facts = {
            "status": worker.native_status,
            "connection": worker.connection.value,
            "health": worker.health.value,
            "admin": worker.admin.value,
            "version": worker.version or versions.get(worker.name),
            "runtime version": runtime.runtime_version if runtime else None,
            "labels": dict(sorted(worker.labels.items())),
            "group": worker.group,
            "slots max": worker.slots_max,
        }
        _add(said, worker.name, facts)
    capacity = side.capacity.workers if isinstance(side.capacity, CapacityEvidence) else []
    for cap in capacity:
        _add(
            said,
            cap.worker,
            {
                "capacity slots max": cap.slots_max,
                "capacity cpu cores": cap.cpu_cores,
                "capacity memory total": cap.memory_total_bytes,
            },
        )
    return {name: _merged(records) for name, records in said.items()}


def _add(said: dict[str, list[dict[str, Any]]], name: str, facts: dict[str, Any]) -> None:
    said.setdefault(name, []).append(facts)


def _merged(records: list[dict[str, Any]]) -> dict[str, Any]:
    """One name's facts from its records: each fact's one value, else every record's
    (:func:`_one`). Nearly every name has one record, or a worker's record and its capacity
    report, which share no fact: those are taken as they are, not value by value (a fleet of
    100,000 workers spent seconds there)."""
    if len(records) == 1:
        return records[0]
    if len(records) == 2 and records[0].keys().isdisjoint(records[1]):
        return records[0] | records[1]
    entry: dict[str, list[Any]] = {}
    for facts in records:
        for field, value in facts.items():
            values = entry.setdefault(field, [])
            if value not in values:
                values.append(value)
    return {field: _one(values) for field, values in entry.items()}


def _one(values: list[Any]) -> Any:
    """The value every record gives, else each record's, sorted and joined (order-free)."""
    if len(values) == 1:
        return values[0]
    return " / ".join(sorted(_text(v) for v in values))


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


UNLISTED = "unknown (incomplete worker list)"
"""A worker's presence on a side whose worker list has gaps (a failed request, or a list over
a reader's limit): not in it is not gone, and an unread list is no empty fleet."""


def _absent(side: Side) -> bool | str:
    """What a worker missing from ``side``'s list says about it: gone, or unknown."""
    listed = side.workers
    return False if isinstance(listed, WorkersEvidence) and listed.complete else UNLISTED


def worker_changes(before: Side, after: Side) -> list[FieldChange]:
    old, new = _worker_facts(before), _worker_facts(after)
    changes: list[FieldChange] = []
    for name in sorted(old.keys() | new.keys()):
        if name not in new:
            changes.append(
                FieldChange(subject=name, field="present", before=True, after=_absent(after))
            )
            continue
        if name not in old:
            changes.append(
                FieldChange(subject=name, field="present", before=_absent(before), after=True)
            )
            continue
        for field in old[name].keys() | new[name].keys():
            b, a = old[name].get(field), new[name].get(field)
            if b != a and not _said_by_connection(field, old[name], new[name]):
                changes.append(FieldChange(subject=name, field=field, before=b, after=a))
    return sorted(changes, key=lambda c: (c.subject, c.field))


def _said_by_connection(field: str, old: dict[str, Any], new: dict[str, Any]) -> bool:
    """The product's status word is the connection's on both sides (Flux's ``offline`` ->
    ``online``): one worker event, so only the connection change is listed. A status that
    says more (``STALE``, ``draining``) is listed as its own change."""
    if field != "status":
        return False
    return all(_word(facts.get("status")) == _word(facts.get("connection")) for facts in (old, new))


def _word(value: Any) -> str | None:
    return value.lower() if isinstance(value, str) else value


def _deployment_facts(side: Side) -> dict[str, dict[str, Any]]:
    """Each deployment's and job deployment's facts; one listed more than once shows every
    record's word for a fact its records disagree on (``active / failed``), as for workers,
    never the last record's."""
    doc = side.deployments
    said: dict[str, list[dict[str, Any]]] = {}
    if not isinstance(doc, DeploymentEvidence):
        return {}
    for record in doc.deployments:
        name = record.workflow or record.deployment_id or "?"
        facts = {
            "deployment id": record.deployment_id,
            "version": record.version,
            "status": record.status,
            "reconcile state": record.reconcile_state,
        }
        _add(said, f"deployment {name}", facts)
        for job in record.job_deployments:
            facts = {
                "deployment id": job.deployment_id,
                "state": job.state,
                "staged revision": job.staged_revision,
                "reason": job.reason,
            }
            _add(said, f"{job.job} on {job.worker}", facts)
    return {name: _merged(records) for name, records in said.items()}


def deployment_changes(before: Side, after: Side) -> list[FieldChange]:
    old, new = _deployment_facts(before), _deployment_facts(after)
    changes: list[FieldChange] = []
    for name in sorted(old.keys() | new.keys()):
        b_facts, a_facts = old.get(name, {}), new.get(name, {})
        for field in sorted(b_facts.keys() | a_facts.keys()):
            b, a = b_facts.get(field), a_facts.get(field)
            if b != a:
                changes.append(FieldChange(subject=name, field=field, before=b, after=a))
    return changes


def collector_changes(before: Manifest | None, after: Manifest | None) -> list[CollectorChange]:
    """Collectors that succeeded in one bundle and not in the other."""
    old = {c.id: c for c in before.collectors} if before else {}
    new = {c.id: c for c in after.collectors} if after else {}
    changes: list[CollectorChange] = []
    for cid in sorted(old.keys() | new.keys()):
        b, a = old.get(cid), new.get(cid)
        b_ok = b is not None and b.status.value in OK_STATUSES
        a_ok = a is not None and a.status.value in OK_STATUSES
        if b is not None and a is not None and b_ok == a_ok:
            continue  # the same outcome on both sides
        if (b is None and a_ok) or (a is None and b_ok):
            continue  # ran on one side only, and fine there
        failing = a if not a_ok else b
        changes.append(
            CollectorChange(
                collector=cid,
                before=b.status.value if b else None,
                after=a.status.value if a else None,
                error=(failing.error_message or failing.note) if failing else None,
            )
        )
    return changes
