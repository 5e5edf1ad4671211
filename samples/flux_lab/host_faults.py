"""Faults of a worker's host rather than of Flux: a full disk, a clock that is off.

Each acts for real on the worker alone: its working directory on a tmpfs of its own that
is then filled (``SmallDisk``, root only), its process started under libfaketime
(``LD_PRELOAD``: that process and its runner children see the shifted time, the host and
every other process keep the real one). Flux is untouched and configured as usual.
"""

from __future__ import annotations

import glob
import shutil

from .config import WorkerSpec
from .disk import SmallDisk
from .faults import Injected
from .lab import FluxLab

FAKETIME_LIBRARY = "/usr/lib/*/faketime/libfaketime.so.1"
"""Where Debian's libfaketime puts the library (the multiarch directory varies)."""


class ClockUnavailable(RuntimeError):
    """libfaketime is not installed (Debian: the faketime package)."""


def faketime_library() -> str:
    found = sorted(glob.glob(FAKETIME_LIBRARY))
    if not found or shutil.which("faketime") is None:
        raise ClockUnavailable("libfaketime is not installed (apt-get install faketime)")
    return found[0]


def skewed_clock(name: str, offset: str, labels: dict[str, str] | None = None) -> WorkerSpec:
    """A worker whose clock is ``offset`` off (libfaketime's syntax: ``+2h``, ``-90m``).

    Its monotonic clock is shifted too (libfaketime's default): with it left alone
    (``FAKETIME_DONT_FAKE_MONOTONIC=1``) every ``time.sleep`` fails with EINVAL, which no
    host with a wrong clock does.
    """
    env = {"LD_PRELOAD": faketime_library(), "FAKETIME": offset}
    return WorkerSpec(name, labels or {}, extra_env=env)


def runs_on(lab: FluxLab, *workers: str) -> Injected:
    """One ``hello_world`` run to the end on each of ``workers``: each stamps its own clock."""
    ids = []
    for worker in workers:
        run = lab.api.run_to_end("hello_world", "clock", require_worker=worker)
        if run.get("state") != "COMPLETED":
            raise AssertionError(f"hello_world should complete on {worker}: {run.get('state')}")
        ids.append(str(run["execution_id"]))
    return Injected(executions=ids)


SMALL_DISK_BYTES = 4 * 1024 * 1024
"""A worker volume small enough to fill in an instant (a tmpfs: it costs memory, not disk)."""


def small_disk(
    name: str, labels: dict[str, str] | None = None, *, inodes: int | None = None
) -> WorkerSpec:
    """A worker whose working directory (Flux's home, ``.flux/``) is a small volume of its own,
    holding at most ``inodes`` files when given."""
    return WorkerSpec(name, labels or {}, disk_bytes=SMALL_DISK_BYTES, disk_inodes=inodes)


def _disk(lab: FluxLab, worker: str) -> SmallDisk:
    disk = lab.disks.get(worker)
    if disk is None:
        raise AssertionError(f"{worker} has no disk of its own in this lab (faults.small_disk)")
    return disk


def disk_nearly_full(lab: FluxLab, worker: str, *, leave_bytes: int) -> Injected:
    """Fill ``worker``'s own volume until only about ``leave_bytes`` are left; nothing fails."""
    filled = _disk(lab, worker).fill(leave_bytes=leave_bytes)
    return Injected(notes={"filled_bytes": filled})


def cached_report_fails(lab: FluxLab, worker: str, *, kib: int = 64) -> Injected:
    """Run ``cached_report`` to the end on ``worker``: on its full volume it fails (ENOSPC)."""
    run = lab.api.run_to_end("cached_report", kib, require_worker=worker)
    if run.get("state") != "FAILED":
        raise AssertionError(f"cached_report should fail on a full disk, got {run.get('state')}")
    return Injected(executions=[str(run["execution_id"])])


def inodes_full(lab: FluxLab, worker: str) -> Injected:
    """Use every inode of ``worker``'s own volume (a ``small_disk`` with ``inodes``) with empty
    files, its blocks left free, then run ``cached_report`` on it: it fails with ENOSPC."""
    made = _disk(lab, worker).fill_inodes()
    failed = cached_report_fails(lab, worker)
    return Injected(executions=failed.executions, notes={"empty_files": made})


def disk_full(lab: FluxLab, worker: str, *, kib: int = 64) -> Injected:
    """Fill ``worker``'s own volume, then run ``cached_report`` on it to the end: it fails.

    Needs a lab whose ``worker`` has a ``small_disk``. Flux memoizes the report's task
    (``cache=True``), so Flux itself writes the result under ``.flux/.cache/`` and hits
    ENOSPC; the run ends FAILED with ``OSError: [Errno 28] No space left on device``
    while the worker stays online.
    """
    filled = _disk(lab, worker).fill()
    failed = cached_report_fails(lab, worker, kib=kib)
    return Injected(executions=failed.executions, notes={"filled_bytes": filled})
