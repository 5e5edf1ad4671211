"""A network the lab can cut: the server in its own namespace, one link per partitionable worker.

A worker cut off from its server by the network keeps running: its process, its
control socket and its log are fine, only its packets vanish. Loopback cannot show
that (a killed or stopped process is all it can fake), so a lab that asks for
``LabConfig.partitionable`` workers runs its server in a network namespace of its
own, reached from here over veth pairs: one shared by the doctor and every other
worker, and one more per partitionable worker. :meth:`LabNetwork.cut` drops every
packet on a worker's link, both ways: each end's queue becomes a FIFO of zero packets
(``tc qdisc … pfifo limit 0``; built into every kernel, where ``netem`` and netfilter
may be missing, as here). No RST, no FIN: the TCP connections stay open on both sides
until their own timeouts, as across a failed switch. :meth:`LabNetwork.heal` lets
packets through again.

Only addresses of the namespace's own /30 links are used, never a host's network;
names and subnets are random per lab, and :meth:`LabNetwork.close` removes the
namespace, which takes its veth pairs with it. Needs root and iproute2.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
from dataclasses import dataclass


class NetworkUnavailable(RuntimeError):
    """No network namespaces here (not root, no iproute2, or the kernel refuses)."""


@dataclass(frozen=True)
class Link:
    """One veth pair: ``outer`` here (``outer_ip``) and ``inner`` in the namespace."""

    outer: str
    inner: str
    outer_ip: str
    inner_ip: str


def _ip(*args: str) -> None:
    done = subprocess.run(["ip", *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise NetworkUnavailable(f"ip {' '.join(args)}: {done.stderr.strip()}")


class Namespace:
    """A network namespace (``name``, its loopback up) and the veth links into it.

    The one primitive both the lab's cuttable network and the tests' private namespace
    (``tests/support/netns.py``) stand on: a namespace half made is removed again, and
    :meth:`close` removes it with every link.
    """

    def __init__(self, name: str) -> None:
        if os.geteuid() != 0 or shutil.which("ip") is None:
            raise NetworkUnavailable("network namespaces need root and iproute2")
        self.name = name
        self.links: list[Link] = []
        self._created = False
        try:
            _ip("netns", "add", self.name)
            self._created = True
            self.run_inside("ip", "link", "set", "lo", "up")
        except Exception:
            self.close()
            raise

    @property
    def exec_prefix(self) -> list[str]:
        """Run a command inside the namespace (``ip netns exec`` execs it: same pid)."""
        return [shutil.which("ip") or "ip", "netns", "exec", self.name]

    def run_inside(self, *command: str) -> str:
        """Run ``command`` in the namespace; its output, or :class:`NetworkUnavailable`."""
        done = subprocess.run(
            [*self.exec_prefix, *command], capture_output=True, text=True, check=False
        )
        if done.returncode != 0:
            raise NetworkUnavailable(f"{' '.join(command)}: {done.stderr.strip()}")
        return done.stdout

    def add_link(self, outer: str, inner: str) -> Link:
        """A veth pair on a free /30: ``outer`` here, ``inner`` in the namespace, both up."""
        base = free_subnet()
        link = Link(outer, inner, f"{base}.1", f"{base}.2")
        _ip("link", "add", link.outer, "type", "veth", "peer", "name", link.inner)
        self.links.append(link)
        _ip("link", "set", link.inner, "netns", self.name)
        _ip("addr", "add", f"{link.outer_ip}/30", "dev", link.outer)
        _ip("link", "set", link.outer, "up")
        self.run_inside("ip", "addr", "add", f"{link.inner_ip}/30", "dev", link.inner)
        self.run_inside("ip", "link", "set", link.inner, "up")
        return link

    def close(self) -> None:
        """Remove the namespace (its veth pairs go with it). Safe to call twice."""
        if self._created:
            subprocess.run(["ip", "netns", "del", self.name], capture_output=True, check=False)
            self._created = False
        for link in self.links:
            subprocess.run(["ip", "link", "del", link.outer], capture_output=True, check=False)


class LabNetwork:
    """The server's namespace and its links: ``links[""]`` shared, ``links[worker]`` cuttable."""

    def __init__(self, partitionable: tuple[str, ...]) -> None:
        if shutil.which("tc") is None:
            raise NetworkUnavailable("network namespaces need root, iproute2 and tc")
        tag = f"{os.getpid() % 10000}{random.randrange(1000):03d}"
        self.namespace = Namespace(f"fluxlab-{tag}")
        self.links: dict[str, Link] = {}
        try:
            for index, worker in enumerate(("", *partitionable)):
                outer, inner = f"flo{tag}{index}", f"fli{tag}{index}"
                self.links[worker] = self.namespace.add_link(outer, inner)
        except Exception:
            self.close()
            raise

    @property
    def server_ip(self) -> str:
        """The server's address for the doctor and every worker not partitionable."""
        return self.links[""].inner_ip

    def server_ip_for(self, worker: str) -> str:
        """The address ``worker`` reaches the server at (its own link, if it has one)."""
        return (self.links.get(worker) or self.links[""]).inner_ip

    @property
    def exec_prefix(self) -> list[str]:
        """Run a command inside the namespace (``ip netns exec`` execs it: same pid)."""
        return self.namespace.exec_prefix

    def cut(self, worker: str) -> None:
        """Drop every packet between ``worker`` and the server, both ways."""
        link = self.links[worker]
        drop_all = ["root", "pfifo", "limit", "0"]
        self._tc(["qdisc", "replace", "dev", link.outer, *drop_all])
        self.namespace.run_inside("tc", "qdisc", "replace", "dev", link.inner, *drop_all)

    def heal(self, worker: str) -> None:
        """Let ``worker``'s packets through again."""
        link = self.links[worker]
        self._tc(["qdisc", "del", "dev", link.outer, "root"])
        self.namespace.run_inside("tc", "qdisc", "del", "dev", link.inner, "root")

    def close(self) -> None:
        """Remove the namespace (its veth pairs go with it). Safe to call twice."""
        self.namespace.close()

    @staticmethod
    def _tc(args: list[str]) -> None:
        done = subprocess.run(["tc", *args], capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise NetworkUnavailable(f"tc {' '.join(args)}: {done.stderr.strip()}")


def free_subnet() -> str:
    """A /30's first three octets no interface here uses (10.200-249.x: the labs' own)."""
    used = subprocess.run(["ip", "-o", "addr"], capture_output=True, text=True).stdout
    while True:
        base = f"10.{random.randrange(200, 250)}.{random.randrange(256)}"
        if f" {base}." not in used:
            return base
