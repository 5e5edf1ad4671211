"""Which TCP ports a process we started listens on, read from the kernel.

A server started on a port that was free a moment ago (:func:`socket.bind` to port 0, then
closed) can lose the port to another process before it binds. Waiting for "something
answers on the port" then accepts the other process: an sshd of another test answers with
the same ``SSH-2.0`` banner, and the test fails later with a host-key refusal that points
nowhere near the cause. Readiness is therefore read from ``/proc``: the listening socket on
that port must be one of the process's own file descriptors. The Flux lab uses the same
reading the other way round: it gives Flux port 0 and reads the real port back.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

_LISTEN = "0A"
"""A TCP socket in the LISTEN state, as ``/proc/net/tcp`` writes it."""


def listening_ports(pid: int) -> list[int]:
    """TCP ports process ``pid`` listens on (any address), sorted; none once it has exited.

    ``/proc/PID/net/tcp`` is the table of the process's own network namespace, so this
    also answers for a server started with ``ip netns exec``."""
    inodes = set()
    with contextlib.suppress(OSError):  # the process has exited
        for descriptor in Path(f"/proc/{pid}/fd").iterdir():
            with contextlib.suppress(OSError):  # closed meanwhile
                target = os.readlink(descriptor)
                if target.startswith("socket:["):
                    inodes.add(target[8:-1])
    ports: set[int] = set()
    for table in ("tcp", "tcp6"):
        with contextlib.suppress(OSError):  # no IPv6 in this namespace, or exited
            for row in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
                fields = row.split()
                if len(fields) >= 10 and fields[3] == _LISTEN and fields[9] in inodes:
                    ports.add(int(fields[1].rsplit(":", 1)[1], 16))
    return sorted(ports)


def listens_on(pid: int, port: int) -> bool:
    """Whether process ``pid`` itself holds a socket listening on TCP ``port``."""
    return port in listening_ports(pid)
