"""Clock skew: between the worker host and the rest, and against the auth lease tolerance.

Every time-based judgement (heartbeat age, lease validity, log ordering) is
only as good as the clocks behind it. A reading is only called skewed when
the skew exceeds its own uncertainty (half the round trip) *and* the
threshold, so a slow SSH link never reads as a bad clock.
"""

from __future__ import annotations

from schemas import Finding, Layer
from schemas.evidence import AuthorizationEvidence, ClockReading, HostsEvidence, HostSysinfo

from .. import codes
from ..api import EvidenceSet, RuleContext, RuleResult, make_finding, rule
from ..facts import cite, host_for_worker, memoized

CLOCK_WARN_S = 5.0
"""Skew worth a warning even without a lease: heartbeat ages and log times blur beyond it."""


def certain_skew(reading: ClockReading, reference: ClockReading | None = None) -> float:
    """Skew beyond measurement uncertainty (0.0 when within it), signed."""
    skew = reading.skew_s - (reference.skew_s if reference else 0.0)
    slack = reading.uncertainty_s + (reference.uncertainty_s if reference else 0.0)
    if abs(skew) <= slack:
        return 0.0
    return skew - slack if skew > 0 else skew + slack


def _server_clock(ev: EvidenceSet) -> ClockReading | None:
    """The first server host's clock reading; found once per evidence set, not per ladder."""
    doc = ev.get(HostsEvidence)
    if doc is None:
        return None

    def first() -> ClockReading | None:
        for host in doc.hosts:
            if host.role == "server" and host.clock is not None:
                return host.clock
        return None

    return memoized(ev, "server-clock", (doc, doc.hosts), first)


def _worker_host(ctx: RuleContext) -> tuple[int, HostSysinfo] | None:
    return host_for_worker(ctx.evidence, ctx.target.worker)


@rule(Layer.HEARTBEAT, host=True)
def worker_clock(ctx: RuleContext) -> RuleResult | None:
    found = _worker_host(ctx)
    if found is None:
        return None
    index, host = found
    if host.clock is not None:
        skew = certain_skew(host.clock, _server_clock(ctx.evidence))
        if abs(skew) > CLOCK_WARN_S:
            return RuleResult.warn(
                codes.CLOCK_SKEW,
                f"The clock of {host.alias} (worker {ctx.target.worker}) is off by at least "
                f"{abs(skew):.1f}s: heartbeat ages, lease times and log order are unreliable.",
                evidence=[
                    cite(
                        ctx.evidence,
                        HostsEvidence,
                        "hosts",
                        index,
                        "clock",
                        value=host.clock.skew_s,
                    )
                ],
                skew_s=skew,
            )
    if host.time_sync is not None and host.time_sync.synchronized is False:
        return RuleResult.warn(
            codes.TIME_NOT_SYNCHRONIZED,
            f"{host.alias} (worker {ctx.target.worker}) does not synchronize its clock"
            + (f" ({host.time_sync.service})" if host.time_sync.service else "")
            + ".",
            evidence=[cite(ctx.evidence, HostsEvidence, "hosts", index, "time_sync", value=False)],
        )
    return None


@rule(Layer.AUTHORIZATION)
def clock_vs_lease(ctx: RuleContext) -> RuleResult | None:
    """A lease is rejected when the clocks disagree by more than its tolerance."""
    auth = ctx.evidence.get(AuthorizationEvidence)
    if auth is None or not auth.applicable or auth.lease_clock_tolerance_s is None:
        return None
    found = _worker_host(ctx)
    if found is None or found[1].clock is None:
        return None
    index, host = found
    assert host.clock is not None
    skew = certain_skew(host.clock, _server_clock(ctx.evidence))
    tolerance = auth.lease_clock_tolerance_s
    if abs(skew) <= tolerance:
        return None
    return RuleResult.fail(
        codes.CLOCK_SKEW_EXCEEDS_LEASE_TOLERANCE,
        f"The clock of {host.alias} (worker {ctx.target.worker}) is off by at least "
        f"{abs(skew):.1f}s, beyond the {tolerance:.0f}s an auth lease tolerates: its leases "
        "read as expired or not yet valid.",
        evidence=[
            cite(ctx.evidence, HostsEvidence, "hosts", index, "clock", value=host.clock.skew_s),
            cite(ctx.evidence, AuthorizationEvidence, "lease_clock_tolerance_s", value=tolerance),
        ],
        skew_s=skew,
        tolerance_s=tolerance,
    )


def fleet_clock_findings(ev: EvidenceSet) -> list[Finding]:
    """Skew between collected hosts, for the report's fleet section."""
    doc = ev.get(HostsEvidence)
    readings = [
        (i, h.alias, h.clock) for i, h in enumerate(doc.hosts if doc else []) if h.clock is not None
    ]
    if len(readings) < 2:
        return []
    low = min(readings, key=lambda item: item[2].skew_s)
    high = max(readings, key=lambda item: item[2].skew_s)
    spread = abs(certain_skew(high[2], low[2]))
    if spread <= CLOCK_WARN_S:
        return []
    return [
        make_finding(
            codes.CLOCK_SKEW,
            "warn",
            f"Host clocks disagree by at least {spread:.1f}s ({low[1]} vs {high[1]}): "
            "compare log times across hosts with care.",
            evidence=[
                cite(ev, HostsEvidence, "hosts", low[0], "clock", value=low[2].skew_s),
                cite(ev, HostsEvidence, "hosts", high[0], "clock", value=high[2].skew_s),
            ],
            spread_s=spread,
        )
    ]


RULES = (worker_clock, clock_vs_lease)
