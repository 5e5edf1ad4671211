"""The contract between the ladder engine and the rules (generic and per product).

A rule is a small function of a :class:`RuleContext` that answers for one
layer of one target: ``RuleResult.fail(...)``, ``.warn``, ``.pass_``,
``.unknown`` (evidence missing), ``.not_applicable``, or ``None`` (nothing to
say). The documents it cannot judge without are declared, ``@rule(layer,
needs=(WorkersEvidence,))``: when one is missing the rule is not called and the
answer is unknown, so no rule writes that check by hand. The engine, not the
rule, combines answers into a layer status, stops at the first failed layer and
marks the layers above it ``skipped``.

Rules never read files directly: they read typed evidence from
:class:`EvidenceSet` and cite it with :meth:`EvidenceSet.cite` /
:func:`cite_lines`, so every finding points at a bundle member and a JSON
pointer or a line range.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from operator import attrgetter
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

from pydantic import ValidationError

from schemas import (
    Citation,
    CollectorStatus,
    Finding,
    Layer,
    LayerStatus,
    LineRange,
    Manifest,
    Recovery,
)
from schemas.evidence import ClockOffset, EvidenceDoc, Job

from ..jsondoc import JsonRefused
from ..source import (
    JsonTooLarge,
    MemberNotFound,
    MemberSource,
    MemberUnverified,
    Refused,
    read_json,
)
from ..timetext import utc
from .checklist import LADDER_CHECKLIST, Checklist
from .codes import MISSING_DOCUMENTS
from .pointers import resolved
from .worker_clock import on_server_bounds, placed

if TYPE_CHECKING:
    from .logsource import CopySpan

Supersedes = Mapping[str, str | tuple[str, ...]]
"""A profile's finding code -> the generic code (or codes) it replaces on the same rung."""

D = TypeVar("D", bound=EvidenceDoc)

EXCERPT_MAX = 240

SEVERITY_ORDER = {"fail": 0, "warn": 1, "info": 2, "pass": 3}
"""The order a rung's findings are shown in: most severe first."""


def excerpt(text: str, limit: int = EXCERPT_MAX) -> str:
    """A short single-line excerpt of already-redacted text."""
    one_line = " ".join(text.split())
    return one_line if len(one_line) <= limit else one_line[: limit - 1] + "…"


def cite_lines(
    member: str, start: int, end: int | None = None, text: str | None = None
) -> Citation:
    """Cite lines ``start..end`` (1-based) of a text member, with an optional excerpt."""
    return Citation(
        member=member,
        lines=LineRange(start=start, end=end or start),
        excerpt=excerpt(text) if text else None,
    )


def cite_json(member: str, pointer: str, value: Any = None) -> Citation:
    """Cite a JSON member at an RFC 6901 pointer, with the value as excerpt."""
    if value is None:
        shown = None
    elif isinstance(value, datetime):  # as every report writes a time, not Python's str()
        shown = utc(value)
    else:
        shown = excerpt(value if isinstance(value, str) else repr(value))
    return Citation(member=member, pointer=pointer, excerpt=shown)


@dataclass(frozen=True, slots=True)
class TimelineEvent:
    """One dated state transition read from a log (or an API event history).

    Slotted: a 1,000-worker timeline keeps ~165,000 of them (the first and latest of
    each kind per worker), and a ``__dict__`` each was a fifth of their memory.
    """

    kind: str
    """E.g. 'stale', 'evicted', 'registered', 'disconnected', 'connection_lost',
    'unhealthy', 'healthy', 'stale_claim', 'released', 'auth_rejected'."""
    member: str
    line: int
    text: str
    at: datetime | None = None
    worker: str | None = None
    execution: str | None = None
    detail: Mapping[str, Any] = field(default_factory=dict)
    """Read-only: a parser may hand the same mapping to many events (a fleet's worker logs
    repeat a few details ~165,000 times; one dict each was a quarter of the timeline)."""

    def citation(self) -> Citation:
        """Its line, or (read from a JSON member, ``detail['pointer']``) its JSON pointer."""
        pointer = self.detail.get("pointer")
        if isinstance(pointer, str):
            return cite_json(self.member, pointer, self.text)
        return cite_lines(self.member, self.line, self.line, self.text)


FIRST_KEPT = 5
"""Per ``(kind, worker)`` the engine keeps the first FIRST_KEPT events in log order ..."""
LATEST_KEPT = 50
"""... and the LATEST_KEPT latest in time (:mod:`bundler.analyze.sampling`); a parser that
returns a :class:`TimelineStream` must yield at least the events these would keep, except
for the routine kinds it counts, of which it keeps :func:`routine_kept`."""
ROUTINE_FIRST_BUDGET = 500
ROUTINE_LATEST_BUDGET = 5_000
"""Routine events (an execution scheduled, claimed, completed: what a parser *counts*) kept
per (kind, worker) shrink as the fleet grows, so that all logs together keep about this
many of each kind: rules never read them (they read the rare kinds, kept by the limits
above), only the HTML timeline draws them, at most 60 marks a worker lane. At 1,000
workers FIRST_KEPT + LATEST_KEPT of each was 165,000 events, a fifth of doctor's peak."""
ROUTINE_FLOOR = (1, 5)
"""What a worker's lane keeps of each routine kind at any fleet size: its first and latest."""


def routine_kept(logs: int) -> tuple[int, int]:
    """``(first, latest)`` routine events of each (kind, worker) kept from one of ``logs``
    logs: FIRST_KEPT and LATEST_KEPT up to 100 logs, then fewer, never below ROUTINE_FLOOR."""
    n = max(1, logs)
    first = min(FIRST_KEPT, max(ROUTINE_FLOOR[0], ROUTINE_FIRST_BUDGET // n))
    latest = min(LATEST_KEPT, max(ROUTINE_FLOOR[1], ROUTINE_LATEST_BUDGET // n))
    return first, latest


class TimelineStream:
    """A log parser's events, plus the routine ones it only *counted*.

    A 1 GB log holds millions of routine events (an execution claimed, completed
    ...); making an object of each would cost many times the decompression. A
    parser may instead count them by ``(kind, worker)`` in :attr:`counted` and
    yield only the events worth keeping (every rare one; the first and the latest
    routine ones). Iterating yields the events; :attr:`counted` is complete once
    they are exhausted, and the engine adds it to the timeline's exact totals.
    A plain iterable of events remains a valid ``parse_logs`` result.
    """

    def __init__(
        self,
        events: Iterable[TimelineEvent],
        counted: dict[tuple[str, str | None], int] | None = None,
        routine_kept: tuple[int, int] | None = None,
        spans: list[CopySpan] | None = None,
    ) -> None:
        self._events = events
        self.counted: dict[tuple[str, str | None], int] = counted if counted is not None else {}
        self.routine_kept = routine_kept
        """``(first, latest)`` of each routine kind the parser kept, when it says (the note)."""
        self.spans: list[CopySpan] = spans if spans is not None else []
        """The time each copy of a worker's log covers (:mod:`.logsource`), complete once the
        events are exhausted: a line one copy holds and another lacks is a disagreement only
        where the other copy covers its time."""

    def __iter__(self) -> Iterator[TimelineEvent]:
        return iter(self._events)


@dataclass
class Timeline:
    """All timeline events of a bundle, in time order.

    An undated event (a line without a time, or stamped with a zero time) keeps its place
    in its log: right after the dated line before it, else right before the dated line
    after it (:meth:`bounds`). Sorted last, a starvation that began at a zero time came
    after its recovery, and an eviction after the reconnection that followed it. A log
    with no dated line at all comes last, in line order.

    A log written on a worker's clock that the bundle proves off (``clocks``) is read on the
    server's clock (:mod:`.worker_clock`): ordered at :meth:`placed`, its moments given by
    :meth:`bounds` as spans. Sorted by its stamps, a worker two hours ahead logged its lost
    connection two hours after the server evicted it.
    """

    events: list[TimelineEvent] = field(default_factory=list)
    totals: dict[tuple[str, str | None], int] = field(default_factory=dict)
    """Events per (kind, worker) as the logs held them, when the engine kept only a
    sample of a huge log (see :meth:`count`); empty when nothing was left out."""
    spans: list[CopySpan] = field(default_factory=list)
    """What time each copy of each worker's log covers, as the parser read it (every line,
    not only the events kept); empty for a parser that names no copies."""
    clocks: Mapping[str, ClockOffset] = field(default_factory=dict)
    """Log member -> the proven offset of the worker clock that stamped it
    (:func:`.worker_clock.log_clocks`); a log not named is on the server's clock."""
    _by_kind: dict[str, list[TimelineEvent]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _by_key: dict[tuple[str, str | None], list[TimelineEvent]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _by_worker: dict[str | None, list[TimelineEvent]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _totals_by_kind: dict[str, dict[str | None, int]] = field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _bounds: dict[int, Bounds] = field(default_factory=dict, init=False, repr=False, compare=False)
    """Per undated event (by ``id``): the times of the dated lines around it in its log."""

    def __post_init__(self) -> None:
        """Index events by kind, by (kind, worker) and by worker: rules ask per worker, and
        filtering the whole timeline for each of 1,000 workers was quadratic in the fleet."""
        self._bounds = _sort_in_time(self.events, self.clocks)
        for event in self.events:
            self._by_kind.setdefault(event.kind, []).append(event)
            self._by_key.setdefault((event.kind, event.worker), []).append(event)
            self._by_worker.setdefault(event.worker, []).append(event)
        for (kind, worker), n in self.totals.items():
            self._totals_by_kind.setdefault(kind, {})[worker] = n

    def spans_of(self, worker: str) -> list[CopySpan]:
        """The stretches of time the copies of ``worker``'s log cover."""
        return [span for span in self.spans if span.worker == worker]

    def for_worker(self, worker: str) -> list[TimelineEvent]:
        return list(self._by_worker.get(worker, ()))

    def of_kind(self, *kinds: str, worker: str | None = None) -> list[TimelineEvent]:
        """Events of these kinds (optionally of one worker), in time order."""
        if worker is None:
            pools = [self._by_kind.get(kind, []) for kind in dict.fromkeys(kinds)]
        else:
            pools = [self._by_key.get((kind, worker), []) for kind in dict.fromkeys(kinds)]
        if len(pools) == 1:
            return list(pools[0])
        return list(heapq.merge(*pools, key=self._order))

    def bounds(self, event: TimelineEvent) -> Bounds:
        """When ``event`` happened on the server's clock, as far as the bundle tells: ``(at,
        at)`` for a dated one; for an undated one the times of the dated lines before and
        after it in its log (None where there is none). A log is written in time order, so
        its moment lies between. A line of a worker whose clock is off is a span
        (:func:`.worker_clock.on_server_bounds`: an end open where the offset is unbounded).

        Rules that need a moment use these instead of guessing one: an undated line is no
        duration and no separate outage unless its neighbours prove it, and a skewed
        worker's line is no earlier or later than a server's unless its span says so.
        """
        offset = self.clocks.get(event.member)
        if event.at is not None:
            return on_server_bounds(event.at, offset)
        before, after = self._bounds.get(id(event), (None, None))
        low = on_server_bounds(before, offset)[0] if before is not None else None
        high = on_server_bounds(after, offset)[1] if after is not None else None
        return low, high

    def clock_of(self, event: TimelineEvent) -> ClockOffset | None:
        """The proven offset of the clock that stamped ``event``; None: the server's."""
        return self.clocks.get(event.member)

    def placed(self, event: TimelineEvent) -> datetime | None:
        """Where ``event`` is drawn and ordered: its time, on the server's clock where its
        worker's offset is bounded both ways (:func:`.worker_clock.placed`); None undated."""
        if event.at is None:
            return None
        return placed(event.at, self.clocks.get(event.member))

    def _order(self, event: TimelineEvent) -> tuple[float, str, int]:
        """The sort key of :meth:`__post_init__`: time, or an undated event's anchor."""
        at = self.placed(event)
        if at is not None:
            return at.timestamp(), event.member, event.line
        before, after = self._bounds.get(id(event), (None, None))
        offset = self.clocks.get(event.member)
        around = (
            placed(before, offset) if before is not None else None,
            placed(after, offset) if after is not None else None,
        )
        return _anchor(around), event.member, event.line

    def count(self, kind: str, worker: str | None = None) -> int:
        """How many ``kind`` events the logs held: exact even when the timeline is a sample."""
        if not self.totals:
            return len(self.of_kind(kind, worker=worker))
        by_worker = self._totals_by_kind.get(kind, {})
        return sum(by_worker.values()) if worker is None else by_worker.get(worker, 0)

    def __iter__(self) -> Iterator[TimelineEvent]:
        return iter(self.events)


Bounds = tuple[datetime | None, datetime | None]
"""The earliest and latest moment an event can have: the dated lines around it in its log."""


def _sort_in_time(
    events: list[TimelineEvent], clocks: Mapping[str, ClockOffset]
) -> dict[int, Bounds]:
    """Sort by time, each undated event at its place in its log; return undated events' bounds
    (as stamped: :meth:`Timeline.bounds` reads them on the server's clock).

    Stable sorts from the least significant key up (line, then member, then time) leave
    the same order as a tuple key would; only the timestamps are new objects. At fleet size
    the tuple keys were ~20 MB at the peak of an analysis. An undated event sorts at the
    time of the dated line before it in its log (else of the one after it, else last), and
    the stable sort keeps it after (before) that line. A line of a log in ``clocks`` sorts
    where it is placed on the server's clock (:func:`.worker_clock.placed`).
    """
    events.sort(key=attrgetter("line"))
    events.sort(key=attrgetter("member"))
    bounds = _undated_bounds(events)

    def moment(member: str, at: datetime) -> float:
        return placed(at, clocks.get(member)).timestamp()

    if not bounds:
        if clocks:
            events.sort(key=lambda e: moment(e.member, e.at))  # type: ignore[arg-type]
        else:
            events.sort(key=_timestamp)
        return bounds
    anchors = {}
    for event in events:
        if event.at is None:
            before, after = bounds[id(event)]
            stamp = before or after
            anchors[id(event)] = moment(event.member, stamp) if stamp else float("inf")
    events.sort(key=lambda e: moment(e.member, e.at) if e.at is not None else anchors[id(e)])
    return bounds


def _undated_bounds(events: list[TimelineEvent]) -> dict[int, Bounds]:
    """Per undated event of ``events`` (in member and line order): the times of the dated
    events before and after it in the same member."""
    bounds: dict[int, Bounds] = {}
    pending: list[TimelineEvent] = []
    member: str | None = None
    before: datetime | None = None
    for event in events:
        if event.member != member:
            bounds.update((id(p), (before, None)) for p in pending)
            pending, member, before = [], event.member, None
        if event.at is None:
            pending.append(event)
            continue
        bounds.update((id(p), (before, event.at)) for p in pending)
        pending, before = [], event.at
    bounds.update((id(p), (before, None)) for p in pending)
    return bounds


def _anchor(around: Bounds) -> float:
    """Where an undated event sorts: at the dated line before it, else after it, else last."""
    before, after = around
    stamp = before or after
    return stamp.timestamp() if stamp is not None else float("inf")


def _timestamp(event: TimelineEvent) -> float:
    assert event.at is not None
    return event.at.timestamp()


class CollectorFacts(Protocol):
    """What the verdict reads of a collector's outcome: a manifest's record, or doctor's own
    outcome while the bundle is not written yet (:mod:`bundler.collect.outcomes`)."""

    @property
    def id(self) -> str: ...

    @property
    def status(self) -> CollectorStatus: ...

    @property
    def error_class(self) -> str | None: ...

    @property
    def error_message(self) -> str | None: ...


class EvidenceSet:
    """Typed, cached access to a bundle's canonical evidence and raw members.

    A document that is absent returns ``None`` (the rule answers ``unknown``);
    a document that fails validation also returns ``None`` and is listed in
    :attr:`problems`, so the report can say the evidence was unusable.
    """

    def __init__(
        self,
        source: MemberSource,
        manifest: Manifest | None = None,
        collectors: Sequence[CollectorFacts] | None = None,
    ) -> None:
        self.source = source
        self.manifest = manifest
        self.collectors: Sequence[CollectorFacts] = (
            collectors
            if collectors is not None
            else manifest.collectors
            if manifest is not None
            else ()
        )
        """Every collector's outcome: the manifest's, unless doctor gave its own (live)."""
        self.problems: list[str] = []
        self.unverified: dict[str, str] = {}
        """Documents present but failed verification (the integrity line names them), by path."""
        self.refused: dict[str, Refused] = {}
        """Members a reader declined to parse, over the JSON cap, by path: documents this set
        loads, and raw members the normalizer that made it refused (``NormalizeContext``).
        Unread, so the fleet findings name each one with the limit and the setting that reads
        it, and the verdict cannot be healthy (:mod:`bundler.analyze.fleet`)."""
        self._cache: dict[type[EvidenceDoc], EvidenceDoc | None] = {}
        self.memo: dict[str, Any] = {}
        """What is worked out of the documents once per set rather than once per target (the
        entries listed more than once, :mod:`bundler.analyze.duplicates`)."""
        self.read: list[type[EvidenceDoc]] | None = None
        """While not None, every document class asked for is appended (see
        :meth:`tracking`): the engine names what an unknown rung was missing."""

    def tracking(self) -> list[type[EvidenceDoc]]:
        """Start recording the document classes :meth:`get` is asked for; returns the list."""
        self.read = []
        return self.read

    def get(self, cls: type[D]) -> D | None:
        if self.read is not None and cls not in self.read:
            self.read.append(cls)
        return self.document(cls)

    def document(self, cls: type[D]) -> D | None:
        """The document, loaded once and cached, without recording that it was asked for."""
        if cls not in self._cache:
            self._cache[cls] = self._load(cls)
        return self._cache[cls]  # type: ignore[return-value]

    def need(self, cls: type[D]) -> D:
        """A document the rule declared in ``@rule(needs=...)``, so the engine checked it is here.

        Raises (a rule bug, reported as ``RULE_ERROR``, never a pass) if it is absent:
        the rule read a document it did not declare.
        """
        doc = self.get(cls)
        if doc is None:
            raise LookupError(f"{cls.member_path} is absent: list it in the rule's needs")
        return doc

    def _load(self, cls: type[D]) -> D | None:
        try:
            data = read_json(self.source, cls.member_path)
        except MemberUnverified as exc:  # present but tampered: unusable, never "missing"
            self.unverified[cls.member_path] = exc.reason
            return None
        except MemberNotFound:
            return None
        except JsonTooLarge as exc:  # whole, but over the cap: unread, not invalid
            self.refused[cls.member_path] = Refused(cls.member_path, exc.size, exc.limit)
            return None
        except JsonRefused as exc:  # parses, but holds what no bundler writes: named as it is
            self.problems.append(str(exc))
            return None
        except ValueError as exc:
            self.problems.append(f"{cls.member_path}: not valid JSON ({exc})")
            return None
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            first = exc.errors()[0]
            loc = "/".join(str(p) for p in first["loc"])
            self.problems.append(f"{cls.member_path}: invalid at /{loc}: {first['msg']}")
            return None

    def position(self, cls: type[EvidenceDoc], index: int) -> int:
        """Where item ``index`` of the document's list stands in the member itself (the same
        here; a view showing fewer records, :class:`~bundler.analyze.readings.Reading`,
        renumbers)."""
        return index

    def cite(self, cls: type[EvidenceDoc], pointer: str = "", value: Any = None) -> Citation:
        """Cite a canonical evidence document at a JSON pointer: the part of it that exists
        (:func:`~.pointers.resolved`); a field the document lacks is cited by its record, and
        without the value the rule expected there."""
        pointer, value = self.existing(cls, pointer, value)
        return cite_json(cls.member_path, pointer, value)

    def existing(self, cls: type[EvidenceDoc], pointer: str, value: Any) -> tuple[str, Any]:
        """``(pointer, value)`` as :meth:`cite` cites them, checked against the document."""
        document = self.document(cls)
        if document is None or not pointer:
            return pointer, value
        found, whole = resolved(document, pointer)
        return (found, value) if whole else (found, None)


@dataclass(frozen=True)
class Target:
    """A (worker, job) pair whose ladder is walked. Either side may be absent."""

    worker: str | None
    job: Job | None
    reason: str = ""


@dataclass
class RuleContext:
    evidence: EvidenceSet
    target: Target
    timeline: Timeline
    profile: str | None = None
    collection_hints: Mapping[str, str] = field(default_factory=dict)
    """The profile's ``collection_hints``: evidence member -> how to collect it."""
    recovery_paths: Mapping[str, Recovery] = field(default_factory=dict)
    """The profile's ``recovery_paths``: its own text for a generic recovery path id."""
    requirement_repairs: Mapping[str, str] = field(default_factory=dict)
    """The profile's ``requirement_repairs``: its own words for a runtime-requirements
    blocker's repair, by repair id (``rules/_repairs.py``)."""
    supersedes: Supersedes = field(default_factory=dict)
    """The profile's ``supersedes``: its finding code -> the generic code(s) it replaces."""
    missing_documents: Mapping[str, str] = field(default_factory=dict)
    """The profile's ``missing_documents``: its own words for an absent document's unknown, by
    member path (the code stays ``codes.MISSING_DOCUMENTS``'s). The generic words name what
    the document holds for every product ("canaries, receipts, last runs"), some of which a
    product has not."""
    checklist: Checklist = LADDER_CHECKLIST
    """The profile's acceptance checklist, in whose words a finding names its checks."""
    stopped_at: Layer | None = None
    """Set when a host rule is asked for a ladder that stopped below its rung
    (:mod:`.host_context`): the rung that failed. The worker is then not taking work (or
    not this work), and a rule whose words assume it is ("it stays online") says so
    otherwise."""


@dataclass
class RuleResult:
    """One rule's answer for one layer of one target."""

    status: LayerStatus
    findings: list[Finding] = field(default_factory=list)

    @classmethod
    def pass_(cls, *findings: Finding) -> RuleResult:
        return cls(LayerStatus.PASS, list(findings))

    @classmethod
    def not_applicable(cls, code: str | None = None, message: str | None = None) -> RuleResult:
        findings = (
            [Finding(code=code, severity="info", message=message)] if code and message else []
        )
        return cls(LayerStatus.NOT_APPLICABLE, findings)

    @classmethod
    def unknown(cls, code: str, message: str, evidence: Iterable[Citation] = ()) -> RuleResult:
        return cls(
            LayerStatus.UNKNOWN,
            [Finding(code=code, severity="info", message=message, evidence=list(evidence))],
        )

    @classmethod
    def warn(cls, code: str, message: str, **kwargs: Any) -> RuleResult:
        return cls(LayerStatus.WARN, [make_finding(code, "warn", message, **kwargs)])

    @classmethod
    def fail(cls, code: str, message: str, **kwargs: Any) -> RuleResult:
        return cls(LayerStatus.FAIL, [make_finding(code, "fail", message, **kwargs)])


def make_finding(
    code: str,
    severity: str,
    message: str,
    *,
    evidence: Iterable[Citation] = (),
    recovery: Recovery | None = None,
    acceptance: Iterable[str] = (),
    native_code: str | None = None,
    **details: Any,
) -> Finding:
    return Finding(
        code=code,
        severity=severity,  # type: ignore[arg-type]
        message=message,
        evidence=list(evidence),
        recovery=recovery,
        acceptance=list(acceptance),
        native_code=native_code,
        details=details,
    )


RuleFunc = Callable[[RuleContext], RuleResult | None]


@dataclass(frozen=True)
class Rule:
    """A rule function bound to the layer it speaks for."""

    layer: Layer
    func: RuleFunc
    name: str
    products: frozenset[str] | None = None
    """Products this rule applies to; None means every product."""
    needs: tuple[type[EvidenceDoc], ...] = ()
    """Documents without which the rule cannot judge: when one is absent or unusable the
    rule is not called and answers unknown, in the words of ``codes.MISSING_DOCUMENTS`` (or
    the product's, ``RuleContext.missing_documents``: one code, whoever words it); the engine
    names the member and how to collect it (``missing``, ``to_decide``)."""
    host: bool = False
    """The rule judges a worker by what its host, or its own record, shows (a clock, a disk, a
    socket), needing no job: a warning it raises is the worker's whatever else is wrong in
    the fleet. Target selection asks such rules of every worker (:mod:`.host_warnings`), so
    a worker whose only problem is such a warning still gets a ladder or a fleet note."""

    def applies_to(self, profile: str | None) -> bool:
        return self.products is None or (profile is not None and profile in self.products)

    def __call__(self, ctx: RuleContext) -> RuleResult | None:
        for cls in self.needs:
            if ctx.evidence.get(cls) is None:
                code, message = MISSING_DOCUMENTS[cls]
                return RuleResult.unknown(code, ctx.missing_documents.get(cls.member_path, message))
        return self.func(ctx)


def rule(
    layer: Layer,
    *,
    products: Iterable[str] | None = None,
    needs: Iterable[type[EvidenceDoc]] = (),
    host: bool = False,
) -> Callable[[RuleFunc], Rule]:
    """Declare a rule for ``layer``. Modules list their rules in a ``RULES`` tuple.

    ``needs`` lists the documents the rule cannot judge without; the rule then
    never checks for them itself (the unknown it would write is the engine's).
    Only documents with a declared "missing" answer may be needed (fail closed).
    ``host`` marks a rule that judges a worker from its host's evidence alone
    (:attr:`Rule.host`): it must answer for ``Target(worker=name, job=None)`` cheaply
    (looking records up by name, never scanning a fleet-sized list), since it is asked
    of every worker of the fleet.
    """
    needed = tuple(needs)
    unknown = [cls.__name__ for cls in needed if cls not in MISSING_DOCUMENTS]
    if unknown:
        raise ValueError(f"no missing-document answer for {', '.join(unknown)}")

    def decorate(func: RuleFunc) -> Rule:
        return Rule(
            layer=layer,
            func=func,
            name=f"{func.__module__}.{func.__name__}",
            products=frozenset(products) if products is not None else None,
            needs=needed,
            host=host,
        )

    return decorate
