"""A private network namespace joined to ours by a veth pair, for "only reachable via X" tests.

Inside the namespace nothing else runs, so servers there may use fixed
ports without colliding with anyone; from the root namespace only the
namespace's veth address is reachable (its loopback is not). Names and the
/30 subnet are random per instance, so parallel test runs never clash, and
:meth:`NetNamespace.close` removes the namespace (and with it the veth pair).

Usage::

    with NetNamespace() as ns:
        ns.inner_ip   # the namespace side of the veth, reachable from here
        ns.run_inside("ip", "addr")
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

from samples.flux_lab.network import Namespace


def netns_available() -> bool:
    """True when we can create namespaces (root, iproute2, kernel support)."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        return False
    probe = f"btprobe{os.getpid()}{random.randrange(10**6)}"
    created = subprocess.run(["ip", "netns", "add", probe], capture_output=True, check=False)
    if created.returncode != 0:
        return False
    subprocess.run(["ip", "netns", "del", probe], capture_output=True, check=False)
    return True


class NetNamespace(Namespace):
    """A namespace ``name`` with one veth pair: ``outer_ip`` (ours) <-> ``inner_ip`` (theirs).

    The lab's :class:`~samples.flux_lab.network.Namespace` with a single link, named for
    these tests (``bt-…``) so a leftover is easy to tell from a Flux lab's.
    """

    def __init__(self) -> None:
        tag = f"{os.getpid() % 100000}{random.randrange(1000):03d}"
        super().__init__(f"bt-{tag}")
        try:
            link = self.add_link(f"bto{tag}"[:15], f"bti{tag}"[:15])
        except Exception:
            self.close()
            raise
        self.outer_ip = link.outer_ip
        self.inner_ip = link.inner_ip

    def __enter__(self) -> NetNamespace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
