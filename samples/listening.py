"""Whether a process we started is the one listening on its port.

A server started on a port that was free a moment ago (:func:`socket.bind` to port 0, then
closed) can lose the port to another process before it binds. Waiting for "something
answers on the port" then accepts the other process: an sshd of another test answers with
the same ``SSH-2.0`` banner, and the test fails later with a host-key refusal that points
nowhere near the cause. Readiness is therefore read from the kernel: the listening socket
on that port must be one of the process's own file descriptors.
"""

from __future__ import annotations

import os
from pathlib import Path

_LISTEN = "0A"
"""A TCP socket in the LISTEN state, as ``/proc/net/tcp`` writes it."""


def listens_on(pid: int, port: int) -> bool:
    """Whether process ``pid`` holds a socket listening on TCP ``port`` (any address).

    ``/proc/PID/net/tcp`` is the table of the process's own network namespace, so this
    also answers for a server started with ``ip netns exec``."""
    inodes = _listening_inodes(pid, port)
    if not inodes:
        return False
    try:
        descriptors = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:  # the process has exited
        return False
    for descriptor in descriptors:
        try:
            target = os.readlink(descriptor)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:[") and target[8:-1] in inodes:
            return True
    return False


def _listening_inodes(pid: int, port: int) -> set[str]:
    """Inodes of the sockets listening on ``port`` in ``pid``'s network namespace."""
    inodes: set[str] = set()
    for table in ("tcp", "tcp6"):
        try:
            rows = Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]
        except OSError:  # no IPv6 in this namespace, or the process has exited
            continue
        for row in rows:
            fields = row.split()
            if len(fields) < 10 or fields[3] != _LISTEN:
                continue
            if int(fields[1].rsplit(":", 1)[1], 16) == port:
                inodes.add(fields[9])
    return inodes
