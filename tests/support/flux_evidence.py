"""Hand-made Flux evidence for rule tests: a few fields, written inline, nothing more.

``FluxCase`` builds the canonical documents a test names, writes them into a
MemorySource like a bundle, and runs one rule for a target, with a timeline
built from log lines in Flux's exact format.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from bundler.analyze.api import EvidenceSet, Rule, RuleContext, RuleResult, Target, Timeline
from bundler.analyze.worker_clock import log_clocks
from bundler.products.flux.logs.parser import LogParser
from bundler.source import MemorySource
from schemas.evidence import (
    AuthorizationEvidence,
    CapacityEvidence,
    ConnectionState,
    EvidenceDoc,
    HealthState,
    HeartbeatPolicy,
    Job,
    JobPhase,
    JobRequirements,
    JobsEvidence,
    LocalStateEvidence,
    LogIndex,
    LogSource,
    OutcomeEvidence,
    ProductInfo,
    ServerEvidence,
    Source,
    StateVolume,
    WorkersEvidence,
    WorkerStatus,
)

OBSERVED = datetime(2026, 11, 29, 17, 10, tzinfo=UTC)
POLICY = HeartbeatPolicy(interval_s=2, timeout_s=6, grace_s=6, source="settings")


def online(name: str, **overrides: object) -> WorkerStatus:
    fields: dict[str, object] = {
        "name": name,
        "native_status": "online",
        "connection": ConnectionState.ONLINE,
        "health": HealthState.HEALTHY,
        "host_alias": f"h-{name}",
        "heartbeat_age_s": 1.0,
        "slots_max": 16,
        "in_flight": 0,
    }
    return WorkerStatus(**(fields | overrides))


def waiting(name: str = "default/job", **requirements: object) -> Job:
    return Job(
        name=name,
        id="e1",
        kind="execution",
        native_state="CREATED",
        phase=JobPhase.UNASSIGNED,
        requirements=JobRequirements(**requirements),
    )


MIB = 1024**2


def state_volume(worker: str, free: int, total: int = 4 * MIB) -> StateVolume:
    """``df -P -k`` of ``worker``'s state directory: a volume of ``total`` bytes with ``free``
    left, read on its host (the data line is line 2 of the member, under df's header)."""
    return StateVolume(
        worker=worker,
        host_alias=f"h-{worker}",
        mount=f"/srv/flux/{worker}",
        total_bytes=total,
        used_bytes=total - free,
        free_bytes=free,
        source=Source(method="ssh", member=f"hosts/h-{worker}/state-volume.txt", line_start=2),
    )


def line(stamp: str, logger: str, message: str) -> str:
    level = "WARNING" if "STALE" in message or "evicted (" in message else "INFO"
    return f"2026-11-29 {stamp} - {logger} - {level} - {message}"


@dataclass
class FluxCase:
    workers: list[WorkerStatus] = field(default_factory=list)
    jobs: list[Job] = field(default_factory=list)
    documents: list[EvidenceDoc] = field(default_factory=list)
    server_log: list[str] = field(default_factory=list)
    worker_logs: dict[str, list[str]] = field(default_factory=dict)

    def source(self) -> MemorySource:
        source = MemorySource()
        docs: dict[type[EvidenceDoc], EvidenceDoc] = {
            WorkersEvidence: WorkersEvidence(workers=self.workers, heartbeat=POLICY),
            JobsEvidence: JobsEvidence(jobs=self.jobs),
            ServerEvidence: ServerEvidence(reachable=True, healthy=True, ready=True),
        }
        for doc in self.documents:
            docs[type(doc)] = doc
        for doc in docs.values():
            doc.observed_at = doc.observed_at or OBSERVED
            source.add(doc.member_path, doc.model_dump(mode="json"))
        return source

    def timeline(self) -> Timeline:
        """The logs' events; a worker log on a clock its record proves off is read with that
        offset, as the engine reads it (the log index names whose log is whose)."""
        events = list(LogParser("hosts/h01/logs/0.log").parse(enumerate(self.server_log, 1)))
        logs = []
        for number, (worker, lines) in enumerate(sorted(self.worker_logs.items()), 2):
            member = f"hosts/h{number:02d}/logs/0.log"
            events += LogParser(member, worker=worker).parse(enumerate(lines, 1))
            logs.append(LogSource(member=member, role="worker", worker=worker))
        clocks = log_clocks(WorkersEvidence(workers=self.workers), LogIndex(logs=logs))
        return Timeline(events, clocks=clocks)

    def run(
        self, rule: Rule, worker: str | None = None, job: Job | None = None
    ) -> RuleResult | None:
        ctx = RuleContext(
            evidence=EvidenceSet(self.source()),
            target=Target(worker=worker, job=job),
            timeline=self.timeline(),
            profile="flux",
        )
        return rule(ctx)


__all__ = [
    "OBSERVED",
    "AuthorizationEvidence",
    "CapacityEvidence",
    "FluxCase",
    "LocalStateEvidence",
    "OutcomeEvidence",
    "ProductInfo",
    "line",
    "online",
    "state_volume",
    "waiting",
]
