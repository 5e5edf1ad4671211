"""A minimal stand-in for the ladder engine, to prove the Flux rules before it lands.

INTEGRATION POINT: ``bundler.analyze`` (branch ``analyze``) owns the real
engine (target selection, generic rules, combination, acceptance). Until it
is on main, this double walks the ladder with the contract's semantics only:
per target, each layer's rule answers combine worst-first
(fail > unknown > warn > pass > not applicable; no answer = unknown), the
walk stops at the first failed layer and marks the rest skipped, and the
report's first failed layer is the lowest over all targets.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from bundler.analyze.api import EvidenceSet, Rule, RuleContext, Target, Timeline
from schemas import Finding, Layer, LayerStatus
from schemas.evidence import AuthorizationEvidence, JobsEvidence, WorkersEvidence

RANK = {
    LayerStatus.FAIL: 5,
    LayerStatus.UNKNOWN: 4,
    LayerStatus.WARN: 3,
    LayerStatus.PASS: 2,
    LayerStatus.NOT_APPLICABLE: 1,
}


@dataclass
class LayerOutcome:
    status: LayerStatus
    findings: list[Finding] = field(default_factory=list)


@dataclass
class TargetLadder:
    target: Target
    layers: dict[Layer, LayerOutcome]

    @property
    def first_failed(self) -> Layer | None:
        return next((k for k, v in self.layers.items() if v.status is LayerStatus.FAIL), None)

    def codes(self, layer: Layer) -> list[str]:
        return [f.code for f in self.layers[layer].findings]


@dataclass
class MiniReport:
    targets: list[TargetLadder]

    @property
    def first_failed_layer(self) -> Layer | None:
        failed = [t.first_failed for t in self.targets if t.first_failed is not None]
        return min(failed, key=lambda layer: layer.index, default=None)

    def codes(self, layer: Layer) -> list[str]:
        return [c for t in self.targets if layer in t.layers for c in t.codes(layer)]

    def findings(self, code: str) -> list[Finding]:
        return [
            f for t in self.targets for o in t.layers.values() for f in o.findings if f.code == code
        ]


def select_targets(evidence: EvidenceSet) -> list[Target]:
    """Unfinished jobs with their worker, then every other known worker; else the fleet."""
    targets: list[Target] = []
    jobs = evidence.get(JobsEvidence)
    for job in jobs.jobs if jobs else []:
        if not job.phase.terminal:
            targets.append(
                Target(worker=job.assigned_worker, job=job, reason=job.native_state or "")
            )
    covered = {t.worker for t in targets}
    names: list[str] = []
    workers = evidence.get(WorkersEvidence)
    auth = evidence.get(AuthorizationEvidence)
    names += [w.name for w in workers.workers] if workers else []
    names += [w.worker for w in auth.workers] if auth else []
    for name in dict.fromkeys(names):
        if name not in covered:
            targets.append(Target(worker=name, job=None, reason="worker"))
    return targets or [Target(worker=None, job=None, reason="fleet")]


def combine(results: list[LayerOutcome]) -> LayerOutcome:
    if not results:
        return LayerOutcome(LayerStatus.UNKNOWN)
    worst = max(results, key=lambda r: RANK[r.status]).status
    return LayerOutcome(worst, [f for r in results for f in r.findings])


def walk(
    evidence: EvidenceSet, rules: Sequence[Rule], timeline: Timeline, profile: str = "flux"
) -> MiniReport:
    ladders = []
    for target in select_targets(evidence):
        ctx = RuleContext(evidence=evidence, target=target, timeline=timeline, profile=profile)
        layers: dict[Layer, LayerOutcome] = {}
        failed = False
        for layer in Layer.ordered():
            if failed:
                layers[layer] = LayerOutcome(LayerStatus.SKIPPED)
                continue
            answers = []
            for item in rules:
                if item.layer is layer and item.applies_to(profile):
                    result = item(ctx)
                    if result is not None:
                        answers.append(LayerOutcome(result.status, result.findings))
            layers[layer] = combine(answers)
            failed = layers[layer].status is LayerStatus.FAIL
        ladders.append(TargetLadder(target, layers))
    return MiniReport(ladders)
