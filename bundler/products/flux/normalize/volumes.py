"""The volume under each Flux host's state directory, from ``df -P -k`` and ``df -P -i`` of it.

Flux writes under its home (``.flux/.cache`` for memoized tasks, ``.flux/.data`` for
local output storage) and a run fails with ``[Errno 28] No space left on device`` once
that volume is full, while the worker stays online. The worker's advertised
``resources.disk_free`` cannot show it: Flux measures ``/``, whatever volume its home
is on. ``df`` asked for the state directory alone answers for the right volume. Blocks
are not the only thing that runs out: with no inode left, creating a file fails with the
same ENOSPC however many blocks are free, so the inode counts are read too (a second
``df``: POSIX ``-P`` output has no room for both, and GNU's ``--output`` is not POSIX).
"""

from __future__ import annotations

from dataclasses import dataclass

from bundler.products.base import StepResult
from schemas.evidence import Source, StateVolume

from .records import FluxRecords

BLOCKS_REF = "df -P -k {state_dir}"
INODES_REF = "df -P -i {state_dir}"


@dataclass(frozen=True)
class DfLine:
    """The data line of ``df -P``: its three counts (KiB blocks, or inodes), mount, line."""

    mount: str
    total: int
    used: int
    free: int
    line: int


def parse_df_line(text: str) -> DfLine | None:
    """The data line of ``df -P [-k|-i] PATH``, counts as printed.

    POSIX output: a header, then ``filesystem total used available capacity mount``;
    the mount point may hold spaces, so it is everything after the fifth field.
    """
    for number, line in enumerate(text.splitlines()[1:], start=2):
        fields = line.split(None, 5)
        if len(fields) == 6 and all(f.isdigit() for f in fields[1:4]):
            total, used, free = (int(f) for f in fields[1:4])
            return DfLine(fields[5], total, used, free, number)
    return None


def _source(flux: FluxRecords, result: StepResult, ref: str, line: int) -> Source:
    host = flux.hosts.get(result.host or "")
    return Source(
        method="ssh" if host is not None and host.transport == "ssh" else "local",
        collector=result.collector,
        ref=ref,
        member=result.member,
        line_start=line,
    )


def _read(flux: FluxRecords, step: str) -> dict[str, tuple[StepResult, DfLine]]:
    """Each host's parsed ``df`` line of ``step``, by host alias (the first it answered)."""
    read: dict[str, tuple[StepResult, DfLine]] = {}
    for result in flux.raw.results(step):
        text = flux.raw.text(result)
        found = parse_df_line(text) if text is not None else None
        if found is not None and result.host in flux.hosts:
            read.setdefault(result.host or "", (result, found))
    return read


def state_volumes(flux: FluxRecords) -> list[StateVolume]:
    """One record per host whose ``state-volume`` step answered with a ``df`` line, with the
    inode counts of its ``state-inodes`` step when that read the same mount (a filesystem
    that keeps no count, btrfs's 0 inodes, leaves them unknown)."""
    inodes = _read(flux, "state-inodes")
    volumes = []
    for alias, (result, blocks) in _read(flux, "state-volume").items():
        host = flux.hosts[alias]
        volume = StateVolume(
            host_alias=host.alias,
            worker=host.worker,
            mount=blocks.mount,
            total_bytes=blocks.total * 1024,
            free_bytes=blocks.free * 1024,
            used_bytes=blocks.used * 1024,
            source=_source(flux, result, BLOCKS_REF, blocks.line),
        )
        counted = inodes.get(alias)
        if counted is not None and counted[1].mount == blocks.mount and counted[1].total > 0:
            read, files = counted
            volume.inodes_total, volume.inodes_free = files.total, files.free
            volume.inodes_source = _source(flux, read, INODES_REF, files.line)
        volumes.append(volume)
    return volumes
