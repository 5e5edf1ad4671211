"""A settled collector's outcome as a run holds it: compact, made a schema record once.

A run holds every collector's outcome until the manifest is written, and so
through doctor's live verdict, its memory peak. As a pydantic
:class:`~schemas.CollectorOutcome` each was ~460 bytes of instance, field
dict, member list and bindings dict (~5 MB at 1,000 hosts, 10,535
collectors); slotted, about half. The manifest's record is built, and
validated, when the manifest is written (:meth:`SettledOutcome.to_schema`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from types import MappingProxyType
from typing import overload

from schemas import CollectorKind, CollectorOutcome, CollectorStatus, HttpExchange

NO_BINDINGS: Mapping[str, str] = MappingProxyType({})
"""Shared by every outcome that was not a fan-out expansion (most are not)."""


@dataclass(eq=False, slots=True)
class SettledOutcome:
    """What one collector did: :class:`~schemas.CollectorOutcome`'s fields, nothing else.

    Mutable like the record it replaces: the recorder completes ``step``,
    ``bound`` and ``exit_code`` when the run ends, and an abandoned collector's
    error is named after it was settled.
    """

    id: str
    kind: CollectorKind
    target: str
    status: CollectorStatus
    started_at: datetime | None = None
    duration_s: float = 0.0
    error_class: str | None = None
    error_message: str | None = None
    note: str | None = None
    bytes: int = 0
    members: tuple[str, ...] = ()
    attempts: int = 1
    step: str | None = None
    bound: Mapping[str, str] = field(default_factory=lambda: NO_BINDINGS)  # one, shared
    exit_code: int | None = None
    http: HttpExchange | None = None

    def to_schema(self) -> CollectorOutcome:
        """The manifest's record, validated as it is built."""
        return CollectorOutcome(
            id=self.id,
            kind=self.kind,
            target=self.target,
            started_at=self.started_at,
            duration_s=self.duration_s,
            status=self.status,
            error_class=self.error_class,
            error_message=self.error_message,
            note=self.note,
            bytes=self.bytes,
            members=list(self.members),
            attempts=self.attempts,
            step=self.step,
            bound=dict(self.bound),
            exit_code=self.exit_code,
            http=self.http,
        )


class OutcomeRecords(Sequence[CollectorOutcome]):
    """A run's outcomes as the manifest's records, each made (and validated) when read.

    What sealing is handed as the manifest's collectors: it writes them one at a time
    (:mod:`bundler.archive.manifest_draft`), so a fleet's 10,535 records are never all
    models at once beside the rows they come from.
    """

    def __init__(self, outcomes: Sequence[SettledOutcome]) -> None:
        self._outcomes = outcomes

    def __len__(self) -> int:
        return len(self._outcomes)

    @overload
    def __getitem__(self, index: int) -> CollectorOutcome: ...

    @overload
    def __getitem__(self, index: slice) -> list[CollectorOutcome]: ...

    def __getitem__(self, index: int | slice) -> CollectorOutcome | list[CollectorOutcome]:
        if isinstance(index, slice):
            return [outcome.to_schema() for outcome in self._outcomes[index]]
        return self._outcomes[index].to_schema()

    def __iter__(self) -> Iterator[CollectorOutcome]:
        return (outcome.to_schema() for outcome in self._outcomes)
