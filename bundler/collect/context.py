"""What every task of one run shares: settings, transports, the recorder, per-host state.

Kept apart from the engine so the HTTP and host task modules can depend on
it without depending on each other.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, timezone
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from schemas import CollectorKind, HostSummary
from schemas.evidence import HostSysinfo, LogSource

from .defaults import (
    DEFAULT_CONCURRENCY,
    DEFAULT_DEADLINE_S,
    DEFAULT_LOG_BYTES,
    DEFAULT_LOG_LINES,
    DEFAULT_TIMEOUT_S,
    HOST_LANE_LIMIT,
    HTTP_LANE_LIMIT,
)
from .plan import ForEach
from .readonly import ProgramRule
from .recorder import Recorder
from .scheduler import Scheduler
from .targets import HostTarget
from .tasks.clock import ClockResult
from .tasks.logs import LogOptions
from .transports.runner import HostRunner
from .validate import candidates

if TYPE_CHECKING:  # transports load only when a run needs them
    from .transports.http import HttpCollector
    from .transports.ssh import SshConnector


FanoutProjection = list[tuple[str, list[dict[str, str]]]]
"""Per child step of a fanned step, the bindings one parent document offers it."""


@dataclass(frozen=True)
class EngineSettings:
    concurrency: int = DEFAULT_CONCURRENCY
    timeout_s: float = DEFAULT_TIMEOUT_S
    deadline_s: float | None = DEFAULT_DEADLINE_S
    log_bytes: int = DEFAULT_LOG_BYTES
    log_lines: int | None = DEFAULT_LOG_LINES
    since: datetime | None = None
    http_lane_limit: int = HTTP_LANE_LIMIT
    host_lane_limit: int = HOST_LANE_LIMIT

    def log_options(self, step_max_bytes: int) -> LogOptions:
        return LogOptions(min(self.log_bytes, step_max_bytes), self.log_lines, self.since)


@dataclass
class HostState:
    """One host during the run; mutated only by its own tasks, under ``lock``."""

    target: HostTarget
    runner: HostRunner | None = None
    unavailable: str | None = None
    """Why the host cannot be used (its connect outcome), once known."""
    fingerprint: str | None = None
    trusted_on_first_use: bool = False
    clock: ClockResult | None = None
    tz: timezone = UTC
    sysinfo: HostSysinfo | None = None
    logs: list[LogSource] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def kind(self) -> CollectorKind:
        return CollectorKind.LOCAL if self.target.is_local else CollectorKind.SSH

    def collector_id(self, *parts: str) -> str:
        return ".".join((self.kind.value, self.target.alias, *parts))

    def summary(self) -> HostSummary:
        return self.target.summary(self.fingerprint, self.trusted_on_first_use)


@dataclass
class RunContext:
    recorder: Recorder
    scheduler: Scheduler
    settings: EngineSettings
    http: HttpCollector | None
    connector: SshConnector | None
    mutating_routes: tuple[str, ...] = ()
    program_rules: Mapping[str, ProgramRule] = field(default_factory=dict)
    raw_models: Mapping[str, type[BaseModel]] = field(default_factory=dict)
    fanouts: Mapping[str, tuple[tuple[str, ForEach], ...]] = field(default_factory=dict)
    """Parent step -> the fan-outs over it (child step id, its ``for_each``)."""
    now: Callable[[], datetime] = field(default=lambda: datetime.now(UTC))
    hosts: dict[str, HostState] = field(default_factory=dict)
    fanout_sources: dict[str, list[tuple[int, list[dict[str, str]]]]] = field(default_factory=dict)
    """Child step -> (parent expansion index, the bindings that document offers)."""
    lock: threading.Lock = field(default_factory=threading.Lock)

    notes: list[str] = field(default_factory=list)
    """Lines for the person running doctor (stderr), never written to the bundle."""

    def note(self, line: str) -> None:
        with self.lock:
            self.notes.append(line)

    @property
    def fanned_steps(self) -> frozenset[str]:
        return frozenset(self.fanouts)

    def fanout_projection(self, step: str, document: Any) -> FanoutProjection:
        """What each fan-out over ``step`` will bind from ``document`` (never the document).

        Taken before the parent's member is stored, so the parsed document can go first:
        storing redacts the member, which parses it once more (at 1,000 workers,
        ``GET /workers`` is 1.2 MB of JSON and each parse about 5 MB of objects).
        """
        children = self.fanouts.get(step, ())
        return [(child, candidates(for_each, document)) for child, for_each in children]

    def keep_fanout(self, index: int, projected: FanoutProjection) -> None:
        """Keep a stored parent document's bindings (its index orders the expansions)."""
        with self.lock:
            for child, bindings in projected:
                self.fanout_sources.setdefault(child, []).append((index, bindings))

    def fanout_bindings(self, child: str) -> list[list[dict[str, str]]]:
        """Per parent document (in the parent's index order) the bindings for ``child``."""
        with self.lock:
            kept = sorted(self.fanout_sources.get(child, []), key=lambda x: x[0])
        return [bindings for _, bindings in kept]
