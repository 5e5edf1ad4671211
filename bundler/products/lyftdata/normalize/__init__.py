"""Raw LyftData responses -> canonical evidence (``schemas/evidence``), one module per concern.

Every normalizer reads only what the plan collected, through the run's one
:class:`~bundler.products.raw.RawReader`, records which collectors
failed in ``gaps`` (so the analyzer says *unknown*, never *pass*), and keeps a
:class:`~schemas.evidence.Source` pointing at the raw member behind each fact.
Hosts and the log index are written by the collection engine, not here.
"""

from __future__ import annotations

from collections.abc import Sequence

from schemas.evidence import EvidenceDoc

from ...base import NormalizeContext
from .authorization import normalize_authorization
from .capacity import normalize_capacity
from .delivery import normalize_deployments, normalize_outcome
from .jobs import normalize_jobs, normalize_placement
from .local_state import normalize_local_state
from .product import normalize_product
from .reading import reader
from .requirements import normalize_requirements
from .server import normalize_server
from .workers import normalize_workers

NORMALIZERS = (
    normalize_product,
    normalize_server,
    normalize_workers,
    normalize_authorization,
    normalize_jobs,
    normalize_placement,
    normalize_deployments,
    normalize_requirements,
    normalize_capacity,
    normalize_outcome,
    normalize_local_state,
)


def normalize(ctx: NormalizeContext) -> Sequence[EvidenceDoc]:
    """Every canonical document LyftData's raw evidence supports, in ladder order."""
    raw = reader(ctx)  # one per run: every normalizer shares what it parsed and validated
    return [normalizer(raw) for normalizer in NORMALIZERS]


__all__ = ["NORMALIZERS", "normalize"]
