"""A Flux run that failed because its worker's disk is full: name the disk, not just the run.

Observed (flux-core 0.87.5, samples/flux_lab): with the volume under a worker's home
full, a run whose task Flux memoizes (``cache=True``: Flux writes the result under
``.flux/.cache/``) fails with ``OSError: [Errno 28] No space left on device`` as its
output. Nothing else says so: the worker stays online with free slots, its log says
only ``Execution FAILED``, the server logs nothing, and the worker's advertised
``resources.disk_free`` measures ``/``, not the volume its home is on. The failed
run's error names the fault; ``df`` of the worker's state directory (the
``state-volume`` and ``state-inodes`` steps) names the volume and how full it was at
collection, in blocks and in inodes: with no inode left the error is the same while
blocks are free, and the repair is deleting files, not bytes.
"""

from __future__ import annotations

from typing import Literal

from bundler.analyze.api import RuleContext, RuleResult
from bundler.analyze.facts import citations, cite_source, job_label
from bundler.analyze.matching import human_bytes
from schemas.evidence import Job, LocalStateEvidence, StateVolume

from .. import codes
from ..recovery_host import disk_full
from .facts import failed_execution_cited, subject_worker

NO_SPACE = ("No space left on device", "[Errno 28]", "ENOSPC")
"""How Python, the C library and Flux's error output say ENOSPC."""


def says_no_space(error: str | None) -> bool:
    return error is not None and any(words in error for words in NO_SPACE)


def _volume(ctx: RuleContext, worker: str | None) -> tuple[int, StateVolume] | None:
    local = ctx.evidence.get(LocalStateEvidence)
    if local is None or worker is None:
        return None
    volumes = enumerate(local.volumes or [])
    return next(((i, v) for i, v in volumes if v.worker == worker), None)


def inodes_exhausted(volume: StateVolume | None) -> bool:
    """True when ``df -P -i`` read no inode left on the volume (whatever its blocks say)."""
    return volume is not None and bool(volume.inodes_total) and volume.inodes_free == 0


def _volume_words(volume: StateVolume | None, worker: str) -> str:
    if volume is None:
        return (
            f" The volume under {worker}'s Flux home is not in the bundle (doctor reads it with "
            "`df` of the `state_dir` the inventory gives the worker's host)."
        )
    total = human_bytes(volume.total_bytes) if volume.total_bytes is not None else "?"
    free = volume.free_bytes
    said = f" The volume under {worker}'s Flux home, mounted at {volume.mount}, had "
    if inodes_exhausted(volume):
        blocks = f"{human_bytes(free)} of {total}" if free is not None else f"? of {total}"
        return said + (
            f"0 of {volume.inodes_total:,} inodes free when collected ({blocks} free): no file "
            "can be created on it, however much space is left."
        )
    if free is None:
        return said + f"an unread amount of {total} free when collected."
    said += f"{human_bytes(free)} of {total} free when collected"
    if volume.inodes_total and volume.inodes_free is not None:
        said += f" and {volume.inodes_free:,} of {volume.inodes_total:,} inodes"
    if volume.total_bytes and free > volume.total_bytes // 100:
        return said + ": space was freed since, or the run wrote to another volume."
    return said + "."


def disk_full_result(ctx: RuleContext, job: Job) -> RuleResult | None:
    """FAIL ``FLUX_WORKER_DISK_FULL`` for a failed run whose error is ENOSPC; else None."""
    if not says_no_space(job.error):
        return None
    worker = job.assigned_worker or subject_worker(ctx)
    found = _volume(ctx, worker)
    volume = found[1] if found else None
    on = worker or "its worker"
    evidence = failed_execution_cited(ctx, job)
    exhausted: Literal["blocks", "inodes"] = "inodes" if inodes_exhausted(volume) else "blocks"
    if found is not None:
        index, volume = found
        field, count, read = (
            ("inodes_free", volume.inodes_free, volume.inodes_source)
            if exhausted == "inodes"
            else ("free_bytes", volume.free_bytes, volume.source)
        )
        evidence.append(ctx.evidence.cite(LocalStateEvidence, f"/volumes/{index}/{field}", count))
        evidence += citations(cite_source(read))
    return RuleResult.fail(
        codes.FLUX_WORKER_DISK_FULL,
        f"{job_label(job)} failed because the disk of {on} is full: {job.error}."
        + _volume_words(volume, on)
        + f" {on} stays online and claims more work, which fails the same way.",
        evidence=evidence,
        recovery=disk_full(worker, volume.mount if volume else None, exhausted),
        acceptance=[
            f"free space and inodes on the volume under {on}'s Flux home (`df -k` and `df -i` "
            "of its .flux/)",
            f"a run of {job.name} on {on} COMPLETED",
        ],
        worker=worker,
        mount=volume.mount if volume else None,
        free_bytes=volume.free_bytes if volume else None,
        total_bytes=volume.total_bytes if volume else None,
        inodes_free=volume.inodes_free if volume else None,
        inodes_total=volume.inodes_total if volume else None,
        exhausted=exhausted,
    )
