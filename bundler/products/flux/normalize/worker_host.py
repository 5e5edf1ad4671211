"""What a Flux host says about itself: control-socket status, ``.flux/`` listing, process.

``flux worker status NAME`` answers from the worker's own event loop, so it
knows the worker is starved before the server does; a refused connection on
a socket file that still exists means the worker died without cleaning up
(SIGKILL, OOM): a stale socket.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime

from schemas.evidence import ControlSocket, LocalStateEvidence, Source, StateFileCheck
from schemas.manifest import CollectorStatus, HostRole

from ..models import ControlStatus
from ..settings import parse_env_listing
from .raw import FluxRaw

REFUSED = "Connection refused"
NOT_FOUND = "not found"


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


def control_output(raw: FluxRaw, worker: str) -> tuple[str, Source] | None:
    """Raw output of ``flux worker status`` on ``worker``'s host, and where it is."""
    alias = raw.alias_of(worker)
    for result in raw.ctx.results_for("worker-status"):
        if result.host == alias:
            text = raw.text(result)
            if text is not None:
                source = Source(
                    method="cli",
                    collector=result.collector,
                    member=result.member,
                    ref=f"flux worker status {worker}",
                )
                return text, source
    return None


def control_timed_out(raw: FluxRaw, worker: str) -> bool:
    """True when ``flux worker status`` got no answer in time (a hung or stopped process)."""
    alias = raw.alias_of(worker)
    return any(
        r.host == alias and r.status is CollectorStatus.TIMEOUT
        for r in raw.ctx.results_for("worker-status")
    )


def control_status(raw: FluxRaw, worker: str) -> ControlStatus | None:
    found = control_output(raw, worker)
    if found is None:
        return None
    text = found[0].strip()
    try:
        return ControlStatus.model_validate(json.loads(text))
    except ValueError:
        return ControlStatus(error=text.splitlines()[-1] if text else "no output")


def process_running(raw: FluxRaw, alias: str) -> bool | None:
    """Whether the host's Flux process was running (from the environment reader)."""
    for result in raw.ctx.results_for("flux-env"):
        if result.host == alias:
            text = raw.text(result)
            if text is not None:
                return parse_env_listing(text)[1]
    return None


def state_entries(raw: FluxRaw, alias: str) -> tuple[list[StateEntry], Source | None]:
    for result in raw.ctx.results_for("state-dir"):
        if result.host == alias:
            text = raw.text(result)
            if text is None:
                continue
            entries = [e for e in map(StateEntry.parse, text.splitlines()) if e and e.name]
            source = Source(method="local", collector=result.collector, member=result.member)
            return entries, source
    return [], None


def _kind(entry: StateEntry) -> str:
    if entry.name.startswith("flux.db"):
        return "sqlite"
    if "token" in entry.name or "key" in entry.name:
        return "key"
    return "other"


def local_state_evidence(raw: FluxRaw) -> LocalStateEvidence:
    evidence = LocalStateEvidence()
    for alias, host in raw.hosts.items():
        entries, source = state_entries(raw, alias)
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
            evidence.sockets.append(_socket(raw, alias, host.role, worker, entry, source))
    gaps = raw.failed("state-dir", "worker-status")
    evidence.complete, evidence.gaps = not gaps, gaps
    return evidence


def _socket(
    raw: FluxRaw, alias: str, role: HostRole, worker: str, entry: StateEntry, src: Source | None
) -> ControlSocket:
    socket = ControlSocket(host_alias=alias, worker=worker, path=entry.name, source=src)
    control = control_status(raw, worker) if raw.alias_of(worker) == alias else None
    running = process_running(raw, alias)
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
    elif raw.alias_of(worker) == alias and control_timed_out(raw, worker):
        socket.responsive = False
        socket.detail = "no answer before the timeout: the worker process is hung or stopped"
    elif control is not None and control.error:
        socket.detail = control.error
    return socket
