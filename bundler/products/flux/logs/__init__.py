"""Flux logs -> the shared timeline (:class:`bundler.analyze.api.TimelineEvent`).

``parse_logs`` is the profile's entry point: it reads the bundle's log index
(``evidence/logs.json``) to learn which member is which process on which
host, and parses each with :class:`LogParser`. Without an index (an older or
partial bundle) every ``hosts/*/logs/*.log`` member is parsed, worker
attribution then coming from the lines alone.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, timedelta, timezone, tzinfo

from bundler.analyze.api import EvidenceSet, TimelineEvent, TimelineStream, routine_kept
from bundler.source import MemberSource, iter_lines
from schemas.evidence import LogIndex

from . import shared
from .formats import EXPECTED_KINDS
from .parser import LogParser
from .scan import BlockScanner

LOG_MEMBER = re.compile(r"^hosts/[^/]+/logs/[^/]+\.log$")
OFFSET = re.compile(r"^(?P<sign>[+-])(?P<hours>\d{2}):?(?P<minutes>\d{2})$")


def parse_member(
    source: MemberSource, member: str, *, worker: str | None = None, tz: tzinfo = UTC
) -> Iterator[TimelineEvent]:
    """Every event of one log member (``worker`` names the worker it belongs to, if any)."""
    yield from LogParser(member, worker=worker, tz=tz).parse(iter_lines(source, member))


def utc_offset(text: object) -> tzinfo:
    """The host's offset as the collector recorded it (``date +%z``: '+0100'); UTC if unknown.

    Flux stamps its lines in the host's local time without an offset.
    """
    found = OFFSET.match(str(text or ""))
    if found is None:
        return UTC
    sign = -1 if found["sign"] == "-" else 1
    return timezone(sign * timedelta(hours=int(found["hours"]), minutes=int(found["minutes"])))


def log_members(evidence: EvidenceSet) -> list[tuple[str, str | None, tzinfo]]:
    """``(member, worker, timezone)`` of every log in the bundle."""
    index = evidence.get(LogIndex)
    if index is not None and index.logs:
        return [
            (
                log.member,
                log.worker if log.role == "worker" else None,
                utc_offset(getattr(log, "utc_offset", None)),
            )
            for log in index.logs
            if evidence.source.has(log.member)
        ]
    return [(name, None, UTC) for name in evidence.source.names() if LOG_MEMBER.match(name)]


def parse_logs(evidence: EvidenceSet) -> TimelineStream:
    """The timeline of every log: rare events all, routine ones counted (see :mod:`.scan`)."""
    counted: Counter[tuple[str, str | None]] = Counter()
    members = log_members(evidence)
    kept = routine_kept(len(members))

    def events() -> Iterator[TimelineEvent]:
        for member, worker, tz in members:
            scanned = shared.take(evidence.source, member, worker, tz, kept)
            if scanned is not None:  # the normalizers' scan of this log, handed over
                yield from scanned[0]
                counted.update(scanned[1])
                continue
            scanner = BlockScanner(member, worker=worker, tz=tz, kept=kept)
            yield from scanner.scan(evidence.source.iter_chunks(member))
            counted.update(scanner.counted)

    return TimelineStream(events(), counted, routine_kept=kept)


__all__ = [
    "EXPECTED_KINDS",
    "BlockScanner",
    "LogParser",
    "log_members",
    "parse_logs",
    "parse_member",
    "utc_offset",
]
