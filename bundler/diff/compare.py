"""Two analyzed bundles in, one :class:`~schemas.DiffReport` out; the verdict and its reasons.

The verdict is strict in the order a support engineer needs it:
``regressed`` (something that passed before fails now) outranks
``still_failing`` (a layer or an acceptance check still fails), which
outranks ``inconclusive`` (nothing fails, but evidence is missing, a
target is gone, or the pair itself is in doubt); only then ``recovered``.
Doubt never reads as recovered.

The pair is in doubt when AFTER was collected from another server than BEFORE
(its health says nothing about BEFORE's fleet) or before BEFORE (it cannot
show what a repair did): such a pair is still compared and warned about, and
its ``doubts`` say why it is not recovered.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from schemas import DiffReport, Verdict
from schemas.diff import AcceptanceResult, DiffSide, DiffVerdict, TargetChange

from .. import __version__
from ..analyze.checklist import checklist_of
from ..analyze.facts import dated, is_zero_time
from ..errors import InputError
from ..timetext import utc
from . import acceptance
from .facts import collector_changes, deployment_changes, worker_changes
from .findings import compare_findings
from .sides import Side
from .targets import pair_targets, target_change


class DifferentProducts(InputError):
    """BEFORE and AFTER were collected from different products: nothing to compare."""


class SameCollection(InputError):
    """BEFORE and AFTER are one collection (the same bundle id), given twice.

    Nothing happened between them, so no repair can show: compared anyway, a
    healthy bundle against itself read "still failing" (its canary is not newer
    than itself), a claim about the fleet that was only a mistake on the command line.
    """


def compare(before: Side, after: Side) -> DiffReport:
    if before.profile and after.profile and before.profile != after.profile:
        raise DifferentProducts(
            f"{before.label} is a {before.profile} bundle and {after.label} a "
            f"{after.profile} bundle: diff compares two bundles of the same fleet"
        )
    if before.bundle_id is not None and before.bundle_id == after.bundle_id:
        raise SameCollection(
            f"{before.label} and {after.label} are the same collection (bundle "
            f"{before.bundle_id}): give as AFTER a bundle collected after the repair"
        )
    pairs = pair_targets(
        before.report.targets, after.report.targets, before.ladder_for, after.ladder_for
    )
    targets = [target_change(pair) for pair in pairs]
    # BEFORE "created at the zero time" is no lower bound: every run would be newer than it.
    before_at = dated(before.created_at)
    # AFTER's targets carry the checklist of the profile that analyzed AFTER: judge on it.
    checklist = checklist_of(after.analyzer)
    checks = acceptance.evaluate(pairs, after.outcome, before_at, after.outcome_read_at, checklist)
    b, a = before.summary(), after.summary()
    doubts = pair_doubts(b, a)
    report = DiffReport(
        tool_version=__version__,
        verdict="recovered",
        before=b,
        after=a,
        warnings=_warnings(b, a),
        doubts=doubts,
        targets=targets,
        findings=compare_findings(before.report, after.report),
        workers=worker_changes(before, after),
        deployments=deployment_changes(before, after),
        collectors=collector_changes(before.manifest, after.manifest),
        acceptance=checks,
    )
    report.verdict = verdict(targets, checks, after.report.verdict, doubts)
    return report


def verdict(
    targets: list[TargetChange],
    checks: list[AcceptanceResult],
    after: Verdict,
    doubts: list[str] | None = None,
) -> DiffVerdict:
    """The one verdict; ``doubts`` (:func:`pair_doubts`) only ever keep it from recovered."""
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
    if after is Verdict.INCONCLUSIVE or doubts:
        return "inconclusive"
    return "recovered"


def pair_doubts(b: DiffSide, a: DiffSide) -> list[str]:
    """Why BEFORE and AFTER, as a pair, cannot prove a repair (empty when they can).

    Another server: AFTER's health is another fleet's, so nothing says the
    incident's fleet recovered. AFTER collected before BEFORE: the two were
    swapped, or a collector's clock is wrong; either way AFTER cannot show the
    state after a repair that BEFORE's incident needed. Neither is a failure
    (nothing says the fleet is broken), so they cap the verdict at inconclusive.
    """
    doubts: list[str] = []
    if _other_server(b.server_url, a.server_url):
        doubts.append(
            f"AFTER comes from another server ({a.server_url}) than BEFORE ({b.server_url}): "
            "its health says nothing about the fleet BEFORE showed"
        )
    for side in (b, a):
        if side.created_at is not None and is_zero_time(side.created_at):
            doubts.append(
                f"{side.label} reads as collected at {utc(side.created_at)}, the zero time "
                "('never'): whether AFTER shows the state after the repair is unknown"
            )
    if (swapped := _swapped(b, a)) is not None:
        doubts.append(
            f"AFTER ({swapped[1]}) was collected before BEFORE "
            f"({swapped[0]}): it cannot show the state after the repair"
        )
    return doubts


def _swapped(b: DiffSide, a: DiffSide) -> tuple[str, str] | None:
    """BEFORE's and AFTER's collection times when BEFORE's is the later, both real times: a
    side "collected in year 1" (a zero time, :func:`~bundler.analyze.facts.dated`) is not
    older than the other."""
    before, after = dated(b.created_at), dated(a.created_at)
    if before is None or after is None or before <= after:
        return None
    return utc(before), utc(after)


def _other_server(before: str | None, after: str | None) -> bool:
    """True when both URLs are known and name different servers.

    Compared as the server, not as text: scheme and host case, a default port
    and a trailing slash do not make another server.
    """
    if not before or not after:
        return False
    return _server_key(before) != _server_key(after)


def _server_key(url: str) -> tuple[str, str, int | None, str]:
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:  # not a URL we can take apart: compare it as text
        return ("", url.strip(), None, "")
    scheme = parts.scheme.lower()
    if port == {"http": 80, "https": 443}.get(scheme):
        port = None
    return (scheme, (parts.hostname or "").lower(), port, parts.path.rstrip("/"))


def _warnings(b: DiffSide, a: DiffSide) -> list[str]:
    warnings: list[str] = []
    if _other_server(b.server_url, a.server_url):
        warnings.append(
            f"the server differs: BEFORE was collected from {b.server_url}, AFTER from "
            f"{a.server_url}; are these the same fleet?"
        )
    if b.server_version and a.server_version and b.server_version != a.server_version:
        warnings.append(f"the server version changed: {b.server_version} -> {a.server_version}")
    if (swapped := _swapped(b, a)) is not None:
        warnings.append(
            f"BEFORE ({swapped[0]}) is newer than AFTER ({swapped[1]}): were the two swapped?"
        )
    for side in (b, a):
        if side.integrity != "verified":
            warnings.append(f"{side.label}: integrity {side.integrity.upper()}")
    return warnings
