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
from datetime import UTC, datetime
from functools import cache
from types import MappingProxyType
from typing import overload

from schemas import CollectorKind, CollectorOutcome, CollectorStatus, HttpExchange

from ..archive.json_chunks import item_bytes
from ..archive.manifest_json import LISTS
from ..archive.stored import json_bytes

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

    def manifest_bytes(self) -> int:
        """About what this outcome's record takes in the manifest, for the bundle's room
        (:mod:`bundler.archive.room`): no less for ASCII text (a record without a start
        time or an exchange is counted as if it had them), more for other scripts."""
        http = self.http
        strings: list[str | None] = [self.id, self.target, self.error_class, self.error_message]
        strings += (self.note, self.step, self.kind.value, self.status.value)
        if http is not None:
            strings += (http.path, http.query, http.content_type)
        listed = sum(json_bytes(member) + LIST_ITEM for member in self.members)
        listed += sum(json_bytes(k) + json_bytes(v) + LIST_ITEM + 2 for k, v in self.bound.items())
        listed += LIST_ENDS * (bool(self.members) + bool(self.bound))
        numbers = (self.bytes, self.attempts, self.exit_code or 0)
        return (
            _record_overhead()
            + sum(json_bytes(text) for text in strings)
            + sum(len(str(number)) for number in numbers)
            + len(repr(self.duration_s))
            + listed
        )


LIST_ITEM = 10
"""A list item's indentation and separator, two levels inside a manifest record."""
LIST_ENDS = 8
"""What a list's brackets take on their own lines, over an empty list's ``[]``."""


@cache
def _record_overhead() -> int:
    """A record's bytes less what :meth:`SettledOutcome.manifest_bytes` adds, measured once
    on the manifest's own serializer (so a field added to the record is counted)."""
    exchange = HttpExchange(path="a", query="a", status_code=599, content_type="a")
    sample = SettledOutcome(
        "a", CollectorKind.HTTP, "a", CollectorStatus.OK, datetime.now(UTC), 0.5, "a", "a", "a"
    )
    sample.step, sample.http = "a", exchange
    measured = item_bytes(sample.to_schema(), LISTS["collectors"])
    strings = 9 * json_bytes("a") + json_bytes(sample.kind.value) + json_bytes(sample.status.value)
    numbers = len("0") + len("1") + len("0") + len(repr(0.5))
    return measured - strings - numbers


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
