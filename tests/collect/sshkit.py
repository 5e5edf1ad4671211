"""Helpers for SSH tests: connect to an SshLab host the way the engine does."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from bundler.collect.budget import Budget
from bundler.collect.transports.hostkeys import KnownHostsBook
from bundler.collect.transports.ssh import Connection, SshConnector
from bundler.collect.transports.sshconfig import SshConfigResolver
from bundler.collect.transports.sshhost import SshHost
from tests.support.sshd import SshLab


def connector(lab: SshLab, *, accept_new: bool = False) -> SshConnector:
    return SshConnector(
        SshConfigResolver(lab.ssh_config, home=lab.root),
        KnownHostsBook([lab.known_hosts], explicit=True, accept_new=accept_new),
        use_agent=False,
    )


def connect(
    lab: SshLab, alias: str, *, accept_new: bool = False, timeout: float = 10
) -> Connection:
    conn = connector(lab, accept_new=accept_new)
    endpoint = conn.resolver.resolve(alias)
    return conn.connect(endpoint, Budget.start(timeout))


@contextmanager
def trusted_host(lab: SshLab, alias: str) -> Iterator[SshHost]:
    """A new sshd in ``lab`` named ``alias``, its key trusted, and a connection to it that is
    closed on the way out."""
    instance = lab.start(alias)
    lab.add_host(alias, instance)
    lab.trust(instance)
    connected = connect(lab, alias).host
    try:
        yield connected
    finally:
        connected.close()
