"""Flux raw members -> canonical evidence documents (``schemas/evidence``).

One module per document; this one only orders them (capacity is derived from
the canonical workers and jobs) and stamps each with the run's
``observed_at`` and the product name. Flux has no deployment step and no
runtime-requirements report, so those two documents say ``applicable:
false`` instead of being absent (absent would read *unknown*).

No ``evidence/placement.json`` is written: Flux does not compute placement,
and that document means the *product's* verdict. The analyzer derives
placement from jobs and workers; the Flux placement rule does the same with
Flux's exact dispatch semantics (:mod:`..matching`).
"""

from __future__ import annotations

from collections.abc import Sequence

from bundler.products.base import NormalizeContext
from schemas.evidence import DeploymentEvidence, EvidenceDoc, RequirementsEvidence

from .authorization import authorization_evidence
from .capacity import capacity_evidence
from .clocks import add_worker_clocks, proven_clocks
from .jobs import jobs_evidence
from .outcome import outcome_evidence
from .product import product_info, server_settings
from .records import FluxRecords
from .server import server_evidence
from .worker_host import control_counts, local_state_evidence
from .workers import from_canonical, to_canonical, workers_evidence


def normalize(ctx: NormalizeContext) -> list[EvidenceDoc]:
    flux = FluxRecords(ctx)
    settings = server_settings(flux)
    workers = workers_evidence(flux)
    workers.heartbeat = settings.heartbeat_policy()
    clocks = proven_clocks(flux, (w.name for w in workers.workers))
    add_worker_clocks(workers, clocks)
    jobs = jobs_evidence(flux)
    documents: Sequence[EvidenceDoc] = (
        product_info(flux, settings),
        server_evidence(flux, settings),
        workers,
        authorization_evidence(flux, settings),
        jobs,
        DeploymentEvidence(applicable=False),
        RequirementsEvidence(applicable=False),
        capacity_evidence(
            workers, jobs, listed_whole=flux.active_listed_whole, controls=control_counts(flux)
        ),
        outcome_evidence(flux, clocks),
        local_state_evidence(flux),
    )
    for document in documents:
        document.observed_at = ctx.observed_at
        document.product = "flux"
    return list(documents)


__all__ = ["from_canonical", "normalize", "to_canonical"]
