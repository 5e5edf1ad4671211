"""Findings resolved, new and persisting between two analyses, keyed by code and subject.

Only findings that mean something is wrong (``fail`` and ``warn``) are
compared: ``info`` notes and passing checks change with every collection
and would drown the ones that matter.
"""

from __future__ import annotations

from schemas import AnalysisReport, Finding
from schemas.diff import FindingChange

from .targets import subject

COMPARED = {"fail", "warn"}


def _keyed(report: AnalysisReport) -> dict[tuple[str, str], Finding]:
    found: dict[tuple[str, str], Finding] = {}
    for target in report.targets:
        where = subject(target.worker, target.job)
        for layer in target.layers:
            for finding in layer.findings:
                if finding.severity in COMPARED:
                    found.setdefault((finding.code, where), finding)
    for finding in report.fleet_findings:
        if finding.severity in COMPARED:
            found.setdefault((finding.code, "fleet"), finding)
    return found


def compare_findings(before: AnalysisReport, after: AnalysisReport) -> list[FindingChange]:
    old, new = _keyed(before), _keyed(after)
    changes: list[FindingChange] = []
    for key in sorted(old.keys() | new.keys()):
        b, a = old.get(key), new.get(key)
        change = "persisting" if b and a else ("resolved" if b else "new")
        shown = a or b
        assert shown is not None
        changes.append(
            FindingChange(
                code=key[0],
                subject=key[1],
                change=change,  # type: ignore[arg-type]
                severity_before=b.severity if b else None,
                severity_after=a.severity if a else None,
                message=shown.message,
            )
        )
    order = {"new": 0, "persisting": 1, "resolved": 2}
    return sorted(changes, key=lambda c: (order[c.change], c.subject, c.code))
