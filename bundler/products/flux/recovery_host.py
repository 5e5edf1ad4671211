"""Recovery texts for faults of a Flux worker's host rather than of Flux: a full disk, a bad clock.

Apart from :mod:`.recovery` (the product's own faults) so each stays one reviewable
page. Facts come from flux-core 0.87.5 as observed running (samples/flux_lab): a full
volume under the worker's home fails runs with ``[Errno 28]`` while the worker stays
online, and a worker's clock is never compared with the server's by Flux.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from schemas import Recovery

OBSERVED = "flux-core 0.87.5 as observed running (samples/flux_lab)"


Exhausted = Literal["blocks", "inodes"]


def _make_room(who: str, exhausted: Exhausted) -> list[str]:
    """How to find what fills the volume and make room, for blocks or for inodes."""
    if exhausted == "inodes":
        find = (
            f"On {who}'s host, `df -i` of its working directory's `.flux/`: its inodes, not its "
            "blocks, ran out, so many small files fill it. Count them where Flux writes "
            "(`find .flux/.cache .flux/.data -xdev -type f | wc -l`: one file per memoized "
            "result or stored output) and in the workflows' own directories on that volume."
        )
        room = (
            "Delete files that are not needed (a memoized result that is gone is computed "
            "again), or move the worker's working directory to a volume with more inodes "
            "(a tmpfs's `nr_inodes`, a filesystem made with more) and restart the worker there."
        )
    else:
        find = (
            f"On {who}'s host, `df -h` and `df -i` of its working directory's `.flux/` (blocks "
            "and inodes: either one running out is ENOSPC), then `du -xsh` of what fills it: "
            "Flux writes memoized task results to `.flux/.cache/` and local output storage to "
            "`.flux/.data/` there, and the workflows' own files may share the volume."
        )
        room = (
            "Delete what is not needed (a memoized result that is gone is computed again), or "
            "grow the volume, or move the worker's working directory to a larger one and "
            "restart the worker there."
        )
    return [find, room]


def disk_nearly_full(worker: str, mount: str, exhausted: Exhausted) -> Recovery:
    """Before the first ENOSPC: make room, and keep it made."""
    what = "inodes" if exhausted == "inodes" else "space"
    return Recovery(
        summary=f"Make room ({what}) on the volume under {worker}'s Flux home ({mount}) before "
        "its runs fail with ENOSPC.",
        steps=[
            *_make_room(worker, exhausted),
            "Watch the volume (`df -P -k` and `df -P -i` of `.flux/`) where the worker runs, "
            "not the worker's advertised disk_free.",
        ],
        cautions=[
            f"{worker} stays online and keeps claiming work when the volume fills: its runs "
            "then fail with `[Errno 28] No space left on device`, and leave empty memoized "
            "results behind that must be deleted too (see the full-disk recovery).",
            "The worker's own resources.disk_free in GET /workers measures `/`, not the volume "
            "its home is on.",
        ],
        reference=OBSERVED,
    )


def room_before_restart(worker: str, mount: str, exhausted: Exhausted, full: bool) -> Recovery:
    """For a worker that is down (its ladder stopped at the heartbeat) on a full or nearly
    full volume: room first, or the restart meets the same volume."""
    what = "inodes (delete files)" if exhausted == "inodes" else "space"
    steps = _make_room(worker, exhausted)
    if full:
        steps.append(
            "Delete the memoized results a full disk cut short (`find .flux/.cache -name "
            "'*.pkl' -size 0`): Flux reads an empty one back as the result and the run fails "
            "with `EOFError: Ran out of input`."
        )
    return Recovery(
        summary=f"Free {what} on the volume under {worker}'s Flux home ({mount}) before "
        f"restarting {worker}.",
        steps=[
            *steps,
            f"Then restart {worker} and confirm it stays online and its next run COMPLETED.",
        ],
        cautions=[
            "Restarting the worker frees nothing: on a full volume it goes down again, or "
            "fails every run that writes there.",
            "The worker's own resources.disk_free in GET /workers measures `/`, not the volume "
            "its home is on.",
        ],
        reference=OBSERVED,
    )


def disk_full(worker: str | None, mount: str | None, exhausted: Exhausted = "blocks") -> Recovery:
    who = worker or "the worker"
    where = f" ({mount})" if mount else ""
    what = "inodes (delete files)" if exhausted == "inodes" else "space"
    return Recovery(
        summary=f"Free {what} on the volume under {who}'s Flux home{where}, then run the job "
        "again.",
        steps=[
            *_make_room(who, exhausted),
            "Delete the memoized results the full disk cut short: the failed write leaves an "
            "empty `.flux/.cache/<key>.pkl`, which Flux later reads back as the result, and the "
            "run fails again with `EOFError: Ran out of input` (`find .flux/.cache -name "
            "'*.pkl' -size 0` lists them).",
            "Run the job again on that worker (pinned with X-Flux-Require-Worker) and confirm it "
            "COMPLETED.",
        ],
        cautions=[
            f"{who} stays online and keeps claiming work, which fails the same way until space "
            "is freed: pause it (`flux worker pause NAME`) meanwhile if other workers can run it.",
            "The worker's own resources.disk_free in GET /workers measures `/`, not the volume "
            "its home is on: it can read plenty while this one is full.",
            "Restarting the worker frees nothing.",
        ],
        reference=OBSERVED,
    )


@dataclass(frozen=True)
class FullVolume:
    """One eligible worker's full state volume: whose, where, and what ran out."""

    worker: str
    mount: str
    exhausted: Exhausted


def volumes_full(volumes: list[FullVolume], *, down: bool) -> Recovery:
    """For an execution every eligible worker of which has a full volume: room on one is
    enough for it to run (``down``: those workers cannot take work now, restart them after)."""
    names = ", ".join(f"{v.worker} ({v.mount})" for v in volumes[:8])
    more = f" and {len(volumes) - 8} more" if len(volumes) > 8 else ""
    inodes = any(v.exhausted == "inodes" for v in volumes)
    then = (
        "Then restart the worker and confirm it stays online: the execution is dispatched to it."
        if down
        else "The waiting execution is dispatched once a worker that may take it can write."
    )
    return Recovery(
        summary=f"Free the volume under an eligible worker's Flux home ({names}{more})"
        + (" before restarting it" if down else "")
        + ", or start a matching worker on a volume with room.",
        steps=[
            *_make_room("each worker", "inodes" if inodes else "blocks"),
            "Delete the memoized results a full disk cut short (`find .flux/.cache -name "
            "'*.pkl' -size 0`): Flux reads an empty one back as the result.",
            then,
        ],
        cautions=[
            "A worker's free slots and its advertised disk_free (which measures `/`) say nothing "
            "of the volume its home is on.",
        ],
        reference=OBSERVED,
    )


def socket_without_inodes(worker: str, mount: str) -> Recovery:
    """For a worker that started on a volume with no inode left: it runs, without the control
    socket it creates only at start-up."""
    return Recovery(
        summary=f"Free inodes (delete files) on the volume under {worker}'s Flux home "
        f"({mount}), then restart {worker}: it creates its control socket only when it starts.",
        steps=[
            *_make_room(worker, "inodes"),
            f"Restart {worker} (SIGTERM drains it first) and confirm its log says `Worker "
            f"control socket listening at …` and `flux worker status {worker}` answers on its "
            "host.",
        ],
        cautions=[
            f"Until then `flux worker pause`, `resume`, `status` and `cancel-all` cannot reach "
            f"{worker} (SIGUSR1 pauses it, SIGUSR2 resumes it), and its runs that write a file "
            "on that volume fail with `[Errno 28] No space left on device`.",
        ],
        reference=OBSERVED,
    )


def clock_skew(worker: str) -> Recovery:
    return Recovery(
        summary=f"Set {worker}'s host clock right and keep it synchronized (NTP).",
        steps=[
            f"On {worker}'s host, `timedatectl` (or `chronyc tracking`) shows whether the clock "
            "is synchronized and to what; enable chrony or systemd-timesyncd against the same "
            "time source as the server's host.",
            "If the host's clock is right and only the worker's times are off, something in its "
            "start-up fakes the time (an LD_PRELOAD of libfaketime, a FAKETIME variable): "
            "remove it and restart the worker.",
            "Confirm with its next run: WORKFLOW_STARTED, which the worker stamps, follows the "
            "server's WORKFLOW_CLAIMED within a second or two.",
        ],
        cautions=[
            "Flux judges heartbeats, evictions and dispatch by the server's clock alone, so the "
            "worker stays online and runs work: nothing in its status gives the skew away.",
            "Until the clock is right, read the times this worker stamps (its log, the start and "
            "end of its runs) shifted by the skew, or runs and log lines sort out of order.",
        ],
        reference=OBSERVED,
    )
