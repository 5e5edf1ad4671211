"""Flux logs -> the shared timeline (:class:`bundler.analyze.api.TimelineEvent`).

``parse_logs`` is the profile's entry point: it reads the bundle's log index
(``evidence/logs.json``) to learn which member is which process on which
host, and parses each with :class:`LogParser`. Without an index (an older or
partial bundle) every ``hosts/*/logs/*.log`` member is parsed, worker
attribution then coming from the lines alone.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from bundler.analyze.api import EvidenceSet, TimelineEvent
from bundler.source import MemberSource, iter_lines
from schemas.evidence import LogIndex

from .formats import EXPECTED_KINDS
from .parser import LogParser

LOG_MEMBER = re.compile(r"^hosts/[^/]+/logs/[^/]+\.log$")


def parse_member(
    source: MemberSource, member: str, *, worker: str | None = None
) -> Iterator[TimelineEvent]:
    """Events of one log member (``worker`` names the worker it belongs to, if any)."""
    yield from LogParser(member, worker=worker).parse(iter_lines(source, member))


def log_members(evidence: EvidenceSet) -> list[tuple[str, str | None]]:
    """``(member, worker)`` of every log in the bundle."""
    index = evidence.get(LogIndex)
    if index is not None and index.logs:
        return [
            (log.member, log.worker if log.role == "worker" else None)
            for log in index.logs
            if evidence.source.has(log.member)
        ]
    return [(name, None) for name in evidence.source.names() if LOG_MEMBER.match(name)]


def parse_logs(evidence: EvidenceSet) -> Iterator[TimelineEvent]:
    for member, worker in log_members(evidence):
        yield from parse_member(evidence.source, member, worker=worker)


__all__ = ["EXPECTED_KINDS", "LogParser", "log_members", "parse_logs", "parse_member"]
