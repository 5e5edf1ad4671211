"""Turn Flux server and worker logs into dated timeline events, fast.

Server logs are dominated by ``Auth disabled — request treated as admin``
(over 85% of lines with auth off), so that text is dropped before anything
else; every other line is split on its fixed ``" - "`` separators (no regex),
and only then compared with the few formats sharing its first word. Lines
without a timestamp continue the previous record (httpx errors, tracebacks).

Flux logs local time with second resolution; hosts are assumed to log in UTC
(the lab and Flux's containers do) unless a timezone is given. A line stamped with a
zero time (``0001-01-01 00:00:00``, ``1970-01-01 00:00:00``: a clock never set) is an
undated event (``at`` None): kept, cited, never a moment a rule measures from.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, tzinfo
from sys import intern
from types import MappingProxyType
from typing import Any

from bundler.analyze.api import TimelineEvent
from bundler.analyze.facts import dated, is_zero_time

from .formats import NUMERIC_FIELDS, SERVER_INDEX, WORKER_INDEX, LineFormat

SPAM_LOGGER = "flux.security.auth_service - WARNING - Auth disabled"
MAX_CONTINUATION_LINES = 4
SHARED_MAX = 4096
"""Distinct details and execution ids one parser shares before it starts over (bounded)."""
HTTP_STATUS = re.compile(r"'(?P<code>\d{3}) [^']*' for url '(?P<url>[^']*)'")


class _Record:
    """A record whose formats need its continuation lines before matching."""

    __slots__ = ("at", "candidates", "line", "message", "side", "text")

    def __init__(
        self, line: int, text: str, message: str, side: str, at: datetime | None, cands: Any
    ) -> None:
        self.line = line
        self.text = text
        self.message = message
        self.side = side
        self.at = at
        self.candidates: tuple[LineFormat, ...] = cands


class LogParser:
    """Parse one log member; ``worker`` names the worker a worker log belongs to."""

    def __init__(self, member: str, *, worker: str | None = None, tz: tzinfo = UTC) -> None:
        self.member = member
        self.worker = worker
        self.tz = tz
        self._stamp_text = ""
        self._stamp: datetime | None = None
        # A worker log repeats a few details and each execution id three times (scheduled,
        # claimed, completed): one read-only detail and one id string each, not per event.
        self._details: dict[tuple[tuple[str, Any], ...], Mapping[str, Any]] = {}
        self._ids: dict[str, str] = {}

    def parse(self, lines: Iterable[tuple[int, str]]) -> Iterator[TimelineEvent]:
        pending: _Record | None = None
        continuation = 0
        for number, line in lines:
            # Inlined record-start test: this loop sees every line of every log.
            if not (line[19:22] == " - " and line[4:5] == "-" and line[13:14] == ":"):
                if pending is not None and continuation < MAX_CONTINUATION_LINES:
                    pending.message += "\n" + line
                    pending.text += " " + line.strip()
                    continuation += 1
                continue
            if pending is not None:
                event = self._finish(pending)
                pending = None
                if event is not None:
                    yield event
            if line.startswith(SPAM_LOGGER, 22):
                continue  # "Auth disabled — request treated as admin": most of a server log
            logger, _, rest = line[22:].partition(" - ")
            _level, sep, message = rest.partition(" - ")
            if not sep or not logger.startswith("flux"):
                continue
            side = "worker" if logger == "flux.worker" else "server"
            index = WORKER_INDEX if side == "worker" else SERVER_INDEX
            space = message.find(" ")
            candidates = index.get(message[:space] if space > 0 else message)
            if not candidates:
                continue
            matching = tuple(f for f in candidates if f.literal in message)
            if not matching:
                continue
            at = self._timestamp(line[:19])
            if matching[0].continues:
                pending = _Record(number, line, message, side, at, matching)
                continuation = 0
                continue
            event = self._match(matching, number, line, message, side, at)
            if event is not None:
                yield event
        if pending is not None:
            event = self._finish(pending)
            if event is not None:
                yield event

    def _finish(self, record: _Record) -> TimelineEvent | None:
        return self._match(
            record.candidates, record.line, record.text, record.message, record.side, record.at
        )

    def _match(
        self,
        formats: tuple[LineFormat, ...],
        number: int,
        text: str,
        message: str,
        side: str,
        at: datetime | None,
    ) -> TimelineEvent | None:
        for fmt in formats:
            found = fmt.pattern.match(message)
            if found is not None:
                return self._event(fmt.kind, found, number, text, side, at)
        return None

    def _event(
        self, kind: str, found: re.Match[str], number: int, text: str, side: str, at: Any
    ) -> TimelineEvent:
        detail: dict[str, Any] = {"side": side}
        worker = self.worker if side == "worker" else None
        execution = None
        for key, value in found.groupdict().items():
            if value is None:
                continue
            if key == "worker":
                worker = value
            elif key == "execution":
                execution = self._shared_id(value)
            elif key in NUMERIC_FIELDS:
                detail[key] = float(value) if "." in value else int(value)
            else:
                detail[key] = intern(value)  # workflow names, states: few, repeated per event
        if kind == "connection_lost":
            kind = _classify_connection_loss(detail)
        elif kind == "execution_progress":
            kind = intern(f"execution_{str(detail.pop('phase')).lower()}")
        return TimelineEvent(
            kind=kind,
            member=self.member,
            line=number,
            text=text,
            at=at,
            worker=worker,
            execution=execution,
            detail=self._shared_detail(detail),
        )

    def _shared_id(self, value: str) -> str:
        if len(self._ids) >= SHARED_MAX:
            self._ids.clear()
        return self._ids.setdefault(value, value)

    def _shared_detail(self, detail: dict[str, Any]) -> Mapping[str, Any]:
        key = tuple(detail.items())  # values are str, int or float: hashable
        shared = self._details.get(key)
        if shared is None:
            if len(self._details) >= SHARED_MAX:
                self._details.clear()
            shared = self._details[key] = MappingProxyType(detail)
        return shared

    def _timestamp(self, stamp: str) -> datetime | None:
        # Consecutive lines mostly share a second: parse each distinct stamp once.
        if stamp != self._stamp_text:
            self._stamp_text = stamp
            try:
                wall = datetime(
                    int(stamp[0:4]),
                    int(stamp[5:7]),
                    int(stamp[8:10]),
                    int(stamp[11:13]),
                    int(stamp[14:16]),
                    int(stamp[17:19]),
                )
                local = wall.replace(tzinfo=self.tz).astimezone(UTC)
                self._stamp = None if is_zero_time(wall) else dated(local)
            except (ValueError, OverflowError):  # OverflowError: year 1 east of UTC
                self._stamp = None
        return self._stamp


def _classify_connection_loss(detail: dict[str, Any]) -> str:
    """A lost connection whose cause is a refused registration is an authorization event."""
    found = HTTP_STATUS.search(str(detail.get("message", "")))
    if found is not None:
        detail["status_code"] = int(found["code"])
        detail["url_path"] = re.sub(r"^[a-z]+://[^/]*", "", found["url"])
        if found["code"] in ("401", "403") and detail["url_path"].endswith("/workers/register"):
            return "auth_rejected"
    return "connection_lost"
