"""What every human-readable format says, decided once; each renderer only lays it out.

The text and Markdown reports must tell the same story in the same order —
verdict, integrity, fleet notes, the targets table, then each ladder with its
evidence and next steps — so the choices (what counts as a "next step", which
citations are worth printing, how a target is titled) live here.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from schemas import (
    AcceptanceCheck,
    AnalysisReport,
    Citation,
    Finding,
    FleetOverview,
    LayerResult,
    LayerStatus,
    Recovery,
    TargetReport,
    Verdict,
    WorkerGroup,
    WorkerOverview,
)
from schemas.evidence import AdminState, HealthState

STATUS_LABEL = {
    LayerStatus.PASS: "pass",
    LayerStatus.WARN: "WARN",
    LayerStatus.FAIL: "FAIL",
    LayerStatus.UNKNOWN: "unknown",
    LayerStatus.SKIPPED: "skipped",
    LayerStatus.NOT_APPLICABLE: "n/a",
}
CHECK_MARK = {"pass": "pass", "fail": "FAIL", "unknown": "unknown", "not_applicable": "n/a"}
NOT_REACHED = "not reached"
MAX_CITATIONS = 8


def check_label(check: AcceptanceCheck, target: TargetReport) -> str:
    """How an acceptance check reads: ``not reached`` when its layer lies above the failure.

    The JSON keeps ``unknown`` (nothing was evaluated), but to a reader
    "unknown" next to a check the ladder never got to sounds like missing
    evidence; "not reached" says the ladder stopped below it.
    """
    layer = next((r for r in target.layers if r.name == check.layer), None)
    if check.status == "unknown" and layer is not None and layer.status is LayerStatus.SKIPPED:
        return NOT_REACHED
    return CHECK_MARK[check.status]


def headline(report: AnalysisReport) -> str:
    """``BLOCKED — first failed layer: capacity`` and friends."""
    word = report.verdict.value.upper()
    if report.verdict is Verdict.BLOCKED and report.first_failed_layer is not None:
        return f"{word} — first failed layer: {report.first_failed_layer.value}"
    return {
        Verdict.HEALTHY: f"{word} — every applicable layer passes",
        Verdict.DEGRADED: f"{word} — nothing failed, but there are warnings",
        Verdict.INCONCLUSIVE: f"{word} — nothing failed, but evidence is missing",
    }.get(report.verdict, word)


def counts(report: AnalysisReport) -> str:
    tally = Counter(t.verdict.value for t in report.targets)
    order = ("blocked", "inconclusive", "degraded", "healthy")
    parts = [f"{tally[v]} {v}" for v in order if tally[v]]
    noun = "target" if len(report.targets) == 1 else "targets"
    return f"{len(report.targets)} {noun}" + (f": {', '.join(parts)}" if parts else "")


def provenance(report: AnalysisReport) -> str:
    b = report.bundle
    bits = [
        f"profile {b.profile}" if b.profile else "no profile",
        f"bundle {b.bundle_id}" if b.bundle_id else None,
        f"collected {b.created_at:%Y-%m-%d %H:%M:%S}Z" if b.created_at else None,
        f"{b.collectors_total} collectors" if b.collectors_total else None,
    ]
    return " · ".join(x for x in bits if x)


def integrity_lines(report: AnalysisReport) -> list[str]:
    """Warnings for the top of the report; empty when the bundle verified cleanly."""
    integrity = report.bundle.integrity
    lines = []
    if integrity.status != "verified":
        problems = integrity.problems[:5]
        more = len(integrity.problems) - len(problems)
        detail = "; ".join(problems) + (f" (+{more} more)" if more > 0 else "")
        lines.append(f"Integrity: {integrity.status.upper()}" + (f" — {detail}" if detail else ""))
    failed = report.bundle.collectors_failed
    if failed:
        lines.append(
            f"{len(failed)} collector(s) failed: "
            + "; ".join(failed[:4])
            + (f" (+{len(failed) - 4} more)" if len(failed) > 4 else "")
        )
    return lines


def target_title(index: int, target: TargetReport) -> str:
    job = target.job or "no job"
    if target.job_id and target.job_id != target.job:
        job += f" ({target.job_id})"
    return f"{index}. {target.worker or 'no worker'} · {job}"


def target_state(target: TargetReport) -> str:
    if target.verdict is Verdict.BLOCKED and target.first_failed_layer is not None:
        return f"BLOCKED at {target.first_failed_layer.value}"
    return target.verdict.value.upper()


def layer_note(layer: LayerResult) -> list[str]:
    """One line per finding worth showing in a ladder row."""
    if layer.status is LayerStatus.SKIPPED:
        return [f"blocked by {layer.blocked_by.value}" if layer.blocked_by else "skipped"]
    shown = [f for f in layer.findings if f.severity in ("fail", "warn")] or layer.findings[:1]
    return [_finding_line(f) for f in shown]


def _finding_line(finding: Finding) -> str:
    if finding.severity in ("fail", "warn") or finding.code == "NO_EVIDENCE":
        return f"{finding.code}: {finding.message}"
    return finding.message


def cited(target: TargetReport) -> list[Citation]:
    """Citations behind the target's failing and warning findings, each once."""
    seen: dict[str, Citation] = {}
    for layer in target.layers:
        for finding in layer.findings:
            if finding.severity in ("fail", "warn") or layer.status is LayerStatus.UNKNOWN:
                for citation in finding.evidence:
                    seen.setdefault(citation.label() + (citation.excerpt or ""), citation)
    return list(seen.values())[:MAX_CITATIONS]


@dataclass(frozen=True)
class Step:
    finding: Finding
    recovery: Recovery | None


def next_steps(target: TargetReport) -> list[Step]:
    """What to do first: the first failed rung's findings, else the warnings, else the gaps."""
    if target.first_failed_layer is not None:
        layer = next(lr for lr in target.layers if lr.name is target.first_failed_layer)
        chosen = [f for f in layer.findings if f.severity == "fail"]
    else:
        chosen = [f for lr in target.layers for f in lr.findings if f.severity == "warn"]
    unique: dict[str, Step] = {}
    for finding in chosen:
        key = finding.recovery.summary if finding.recovery else finding.code
        unique.setdefault(key, Step(finding, finding.recovery))
    return list(unique.values())


def unknown_layers(target: TargetReport) -> list[LayerResult]:
    return [lr for lr in target.layers if lr.status is LayerStatus.UNKNOWN]


def excerpt_of(citation: Citation) -> str:
    return citation.excerpt or ""


# --- the fleet overview -----------------------------------------------------------------------

LIST_WORKERS_UP_TO = 30
"""Up to this many workers the overview has one line each; beyond, one line per group."""
MAX_GROUPS_SHOWN = 12
"""Groups past this many are counted in one line (the JSON still lists every worker)."""
NAMES_SHOWN = 6
GROUP_TARGETS_AFTER = 8
"""Reports with more targets than this show identical targets once, with the others named."""


def overview_title(overview: FleetOverview) -> str:
    """``Fleet overview — 3 workers: 1 offline, 2 online``."""
    noun = "worker" if overview.workers_total == 1 else "workers"
    tally = ", ".join(f"{n} {status.replace('_', ' ')}" for status, n in overview.by_status.items())
    return f"Fleet overview — {overview.workers_total} {noun}" + (f": {tally}" if tally else "")


def grouped(overview: FleetOverview) -> bool:
    return overview.workers_total > LIST_WORKERS_UP_TO


def age(seconds: float | None) -> str:
    """``4s``, ``12m``, ``3h``, ``2d`` (heartbeat ages), ``—`` when unknown."""
    if seconds is None:
        return "—"
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= 2 * size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def worker_state(row: WorkerOverview) -> str:
    """``offline``, ``online, unhealthy``, ``online, paused`` (with the product's own word)."""
    words = [row.status.value.replace("_", " ")]
    if row.health is HealthState.UNHEALTHY:
        words.append("unhealthy")
    if row.admin in (AdminState.PAUSED, AdminState.DRAINING):
        words.append(row.admin.value)
    state = ", ".join(words)
    native = row.native_status
    if native and native.lower() not in state.lower():
        state += f" ({native})"
    return state


def labels_text(labels: dict[str, str], limit: int = 4) -> str:
    items = [f"{k}={v}" for k, v in sorted(labels.items())]
    return ",".join(items[:limit]) + (f",+{len(items) - limit}" if len(items) > limit else "")


def slots_text(in_flight: int | None, slots_max: int | None) -> str:
    """``1/16`` in flight of slots; ``1/∞`` for unlimited; ``—`` when unknown."""
    if in_flight is None and slots_max is None:
        return "—"
    limit = "—" if slots_max is None else ("∞" if slots_max == 0 else str(slots_max))
    return f"{'—' if in_flight is None else in_flight}/{limit}"


def worker_verdict(row: WorkerOverview) -> str:
    if row.verdict is None:
        return "—"
    if row.verdict is Verdict.BLOCKED and row.first_failed_layer is not None:
        return f"blocked at {row.first_failed_layer.value}"
    return row.verdict.value


def worker_finding(row: WorkerOverview) -> str:
    if row.finding:
        return row.finding
    if row.trouble:
        suffix = "" if row.verdict is not None else " (not walked: over the target limit)"
        return row.trouble + suffix
    return "every layer passes" if row.verdict is Verdict.HEALTHY else "no trouble found"


def group_names(group: WorkerGroup, limit: int = NAMES_SHOWN) -> str:
    return names_list(group.workers, limit)


def names_list(items: list[str], limit: int = NAMES_SHOWN) -> str:
    shown = ", ".join(items[:limit])
    return shown + (f" (+{len(items) - limit} more)" if len(items) > limit else "")


def group_detail(group: WorkerGroup) -> str:
    """The second line of a group: who, common labels, work on them."""
    bits = [group_names(group)]
    if group.labels:
        bits.append(labels_text(group.labels))
    bits.append(f"{group.in_flight} in flight")
    bits.append(f"{group.jobs_placed} job(s) placed")
    return " · ".join(bits)


def shown_groups(overview: FleetOverview) -> tuple[list[WorkerGroup], str | None]:
    """The groups to print and, when some are left out, the line that counts them."""
    groups = overview.groups[:MAX_GROUPS_SHOWN]
    rest = overview.groups[MAX_GROUPS_SHOWN:]
    if not rest:
        return groups, None
    workers = sum(g.count for g in rest)
    return groups, (
        f"… {len(rest)} more group(s), {workers} worker(s): every worker is in --format json"
    )


# --- identical targets, said once -------------------------------------------------------------


@dataclass(frozen=True)
class TargetGroup:
    """Targets with the same verdict, first failed layer and failing codes."""

    index: int
    """1-based position of :attr:`first` in the report."""
    first: TargetReport
    others: tuple[TargetReport, ...] = ()

    @property
    def count(self) -> int:
        return 1 + len(self.others)


def _signature(target: TargetReport) -> tuple[object, ...]:
    codes = tuple(
        f.code for r in target.layers for f in r.findings if f.severity in ("fail", "warn")
    )
    return target.verdict, target.first_failed_layer, codes


def target_groups(report: AnalysisReport) -> list[TargetGroup]:
    """Each target alone in a small report; identical ones together past GROUP_TARGETS_AFTER."""
    indexed = list(enumerate(report.targets, start=1))
    if len(indexed) <= GROUP_TARGETS_AFTER:
        return [TargetGroup(i, t) for i, t in indexed]
    buckets: dict[tuple[object, ...], list[tuple[int, TargetReport]]] = {}
    for i, t in indexed:
        buckets.setdefault(_signature(t), []).append((i, t))
    return [
        TargetGroup(members[0][0], members[0][1], tuple(t for _, t in members[1:]))
        for members in buckets.values()
    ]


def target_name(target: TargetReport) -> str:
    return f"{target.worker or 'no worker'} · {target.job or 'no job'}"


def others_line(group: TargetGroup) -> str:
    """``Same for 311 more targets: w0002 · no job, ...``."""
    names = [target_name(t) for t in group.others]
    noun = "target" if len(names) == 1 else "targets"
    return f"Same finding for {len(names)} more {noun}: {names_list(names, 4)}"


def compact(report: AnalysisReport) -> bool:
    """A report this big gets shorter ladders (a fleet of hundreds must fit a screenful or two)."""
    return len(report.targets) > GROUP_TARGETS_AFTER
