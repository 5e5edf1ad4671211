"""One side of a comparison: a bundle opened, analyzed, and the few documents diff reads.

Each bundle is opened read-only and analyzed with the same engine as
``bundler analyze``, on evidence re-derived from its ``raw/`` members by the
running profile where it has them (both sides are read by today's normalizers).
It stays open while the two are compared, because a target one analysis chose
and the other did not (target selection looks where trouble is) is walked again
on the other side by name
(:meth:`Side.ladder_for`). Nothing of either is written to disk.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from schemas import AnalysisReport, Manifest, TargetReport
from schemas.diff import DiffSide
from schemas.evidence import (
    CapacityEvidence,
    DeploymentEvidence,
    OutcomeEvidence,
    ProductInfo,
    WorkersEvidence,
)

from ..analyze.api import EvidenceSet, Timeline
from ..analyze.doubt import outcome_collected_at
from ..analyze.engine import Ladders
from ..analyze.offline import analyze_opened
from ..analyze.opening import open_for_analysis
from ..errors import UsageError
from ..products.base import Profile

if TYPE_CHECKING:
    from ..secret_options import OpenSecrets


@dataclass
class Side:
    label: str
    manifest: Manifest | None
    report: AnalysisReport
    product: ProductInfo | None
    workers: WorkersEvidence | None
    capacity: CapacityEvidence | None
    deployments: DeploymentEvidence | None
    outcome: OutcomeEvidence | None
    evidence: EvidenceSet | None = None
    analyzer: Profile | None = None
    timeline: Timeline | None = None
    """The timeline the analysis judged on; a walk by name reuses it (the logs are not parsed
    again)."""
    _walked: dict[tuple[str | None, str | None], TargetReport | None] = field(default_factory=dict)
    _ladders: Ladders | None = None

    @classmethod
    def of(
        cls,
        label: str,
        manifest: Manifest | None,
        evidence: EvidenceSet,
        report: AnalysisReport,
        *,
        analyzer: Profile | None = None,
        timeline: Timeline | None = None,
    ) -> Side:
        """A side from an evidence set and its analysis: the documents diff compares are
        taken from the evidence, so a side cannot hold ones another bundle gave."""
        return cls(
            label=label,
            manifest=manifest,
            report=report,
            product=evidence.get(ProductInfo),
            workers=evidence.get(WorkersEvidence),
            capacity=evidence.get(CapacityEvidence),
            deployments=evidence.get(DeploymentEvidence),
            outcome=evidence.get(OutcomeEvidence),
            evidence=evidence,
            analyzer=analyzer,
            timeline=timeline,
        )

    def ladder_for(self, worker: str | None, job: str | None) -> TargetReport | None:
        """This bundle's ladder for a named target, or None when it knows no such worker/job."""
        key = (worker, job)
        if key not in self._walked:
            self._walked[key] = self._walk(worker, job)
        return self._walked[key]

    def _walk(self, worker: str | None, job: str | None) -> TargetReport | None:
        if self.evidence is None or (worker is None and job is None):
            return None
        if self._ladders is None:
            self._ladders = Ladders(self.evidence, self.analyzer, self.timeline)
        try:  # the ladders `analyze --worker --job` reports, not the whole fleet analyzed again
            reports = self._ladders.named(worker, job)
        except UsageError:  # the name is not in this bundle
            return None
        wanted = [t for t in reports if (t.worker, t.job) == (worker, job)]
        chosen = wanted or reports
        return chosen[0] if chosen else None

    @property
    def profile(self) -> str | None:
        if self.manifest is not None and self.manifest.profile:
            return self.manifest.profile
        return self.product.name if self.product is not None else self.report.bundle.profile

    @property
    def bundle_id(self) -> str | None:
        return self.manifest.bundle_id if self.manifest is not None else None

    @property
    def created_at(self) -> datetime | None:
        return self.manifest.created_at if self.manifest is not None else None

    @property
    def outcome_read_at(self) -> datetime | None:
        """When this bundle's canaries and receipts were read: none of them can be later.

        Judged as the outcome rung judges it (:func:`~bundler.analyze.doubt.outcome_collected_at`),
        so ``diff`` and ``analyze`` agree on which stamp is from the future.
        """
        if self.evidence is not None:
            return outcome_collected_at(self.evidence)
        return self.created_at

    def summary(self) -> DiffSide:
        return DiffSide(
            label=self.label,
            bundle_id=self.bundle_id,
            created_at=self.created_at,
            profile=self.profile,
            server_url=self.manifest.target.server_url if self.manifest else None,
            server_version=self.product.server_version if self.product else None,
            verdict=self.report.verdict,
            first_failed_layer=self.report.first_failed_layer,
            integrity=self.report.bundle.integrity.status,
        )


@contextmanager
def open_side(path: Path, secrets: OpenSecrets | None, label: str | None = None) -> Iterator[Side]:
    """Open and analyze ``path`` (zip or directory); raises the opening's one-line errors."""
    with open_for_analysis(path, secrets) as opened:
        read = analyze_opened(opened)  # as `bundler analyze` reads it
        evidence, report = read.evidence, read.analysis.report
        yield Side.of(
            label or str(path),
            opened.manifest,
            evidence,
            report,
            analyzer=read.profile,
            timeline=read.analysis.timeline,
        )
