"""A disputed target's ladder: every rung judged on each of its records, kept only if they agree.

:mod:`.contradictions` tells *that* a worker's records disagree (the same
worker listed twice, once ``online`` with ``zone=a``, once ``offline`` with
``zone=b``). Which rungs that matters for is not left to each rule: a rule
that looks the worker up gets the first record (:func:`~.facts.find_worker`),
so a rung that reads the disputed fields would pass or fail by list order —
placement on the labels, capacity on the slots, authorization on the kind,
a product's rule on the connection.

So a target whose worker is disputed is walked once per *reading*: the
bundle as if that worker were listed by one of its records only. A rung that
comes out the same in every reading (status, findings, messages, details)
rests only on what the records agree on, whichever record is true: that
answer stands, citing each record it was read from. Readings that agree on
the status for different reasons (offline by one record, stale by the other)
decide it too, with each reason listed. A rung that comes out differently is
unknown, with ``WORKER_RECORDS_CONFLICT`` citing every record. Both list
orders give the same readings, so the same verdict.

The same holds for the other documents that hold one record per worker
(:data:`~.contradictions.PER_WORKER`: capacity.json, authorization.json):
Flux derives a capacity record from each worker record, so a worker listed
twice has two, and the readings take each combination (at most
:data:`MAX_READINGS`; past it every rung is unknown).

And for an entry of another document the target's ladder reads, listed twice
with records that disagree (:mod:`.duplicates`: its job's placement report, a
deployment, a runtime-requirements report or a requirement in it, a local state
file or socket, the target's run itself in the job list): a rule that took the
first match, or let the worse record win, is read on each record instead, and a
rung the records decide differently is unknown with ``EVIDENCE_RECORDS_CONFLICT``.
A reading of a run listed twice also hands the rules that record as the target's
job.

A reading is an :class:`EvidenceSet` view: those documents without the
disputed lists' other records (every other document is the base set's own),
and its citations point into the member as it is (``/workers/<i>``,
``/deployments/<i>/job_deployments/<j>`` renumbered back), so a finding cites
the record it was read from.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence, Set
from dataclasses import replace
from typing import Any, TypeVar

from schemas import Citation, Finding, Layer, LayerResult, LayerStatus
from schemas.evidence import EvidenceDoc, JobsEvidence

from .api import SEVERITY_ORDER, EvidenceSet, RuleContext, Target, cite_json
from .contradictions import Dispute, conflict_finding, disputes
from .duplicates import entry_conflict, entry_disputes, scope

D = TypeVar("D", bound=EvidenceDoc)

MAX_READINGS = 16
"""Readings walked at most (records of each dispute, multiplied). Past it every rung is
unknown: a bundle listing its target's workers or entries that many ways tells nothing."""


Dropped = Mapping[type[EvidenceDoc], Mapping[tuple[str | int, ...], Set[int]]]
"""Per document, per list (its path, in the member's own numbering), the records left out."""


class Reading(EvidenceSet):
    """``base`` as if each disputed list held only the records it keeps (``dropped`` left out)."""

    def __init__(self, base: EvidenceSet, dropped: Dropped) -> None:
        super().__init__(base.source, base.manifest, base.collectors)
        self.problems = base.problems
        self.unverified = base.unverified
        self._base = base
        self._dropped = {cls: dict(lists) for cls, lists in dropped.items()}
        self._shown: dict[type[EvidenceDoc], EvidenceDoc] = {}
        for cls, lists in self._dropped.items():
            doc = base.document(cls)
            if doc is None:
                continue
            for at in sorted(lists, key=len, reverse=True):  # inner lists first: paths stay true
                doc = _without(doc, at, lists[at])
            self._shown[cls] = doc

    def document(self, cls: type[D]) -> D | None:
        if cls in self._shown:
            return self._shown[cls]  # type: ignore[return-value]
        return self._base.document(cls)

    def position(self, cls: type[EvidenceDoc], index: int) -> int:
        return _kept(index, self._dropped.get(cls, {}).get(("workers",), set()))

    def cite(self, cls: type[EvidenceDoc], pointer: str = "", value: Any = None) -> Citation:
        pointer, value = self.existing(cls, pointer, value)  # in this view's records
        lists = self._dropped.get(cls)
        if lists:
            pointer = _renumbered(pointer, lists)
        return cite_json(cls.member_path, pointer, value)


def _without(node: Any, at: tuple[str | int, ...], gone: Set[int]) -> Any:
    """``node`` (a model) with the items ``gone`` left out of the list at path ``at``."""
    name, rest = str(at[0]), at[1:]
    items = list(getattr(node, name))
    if rest:
        index = int(rest[0])
        items[index] = _without(items[index], rest[1:], gone)
    else:
        items = [item for i, item in enumerate(items) if i not in gone]
    return node.model_copy(update={name: items})


def _kept(index: int, gone: Set[int]) -> int:
    """Where the ``index``-th record a reading keeps stands in the list itself."""
    for skipped in sorted(gone):
        if skipped <= index:
            index += 1
    return index


def _renumbered(pointer: str, lists: Mapping[tuple[str | int, ...], Set[int]]) -> str:
    """A pointer into a reading's view, numbered as in the member (``/workers/1`` may be 2)."""
    parts = pointer.split("/")
    out, k = parts[:1], 1
    path: tuple[str | int, ...] = ()
    while k < len(parts):
        out.append(parts[k])
        path += (parts[k],)
        k += 1
        if k < len(parts) and parts[k].isdigit():
            index = _kept(int(parts[k]), lists.get(path, set()))
            out.append(str(index))
            path += (index,)
            k += 1
    return "/".join(out)


def named(ctx: RuleContext) -> list[str]:
    """The workers the target names: itself, the one holding its job, the one it is pinned to."""
    job = ctx.target.job
    listed = [
        ctx.target.worker,
        job.assigned_worker if job else None,
        job.requirements.required_worker if job and job.requirements else None,
    ]
    return list(dict.fromkeys(n for n in listed if n))


def disputed(ctx: RuleContext) -> list[Dispute]:
    """Every dispute the target's ladder could rest on: the records of a worker it names that
    a per-worker document lists disagreeing, and each entry it reads that another document
    lists twice, disagreeing (:mod:`.duplicates`)."""
    names = named(ctx)
    found = [dispute for name in names for dispute in disputes(ctx.evidence, name)]
    return found + entry_disputes(ctx.evidence, scope(ctx, names))


def readings(ctx: RuleContext, found: Sequence[Dispute]) -> list[Reading] | None:
    """One reading per combination of the disputed records (each dispute's records, one at a
    time); None past :data:`MAX_READINGS`."""
    total = 1
    for dispute in found:
        total *= len(dispute.records)
    if total > MAX_READINGS:
        return None
    readings = []
    for chosen in itertools.product(*([i for i, _ in d.records] for d in found)):
        dropped: dict[type[EvidenceDoc], dict[tuple[str | int, ...], set[int]]] = {}
        for dispute, keep in zip(found, chosen, strict=True):
            gone = dropped.setdefault(dispute.document, {}).setdefault(dispute.at, set())
            gone.update(i for i, _ in dispute.records if i != keep)
        readings.append(Reading(ctx.evidence, dropped))
    return readings


Evaluate = Callable[[RuleContext], LayerResult]


def judge_alike(
    layer: Layer, ctx: RuleContext, doubted: Sequence[Dispute], evaluate: Evaluate
) -> LayerResult:
    """``layer`` judged in every reading: their common answer, or unknown with the conflict.

    Readings that give the same status for different reasons (offline by one
    record, stale by the other) decide the rung all the same: it reads that
    status, with each reading's findings and the conflict beside them.
    """
    found = readings(ctx, doubted)
    if found is None:
        return _conflict(layer, ctx, doubted, [], LayerStatus.UNKNOWN)
    results = [
        evaluate(replace(ctx, evidence=reading, target=_as_read(ctx.target, reading)))
        for reading in found
    ]
    if len({_gist(result) for result in results}) == 1:
        return _cited_by_all(results)
    statuses = [result.status.value for result in results]
    if len(set(statuses)) > 1:
        return _conflict(layer, ctx, doubted, statuses, LayerStatus.UNKNOWN)
    decided = _conflict(layer, ctx, doubted, statuses, results[0].status)
    decided.findings = sorted(
        _each_reason(results) + decided.findings,
        key=lambda f: SEVERITY_ORDER.get(f.severity, 9),
    )
    return decided


def _as_read(target: Target, reading: Reading) -> Target:
    """``target`` with its job as ``reading`` lists it: a run listed twice, its records
    disagreeing, is judged on the record the reading keeps (rules read the target's job)."""
    job = target.job
    doc = reading.document(JobsEvidence)
    if job is None or not job.id or doc is None:
        return target
    kept = [j for j in doc.jobs if j.id == job.id]
    if not kept or any(j is job for j in kept):
        return target
    return replace(target, job=kept[0])


def _gist(result: LayerResult) -> str:
    """What a rung says, without where it was read (a reading cites its own record)."""
    return result.model_dump_json(exclude={"findings": {"__all__": {"evidence"}}})


def _cited_by_all(results: list[LayerResult]) -> LayerResult:
    """The readings' common answer, each finding citing what every reading cited."""
    merged = results[0].model_copy(deep=True)
    for position, finding in enumerate(merged.findings):
        finding.evidence = _union(r.findings[position] for r in results)
    return merged


def _each_reason(results: list[LayerResult]) -> list[Finding]:
    """Every reading's findings, once each (the same finding read twice cites both records)."""
    kept: dict[str, list[Finding]] = {}
    for result in results:
        for finding in result.findings:
            key = finding.model_dump_json(exclude={"evidence"})
            kept.setdefault(key, []).append(finding)
    merged = []
    for same in kept.values():
        finding = same[0].model_copy(deep=True)
        finding.evidence = _union(same)
        merged.append(finding)
    return sorted(merged, key=lambda f: (f.code, f.message))  # not by which reading said it


def _union(findings: Iterable[Finding]) -> list[Citation]:
    cited: dict[str, Citation] = {}
    for finding in findings:
        for citation in finding.evidence:
            cited.setdefault(citation.model_dump_json(), citation)
    return list(cited.values())


def _conflict(
    layer: Layer,
    ctx: RuleContext,
    doubted: Sequence[Dispute],
    outcomes: list[str],
    status: LayerStatus,
) -> LayerResult:
    """The rung at ``status`` with a finding for each disputed worker (all its documents in
    one) and for each other disputed entry."""
    names = dict.fromkeys(d.worker for d in doubted if d.worker is not None)
    findings: list[Finding] = [
        finding
        for name in names
        if (finding := conflict_finding(ctx.evidence, name, layer, outcomes)) is not None
    ]
    findings += [
        entry_conflict(ctx.evidence, d, layer, outcomes) for d in doubted if d.worker is None
    ]
    return LayerResult(name=layer, status=status, findings=findings)


__all__ = ["MAX_READINGS", "Reading", "disputed", "judge_alike", "named", "readings"]
