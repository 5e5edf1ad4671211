"""The collection engine: a plan and a set of hosts in, recorded evidence and outcomes out.

The engine knows no product. It runs a profile's :class:`~.plan.Plan` (or
none: then only the hosts' own facts and logs) against the control plane
and the hosts, through the :class:`~bundler.archive.contracts.BundleSink`,
and writes the generic evidence every bundle has: ``evidence/hosts.json``
and ``evidence/logs.json``. Normalizing product evidence and analyzing it
are the doctor's next steps (:mod:`bundler.doctor.run`).

Usage::

    engine = Engine(sink, targets, plan=profile.plan(), profile=profile,
                    http=HttpCollector(options), connector=connector)
    result = engine.run()
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from functools import partial
from typing import TYPE_CHECKING

from schemas import CollectorKind, CollectorStatus, HostSummary, utc_now
from schemas.evidence import HostsEvidence, HostSysinfo, LogIndex, LogSource
from schemas.manifest import FAILED_STATUSES

from ..archive.contracts import BundleSink
from ..archive.room import BundleRoom, NoRoom
from .context import EngineSettings, HostState, RunContext
from .memory import limit_malloc_arenas, release_free_memory
from .outcomes import SettledOutcome
from .plan import ForEach, HttpStep, LogStep, Plan
from .profile import EngineProfile
from .readonly import plan_violations, profile_rules
from .recorder import ProgressListener, Recorder
from .results import StepResult
from .scheduler import RunEnd, Scheduler
from .targets import HostTarget
from .tasks.host_tasks import schedule_host
from .tasks.http_tasks import schedule_http_steps
from .transports.local import LocalHost

if TYPE_CHECKING:
    from .transports.http import HttpCollector
    from .transports.ssh import SshConnector
    from .transports.sshconfig import SshEndpoint

DEFAULT_LOG_STEP = LogStep(id="logs")
"""Logs named by the inventory are collected even when no profile asks for them."""


HOST_KINDS = frozenset({CollectorKind.SSH, CollectorKind.LOCAL})


class PlanNotReadOnly(Exception):
    """A profile's plan breaks the read-only guard: a bug in the profile, never run."""


@dataclass
class CollectionResult:
    outcomes: list[SettledOutcome]
    results: list[StepResult]
    """The normalizer's input (one per plan step expansion); doctor empties it once normalized."""
    hosts: list[HostSummary]
    end: RunEnd
    started_at: datetime
    finished_at: datetime
    notes: list[str] = field(default_factory=list)

    @property
    def interrupted(self) -> bool:
        return self.end is RunEnd.INTERRUPTED

    @property
    def collected(self) -> int:
        """Collectors that produced evidence."""
        return sum(1 for o in self.outcomes if o.status is CollectorStatus.OK)

    @property
    def kept(self) -> int:
        """Collectors that left a member, succeeding or not.

        A failed collector may still keep what it was told (a 5xx error page, a command's
        output up to its timeout): that is evidence, so a run whose every collector failed
        but one of them kept something still writes its bundle.
        """
        return sum(1 for o in self.outcomes if o.status is CollectorStatus.OK or o.members)

    @property
    def failed(self) -> list[SettledOutcome]:
        return [o for o in self.outcomes if o.status in FAILED_STATUSES]


class Engine:
    def __init__(
        self,
        sink: BundleSink,
        targets: Sequence[HostTarget],
        *,
        plan: Plan | None = None,
        profile: EngineProfile | None = None,
        settings: EngineSettings | None = None,
        http: HttpCollector | None = None,
        connector: SshConnector | None = None,
        endpoints: dict[str, SshEndpoint] | None = None,
        progress: ProgressListener | None = None,
        now: Callable[[], datetime] = utc_now,
        secrets: Sequence[str] = (),
        room: BundleRoom | None = None,
    ) -> None:
        self.sink = sink
        self.targets = list(targets)
        self.plan = plan or Plan(profile=getattr(profile, "name", "none"))
        self.profile = profile
        self.settings = settings or EngineSettings()
        self.now = now
        problems = plan_violations(self.plan, profile)
        if problems:
            raise PlanNotReadOnly("; ".join(problems))
        self.recorder = Recorder(sink, progress, now=now, secrets=secrets, room=room)
        self.scheduler = Scheduler(
            concurrency=self.settings.concurrency,
            lane_limit=partial(_lane_limit, self.settings),  # no cycle back to the engine
            deadline_s=self.settings.deadline_s,
        )
        fanouts: dict[str, tuple[tuple[str, ForEach], ...]] = {}
        for step in self.plan.http_steps():
            if step.for_each is not None:
                parent = step.for_each.step
                fanouts[parent] = (*fanouts.get(parent, ()), (step.id, step.for_each))
        self.ctx = RunContext(
            recorder=self.recorder,
            scheduler=self.scheduler,
            settings=self.settings,
            http=http,
            connector=connector,
            mutating_routes=tuple(getattr(profile, "mutating_routes", ()) or ()),
            program_rules=profile_rules(profile),
            raw_models=getattr(profile, "raw_models", None) or {},
            fanouts=fanouts,
            now=now,
        )
        self.endpoints = endpoints or {}
        missing = [
            t.alias for t in self.targets if not t.is_local and t.alias not in self.endpoints
        ]
        if missing and connector is None:
            raise ValueError(f"SSH hosts {missing} need a connector and resolved endpoints")

    def run(self) -> CollectionResult:
        limit_malloc_arenas()  # before the first collector thread starts
        started = self.now()
        schedule_http_steps(self.ctx, [s for s in self.plan.steps if isinstance(s, HttpStep)])
        for target in self.targets:
            self._schedule_host(target)
        end = self.scheduler.run()
        self.recorder.skip_unsettled("not run: the run ended before it was queued")
        for state in self.ctx.hosts.values():
            if end is RunEnd.COMPLETED:
                continue
            runner, state.runner = state.runner, None
            if runner is not None:
                runner.close()
        self._write_generic_evidence(started)
        release_free_memory()  # the collector threads are done: their freed memory goes back
        notes = list(self.ctx.connector.bastion_notes) if self.ctx.connector else []
        notes += self.ctx.notes
        return CollectionResult(
            outcomes=self.recorder.outcomes(),
            results=self.recorder.step_results(),
            hosts=[state.summary() for state in self.ctx.hosts.values()],
            end=end,
            started_at=started,
            finished_at=self.now(),
            notes=notes,
        )

    def _schedule_host(self, target: HostTarget) -> None:
        state = HostState(target)
        self.ctx.hosts[target.alias] = state
        if target.is_local:
            state.runner = LocalHost()
        role_steps = [
            s
            for s in self.plan.host_steps()
            if target.role in s.roles and not isinstance(s, LogStep)
        ]
        log_steps = [
            s for s in self.plan.host_steps() if isinstance(s, LogStep) and target.role in s.roles
        ]
        schedule_host(
            self.ctx,
            state,
            None if target.is_local else self.endpoints[target.alias],
            role_steps,  # type: ignore[arg-type]
            log_steps or [DEFAULT_LOG_STEP],
        )

    # -- generic evidence ---------------------------------------------------------------------
    def _write_generic_evidence(self, started: datetime) -> None:
        if not self.targets:
            return
        facts: list[HostSysinfo] = []
        logs: list[LogSource] = []
        host_gaps: list[str] = []
        log_gaps: list[str] = []
        log_step_ids = {s.id for s in self._log_steps()} | {DEFAULT_LOG_STEP.id}
        failed = _failed_by_host(self.recorder.outcomes())
        for state in self.ctx.hosts.values():
            facts.append(state.sysinfo or self._missing_facts(state))
            logs.extend(sorted(state.logs, key=lambda s: s.member))
            prefix = state.collector_id("")
            for collector_id in failed.get(prefix, ()):
                what = collector_id.removeprefix(prefix)
                if what.split(".")[0] in log_step_ids:
                    log_gaps.append(collector_id)
                elif what in ("connect", "sysinfo"):
                    host_gaps.append(collector_id)
        product = getattr(self.profile, "name", None)
        hosts_doc = HostsEvidence(
            observed_at=started,
            product=product,
            complete=not host_gaps,
            gaps=host_gaps,
            hosts=facts,
            collector_time=self.now().astimezone(UTC),
        )
        self._store_evidence(
            HostsEvidence.member_path,
            hosts_doc.model_dump_json(indent=2, exclude_none=True).encode(),
            HostsEvidence.schema_name,
        )
        if logs or log_gaps:
            index = LogIndex(
                observed_at=started,
                product=product,
                complete=not log_gaps,
                gaps=log_gaps,
                logs=logs,
            )
            self._store_evidence(
                LogIndex.member_path,
                index.model_dump_json(indent=2, exclude_none=True).encode(),
                LogIndex.schema_name,
            )

    def _store_evidence(self, member: str, data: bytes, schema_name: str) -> None:
        """Store a document made after collection; one the bundle has no room for is left
        out and said (``bundler analyze`` derives it again from the raw members)."""
        try:
            self.sink.add(member, data, media_type="application/json", schema_name=schema_name)
        except NoRoom as full:
            self.ctx.notes.append(f"warning: {member} left out of the bundle: {full}")

    def _log_steps(self) -> list[LogStep]:
        return [s for s in self.plan.host_steps() if isinstance(s, LogStep)] or [DEFAULT_LOG_STEP]

    @staticmethod
    def _missing_facts(state: HostState) -> HostSysinfo:
        target = state.target
        return HostSysinfo(
            alias=target.alias,
            role=target.role.value,
            worker=target.worker,
            transport=target.transport,
            clock=state.clock.reading if state.clock else None,
            utc_offset=state.clock.utc_offset if state.clock else None,
            errors=[f"no facts collected: {state.unavailable or 'sysinfo did not complete'}"],
        )


def _failed_by_host(outcomes: list[SettledOutcome]) -> dict[str, list[str]]:
    """Ids of the host collectors that did not succeed, by their ``<kind>.<alias>.`` prefix.

    Grouped once, so writing the host evidence stays linear when a whole fleet fails.
    """
    grouped: dict[str, list[str]] = {}
    for outcome in outcomes:
        if outcome.status is CollectorStatus.OK or outcome.kind not in HOST_KINDS:
            continue
        kind, _, rest = outcome.id.partition(".")
        alias, _, _ = rest.partition(".")
        grouped.setdefault(f"{kind}.{alias}.", []).append(outcome.id)
    return grouped


def _lane_limit(settings: EngineSettings, lane: str) -> int:
    if lane == "http":
        return settings.http_lane_limit
    if lane.startswith("host:"):
        return settings.host_lane_limit
    return 1 << 30
