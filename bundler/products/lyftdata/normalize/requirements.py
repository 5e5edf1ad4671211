"""Layer 5: the runtime-requirements report, one per (job, worker). Never secret values.

LyftData's ``n/a`` becomes canonical ``not_applicable``; a report that admits
including secret values is kept but flagged (redaction still ran over it).
"""

from __future__ import annotations

from schemas.evidence import Blocker, Requirement, RequirementsEvidence, RequirementsReport

from ...raw import RawReader
from ..raw import JobRequirementsReport
from .reading import gaps, settle_gaps, utc

_STATUS = {
    "satisfied": "satisfied",
    "missing": "missing",
    "denied": "denied",
    "unknown": "unknown",
    "n/a": "not_applicable",
    "not_applicable": "not_applicable",
}


def normalize_requirements(reader: RawReader) -> RequirementsEvidence:
    doc = RequirementsEvidence(
        product="lyftdata",
        observed_at=reader.ctx.observed_at,
        gaps=gaps(reader, "job-requirements"),
    )
    doc.complete = not doc.gaps
    for fetch in reader.items("job-requirements", JobRequirementsReport):
        report = fetch.value
        for i, per_worker in enumerate(report.reports):
            doc.reports.append(
                RequirementsReport(
                    job=report.job,
                    worker=per_worker.worker_id,
                    generated_at=utc(per_worker.generated_at or report.generated_at),
                    requirements=[
                        Requirement(
                            id=r.id,
                            kind=r.kind,
                            ref=r.ref,
                            status=_STATUS.get(r.status, "unknown"),  # type: ignore[arg-type]
                            code=r.code,
                            message=r.message,
                            detail=dict(r.detail),
                        )
                        for r in per_worker.requirements
                    ],
                    blockers=[
                        Blocker(code=b.code, requirement=b.requirement, message=b.message)
                        for b in per_worker.blockers
                    ],
                    secret_values_included=bool(
                        per_worker.redaction and per_worker.redaction.secret_values_included
                    ),
                    source=fetch.source(f"/reports/{i}"),
                )
            )
    settle_gaps(doc, reader, "job-requirements")
    return doc
