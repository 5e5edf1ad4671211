"""A target's next steps, each said once: what several findings share closes the list.

A runtime-requirements rung with four blockers is four findings, each with its repair and
the same close: "Rerun readiness after the repair", the same caution, the same proof and
the same guide section. Printed per finding, the report said each of those four times. The
findings' recoveries stay whole in the JSON (each finding is read alone there); the human
formats say each repair under its finding and the shared close once, after them.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from schemas import Finding, TargetReport

__all__ = ["Step", "next_steps", "said_once"]


@dataclass(frozen=True)
class Step:
    """One bullet of "Next steps": a finding's recovery, or (``finding`` None) what the
    findings ``shared_by`` have in common, said once after them."""

    finding: Finding | None
    summary: str
    steps: list[str]
    cautions: list[str]
    acceptance: list[str]
    reference: str | None
    shared_by: tuple[str, ...] = ()

    @property
    def head(self) -> str:
        """The bullet's first words: the finding's code, or whose close this is."""
        if self.finding is not None:
            return f"{self.finding.code}: {self.summary}"
        return self.summary


def next_steps(target: TargetReport) -> list[Step]:
    """What to do first: the first failed rung's findings, else the warnings, else the gaps;
    a recovery two findings share (by summary) is listed once."""
    if target.first_failed_layer is not None:
        layer = next(lr for lr in target.layers if lr.name is target.first_failed_layer)
        chosen = [f for f in layer.findings if f.severity == "fail"]
    else:
        chosen = [f for lr in target.layers for f in lr.findings if f.severity == "warn"]
    unique: dict[str, Step] = {}
    for finding in chosen:
        key = finding.recovery.summary if finding.recovery else finding.code
        unique.setdefault(key, _step(finding))
    return list(unique.values())


def _step(finding: Finding) -> Step:
    rec = finding.recovery
    return Step(
        finding=finding,
        summary=rec.summary if rec else finding.message,
        steps=list(rec.steps) if rec else [],
        cautions=list(rec.cautions) if rec else [],
        acceptance=list(finding.acceptance),
        reference=rec.reference if rec else None,
    )


def said_once(steps: Sequence[Step]) -> list[Step]:
    """``steps`` with what two or more of them share moved into one closing step after them
    (one per set of findings sharing): the steps each recovery ends with, the cautions and,
    with those, the proofs and the guide section they come from. Only steps that end a
    recovery move: a shared step in the middle of one keeps its place in the order of work."""
    tails = [list(step.steps) for step in steps]
    while True:  # each recovery's shared ending, until every step in it is shared
        seen = Counter(
            i for step, tail in zip(steps, tails, strict=True) for i in _items(step, tail)
        )
        trimmed = [_shared_end(tail, seen) for tail in tails]
        if trimmed == tails:
            break
        tails = trimmed
    owners: dict[tuple[str, str], tuple[int, ...]] = {}
    for index, (step, tail) in enumerate(zip(steps, tails, strict=True)):
        for item in _items(step, tail):
            if seen[item] > 1:
                owners[item] = (*owners.get(item, ()), index)
    closes: dict[tuple[int, ...], list[tuple[str, str]]] = {}
    for item, by in owners.items():
        closes.setdefault(by, []).append(item)
    for by, items in list(closes.items()):  # shared proofs alone stay with their findings
        if all(kind == "proof" for kind, _ in items):
            del closes[by]
    for by, items in closes.items():  # the section the shared words come from goes with them
        reference = {steps[i].reference for i in by}
        if len(reference) == 1 and None not in reference:
            items.append(("reference", str(reference.pop())))
    if not closes:
        return list(steps)
    moved: list[set[tuple[str, str]]] = [set() for _ in steps]
    for by, items in closes.items():
        for index in by:
            moved[index].update(items)
    kept = [_without(*said) for said in zip(steps, tails, moved, strict=True)]
    return kept + [_close(steps, by, items) for by, items in closes.items()]


def _shared_end(tail: list[str], seen: Counter[tuple[str, str]]) -> list[str]:
    """The longest ending of ``tail`` whose every step another recovery also ends with."""
    end: list[str] = []
    for item in reversed(tail):
        if seen[("step", item)] < 2:
            break
        end.insert(0, item)
    return end


def _items(step: Step, tail: list[str]) -> list[tuple[str, str]]:
    return list(
        dict.fromkeys(
            [
                *(("step", s) for s in tail),
                *(("caution", c) for c in step.cautions),
                *(("proof", a) for a in step.acceptance),
            ]
        )
    )


def _without(step: Step, tail: list[str], moved: set[tuple[str, str]]) -> Step:
    """``step`` without what moved to a close (a step only from its shared ending)."""
    ending = [s for s in tail if ("step", s) in moved]
    return Step(
        finding=step.finding,
        summary=step.summary,
        steps=step.steps[: len(step.steps) - len(ending)],
        cautions=[c for c in step.cautions if ("caution", c) not in moved],
        acceptance=[a for a in step.acceptance if ("proof", a) not in moved],
        reference=None if ("reference", step.reference) in moved else step.reference,
    )


def _close(steps: Sequence[Step], by: tuple[int, ...], items: list[tuple[str, str]]) -> Step:
    codes = tuple(step.finding.code for step in (steps[i] for i in by) if step.finding)
    whose = "the repairs above" if len(by) == len(steps) else "the repairs for " + _and(codes)
    of = {kind: [text for k, text in items if k == kind] for kind in ("step", "caution", "proof")}
    reference = next((text for kind, text in items if kind == "reference"), None)
    return Step(
        finding=None,
        summary=f"After {whose}:",
        steps=of["step"],
        cautions=of["caution"],
        acceptance=of["proof"],
        reference=reference,
        shared_by=codes,
    )


def _and(words: Sequence[str]) -> str:
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
