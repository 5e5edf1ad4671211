"""Fleet-sized words shared by the text, Markdown and HTML reports.

How the fleet overview reads (a worker's state, heartbeat age, slots, the
group lines) and when a report is big enough to group identical targets:
decided once here so every format groups the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from schemas import (
    AnalysisReport,
    FleetOverview,
    TargetReport,
    Verdict,
    WorkerGroup,
    WorkerOverview,
)
from schemas.evidence import AdminState, HealthState

from ...plurals import counted

# --- the fleet overview -----------------------------------------------------------------------

LIST_WORKERS_UP_TO = 30
"""Up to this many workers the overview has one line each; beyond, one line per group."""
MAX_GROUPS_SHOWN = 12
"""Groups past this many are counted in one line (the JSON still lists every worker)."""
NAMES_SHOWN = 6
GROUP_TARGETS_AFTER = 8
"""Reports with more targets than this show identical targets once, with the others named."""
SECTIONS_SHOWN = 4
"""A report that big prints this many target sections (the first, the most important);
the rest are rows of the targets table, and every one is in the JSON."""
TABLE_ROWS_SHOWN = 20
"""... and this many rows of the targets table."""


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
    if row.verdict is Verdict.INCONCLUSIVE:  # never "no trouble found" on doubt
        return "a layer could not be judged"
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
    bits.append(f"{counted(group.jobs_placed, 'job')} placed")
    return " · ".join(bits)


def shown_groups(overview: FleetOverview) -> tuple[list[WorkerGroup], str | None]:
    """The groups to print and, when some are left out, the line that counts them."""
    groups = overview.groups[:MAX_GROUPS_SHOWN]
    rest = overview.groups[MAX_GROUPS_SHOWN:]
    if not rest:
        return groups, None
    workers = sum(g.count for g in rest)
    return groups, (
        f"… {counted(len(rest), 'more group')}, {counted(workers, 'worker')}: "
        "every worker is in --format json"
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


def shown(
    report: AnalysisReport, groups: list[TargetGroup], limit: int, what: str
) -> tuple[list[TargetGroup], str | None]:
    """The first ``limit`` groups of a big report and the line that counts the rest.

    A small report (:func:`compact` false) shows everything, so its output never changes;
    a fleet of 1,000 failing workers must still fit a screenful or two of text.
    """
    if not compact(report) or len(groups) <= limit:
        return groups, None
    rest = groups[limit:]
    targets = sum(g.count for g in rest)
    return groups[:limit], (
        f"… {counted(len(rest), 'more ' + what)} ({counted(targets, 'target')}) not shown: "
        "every target is in --format json"
    )
