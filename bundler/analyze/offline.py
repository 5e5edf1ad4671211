"""A sealed bundle (or its extracted folder) analyzed offline, as one command reads it.

``bundler analyze`` and each side of ``bundler diff`` read a bundle the same
way: the stored evidence, re-derived from the raw members where the profile
can; the ladder on that; the re-derivation's note first among the fleet
findings; and, once every member was read, what the reading proved about the
bundle's integrity. One function, so the two commands cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from schemas import Integrity

from . import codes
from .api import EvidenceSet
from .engine import Analysis, capped, run_analysis
from .fleet import note
from .opening import OpenedBundle, profile_for
from .rederive import rederive

if TYPE_CHECKING:
    from ..products.base import Profile


@dataclass(frozen=True)
class BundleAnalysis:
    """The analysis, the evidence it judged (raw over stored) and the profile that judged it."""

    analysis: Analysis
    evidence: EvidenceSet
    profile: Profile | None


def analyze_opened(
    opened: OpenedBundle, *, worker: str | None = None, job: str | None = None
) -> BundleAnalysis:
    """The ladder on an opened bundle; raises ``UsageError`` for an unknown worker or job."""
    stored = opened.evidence()
    profile = profile_for(opened.manifest, stored)
    used = rederive(stored, profile)  # raw/ over the stored evidence, where it can
    done = run_analysis(used.evidence, profile=profile, worker=worker, job=job)
    done.report.fleet_findings.insert(0, used.note)
    # Only now: reading the members for the analysis is what proves (or not) each checksum.
    _record_integrity(done, opened.integrity())
    return BundleAnalysis(done, used.evidence, profile)


def _record_integrity(done: Analysis, integrity: Integrity) -> None:
    """Record what reading the bundle proved; a bundle not proven whole is never healthy.

    An invalid manifest gives no checksums, so the stored evidence is believed
    unchecked ("unverified"); a tampered or partial bundle holds something no
    one can account for. Members that failed their checks already read unknown,
    but a verdict of health is a claim about the whole bundle: it needs the
    whole bundle verified. Failures stay failures (they rest on evidence that
    passed its checks).
    """
    report = done.report
    report.bundle.integrity = integrity
    if integrity.status == "verified":
        return
    report.fleet_findings.append(
        note(
            codes.BUNDLE_NOT_VERIFIED,
            f"The bundle's integrity is {integrity.status.upper()}: what it holds cannot all be "
            "accounted for, so it cannot show a healthy fleet (`bundler verify` lists why).",
            integrity=integrity.status,
        )
    )
    report.verdict = capped(report.verdict, report.fleet_findings)
