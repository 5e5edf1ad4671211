"""Small hand-made canonical evidence: a healthy two-worker fleet to break one fact at a time.

Tests take :func:`healthy_fleet`, change the one fact under test (a worker's
connection, a lease's expiry, a blocker), and call :meth:`Fleet.evidence` to
get an :class:`EvidenceSet` over a :class:`MemorySource` laid out exactly like
a bundle (``evidence/<kind>.json``). Generic on purpose: no product's raw
shapes, only ``schemas.evidence``.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, fields
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bundler.analyze.api import EvidenceSet, Rule, Target, TimelineEvent
from bundler.source import MemorySource
from schemas import MANIFEST_MEMBER, EncryptionInfo, Manifest, MemberEntry, ToolInfo
from schemas.evidence import (
    APIAuth,
    AuthorizationEvidence,
    CanaryRun,
    CapacityEvidence,
    ClockReading,
    ConnectionState,
    DeploymentEvidence,
    DeploymentRecord,
    EvidenceDoc,
    HeartbeatPolicy,
    HostsEvidence,
    HostSysinfo,
    Job,
    JobDeployment,
    JobPhase,
    JobRequirements,
    JobsEvidence,
    Lease,
    LeaseSignature,
    OutcomeEvidence,
    Receipt,
    Requirement,
    RequirementsEvidence,
    RequirementsReport,
    ServerEvidence,
    TimeSync,
    TLSInfo,
    WorkerAuthorization,
    WorkerCapacity,
    WorkerResources,
    WorkerRuntime,
    WorkersEvidence,
    WorkerStatus,
)

T0 = datetime(2026, 11, 29, 17, 0, 0, tzinfo=UTC)
"""Collection time of every fixture document."""


def worker(name: str, **overrides: Any) -> WorkerStatus:
    base: dict[str, Any] = {
        "name": name,
        "native_status": "online",
        "connection": ConnectionState.ONLINE,
        "health": "healthy",
        "admin": "active",
        "kind": "external",
        "labels": {"zone": "a"},
        "runtime": WorkerRuntime(os_name="Linux", runtime_name="python", runtime_version="3.12"),
        "resources": WorkerResources(
            cpu_total=4,
            cpu_available=3,
            memory_total_bytes=8e9,
            memory_available_bytes=6e9,
            disk_free_bytes=5e10,
            gpus=[],
        ),
        "in_flight": 0,
        "slots_max": 16,
        "last_heartbeat_at": T0 - timedelta(seconds=4),
        "heartbeat_age_s": 4.0,
    }
    base.update(overrides)
    return WorkerStatus(**base)


def job(name: str, **overrides: Any) -> Job:
    base: dict[str, Any] = {
        "name": name,
        "id": f"{name}-1",
        "kind": "execution",
        "native_state": "RUNNING",
        "phase": JobPhase.RUNNING,
        "assigned_worker": "w1",
        "requirements": JobRequirements(labels={"zone": "a"}),
        "created_at": T0 - timedelta(minutes=5),
        "updated_at": T0 - timedelta(minutes=1),
    }
    base.update(overrides)
    return Job(**base)


def lease(**overrides: Any) -> Lease:
    base: dict[str, Any] = {
        "lease_id": "wl-1",
        "issued_at": T0 - timedelta(minutes=10),
        "expires_at": T0 + timedelta(minutes=50),
        "renewable": True,
        "signature": LeaseSignature(alg="EdDSA", key_id="k1", verified=True),
    }
    base.update(overrides)
    return Lease(**base)


def clock(skew: float, uncertainty: float = 0.05) -> ClockReading:
    return ClockReading(
        host_time=T0 + timedelta(seconds=skew),
        collector_before=T0 - timedelta(seconds=uncertainty),
        collector_after=T0 + timedelta(seconds=uncertainty),
        skew_s=skew,
        uncertainty_s=uncertainty,
    )


@dataclass
class Fleet:
    """One canonical document per ladder concern; ``None`` leaves a document out."""

    server: ServerEvidence | None
    workers: WorkersEvidence | None
    authorization: AuthorizationEvidence | None
    jobs: JobsEvidence | None
    deployments: DeploymentEvidence | None
    requirements: RequirementsEvidence | None
    capacity: CapacityEvidence | None
    outcome: OutcomeEvidence | None
    hosts: HostsEvidence | None
    extra: list[EvidenceDoc] = field(default_factory=list)
    manifest: Manifest | None = None

    def documents(self) -> list[EvidenceDoc]:
        docs = [getattr(self, f.name) for f in fields(self) if f.name not in ("extra", "manifest")]
        return [d for d in docs if d is not None] + self.extra

    def source(self) -> MemorySource:
        source = MemorySource()
        for doc in self.documents():
            source.add(doc.member_path, doc.model_dump(mode="json", by_alias=True))
        return source

    def evidence(self) -> EvidenceSet:
        return EvidenceSet(self.source(), manifest=self.manifest)

    def worker(self, name: str) -> WorkerStatus:
        assert self.workers is not None
        return next(w for w in self.workers.workers if w.name == name)

    def job(self, name: str) -> Job:
        assert self.jobs is not None
        return next(j for j in self.jobs.jobs if j.name == name)


def healthy_fleet() -> Fleet:
    """w1 runs job 'ingest' (zone=a) with a canary and a durable receipt; w2 (zone=b) idles."""
    common: dict[str, Any] = {"observed_at": T0, "product": "test"}
    return Fleet(
        server=ServerEvidence(
            **common,
            url="https://cp.example:8443",
            reachable=True,
            tls=TLSInfo(enabled=True, verified=True),
            auth=APIAuth(status="ok", http_status=200),
            healthy=True,
            ready=True,
            database_ok=True,
            version="1.4.2",
        ),
        workers=WorkersEvidence(
            **common,
            heartbeat=HeartbeatPolicy(interval_s=10, timeout_s=30, grace_s=30, source="settings"),
            workers=[worker("w1", in_flight=1), worker("w2", labels={"zone": "b"})],
        ),
        authorization=AuthorizationEvidence(
            **common,
            lease_clock_tolerance_s=30,
            workers=[
                WorkerAuthorization(
                    worker=name, bootstrap_method="api_key", decision="allow", lease=lease()
                )
                for name in ("w1", "w2")
            ],
        ),
        jobs=JobsEvidence(**common, jobs=[job("ingest")]),
        deployments=DeploymentEvidence(
            **common,
            deployments=[
                DeploymentRecord(
                    deployment_id="dep-1",
                    workflow="telemetry",
                    version=7,
                    job_deployments=[JobDeployment(job="ingest", worker="w1", state="active")],
                )
            ],
        ),
        requirements=RequirementsEvidence(
            **common,
            reports=[
                RequirementsReport(
                    job="ingest",
                    worker="w1",
                    requirements=[
                        Requirement(id="cred:dsn", kind="credential", status="satisfied")
                    ],
                )
            ],
        ),
        capacity=CapacityEvidence(
            **common,
            workers=[
                WorkerCapacity(
                    worker="w1", slots_max=16, slots_in_use=1, slots_free=15, cpu_util_pct=30
                ),
                WorkerCapacity(
                    worker="w2", slots_max=16, slots_in_use=0, slots_free=16, cpu_util_pct=5
                ),
            ],
        ),
        outcome=OutcomeEvidence(
            **common,
            canaries=[
                CanaryRun(
                    canary_id="c1",
                    job="ingest",
                    worker="w1",
                    phase="successful",
                    started_at=T0 - timedelta(minutes=2),
                    finished_at=T0 - timedelta(minutes=1),
                    events_in=1,
                    events_out=1,
                    receipt_required=True,
                )
            ],
            receipts=[
                Receipt(
                    canary_id="c1",
                    job="ingest",
                    sink="s3",
                    strength="durable",
                    acked=True,
                    nonce_matched=True,
                )
            ],
        ),
        hosts=HostsEvidence(
            **common,
            collector_time=T0,
            hosts=[
                HostSysinfo(
                    alias="h01",
                    role="server",
                    clock=clock(0.1),
                    time_sync=TimeSync(synchronized=True, service="chrony"),
                ),
                HostSysinfo(
                    alias="h02",
                    role="worker",
                    worker="w1",
                    clock=clock(0.3),
                    time_sync=TimeSync(synchronized=True, service="chrony"),
                ),
                HostSysinfo(
                    alias="h03",
                    role="worker",
                    worker="w2",
                    clock=clock(-0.2),
                    time_sync=TimeSync(synchronized=True, service="chrony"),
                ),
            ],
        ),
    )


@dataclass
class StubProfile:
    """A product profile for engine tests: a name, a canned timeline, extra rules."""

    name: str = "test"
    events: list[TimelineEvent] = field(default_factory=list)
    extra_rules: list[Rule] = field(default_factory=list)
    title: str = "Test product"

    def parse_logs(self, evidence: EvidenceSet) -> list[TimelineEvent]:
        return list(self.events)

    def rules(self) -> list[Rule]:
        return list(self.extra_rules)


def target(worker_name: str | None = "w1", job_obj: Job | None = None) -> Target:
    return Target(worker=worker_name, job=job_obj, reason="test")


def _bundle_id_for(root: Path) -> str:
    return "b-test-" + hashlib.sha256(str(root.resolve()).encode()).hexdigest()[:8]


def write_bundle_dir(
    fleet: Fleet,
    root: Path,
    *,
    members: dict[str, bytes] | None = None,
    profile: str | None = None,
    **manifest_fields: Any,
) -> Path:
    """Lay ``fleet`` out as an extracted bundle under ``root``, with a matching manifest.

    ``members`` adds raw members (logs, raw API responses) beside the evidence.
    """
    source = fleet.source()
    contents = {name: source.read_bytes(name) for name in source.names()}
    contents.update(members or {})
    entries = []
    for name, data in sorted(contents.items()):
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        entries.append(
            MemberEntry(
                path=name,
                sha256=hashlib.sha256(data).hexdigest(),
                size=len(data),
                media_type="application/json",
            )
        )
    manifest = Manifest(
        tool=ToolInfo(version="0.1.0"),
        created_at=manifest_fields.pop("created_at", T0),
        # one id per folder, as every real collection has its own: diff refuses one id twice
        bundle_id=manifest_fields.pop("bundle_id", _bundle_id_for(root)),
        profile=profile,
        members=entries,
        encryption=EncryptionInfo(mode="password"),
        **manifest_fields,
    )
    (root / MANIFEST_MEMBER).write_text(manifest.model_dump_json(by_alias=True, indent=2))
    return root


def without_optional_rungs(fleet: Fleet) -> Fleet:
    """Make ``fleet`` look like a product with no leases, deployments or requirement reports.

    That is Flux's shape: those rungs read not_applicable, and the most recent
    finished run stands in for the canary.
    """
    common: dict[str, Any] = {"observed_at": T0, "product": "test"}
    fleet.authorization = AuthorizationEvidence(**common, applicable=False)
    fleet.deployments = DeploymentEvidence(**common, applicable=False)
    fleet.requirements = RequirementsEvidence(**common, applicable=False)
    fleet.outcome = OutcomeEvidence(**common)
    return fleet


def with_more_workers(fleet: Fleet, names: list[str]) -> Fleet:
    """``fleet`` with ``names`` more healthy workers (zone b): each with the last worker's
    capacity, an authorization with a lease, and a worker host (``h0010``, ``h0011``...)."""
    assert fleet.workers is not None
    assert fleet.capacity is not None
    assert fleet.authorization is not None
    assert fleet.hosts is not None
    fleet.workers.workers += [worker(name, labels={"zone": "b"}) for name in names]
    template = fleet.capacity.workers[-1]
    fleet.capacity.workers += [template.model_copy(update={"worker": name}) for name in names]
    fleet.authorization.workers += [
        WorkerAuthorization(worker=n, bootstrap_method="api_key", decision="allow", lease=lease())
        for n in names
    ]
    fleet.hosts.hosts += [
        HostSysinfo(alias=f"h{i + 10:04d}", role="worker", worker=n, clock=clock(0.1))
        for i, n in enumerate(names)
    ]
    return fleet


class Walked(list[Any]):
    """A list that counts how often it is walked from the start.

    Scale tests count scans of a fleet's lists instead of timing anything (timings
    belong in ``bench/``): a lookup that scans the list per worker shows up as walks
    that grow with the fleet.
    """

    walks = 0

    def __iter__(self) -> Any:
        self.walks += 1
        return super().__iter__()
