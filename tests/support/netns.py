"""A private network namespace joined to ours by a veth pair, for "only reachable via X" tests.

Inside the namespace nothing else runs, so servers there may use fixed
ports without colliding with anyone; from the root namespace only the
namespace's veth address is reachable (its loopback is not). Names and the
/30 subnet are random per instance, so parallel test runs never clash, and
:meth:`NetNamespace.close` removes the namespace (and with it the veth pair).

Usage::

    with NetNamespace() as ns:
        ns.inner_ip   # the namespace side of the veth, reachable from here
        subprocess.run(ns.exec_prefix + ["ip", "addr"])
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess


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


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True)


def _used_subnets() -> str:
    return subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True, check=False).stdout


class NetNamespace:
    """A namespace ``name`` with a veth pair: ``outer_ip`` (ours) <-> ``inner_ip`` (theirs)."""

    def __init__(self) -> None:
        tag = f"{os.getpid() % 100000}{random.randrange(1000):03d}"
        self.name = f"bt-{tag}"
        self.outer_if = f"bto{tag}"[:15]
        self.inner_if = f"bti{tag}"[:15]
        used = _used_subnets()
        while True:
            base = f"10.{random.randrange(200, 250)}.{random.randrange(256)}"
            if f"{base}." not in used:
                break
        self.outer_ip = f"{base}.1"
        self.inner_ip = f"{base}.2"
        self._created = False
        try:
            _ip("netns", "add", self.name)
            self._created = True
            _ip("link", "add", self.outer_if, "type", "veth", "peer", "name", self.inner_if)
            _ip("link", "set", self.inner_if, "netns", self.name)
            _ip("addr", "add", f"{self.outer_ip}/30", "dev", self.outer_if)
            _ip("link", "set", self.outer_if, "up")
            self.run("ip", "addr", "add", f"{self.inner_ip}/30", "dev", self.inner_if)
            self.run("ip", "link", "set", self.inner_if, "up")
            self.run("ip", "link", "set", "lo", "up")
        except Exception:
            self.close()
            raise

    @property
    def exec_prefix(self) -> list[str]:
        return ["ip", "netns", "exec", self.name]

    def run(self, *command: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [*self.exec_prefix, *command], check=True, capture_output=True, text=True
        )

    def __enter__(self) -> NetNamespace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Remove the namespace; the veth pair goes with it. Safe to call twice."""
        if self._created:
            subprocess.run(["ip", "netns", "del", self.name], capture_output=True, check=False)
            self._created = False
        subprocess.run(["ip", "link", "del", self.outer_if], capture_output=True, check=False)
