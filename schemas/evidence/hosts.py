"""Per-host facts gathered over SSH or locally: sysinfo, clock, time sync, services."""

from __future__ import annotations

from typing import ClassVar, Literal

from pydantic import Field

from .._base import ManyRecord, UTCDateTime
from ._common import EvidenceDoc


class ClockReading(ManyRecord):
    """The host's clock against the collector's, read around one round trip."""

    host_time: UTCDateTime
    collector_before: UTCDateTime
    collector_after: UTCDateTime
    skew_s: float = Field(description="host_time minus the round trip's midpoint.")
    uncertainty_s: float = Field(ge=0, description="Half the round trip.")


class TimeSync(ManyRecord):
    synchronized: bool | None = None
    service: str | None = Field(default=None, description="chrony, ntpd, systemd-timesyncd ...")
    detail: str | None = None


class ServiceStatus(ManyRecord):
    name: str
    active: bool | None = None
    state: str | None = None
    version: str | None = None
    since: UTCDateTime | None = None


class DiskUsage(ManyRecord):
    mount: str
    total_bytes: int | None = None
    free_bytes: int | None = None


class HostSysinfo(ManyRecord):
    alias: str
    role: Literal["server", "worker", "other"] = "other"
    worker: str | None = None
    transport: Literal["ssh", "local"] = "ssh"
    hostname: str | None = None
    os_name: str | None = None
    os_version: str | None = None
    kernel: str | None = None
    arch: str | None = None
    cpu_count: int | None = None
    memory_total_bytes: int | None = None
    memory_available_bytes: int | None = None
    disks: list[DiskUsage] = Field(default_factory=list)
    uptime_s: float | None = None
    load_avg: list[float] | None = None
    clock: ClockReading | None = None
    utc_offset: str | None = Field(
        default=None,
        description=(
            "The host's UTC offset as printed by `date +%z` (e.g. '+0100'); log timestamps "
            "without an offset were written in this local time."
        ),
    )
    time_sync: TimeSync | None = None
    services: list[ServiceStatus] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list, description="What could not be read, and why.")


class HostsEvidence(EvidenceDoc):
    schema_name: ClassVar[str] = "evidence.hosts"
    member_path: ClassVar[str] = "evidence/hosts.json"

    hosts: list[HostSysinfo] = Field(default_factory=list)
    collector_time: UTCDateTime | None = None
