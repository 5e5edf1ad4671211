"""Small helpers for LyftData rules."""

from __future__ import annotations

from schemas import Citation
from schemas.evidence import Source

from ....analyze.api import cite_json, cite_lines


def source_citation(source: Source | None) -> list[Citation]:
    """Cite the raw member behind a canonical fact (JSON pointer or line range)."""
    if source is None or not source.member:
        return []
    if source.line_start is not None:
        return [cite_lines(source.member, source.line_start, source.line_end)]
    if source.pointer is not None:
        return [cite_json(source.member, source.pointer)]
    return [Citation(member=source.member)]
