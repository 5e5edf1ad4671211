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
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from schemas import Citation, Finding, Layer, LayerStatus
from schemas.evidence import (
    AuthorizationEvidence,
    CanaryRun,
    CapacityEvidence,
    EvidenceDoc,
    OutcomeEvidence,
    WorkersEvidence,
    WorkerStatus,
)

from ..plurals import counted
from . import codes
from .api import EvidenceSet, RuleContext, RuleResult, excerpt, make_finding
from .facts import by_worker, cite, cite_source, cite_worker, run_kind, worker_records

IGNORED = frozenset({"source", "counted_by"})
"""Where a record was read is not what it says: two equal records from two places agree
(``counted_by``: the sources whose count a capacity record holds)."""

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


PER_WORKER: tuple[type[EvidenceDoc], ...] = (
    WorkersEvidence,
    CapacityEvidence,
    AuthorizationEvidence,
)
"""Documents that hold one record per worker under ``workers`` (by name; workers.json also by
id): a worker listed in one of them twice is the same contradiction, whichever it is."""


@dataclass(frozen=True)
class Dispute:
    """The records of one worker in one document, and the fields they disagree on; or of one
    entry of another document (:mod:`.duplicates`)."""

    document: type[EvidenceDoc]
    records: list[tuple[int, Any]]
    """Each record and its index in the list at :attr:`at`."""
    differ: dict[str, list[Any]]
    at: tuple[str | int, ...] = ("workers",)
    """The list holding the records: a per-worker document's ``workers``, or e.g.
    ``("deployments", 2, "job_deployments")``."""
    worker: str | None = None
    """The worker whose records these are (as the target names it), for a per-worker
    document: one finding per worker says what each of its documents disagrees on."""
    subject: str = ""
    """What another entry's records are of, as its finding names it."""


def entries(ev: EvidenceSet, cls: type[EvidenceDoc], name: str | None) -> list[tuple[int, Any]]:
    """Every record of worker ``name`` in ``cls`` (one of :data:`PER_WORKER`), in list order."""
    if cls is WorkersEvidence:
        return list(worker_records(ev, name))
    doc = ev.document(cls)  # looked at for contradictions only: not evidence the rule rests on
    return list(by_worker(ev, cls, doc).get(name, ())) if name else []


def disputes(ev: EvidenceSet, name: str | None) -> list[Dispute]:
    """Each per-worker document whose records of worker ``name`` disagree (empty: none does)."""
    found = []
    for cls in PER_WORKER:
        records = entries(ev, cls, name)
        if len(records) < 2:
            continue
        differ = disagreement([r for _, r in records])
        if differ:
            found.append(Dispute(cls, records, differ, worker=name))
    return found


@dataclass(frozen=True)
class Settled:
    """A question asked of every worker in a list, each worker answering once."""

    yes: list[tuple[int, WorkerStatus]]
    """Workers every record of which answers yes (their first record, in list order)."""
    no: list[tuple[int, WorkerStatus]]
    """Workers every record of which answers no (their first record)."""
    disputed: list[str]
    """Workers whose records answer differently: neither yes nor no."""


def settled(
    listed: Sequence[tuple[int, WorkerStatus]], test: Callable[[WorkerStatus], bool]
) -> Settled:
    """``test`` asked of each worker in ``listed`` (index, record), by all of its records.

    A fleet-wide rule ("is any worker online?", "can any worker take the job?")
    must not count a worker listed twice by the record that suits it: a worker
    counts only when every record of it gives the same answer. One that is
    ``online`` in one record and ``offline`` in the other is neither, and the rule
    says unknown (:func:`conflict_finding`) where the answer would rest on it.
    """
    answers: dict[str, list[tuple[int, WorkerStatus, bool]]] = {}
    for index, record in listed:
        answers.setdefault(record.name, []).append((index, record, test(record)))
    yes, no, disputed = [], [], []
    for name, said in answers.items():
        verdicts = {answer for _, _, answer in said}
        first = (said[0][0], said[0][1])
        if verdicts == {True}:
            yes.append(first)
        elif verdicts == {False}:
            no.append(first)
        else:
            disputed.append(name)
    return Settled(yes, no, disputed)


def worker_conflict(ctx: RuleContext, name: str | None) -> RuleResult | None:
    """Unknown, citing every record, when the bundle's records of worker ``name`` disagree.

    Every rule that judges the worker's connection or heartbeat asks this first,
    so no rule passes or fails the rung on whichever record happens to be first.
    (Walked in a ladder, every rung of a disputed worker is judged on each of its
    records in turn, :mod:`bundler.analyze.readings`; this guards a rule run alone.)
    """
    finding = conflict_finding(ctx.evidence, name)
    return None if finding is None else RuleResult(LayerStatus.UNKNOWN, [finding])


def conflicts_unknown(
    ev: EvidenceSet, names: Iterable[str], layer: Layer = Layer.HEARTBEAT
) -> RuleResult:
    """Unknown, citing the records of each worker in ``names`` (from :func:`settled`'s
    ``disputed``): a fleet-wide rung that can count those workers neither way."""
    return RuleResult(
        LayerStatus.UNKNOWN,
        [finding for name in names if (finding := conflict_finding(ev, name, layer)) is not None],
    )


DOUBTED = {
    Layer.SERVER: "what the control plane says of it",
    Layer.HEARTBEAT: "whether it is connected and answering heartbeats",
    Layer.AUTHORIZATION: "whether it is authorized to run work",
    Layer.PLACEMENT: "whether the job is meant for it",
    Layer.DEPLOYMENT: "whether the job reached a runnable state on it",
    Layer.REQUIREMENTS: "whether the job's runtime requirements are met on it",
    Layer.CAPACITY: "whether it has the room and capabilities the job needs",
    Layer.OUTCOME: "the job's outcome on it",
}
"""What a rung cannot tell of a worker whose records disagree, as a finding says it ("it" is
the worker the finding opens with)."""

ENTRY_DOUBTED = {
    Layer.SERVER: "what the control plane says",
    Layer.HEARTBEAT: "whether the worker is connected and answering heartbeats",
    Layer.AUTHORIZATION: "whether the worker is authorized to run work",
    Layer.PLACEMENT: "whether the job is meant for the worker",
    Layer.DEPLOYMENT: "whether the job reached a runnable state on the worker",
    Layer.REQUIREMENTS: "whether the job's runtime requirements are met on the worker",
    Layer.CAPACITY: "whether the worker has the room and capabilities the job needs",
    Layer.OUTCOME: "the job's outcome",
}
"""The same for a disputed entry (a job, a deployment, a report, a state file): the finding
opens with that entry, so no "it" may stand for the worker or the job."""


def readings_verdict(
    layer: Layer,
    outcomes: Sequence[str],
    each: str | None = None,
    doubted: Mapping[Layer, str] = DOUBTED,
) -> str:
    """How a conflict finding opens: the rung decided whichever record is true (all readings
    agree), or unknown, then what it reads by each record (``each``, when the caller can say
    which record gave which) or else the outcomes seen. One wording for disputed workers
    and disputed entries, each naming what the rung cannot tell its own way (``doubted``:
    :data:`DOUBTED` of a worker, :data:`ENTRY_DOUBTED` of an entry)."""
    said = sorted(set(outcomes))
    if len(said) == 1:
        return (
            f"the evidence contradicts itself, but judged on each record alone this rung reads "
            f"{said[0]} either way, for reasons that differ (each record's is listed)."
        )
    verdict = f"the evidence contradicts itself, so {doubted[layer]} is unknown."
    reads = each or (" or ".join(said) + " depending on the record" if said else None)
    if reads is None:
        return verdict
    return f"{verdict} Judged on each record alone, this rung reads {reads}."


def conflict_finding(
    ev: EvidenceSet,
    name: str | None,
    layer: Layer = Layer.HEARTBEAT,
    outcomes: Sequence[str] = (),
) -> Finding | None:
    """The ``WORKER_RECORDS_CONFLICT`` finding of ``layer`` for worker ``name``; None when its
    records agree (in workers.json and every other per-worker document, :data:`PER_WORKER`).

    ``outcomes`` are the rung's status judged on each record alone (see
    :mod:`bundler.analyze.readings`): when they are all the same the rung is decided
    whichever record is true (only its reasons differ), else it is unknown.
    """
    found = disputes(ev, name)
    if not found:
        return None
    verdict = readings_verdict(layer, outcomes)
    listed = [d for d in found if d.document is WorkersEvidence]
    others = [d for d in found if d.document is not WorkersEvidence]
    worker = listed[0].records[0][1].name if listed else str(name)
    said_where = [
        f"is listed {len(d.records)} times and its records disagree ({spell(d.differ)})"
        for d in listed
    ] + [
        f"has {len(d.records)} records in {d.document.member_path} that disagree "
        f"({spell(d.differ)})"
        for d in others
    ]
    details: dict[str, Any] = {"worker": worker}
    if listed:
        details["records"] = [ev.position(WorkersEvidence, i) for i, _ in listed[0].records]
        details["disagree"] = list(listed[0].differ)
    if others:
        details["entries"] = {
            d.document.member_path: [ev.position(d.document, i) for i, _ in d.records]
            for d in others
        }
    if outcomes:
        details["outcomes"] = list(outcomes)
    return make_finding(
        codes.WORKER_RECORDS_CONFLICT,
        "info",
        f"Worker {worker} " + "; it ".join(said_where) + f": {verdict} Which record comes "
        "first proves nothing; collect the worker list again.",
        evidence=[c for d in found for c in _cite_dispute(ev, d)],
        **details,
    )


def _cite_dispute(ev: EvidenceSet, dispute: Dispute) -> list[Citation]:
    return _cited(
        dispute.records,
        dispute.differ,
        lambda i, field, value: cite(ev, dispute.document, "workers", i, field, value=value),
    )


def spell(differ: dict[str, list[Any]]) -> str:
    """``connection: online / offline; labels: …`` for the first few disagreeing fields."""
    shown = [
        f"{name}: " + " / ".join(excerpt(_text(v), 40) for v in values)
        for name, values in list(differ.items())[:SHOWN_FIELDS]
    ]
    more = len(differ) - SHOWN_FIELDS
    return "; ".join(shown) + (f"; and {counted(more, 'more field')}" if more > 0 else "")


def _text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True, default=str)


def cite_records(
    ev: EvidenceSet, records: Sequence[tuple[int, WorkerStatus]], differ: dict[str, list[Any]]
) -> list[Citation]:
    """Each worker record at its first disagreeing field, and the product's answer behind it."""
    return _cited(records, differ, lambda i, field, value: cite_worker(ev, i, field, value=value))


def _cited(
    records: Sequence[tuple[int, Any]],
    differ: dict[str, list[Any]],
    at: Callable[[int, str, Any], Citation],
) -> list[Citation]:
    """Each record cited by ``at`` (its index, first disagreeing field and value), each followed
    by the raw member it was read from, and by those of every source whose count it holds
    (``counted_by``: the contradiction is cited in each source's own words), each once."""
    field, values = next(iter(differ.items()))
    cited: list[Citation] = []
    for (index, record), value in zip(records, values, strict=True):
        cited.append(at(index, field, value))
        sources = [getattr(record, "source", None), *(getattr(record, "counted_by", None) or ())]
        for source in sources:
            raw = cite_source(source)
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
        f"unknown. Which record comes first proves nothing; {_again(run)}",
        evidence=cited,
        run=run.canary_id,
        records=[index for index, _ in records],
        disagree=list(differ),
    )


def _again(run: CanaryRun) -> str:
    """What settles ``run``'s outcome: another run, of the kind the product has."""
    return "run a bounded canary again." if run_kind(run) == "canary" else "run the job again."


__all__ = [
    "DOUBTED",
    "ENTRY_DOUBTED",
    "PER_WORKER",
    "Dispute",
    "Settled",
    "cite_records",
    "conflict_finding",
    "conflicting_run",
    "conflicting_worker",
    "disagreement",
    "disputes",
    "entries",
    "run_conflict",
    "settled",
    "spell",
    "worker_conflict",
]
