"""Targets of BEFORE and AFTER matched by name, and what changed on each ladder layer.

Target selection looks where trouble is, so the two bundles need not list the
same pairs: a hung worker's stuck execution in BEFORE may be gone from AFTER
once it completed. Targets are matched on (worker, job) first, then on the
worker alone, then on the job alone; what is left appears on one side only.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from schemas import Layer, LayerStatus, TargetReport
from schemas.diff import LayerChange, LayerChangeKind, TargetChange

FAILING = {LayerStatus.FAIL}
SETTLED_OK = {LayerStatus.PASS, LayerStatus.WARN, LayerStatus.NOT_APPLICABLE}
DOUBT = {LayerStatus.UNKNOWN, LayerStatus.SKIPPED}


Walk = Callable[[str | None, str | None], TargetReport | None]
"""A side's ladder for a named (worker, job), or None when it knows no such target."""
Pair = tuple[TargetReport | None, TargetReport | None, str]
"""(BEFORE's target, AFTER's target, how they were matched); either side may be None."""


def pair_targets(
    before: Sequence[TargetReport],
    after: Sequence[TargetReport],
    walk_before: Walk | None = None,
    walk_after: Walk | None = None,
) -> list[Pair]:
    """Pair targets by name; one side's leftover is walked on the other by name when it can be."""
    pairs: list[Pair] = []
    left_b, left_a = list(before), list(after)
    for how, key in (
        ("worker and job", lambda t: (t.worker, t.job)),
        ("worker", lambda t: (t.worker, None) if t.worker else None),
        ("job", lambda t: (None, t.job) if t.job else None),
    ):
        for b in list(left_b):
            wanted = key(b)
            if wanted is None:
                continue
            found = next((a for a in left_a if key(a) == wanted), None)
            if found is not None:
                pairs.append((b, found, how))
                left_b.remove(b)
                left_a.remove(found)
    for b in left_b:
        walked = walk_after(b.worker, b.job) if walk_after else None
        pairs.append((b, walked, "walked on AFTER by name") if walked else (b, None, "before only"))
    for a in left_a:
        walked = walk_before(a.worker, a.job) if walk_before else None
        pairs.append((walked, a, "walked on BEFORE by name") if walked else (None, a, "after only"))
    return pairs


def is_recovery_target(before: TargetReport | None) -> bool:
    """BEFORE showed trouble on this target, so the recovery is judged on it."""
    return before is not None and before.verdict.value != "healthy"


def target_change(pair: Pair) -> TargetChange:
    before, after, how = pair
    named = after or before
    assert named is not None
    b_layers = {r.name: r.status for r in before.layers} if before else {}
    a_layers = {r.name: r.status for r in after.layers} if after else {}
    layers = [
        _layer(layer, b_layers.get(layer), a_layers.get(layer), present_before=before is not None)
        for layer in Layer.ordered()
        if layer in b_layers or layer in a_layers
    ]
    return TargetChange(
        worker=named.worker,
        job=named.job,
        matched_by=how,  # type: ignore[arg-type]
        before_verdict=before.verdict if before else None,
        after_verdict=after.verdict if after else None,
        before_first_failed=before.first_failed_layer if before else None,
        after_first_failed=after.first_failed_layer if after else None,
        layers=layers,
        recovery_target=is_recovery_target(before),
    )


def _layer(
    layer: Layer, before: LayerStatus | None, after: LayerStatus | None, *, present_before: bool
) -> LayerChange:
    kind: LayerChangeKind
    regression = False
    if after in FAILING:
        kind = "still_failing" if before in FAILING else "newly_failing"
        regression = present_before and before in SETTLED_OK
    elif before in FAILING and after in SETTLED_OK:
        kind = "fixed"
    elif after is None or (after in DOUBT and before not in DOUBT):
        kind = "became_unknown"
    elif before == after:
        kind = "unchanged"
    else:
        kind = "changed"
    return LayerChange(layer=layer, before=before, after=after, change=kind, regression=regression)


def subject(worker: str | None, job: str | None) -> str:
    if worker and job:
        return f"{worker} / {job}"
    if worker:
        return f"worker {worker}"
    return f"job {job}" if job else "fleet"
