"""Two analyzed bundles in, one :class:`~schemas.DiffReport` out; the verdict and its reasons.

The verdict is strict in the order a support engineer needs it:
``regressed`` (something that passed before fails now) outranks
``still_failing`` (a layer or an acceptance check still fails), which
outranks ``inconclusive`` (nothing fails, but evidence is missing or a
target is gone); only then ``recovered``. Doubt never reads as recovered.
"""

from __future__ import annotations

from schemas import DiffReport, Verdict
from schemas.diff import AcceptanceResult, DiffVerdict, TargetChange

from .. import __version__
from ..errors import InputError
from . import acceptance
from .facts import collector_changes, deployment_changes, worker_changes
from .findings import compare_findings
from .sides import Side
from .targets import pair_targets, target_change


class DifferentProducts(InputError):
    """BEFORE and AFTER were collected from different products: nothing to compare."""


def compare(before: Side, after: Side) -> DiffReport:
    if before.profile and after.profile and before.profile != after.profile:
        raise DifferentProducts(
            f"{before.label} is a {before.profile} bundle and {after.label} a "
            f"{after.profile} bundle: diff compares two bundles of the same fleet"
        )
    pairs = pair_targets(
        before.report.targets, after.report.targets, before.ladder_for, after.ladder_for
    )
    targets = [target_change(pair) for pair in pairs]
    checks = acceptance.evaluate(pairs, after.outcome, before.created_at, after.outcome_read_at)
    report = DiffReport(
        tool_version=__version__,
        verdict="recovered",
        before=before.summary(),
        after=after.summary(),
        warnings=_warnings(before, after),
        targets=targets,
        findings=compare_findings(before.report, after.report),
        workers=worker_changes(before, after),
        deployments=deployment_changes(before, after),
        collectors=collector_changes(before.manifest, after.manifest),
        acceptance=checks,
    )
    report.verdict = verdict(targets, checks, after.report.verdict)
    return report


def verdict(
    targets: list[TargetChange], checks: list[AcceptanceResult], after: Verdict
) -> DiffVerdict:
    layers = [(t, layer) for t in targets for layer in t.layers]
    if any(layer.regression for _, layer in layers) or any(
        t.matched_by == "after only" and layer.change == "newly_failing" for t, layer in layers
    ):
        return "regressed"
    failing = any(layer.change in ("still_failing", "newly_failing") for _, layer in layers)
    if failing or any(c.status == "fail" for c in checks) or after is Verdict.BLOCKED:
        return "still_failing"
    doubt = any(layer.change == "became_unknown" for _, layer in layers)
    if doubt or any(c.status == "unknown" for c in checks):
        return "inconclusive"
    if after is Verdict.INCONCLUSIVE:
        return "inconclusive"
    return "recovered"


def _warnings(before: Side, after: Side) -> list[str]:
    warnings: list[str] = []
    b, a = before.summary(), after.summary()
    if b.server_url and a.server_url and b.server_url != a.server_url:
        warnings.append(
            f"the server differs: BEFORE was collected from {b.server_url}, AFTER from "
            f"{a.server_url}; are these the same fleet?"
        )
    if b.server_version and a.server_version and b.server_version != a.server_version:
        warnings.append(f"the server version changed: {b.server_version} -> {a.server_version}")
    if b.created_at and a.created_at and b.created_at > a.created_at:
        warnings.append(
            f"BEFORE ({b.created_at:%Y-%m-%d %H:%M:%SZ}) is newer than AFTER "
            f"({a.created_at:%Y-%m-%d %H:%M:%SZ}): were the two swapped?"
        )
    for side in (b, a):
        if side.integrity != "verified":
            warnings.append(f"{side.label}: integrity {side.integrity.upper()}")
    return warnings
