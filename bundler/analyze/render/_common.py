"""What every human-readable format says, decided once; each renderer only lays it out.

The text and Markdown reports must tell the same story in the same order —
verdict, integrity, fleet notes, the targets table, then each ladder with its
evidence and next steps — so the choices (what counts as a "next step", which
citations are worth printing, how a target is titled) live here.
"""

from __future__ import annotations

from collections import Counter

from schemas import (
    AcceptanceCheck,
    AnalysisReport,
    Citation,
    Finding,
    LayerResult,
    LayerStatus,
    TargetReport,
    Verdict,
)

from ...plurals import counted
from ...timetext import utc
from ..codes import NO_EVIDENCE

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
        f"collected {utc(b.created_at)}" if b.created_at else None,
        f"{b.collectors_total:,} collectors" if b.collectors_total else None,
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
            f"{counted(len(failed), 'collector')} failed: "
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
    lines = [_finding_line(f) for f in shown]
    if layer.status is LayerStatus.UNKNOWN:
        for finding in shown:
            if finding.missing:
                lines.append("missing: " + ", ".join(finding.missing[:4]))
            if finding.to_decide:
                lines.append(finding.to_decide)
    return lines


def _finding_line(finding: Finding) -> str:
    if finding.severity in ("fail", "warn") or finding.code == NO_EVIDENCE:
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


def unknown_layers(target: TargetReport) -> list[LayerResult]:
    return [lr for lr in target.layers if lr.status is LayerStatus.UNKNOWN]


def excerpt_of(citation: Citation) -> str:
    return citation.excerpt or ""
