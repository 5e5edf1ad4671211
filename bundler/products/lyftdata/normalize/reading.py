"""How LyftData normalizers read: the run's reader, gap labels, raw times and labels as values.

Raw members are read through :class:`~bundler.products.raw.RawReader` (one
per run, made by :func:`reader`); LyftData's documents name their gaps by
collector id, which :func:`gaps` and :func:`absent` pick out of the reader's.
"""

from __future__ import annotations

from datetime import UTC, datetime

from schemas.evidence import EvidenceDoc

from ...base import NormalizeContext
from ...raw import RawReader
from ..plan import build_plan
from ..raw import RAW_MODELS

_PLAN = build_plan()


def reader(ctx: NormalizeContext) -> RawReader:
    """The run's reader: LyftData's raw models, and its plan for citing what was asked."""
    return RawReader(ctx, RAW_MODELS, _PLAN)


def gaps(raw: RawReader, *steps: str) -> list[str]:
    """Collector ids of ``steps`` that failed, or stored what their raw model does not
    describe (skipped ones are not gaps: :func:`absent`)."""
    return sorted({g.collector for g in raw.gaps(*steps) if g.reason != "skipped"})


def settle_gaps(doc: EvidenceDoc, raw: RawReader, *steps: str) -> None:
    """After reading ``steps``: a member found then not to fit its raw model is a gap too.

    A document's gaps are listed before its members are read, and a member the
    collector did not validate (an older bundle, re-derived evidence) shows it does
    not fit only when read. Left out, the analyzer would judge the workers or jobs
    it held as if they did not exist, and could say *pass*.
    """
    late = sorted(set(gaps(raw, *steps)) - set(doc.gaps))
    if late:
        doc.gaps = [*doc.gaps, *late]
        doc.complete = False


def absent(raw: RawReader, *steps: str) -> list[str]:
    """Collector ids of ``steps`` that were skipped (a 404, no server given): evidence the
    product has but the bundle lacks, so a gap for documents LyftData always has."""
    return sorted({g.collector for g in raw.gaps(*steps) if g.reason == "skipped"})


def utc(value: datetime | None) -> datetime | None:
    """Raw times may lack an offset (a product bug); treat those as UTC rather than drop them."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def labels_dict(labels: list[str]) -> dict[str, str]:
    """LYFTDATA_WORKER_LABELS descriptors: 'key=value' pairs, or plain tags (value '')."""
    out: dict[str, str] = {}
    for label in labels:
        key, _, value = label.partition("=")
        if key.strip():
            out[key.strip()] = value.strip()
    return out
