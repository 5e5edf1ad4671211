"""Findings about the bundle and the fleet as a whole, shown above the targets.

Some facts belong to no single (worker, job) pair: host clocks that disagree
with each other, evidence documents that are invalid or incomplete, a log
parser that broke. They are reported once, at the top, so an engineer knows
how far to trust everything below before reading it.
"""

from __future__ import annotations

from typing import Any

from schemas import EVIDENCE_KINDS, Citation, Finding
from schemas.evidence import EvidenceDoc, JobsEvidence, WorkersEvidence

from ..plurals import counted, plural
from . import codes
from .api import EvidenceSet, make_finding
from .rules.clock import fleet_clock_findings
from .wording import CITED


def evidence_findings(ev: EvidenceSet) -> list[Finding]:
    """Invalid documents (unusable: their rungs read unknown) and incomplete ones."""
    findings: list[Finding] = []
    for cls in EVIDENCE_KINDS.values():
        doc = ev.get(cls)
        if doc is not None and (not doc.complete or doc.gaps):
            gaps = ", ".join(doc.gaps) or "unspecified collectors"
            if cls in CORE_DOCUMENTS:
                findings.append(_targets_incomplete(ev, cls, gaps, doc.gaps))
                continue
            findings.append(
                make_finding(
                    codes.EVIDENCE_INCOMPLETE,
                    "info",
                    f"{cls.member_path} is incomplete (gaps: {gaps}); what it lacks reads as "
                    "unknown, not as absent.",
                    evidence=[ev.cite(cls, "/gaps", doc.gaps or None)],
                    member=cls.member_path,
                    gaps=doc.gaps,
                )
            )
    for problem in ev.problems:
        member = problem.split(":", 1)[0]
        findings.append(
            make_finding(
                codes.EVIDENCE_INVALID,
                "warn",
                f"Evidence document unusable: {problem}. Its rungs read unknown.",
                evidence=[Citation(member=member)],
                member=member,
            )
        )
    return findings


CORE_DOCUMENTS: tuple[type[EvidenceDoc], ...] = (WorkersEvidence, JobsEvidence)
"""Without these, targets cannot be chosen: a verdict can be at best inconclusive."""

UNTRUSTWORTHY = frozenset(
    {
        codes.EVIDENCE_INVALID,
        codes.EVIDENCE_MISSING,
        codes.EVIDENCE_OVER_LIMIT,
        codes.TARGETS_INCOMPLETE,
        codes.BUNDLE_NOT_VERIFIED,
    }
)
"""Fleet codes that cap the verdict at inconclusive: what the rungs read may be wrong or absent."""


def _targets_incomplete(
    ev: EvidenceSet, cls: type[EvidenceDoc], gaps: str, listed: list[str]
) -> Finding:
    """A worker or job list with gaps: the targets chosen from it may not be all there are.

    A job list whose request timed out holds no job at all, so every rung that
    is per job reads n/a and the fleet would look healthy; a worker missing from
    a cut-off list would never be walked. Either way "healthy" is not known.
    """
    return make_finding(
        codes.TARGETS_INCOMPLETE,
        "warn",
        f"{cls.member_path} is incomplete (gaps: {gaps}): a worker or job that needs "
        "attention may be missing from the targets, so the bundle cannot show a healthy fleet.",
        evidence=[ev.cite(cls, "/gaps", listed or None)],
        member=cls.member_path,
        gaps=listed,
    )


def missing_core(ev: EvidenceSet) -> list[Finding]:
    for cls in CORE_DOCUMENTS:
        ev.get(cls)  # a document that failed verification is unusable, not missing
    unverified = [
        make_finding(
            codes.EVIDENCE_INVALID,
            "warn",
            f"{cls.member_path} failed verification ({ev.unverified[cls.member_path]}): "
            "targets that depend on it cannot be chosen.",
            member=cls.member_path,
        )
        for cls in CORE_DOCUMENTS
        if cls.member_path in ev.unverified
    ]
    present = [
        cls
        for cls in CORE_DOCUMENTS
        if ev.source.has(cls.member_path) or cls.member_path in ev.unverified
    ]
    return unverified + [
        make_finding(
            codes.EVIDENCE_MISSING,
            "warn",
            f"{cls.member_path} is not in the bundle: targets that depend on it cannot be chosen.",
            member=cls.member_path,
        )
        for cls in CORE_DOCUMENTS
        if cls not in present
    ]


def over_limit(ev: EvidenceSet) -> list[Finding]:
    """Members a reader declined to parse (over the JSON cap), each with its size, the limit
    and the setting that reads it.

    One finding for all of them: a 100,000-worker fleet can put its worker list and
    every execution listing over the cap at once. What they hold was never read, so
    it reads as unknown, and the verdict cannot be healthy (:data:`UNTRUSTWORTHY`):
    an empty worker list read from a document nobody opened is not an empty fleet.
    """
    refused = sorted(ev.refused.values(), key=lambda r: r.member)
    if not refused:
        return []
    named = "; ".join(str(r) for r in refused[:CITED])
    more = f"; and {len(refused) - CITED} more" if len(refused) > CITED else ""
    largest = max(refused, key=lambda r: r.size)
    return [
        make_finding(
            codes.EVIDENCE_OVER_LIMIT,
            "warn",
            f"{counted(len(refused), 'member')} of the bundle "
            f"{plural(len(refused), 'was', 'were')} not read, being over a reader's limit: "
            f"{named}{more}. What they hold reads as unknown, never as absent or healthy; "
            f"analyze again with {largest.remedy} to read them.",
            evidence=[Citation(member=r.member) for r in refused[:CITED]],
            members=[r.member for r in refused],
            limit=largest.limit,
            setting=largest.remedy,
        )
    ]


def invalid_raw_records(ev: EvidenceSet) -> list[Finding]:
    """Raw product responses that failed their model when collected (kept, flagged)."""
    if ev.manifest is None:
        return []
    invalid = [m.path for m in ev.manifest.members if m.valid is False]
    if not invalid:
        return []
    shown = ", ".join(invalid[:5]) + (f" (+{len(invalid) - 5} more)" if len(invalid) > 5 else "")
    return [
        make_finding(
            codes.RAW_RECORDS_INVALID,
            "info",
            f"{counted(len(invalid), 'raw response')} did not match the product's expected "
            f"shape when collected ({shown}): a product version this profile does not know "
            "yet? Facts normalized from them may be missing.",
            evidence=[Citation(member=path) for path in invalid[:5]],
            members=invalid,
        )
    ]


def note(code: str, message: str, severity: str = "warn", **details: Any) -> Finding:
    """A fleet-level remark from the engine itself (profile or log-parser trouble)."""
    return make_finding(code, severity, message, **details)


def fleet_findings(ev: EvidenceSet) -> list[Finding]:
    evidence = evidence_findings(ev)  # loads every document: what it refuses is named below
    return (
        missing_core(ev)
        + over_limit(ev)
        + evidence
        + invalid_raw_records(ev)
        + fleet_clock_findings(ev)
    )
