"""A cited value reads as the report writes it: a time as ``2026-01-01 08:37:45Z``."""

from __future__ import annotations

from datetime import UTC, datetime

from bundler.analyze.api import EvidenceSet, cite_json
from bundler.analyze.facts import cite
from bundler.source import MemorySource
from schemas.evidence import WorkersEvidence

AT = datetime(2026, 1, 1, 8, 37, 45, 916420, tzinfo=UTC)


def test_a_cited_time_reads_as_reports_write_times() -> None:
    """The Evidence column showed Python's ``2026-01-01 08:37:45.916420+00:00`` beside
    ``08:37:45Z`` everywhere else (callers passed ``str(datetime)``)."""
    assert cite_json("evidence/workers.json", "/workers/0/last_heartbeat_at", AT).excerpt == (
        "2026-01-01 08:37:45Z"
    )
    evidence = EvidenceSet(MemorySource())
    cited = cite(evidence, WorkersEvidence, "workers", 0, "last_heartbeat_at", value=AT)
    assert cited.excerpt == "2026-01-01 08:37:45Z"
    listed = cite(evidence, WorkersEvidence, "workers", 0, "seen", value=[AT, "x"])
    assert listed.excerpt == '["2026-01-01 08:37:45Z", "x"]'
