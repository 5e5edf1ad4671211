"""Stop a child process for sure: SIGTERM, a grace period, then SIGKILL.

Every server the samples, the demo and the tests start (sshd, the LyftData
simulator) is stopped this way, so none outlives its owner even when it
ignores SIGTERM. And each is started with :func:`die_with_parent`, so none
outlives an owner that never got to stop it (a run killed by SIGKILL or a timeout).
"""

from __future__ import annotations

import contextlib
import ctypes
import os
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GRACE_S = 5.0
PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)
"""Loaded here, in the parent: a child between fork and exec must not load libraries."""


def die_with_parent(then: Callable[[], None] | None = None) -> Callable[[], None]:
    """A ``Popen(preexec_fn=...)`` that makes the child get SIGTERM when its parent dies.

    A test run or ``samples regenerate`` stopped by SIGKILL, or by a timeout that
    sends one, never runs its teardown: without this, its sshd, Flux processes and
    simulators keep running, holding ports and CPU for whatever runs next. Linux's
    ``PR_SET_PDEATHSIG`` has the kernel signal the child when the *thread* that
    started it exits, so labs start their processes from the thread that owns them
    (the fixture's, not a short-lived worker thread). It survives ``exec`` (``ip netns
    exec`` into sshd keeps it). Elsewhere than Linux it does nothing. ``then`` runs
    after it in the child, for a caller's own preexec step.
    """
    parent = os.getpid()
    prctl = getattr(_LIBC, "prctl", None)

    def preexec() -> None:
        if prctl is not None:
            prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
            if os.getppid() != parent:  # the parent died before prctl could arm it
                os.kill(os.getpid(), signal.SIGTERM)
        if then is not None:
            then()

    return preexec


def stop_child(process: subprocess.Popen[Any], grace_s: float = GRACE_S) -> None:
    """Terminate ``process`` if it runs; kill it if it has not exited after ``grace_s``."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace_s)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=grace_s)


def descendants(pid: int) -> list[int]:
    """Every live process below ``pid`` (children first found first), read from /proc."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue  # ended while we looked
        children.setdefault(int(fields[1]), []).append(int(entry.name))
    found: list[int] = []
    pending = [pid]
    while pending:
        for child in children.get(pending.pop(), []):
            found.append(child)
            pending.append(child)
    return found


def stop_tree(process: subprocess.Popen[Any], grace_s: float = GRACE_S) -> None:
    """:func:`stop_child`, and every process it started that would outlive it.

    A daemon such as sshd forks one process per connection; stopping the listener
    leaves them running (reparented to init) for as long as their connection lasts,
    and a connection between two of them (a ProxyJump through a bastion) lasts forever.
    """
    below = descendants(process.pid) if process.poll() is None else []
    stop_child(process, grace_s)
    for pid in below:
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(alive(pid) for pid in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in below:
        _signal(pid, signal.SIGKILL)


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
