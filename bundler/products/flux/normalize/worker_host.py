"""What a Flux host says about itself: control-socket status, ``.flux/`` listing, process, volume.

``flux worker status NAME`` answers from the worker's own event loop, so it
knows the worker is starved before the server does; a refused connection on
a socket file that still exists means the worker died without cleaning up
(SIGKILL, OOM): a stale socket.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Literal

from bundler.products.base import StepResult
from schemas.evidence import ControlSocket, LocalStateEvidence, Source, StateFileCheck
from schemas.manifest import CollectorStatus, HostRole

from ..models import ControlStatus
from .capacity import Count
from .records import FluxRecords
from .volumes import state_volumes

REFUSED = "Connection refused"


@dataclass(frozen=True)
class StateEntry:
    """One line of the ``find -printf '%y %m %s %T@ %f'`` listing of ``.flux/``."""

    kind: str
    mode: str
    size: int
    modified_at: datetime
    name: str

    @classmethod
    def parse(cls, line: str) -> StateEntry | None:
        parts = line.split(" ", 4)
        if len(parts) != 5:
            return None
        try:
            stamp = datetime.fromtimestamp(float(parts[3]), UTC)
            return cls(parts[0], parts[1], int(parts[2]), stamp, parts[4])
        except ValueError:
            return None


def control_result(flux: FluxRecords, worker: str, alias: str | None = None) -> StepResult | None:
    """The ``flux worker status`` run on ``worker``'s host (the one the inventory names first,
    unless ``alias`` says which), if any."""
    alias = alias or flux.raw.alias_of(worker)
    return next((r for r in flux.raw.results("worker-status") if r.host == alias), None)


def control_timed_out(flux: FluxRecords, worker: str, alias: str | None = None) -> bool:
    """True when ``flux worker status`` got no answer in time (a hung or stopped process)."""
    result = control_result(flux, worker, alias)
    return result is not None and result.status is CollectorStatus.TIMEOUT


def control_status(
    flux: FluxRecords, worker: str, alias: str | None = None
) -> ControlStatus | None:
    """The worker's own answer, or its CLI's error (``Connection refused``, ``not found``)."""
    result = control_result(flux, worker, alias)
    if result is None:
        return None
    if flux.raw.ok(result):
        return flux.raw.model(result, ControlStatus)
    if result.error_message and result.status is CollectorStatus.FAILED:
        return ControlStatus(error=result.error_message)
    return None


def control_counts(flux: FluxRecords) -> dict[tuple[str, str | None], Count]:
    """What each worker's control socket said it runs (``in_flight``), by (worker, the host
    alias it was asked under): the capacity normalizer's third count, read live on the host."""
    counts: dict[tuple[str, str | None], Count] = {}
    for alias, host in flux.hosts.items():
        if host.worker is None:
            continue
        result = control_result(flux, host.worker, alias)
        control = control_status(flux, host.worker, alias)
        if result is None or control is None or control.in_flight is None:
            continue
        counts[(host.worker, alias)] = Count(
            control.in_flight,
            Source(
                method="ssh" if host.transport == "ssh" else "local",
                collector=result.collector,
                ref="flux worker status in_flight (its control socket)",
                member=result.member,
                pointer="/in_flight",
            ),
        )
    return counts


@dataclass(frozen=True)
class FluxProcess:
    """One line of ``ps -C flux -o pid=,etimes=,args=``."""

    pid: int
    elapsed_s: int
    args: str

    @classmethod
    def parse(cls, line: str) -> FluxProcess | None:
        parts = line.split(None, 2)
        if len(parts) != 3 or not parts[0].isdigit() or not parts[1].isdigit():
            return None
        return cls(int(parts[0]), int(parts[1]), parts[2])

    def runs(self, role: HostRole, worker: str | None) -> bool:
        command = f"{self.args} "
        if role is HostRole.SERVER:
            return " start server " in command
        return worker is not None and f" start worker {worker} " in command


def process_running(flux: FluxRecords, alias: str) -> bool | None:
    """Whether the host's own Flux process (server, or its worker) was running."""
    host = flux.hosts.get(alias)
    for result in flux.raw.results("processes"):
        if result.host == alias and host is not None:
            text = flux.raw.text(result)
            if text is None:
                return None
            found = [p for p in map(FluxProcess.parse, text.splitlines()) if p]
            return any(p.runs(host.role, host.worker) for p in found)
    return None


def state_entries(flux: FluxRecords, alias: str) -> tuple[list[StateEntry], Source | None]:
    for result in flux.raw.results("state-dir"):
        if result.host == alias:
            text = flux.raw.text(result)
            if text is None:
                continue
            entries = [e for e in map(StateEntry.parse, text.splitlines()) if e and e.name]
            source = Source(method="local", collector=result.collector, member=result.member)
            return entries, source
    return [], None


def _kind(entry: StateEntry) -> Literal["sqlite", "key", "other"]:
    if entry.name.startswith("flux.db"):
        return "sqlite"
    if "token" in entry.name or "key" in entry.name:
        return "key"
    return "other"


def local_state_evidence(flux: FluxRecords) -> LocalStateEvidence:
    evidence = LocalStateEvidence()
    for alias, host in flux.hosts.items():
        entries, source = state_entries(flux, alias)
        for entry in entries:
            if entry.kind == "d" or entry.name.endswith(".sock"):
                continue
            evidence.files.append(
                StateFileCheck(
                    host_alias=alias,
                    worker=host.worker,
                    path=entry.name,
                    kind=_kind(entry),
                    size=entry.size,
                    modified_at=entry.modified_at,
                    source=source,
                )
            )
        sockets = [e for e in entries if e.kind == "s" and e.name.startswith("worker-")]
        for entry in sockets:
            worker = entry.name.removeprefix("worker-").removesuffix(".sock")
            evidence.sockets.append(_socket(flux, alias, host.role, worker, entry, source))
    evidence.volumes = state_volumes(flux) or None  # none read: absent, as in older bundles
    gaps = flux.failed("state-dir")
    evidence.complete, evidence.gaps = not gaps, gaps
    return evidence


def _socket(
    flux: FluxRecords,
    alias: str,
    role: HostRole,
    worker: str,
    entry: StateEntry,
    src: Source | None,
) -> ControlSocket:
    socket = ControlSocket(host_alias=alias, worker=worker, path=entry.name, source=src)
    # This host's own answer: a host the inventory lists twice is asked under each alias,
    # and the socket each listing shows is judged by what was asked with it.
    host = flux.hosts.get(alias)
    runs_it = host is not None and host.worker == worker
    control = control_status(flux, worker, alias) if runs_it else None
    running = process_running(flux, alias)
    if control is not None and control.status is not None:
        socket.responsive = True
        socket.detail = f"status {control.status}, in_flight {control.in_flight}"
    elif control is not None and control.error and REFUSED in control.error:
        socket.responsive = False
        socket.detail = "stale: the socket file exists but nothing accepts on it (" + (
            "worker process not running)" if running is False else "connection refused)"
        )
    elif running is False:
        socket.responsive = False
        socket.detail = "stale: no worker process is running on this host"
    elif runs_it and control_timed_out(flux, worker, alias):
        # The kernel still accepts on the socket of a stopped process: not stale, hung.
        socket.detail = "no answer before the timeout: the worker process is hung or stopped"
    elif control is not None and control.error:
        socket.detail = control.error
    return socket
