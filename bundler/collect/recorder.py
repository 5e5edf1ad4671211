"""Every collector's outcome, and the only door through which evidence reaches the sink.

A collector's members are handed to the sink when it *finishes*, under one
lock, and only if its outcome is not already settled: when the deadline or
Ctrl-C settles a running collector as ``timeout``/``interrupted``, whatever
it produces afterwards is discarded, so nothing is written after the bundle
is being finalized. Collectors are listed in registration order, so manifests
of the same plan read the same way.

Every string of an outcome the remote side could have said (a fan-out's bound
values, the request path, a header, an error message, a note) passes through
``BundleSink.redact_text`` here, exactly once: the summary, the normalizer, the
live verdict and the manifest read it so, and none redacts it again
(``--obfuscate network`` would give an address pseudonym a pseudonym of its own).
"""

from __future__ import annotations

import threading
import time
import unicodedata
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Protocol

from schemas import (
    CollectorKind,
    CollectorStatus,
    HttpExchange,
    utc_now,
)

from ..archive.contracts import BundleSink
from ..archive.manifest_draft import redact_record
from ..archive.room import BundleRoom, NoRoom
from ..archive.stored import StoredMember
from .errors import BundleFull, CollectError, excerpt
from .outcomes import NO_BINDINGS, SettledOutcome
from .results import StepResult


@dataclass(frozen=True)
class PendingMember:
    name: str
    content: bytes
    media_type: str = "text/plain"
    schema_name: str | None = None
    truncated: bool = False
    valid: bool | None = None


@dataclass(eq=False, slots=True)
class CollectorRecord:
    """One collector, from registration to its settled outcome.

    Slotted, its members a tuple and its bindings shared when empty: a run holds one per
    collector until it ends (10,535 at 1,000 hosts), and a ``__dict__``, an empty list
    and an empty dict each were ~0.6 KiB of them."""

    id: str
    kind: CollectorKind
    target: str
    step: str | None = None
    host: str | None = None
    bound: Mapping[str, str] = field(default_factory=lambda: NO_BINDINGS)
    started_at: datetime | None = None
    t0: float | None = None
    outcome: SettledOutcome | None = None
    entries: tuple[StoredMember, ...] = ()
    http_status: int | None = None
    http_path: str | None = None
    """The rendered request path and query, once known (what ``bundler serve`` matches)."""
    http_query: str = ""
    content_type: str | None = None
    exit_code: int | None = None


class ProgressListener(Protocol):
    def collector_registered(self, record: CollectorRecord) -> None: ...

    def collector_started(self, record: CollectorRecord) -> None: ...

    def collector_finished(self, record: CollectorRecord) -> None: ...


class Recorder:
    def __init__(
        self,
        sink: BundleSink,
        progress: ProgressListener | None = None,
        *,
        now: Callable[[], datetime] = utc_now,
        monotonic: Callable[[], float] = time.monotonic,
        secrets: Sequence[str] = (),
        room: BundleRoom | None = None,
    ) -> None:
        """``room``: the sink's, when it has one (a bundle doctor seals): each settled
        collector's manifest record is counted there, and a member the sink has no room
        for is recorded as its collector's failure (:class:`BundleFull`)."""
        self.sink = sink
        self.room = room
        self.progress = progress
        self._secrets = tuple(s for s in secrets if s)
        self._now = now
        self._monotonic = monotonic
        self._lock = threading.RLock()
        self._records: list[CollectorRecord] = []

    def register(
        self,
        collector_id: str,
        kind: CollectorKind,
        target: str,
        *,
        step: str | None = None,
        host: str | None = None,
        bound: dict[str, str] | None = None,
    ) -> CollectorRecord:
        # Redacted once, here: the values came from the server (worker ids), and the
        # normalizer, the verdict and the manifest read them beside the redacted members.
        # The request itself is rendered from the caller's own, unredacted copy.
        bindings = (
            {name: self.redact(value) for name, value in bound.items()} if bound else NO_BINDINGS
        )  # most are not fan-outs: one, shared
        record = CollectorRecord(collector_id, kind, target, step, host, bindings)
        with self._lock:
            self._records.append(record)
        if self.progress:
            self.progress.collector_registered(record)
        return record

    def started(self, record: CollectorRecord) -> None:
        with self._lock:
            record.started_at, record.t0 = self._now(), self._monotonic()
        if self.progress:
            self.progress.collector_started(record)

    def finish(
        self,
        record: CollectorRecord,
        *,
        members: Sequence[PendingMember] = (),
        error: CollectError | None = None,
        note: str | None = None,
        attempts: int = 1,
        status: CollectorStatus | None = None,
    ) -> bool:
        """Settle the outcome and store its members; False if it was already settled.

        A member the bundle has no room for is left out, and the collector failed
        (:class:`BundleFull`, or its own error with a note): a gap, named."""
        with self._lock:
            if record.outcome is not None:
                return False
            full: list[str] = []
            for member in members:
                try:
                    entry = self.sink.add(
                        member.name,
                        member.content,
                        media_type=member.media_type,
                        schema_name=member.schema_name,
                        collector=record.id,
                        truncated=member.truncated,
                        valid=member.valid,
                    )
                except NoRoom as no_room:
                    full.append(str(no_room))
                    continue
                if entry is not None:
                    record.entries += (entry,)
                else:
                    dropped = f"{member.name} left out by redaction (see redaction-report.json)"
                    note = f"{note}; {dropped}" if note else dropped
            if full:
                left_out = f"left out of the bundle: {full[0]}"
                if error is None:
                    error, status = BundleFull(left_out), None
                else:
                    note = f"{note}; {left_out}" if note else left_out
            final = status or (error.status if error else CollectorStatus.OK)
            if error is not None and error.status is CollectorStatus.SKIPPED:
                note = note or error.message
            self._settle(record, final, error, note, attempts)
        return True

    def skip(self, record: CollectorRecord, note: str, status: CollectorStatus) -> None:
        """Settle a collector that never ran (skipped on purpose, or interrupted before it ran)."""
        with self._lock:
            if record.outcome is None:
                self._settle(record, status, None, note, attempts=0)

    def skip_unsettled(self, note: str) -> None:
        """Settle, as skipped, whatever the run ended without settling.

        A safety net: a host's tasks are queued by its connect, and a connect abandoned
        just as it queues them can leave one unrun after the scheduler has returned. A
        collector missing from the manifest would be evidence unaccounted for."""
        with self._lock:
            for record in self._records:
                if record.outcome is None:
                    self._settle(record, CollectorStatus.SKIPPED, None, note, attempts=0)

    def abandon(self, record: CollectorRecord, status: CollectorStatus, note: str) -> None:
        """Settle a running collector from outside (deadline, watchdog, Ctrl-C)."""
        error_class = {
            CollectorStatus.TIMEOUT: "CollectorTimeout",
            CollectorStatus.INTERRUPTED: "Interrupted",
        }.get(status, "InternalError")
        with self._lock:
            if record.outcome is None:
                self._settle(record, status, None, None, attempts=1)
                assert record.outcome is not None
                record.outcome.error_class = error_class
                record.outcome.error_message = self.redact(note)

    def _settle(
        self,
        record: CollectorRecord,
        status: CollectorStatus,
        error: CollectError | None,
        note: str | None,
        attempts: int,
    ) -> None:
        duration = self._monotonic() - record.t0 if record.t0 is not None else 0.0
        # redacted whole, then cut between words: a cut first could halve a secret; a
        # message made of redacted text already (a task's excerpt) is only cut
        redact = _as_is if error is not None and error.redacted else self.redact
        message = excerpt(error.message, redact, error.limit) if error else ""
        record.outcome = SettledOutcome(
            id=record.id,
            kind=record.kind,
            target=record.target,
            started_at=record.started_at,
            duration_s=round(max(0.0, duration), 3),
            status=status,
            error_class=error.error_class if error else None,
            error_message=(message or None) if status is not CollectorStatus.SKIPPED else None,
            note=self.redact(note) if note else None,
            bytes=sum(e.size for e in record.entries),
            members=tuple(e.path for e in record.entries),
            attempts=attempts,
            http=self._exchange(record),
        )
        if self.room is not None:
            outcome = record.outcome
            outcome.step, outcome.bound = record.step, record.bound  # as outcomes() completes it
            outcome.exit_code = record.exit_code
            self.room.charge_record(outcome.manifest_bytes())
        if self.progress:
            self.progress.collector_finished(record)

    def _exchange(self, record: CollectorRecord) -> HttpExchange | None:
        """The request and answer as recorded: every string the server or a bound value
        gave redacted (the path holds worker ids, a ``Content-Type`` may echo a token)."""
        if record.http_path is None:
            return None
        exchange = HttpExchange(
            path=record.http_path,
            query=record.http_query,
            status_code=record.http_status,
            content_type=header_text(record.content_type),
        )
        return redact_record(exchange, self.redact, "http.")

    def redact(self, text: str) -> str:
        """The sink's redaction, plus the secrets doctor itself holds (the API token)."""
        redacted = self.sink.redact_text(text)
        for secret in self._secrets:
            redacted = redacted.replace(secret, "[redacted]")
        return redacted

    # -- results ------------------------------------------------------------------------------
    def records(self) -> list[CollectorRecord]:
        with self._lock:
            return list(self._records)

    def outcomes(self) -> list[SettledOutcome]:
        """Settled outcomes, with what analysis needs to re-derive evidence from raw members.

        The records' own outcomes, completed in place: a copy of each doubled the
        collection's share of doctor's memory at fleet size. ``bound`` is the record's own
        mapping, not a copy (a settled record's is never changed again; an empty one is
        shared by every record).
        """
        settled = []
        for record in self.records():
            outcome = record.outcome
            if outcome is None:
                continue
            outcome.step = record.step
            outcome.bound = record.bound
            outcome.exit_code = record.exit_code
            settled.append(outcome)
        return settled

    def step_results(self) -> list[StepResult]:
        """What the profile's normalizer sees: one result per expansion of a plan step."""
        results = []
        for record in self.records():
            if record.step is None or record.outcome is None:
                continue
            outcome = record.outcome
            results.append(
                StepResult(
                    step=record.step,
                    collector=record.id,
                    status=outcome.status,
                    member=record.entries[0].path if record.entries else None,
                    host=record.host,
                    bound=record.bound,
                    http_status=record.http_status,
                    exit_code=record.exit_code,
                    error_class=outcome.error_class,
                    error_message=outcome.error_message,
                    finished_at=_finished(outcome),
                )
            )
        return results


def _as_is(text: str) -> str:
    return text


def _finished(outcome: SettledOutcome) -> datetime | None:
    if outcome.started_at is None:
        return None
    return outcome.started_at + timedelta(seconds=outcome.duration_s)


def header_text(value: str | None) -> str | None:
    """A response header's value as the manifest keeps it: control and format characters
    (a line break, an escape, a right-to-left override) replaced by U+FFFD, so a stored
    ``Content-Type`` cannot rewrite a terminal or a report line that shows it."""
    if value is None:
        return None
    return "".join("\ufffd" if unicodedata.category(c) in ("Cc", "Cf") else c for c in value)
