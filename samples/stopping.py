"""Stop a child process for sure: SIGTERM, a grace period, then SIGKILL.

Every server the samples, the demo and the tests start (sshd, the LyftData
simulator) is stopped this way, so none outlives its owner even when it
ignores SIGTERM.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

GRACE_S = 5.0


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
    while any(_alive(pid) for pid in below) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in below:
        _signal(pid, signal.SIGKILL)


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"
