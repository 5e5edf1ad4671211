"""A disputed worker's ladder: every rung judged on each of its records, kept only if they agree.

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

A reading is an :class:`EvidenceSet` view: those documents without the
worker's other records (every other document is the base set's own), and
its citations point into the member as it is (``/workers/<i>`` renumbered
back), so a finding cites the record it was read from.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any, TypeVar

from schemas import Citation, Finding, Layer, LayerResult, LayerStatus
from schemas.evidence import EvidenceDoc

from .api import SEVERITY_ORDER, EvidenceSet, RuleContext
from .contradictions import conflict_finding, disputes

D = TypeVar("D", bound=EvidenceDoc)

MAX_READINGS = 16
"""Readings walked at most (records of each disputed worker, multiplied). Past it every rung
is unknown: a bundle listing its target's workers that many ways tells nothing about them."""


class Reading(EvidenceSet):
    """``base`` as if each per-worker document listed only its records at ``kept`` (in order)."""

    def __init__(self, base: EvidenceSet, kept: Mapping[type[EvidenceDoc], Sequence[int]]) -> None:
        super().__init__(base.source, base.manifest, base.collectors)
        self.problems = base.problems
        self.unverified = base.unverified
        self._base = base
        self._kept = {cls: list(at) for cls, at in kept.items()}
        self._shown: dict[type[EvidenceDoc], EvidenceDoc] = {}
        for cls, at in self._kept.items():
            doc = base.document(cls)
            if doc is not None:
                listed: list[Any] = getattr(doc, "workers", [])  # each PER_WORKER doc lists them
                self._shown[cls] = doc.model_copy(update={"workers": [listed[i] for i in at]})

    def document(self, cls: type[D]) -> D | None:
        if cls in self._shown:
            return self._shown[cls]  # type: ignore[return-value]
        return self._base.document(cls)

    def position(self, cls: type[EvidenceDoc], index: int) -> int:
        kept = self._kept.get(cls)
        return kept[index] if kept is not None and 0 <= index < len(kept) else index

    def cite(self, cls: type[EvidenceDoc], pointer: str = "", value: Any = None) -> Citation:
        parts = pointer.split("/", 3)
        if cls in self._kept and len(parts) > 2 and parts[1] == "workers" and parts[2].isdigit():
            parts[2] = str(self.position(cls, int(parts[2])))
            pointer = "/".join(parts)
        return super().cite(cls, pointer, value)


def disputed(ctx: RuleContext) -> list[str]:
    """The workers the target names (itself, the one holding its job, the one the job is
    pinned to) that a per-worker document lists in records that disagree."""
    job = ctx.target.job
    named = [
        ctx.target.worker,
        job.assigned_worker if job else None,
        job.requirements.required_worker if job and job.requirements else None,
    ]
    return [name for name in dict.fromkeys(n for n in named if n) if disputes(ctx.evidence, name)]


def readings(ctx: RuleContext, names: Sequence[str]) -> list[Reading] | None:
    """One reading per combination of the disputed records (each document's records of each
    disputed worker, one at a time); None past :data:`MAX_READINGS`."""
    ev = ctx.evidence
    found = [dispute for name in names for dispute in disputes(ev, name)]
    total = 1
    for dispute in found:
        total *= len(dispute.records)
    if total > MAX_READINGS:
        return None
    readings = []
    for chosen in itertools.product(*([i for i, _ in d.records] for d in found)):
        dropped: dict[type[EvidenceDoc], set[int]] = {}
        for dispute, keep in zip(found, chosen, strict=True):
            dropped.setdefault(dispute.document, set()).update(
                i for i, _ in dispute.records if i != keep
            )
        kept = {}
        for cls, gone in dropped.items():
            listed = getattr(ev.document(cls), "workers", None) or []
            kept[cls] = [i for i in range(len(listed)) if i not in gone]
        readings.append(Reading(ev, kept))
    return readings


Evaluate = Callable[[RuleContext], LayerResult]


def judge_alike(
    layer: Layer, ctx: RuleContext, names: Sequence[str], evaluate: Evaluate
) -> LayerResult:
    """``layer`` judged in every reading: their common answer, or unknown with the conflict.

    Readings that give the same status for different reasons (offline by one
    record, stale by the other) decide the rung all the same: it reads that
    status, with each reading's findings and the conflict beside them.
    """
    found = readings(ctx, names)
    if found is None:
        return _conflict(layer, ctx, names, [], LayerStatus.UNKNOWN)
    results = [evaluate(replace(ctx, evidence=reading)) for reading in found]
    if len({_gist(result) for result in results}) == 1:
        return _cited_by_all(results)
    statuses = [result.status.value for result in results]
    if len(set(statuses)) > 1:
        return _conflict(layer, ctx, names, statuses, LayerStatus.UNKNOWN)
    decided = _conflict(layer, ctx, names, statuses, results[0].status)
    decided.findings = sorted(
        _each_reason(results) + decided.findings,
        key=lambda f: SEVERITY_ORDER.get(f.severity, 9),
    )
    return decided


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
    layer: Layer, ctx: RuleContext, names: Sequence[str], outcomes: list[str], status: LayerStatus
) -> LayerResult:
    findings: list[Finding] = [
        finding
        for name in names
        if (finding := conflict_finding(ctx.evidence, name, layer, outcomes)) is not None
    ]
    return LayerResult(name=layer, status=status, findings=findings)


__all__ = ["MAX_READINGS", "Reading", "disputed", "judge_alike", "readings"]
