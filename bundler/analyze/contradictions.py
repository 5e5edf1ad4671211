"""Evidence that contradicts itself: one worker or run listed twice, its records disagreeing.

A product's list can name one worker twice (Flux's ``GET /workers`` once
``online``, once ``offline``). Both cannot be true, and where a record stands
in the list says nothing about which one is: believing the first (or the last)
makes the verdict flip when the list is reversed, healthy one way and blocked
the other. So no rule picks a record by its position. Records that are the
same fact listed twice (equal but for where they were read) are merged
silently; records that differ make the rung they decide *unknown*, with a
finding that cites every record, so the verdict is inconclusive whatever the
order. The same holds for a run: one canary id listed ``successful`` and again
``failed`` makes the outcome unknown, not whichever record a rule picks.

The canonical documents are read as they are: a normalizer is not trusted to
have removed duplicates (and must not settle a contradiction silently itself).
Judged here once for every product, generic and product rules alike.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from schemas import Citation, Finding, LayerStatus
from schemas.evidence import CanaryRun, OutcomeEvidence, WorkerStatus

from . import codes
from .api import EvidenceSet, RuleContext, RuleResult, excerpt, make_finding
from .facts import cite, cite_source, cite_worker, worker_records

IGNORED = frozenset({"source"})
"""Where a record was read is not what it says: two equal records from two places agree."""

SHOWN_FIELDS = 3
"""Disagreeing fields a message spells out (the finding's details name them all)."""


def disagreement(records: Sequence[BaseModel]) -> dict[str, list[Any]]:
    """Field -> each record's value, for the fields the records do not agree on (in order)."""
    dumps = [r.model_dump(mode="json", exclude=set(IGNORED)) for r in records]
    fields = list(dict.fromkeys(key for dump in dumps for key in dump))
    return {
        name: [dump.get(name) for dump in dumps]
        for name in fields
        if len({json.dumps(dump.get(name), sort_keys=True) for dump in dumps}) > 1
    }


def conflicting_worker(
    ev: EvidenceSet, name: str | None
) -> tuple[list[tuple[int, WorkerStatus]], dict[str, list[Any]]] | None:
    """Every record of worker ``name`` and the fields they disagree on; None when they agree."""
    records = worker_records(ev, name)
    if len(records) < 2:
        return None
    differ = disagreement([w for _, w in records])
    return (records, differ) if differ else None


def worker_conflict(ctx: RuleContext, name: str | None) -> RuleResult | None:
    """Unknown, citing every record, when the bundle's records of worker ``name`` disagree.

    Every rule that judges the worker's connection or heartbeat asks this first,
    so no rule passes or fails the rung on whichever record happens to be first.
    """
    found = conflicting_worker(ctx.evidence, name)
    if found is None:
        return None
    records, differ = found
    worker = records[0][1].name
    return RuleResult(
        LayerStatus.UNKNOWN,
        [
            make_finding(
                codes.WORKER_RECORDS_CONFLICT,
                "info",
                f"Worker {worker} is listed {len(records)} times and its records disagree "
                f"({spell(differ)}): the evidence contradicts itself, so whether it is "
                "connected and answering heartbeats is unknown. Which record comes first "
                "proves nothing; collect the worker list again.",
                evidence=cite_records(ctx.evidence, records, differ),
                worker=worker,
                records=[index for index, _ in records],
                disagree=list(differ),
            )
        ],
    )


def spell(differ: dict[str, list[Any]]) -> str:
    """``connection: online / offline; labels: …`` for the first few disagreeing fields."""
    shown = [
        f"{name}: " + " / ".join(excerpt(_text(v), 40) for v in values)
        for name, values in list(differ.items())[:SHOWN_FIELDS]
    ]
    more = len(differ) - SHOWN_FIELDS
    return "; ".join(shown) + (f"; and {more} more field(s)" if more > 0 else "")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def cite_records(
    ev: EvidenceSet, records: Sequence[tuple[int, WorkerStatus]], differ: dict[str, list[Any]]
) -> list[Citation]:
    """Each worker record at its first disagreeing field, and the product's answer behind it."""
    return _cited(records, differ, lambda i, field, value: cite_worker(ev, i, field, value=value))


def _cited(
    records: Sequence[tuple[int, WorkerStatus | CanaryRun]],
    differ: dict[str, list[Any]],
    at: Callable[[int, str, Any], Citation],
) -> list[Citation]:
    """Each record cited by ``at`` (its index, first disagreeing field and value), each followed
    by the raw member it was read from, once."""
    field, values = next(iter(differ.items()))
    cited: list[Citation] = []
    for (index, record), value in zip(records, values, strict=True):
        cited.append(at(index, field, value))
        raw = cite_source(record.source)
        if raw is not None and raw not in cited:
            cited.append(raw)
    return cited


def conflicting_run(
    ev: EvidenceSet, run: CanaryRun
) -> tuple[list[tuple[int, CanaryRun]], dict[str, list[Any]]] | None:
    """Every record of ``run`` (same canary or run id) and what they disagree on; None if
    they agree or the run has no id to recognise it by."""
    doc = ev.get(OutcomeEvidence)
    if doc is None or not run.canary_id:
        return None
    records = [(i, r) for i, r in enumerate(doc.canaries) if r.canary_id == run.canary_id]
    if len(records) < 2:
        return None
    differ = disagreement([r for _, r in records])
    return (records, differ) if differ else None


def run_conflict(ctx: RuleContext, run: CanaryRun) -> Finding | None:
    """An unknown finding, citing every record, when the records of ``run`` disagree.

    The same canary listed ``successful`` and again ``failed`` is not the later
    or the earlier of the two: judging the one a rule happens to pick would pass
    or fail the outcome by list order.
    """
    found = conflicting_run(ctx.evidence, run)
    if found is None:
        return None
    records, differ = found
    cited = _cited(
        records,
        differ,
        lambda i, field, value: cite(
            ctx.evidence, OutcomeEvidence, "canaries", i, field, value=value
        ),
    )
    return make_finding(
        codes.CANARY_RECORDS_CONFLICT,
        "info",
        f"Run {run.canary_id} of {run.job} is listed {len(records)} times and its records "
        f"disagree ({spell(differ)}): the evidence contradicts itself, so its outcome is "
        "unknown. Which record comes first proves nothing; run a bounded canary again.",
        evidence=cited,
        run=run.canary_id,
        records=[index for index, _ in records],
        disagree=list(differ),
    )


__all__ = [
    "cite_records",
    "conflicting_run",
    "conflicting_worker",
    "disagreement",
    "run_conflict",
    "spell",
    "worker_conflict",
]
