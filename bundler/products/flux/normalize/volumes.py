"""The volume under each Flux host's state directory, from ``df -P -k {state_dir}``.

Flux writes under its home (``.flux/.cache`` for memoized tasks, ``.flux/.data`` for
local output storage) and a run fails with ``[Errno 28] No space left on device`` once
that volume is full, while the worker stays online. The worker's advertised
``resources.disk_free`` cannot show it: Flux measures ``/``, whatever volume its home
is on. ``df`` asked for the state directory alone answers for the right volume.
"""

from __future__ import annotations

from schemas.evidence import Source, StateVolume

from .records import FluxRecords


def parse_df(text: str) -> tuple[str, int, int, int] | None:
    """``(mount, total bytes, available bytes, line number)`` of ``df -P -k PATH``'s data line.

    POSIX output: a header, then ``filesystem blocks used available capacity mount``;
    the mount point may hold spaces, so it is everything after the fifth field.
    """
    for number, line in enumerate(text.splitlines()[1:], start=2):
        fields = line.split(None, 5)
        if len(fields) == 6 and fields[1].isdigit() and fields[3].isdigit():
            return fields[5], int(fields[1]) * 1024, int(fields[3]) * 1024, number
    return None


def state_volumes(flux: FluxRecords) -> list[StateVolume]:
    """One record per host whose ``state-volume`` step answered with a ``df`` line."""
    volumes = []
    for result in flux.raw.results("state-volume"):
        text = flux.raw.text(result)
        parsed = parse_df(text) if text is not None else None
        host = flux.hosts.get(result.host or "")
        if parsed is None or host is None:
            continue
        mount, total, free, line = parsed
        volumes.append(
            StateVolume(
                host_alias=host.alias,
                worker=host.worker,
                mount=mount,
                total_bytes=total,
                free_bytes=free,
                source=Source(
                    method="ssh" if host.transport == "ssh" else "local",
                    collector=result.collector,
                    ref="df -P -k {state_dir}",
                    member=result.member,
                    line_start=line,
                ),
            )
        )
    return volumes
