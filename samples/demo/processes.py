"""Nothing the demo starts may outlive it: signals unwind like Ctrl-C, and leftovers are checked.

Every fleet the demo starts is a context manager that stops its processes on
the way out. SIGTERM and SIGHUP are turned into ``KeyboardInterrupt`` so a
``kill`` or a closed terminal unwinds through the same ``finally`` blocks as
Ctrl-C. Afterwards :func:`leftovers` looks for anything still running that
the demo started: the process ids it knows, and any process whose working
directory or command line lies in the demo's work directory (Flux's runner
children included, whose ids the demo never saw).
"""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Iterable
from pathlib import Path
from types import FrameType


def interrupt_on_termination() -> None:
    """Make SIGTERM and SIGHUP behave like Ctrl-C (KeyboardInterrupt) in this process."""

    def interrupt(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt(signal.Signals(signum).name)

    for sig in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(sig, interrupt)


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie has exited; it only waits to be reaped)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[-1].split()[0] != "Z"


def _mentions(pid: int, workdir: str) -> bool:
    with contextlib.suppress(OSError):
        cwd = os.readlink(f"/proc/{pid}/cwd").removesuffix(" (deleted)")
        if cwd == workdir or cwd.startswith(workdir + "/"):
            return True
    with contextlib.suppress(OSError):
        return workdir.encode() in Path(f"/proc/{pid}/cmdline").read_bytes()
    return False


def leftovers(workdir: Path, pids: Iterable[int] = ()) -> list[int]:
    """Processes still running that the demo started (known ids, or working in ``workdir``)."""
    me = os.getpid()
    found = {pid for pid in pids if pid != me and _running(pid)}
    where = str(workdir.resolve())
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != me:
            pid = int(entry.name)
            if pid not in found and _mentions(pid, where) and _running(pid):
                found.add(pid)
    return sorted(found)


def describe(pid: int) -> str:
    try:
        args = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"{pid} (gone)"
    return f"{pid} {' '.join(a.decode(errors='replace') for a in args if a)[:120]}"
