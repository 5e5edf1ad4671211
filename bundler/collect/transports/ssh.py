"""SSH hosts (paramiko): connect through jump hosts, verify the host key, authenticate.

Every paramiko and socket exception is translated here into a recorded
outcome (:mod:`bundler.collect.errors`); nothing above this module sees one.
The host key is verified *before* authentication, so a changed key never
gets a signature from us. Bastion connections are shared by every target
behind them and closed at the end of the run.
"""

from __future__ import annotations

import logging
import socket
import threading
from dataclasses import dataclass

import paramiko

from ..budget import Budget
from ..errors import (
    AuthenticationFailed,
    CollectError,
    CollectorTimeout,
    ConnectFailed,
    HostKeyRefused,
    TransportError,
    Unsupported,
    transport_failure,
)
from . import channelends
from .hostkeys import HostKeyVerdict, KnownHostsBook, lookup_name
from .sshconfig import SshConfigResolver, SshEndpoint
from .sshhost import SshHost

logging.getLogger("paramiko").addHandler(logging.NullHandler())
"""paramiko logs what its transport thread sees (``Socket exception: Broken pipe (32)``,
tracebacks of unexpected errors) at ERROR; with no handler of its own, Python's last-resort
handler printed those lines raw on stderr. What happened is each collector's outcome."""


KEEPALIVE_S = 15
"""Seconds without sending after which an SSH connection sends a keepalive.

A collector waiting for a quiet command sends nothing, so without it a peer that lost the
connection (rebooted, failed over, a NAT that forgot us) is not noticed until the
collector's budget ends. A keepalive makes the peer's TCP answer with a reset, which ends
the connection at once: the waiting collector says the connection was lost, and the host's
other collectors stop waiting too. 15 s is four probes within the default per-collector
``--timeout`` (60 s), so a dead peer costs a collector about 15 s, not 60; and it keeps a
connection (a bastion is shared by the whole run, up to ``--deadline``) inside the idle
timers of NATs and firewalls (commonly 60 s and up). It costs one small packet per idle
connection every 15 s: about 70 a second at 1,000 hosts. paramiko asks for no reply, so a
peer that vanished without a trace is still bounded by the budget, as every wait is."""


@dataclass(frozen=True)
class Connection:
    host: SshHost
    verdict: HostKeyVerdict


class SshConnector:
    """Opens verified, authenticated SSH connections for one run."""

    def __init__(
        self, resolver: SshConfigResolver, known_hosts: KnownHostsBook, *, use_agent: bool = True
    ) -> None:
        self.resolver = resolver
        self.known_hosts = known_hosts
        self.use_agent = use_agent
        self._lock = threading.Lock()
        self._bastions: dict[tuple[object, ...], paramiko.Transport] = {}
        self._bastion_locks: dict[tuple[object, ...], threading.Lock] = {}
        self._keys: dict[str, paramiko.PKey | None] = {}
        self._agent: paramiko.Agent | None = None
        self.bastion_notes: list[str] = []

    def connect(self, endpoint: SshEndpoint, budget: Budget) -> Connection:
        if endpoint.proxy_command:
            raise Unsupported("ProxyCommand is not supported; use ProxyJump")
        if endpoint.jumps:
            bastion = self._bastion(endpoint.jumps, budget)
            sock: socket.socket | paramiko.Channel = _jump_channel(bastion, endpoint, budget)
        else:
            sock = _tcp(endpoint, budget)
        transport, verdict = self._handshake(endpoint, sock, budget)
        return Connection(SshHost(transport), verdict)

    def close(self) -> None:
        with self._lock:
            bastions, self._bastions = list(self._bastions.values()), {}
        for transport in bastions:
            transport.close()

    # -- internals ----------------------------------------------------------------------------
    def _bastion(self, chain: tuple[SshEndpoint, ...], budget: Budget) -> paramiko.Transport:
        """The (shared) transport to the last jump host of ``chain``, opening hops as needed."""
        key = tuple(hop.key for hop in chain)
        with self._lock:
            lock = self._bastion_locks.setdefault(key, threading.Lock())
        with lock:
            cached = self._bastions.get(key)
            if cached is not None and cached.is_active():
                return cached
            hop = chain[-1]
            try:
                if len(chain) > 1:
                    sock: socket.socket | paramiko.Channel = _jump_channel(
                        self._bastion(chain[:-1], budget), hop, budget
                    )
                else:
                    sock = _tcp(hop, budget)
                transport, verdict = self._handshake(hop, sock, budget)
            except HostKeyRefused as exc:
                raise type(exc)(
                    f"jump host {hop.name}: {exc.message}",
                    key_type=exc.key_type,
                    fingerprint=exc.fingerprint,
                ) from exc
            except CollectError as exc:
                raise type(exc)(f"jump host {hop.name}: {exc.message}") from exc
            if verdict.trusted_on_first_use:
                self.bastion_notes.append(
                    f"jump host {hop.name}: trusted new key {verdict.fingerprint}"
                )
            with self._lock:
                self._bastions[key] = transport
            return transport

    def _handshake(
        self, endpoint: SshEndpoint, sock: socket.socket | paramiko.Channel, budget: Budget
    ) -> tuple[paramiko.Transport, HostKeyVerdict]:
        name = endpoint.host_key_alias or lookup_name(endpoint.hostname, endpoint.port)
        try:
            transport = paramiko.Transport(sock)
        except (paramiko.SSHException, OSError) as exc:
            sock.close()
            raise TransportError(f"cannot start SSH: {exc}") from exc
        channelends.watch(transport)
        try:
            options = transport.get_security_options()
            known = self.known_hosts.for_files(endpoint.known_hosts_files)
            options.key_types = known.preferred_algorithms(name, tuple(options.key_types))
            transport.banner_timeout = transport.handshake_timeout = budget.remaining()
            transport.auth_timeout = budget.remaining()
            transport.start_client(timeout=budget.remaining())
            transport.set_keepalive(KEEPALIVE_S)
            verdict = known.verify(name, transport.get_remote_server_key())
            self._authenticate(transport, endpoint, budget)
        except CollectError:
            transport.close()
            raise
        except (paramiko.SSHException, EOFError, OSError) as exc:
            transport.close()
            if budget.expired() or _caused_by(exc, TimeoutError):
                raise CollectorTimeout(f"SSH handshake did not complete in time: {exc}") from exc
            if _caused_by(exc, EOFError, ConnectionResetError):
                raise TransportError(
                    "the server closed the connection during the SSH handshake"
                ) from exc
            raise transport_failure("SSH negotiation", exc) from exc
        return transport, verdict

    def _authenticate(
        self, transport: paramiko.Transport, endpoint: SshEndpoint, budget: Budget
    ) -> None:
        tried = 0
        for key in self._candidate_keys(endpoint):
            budget.check("authenticating")
            try:
                transport.auth_publickey(endpoint.user, key)
            except paramiko.BadAuthenticationType as exc:
                allowed = ", ".join(exc.allowed_types) or "nothing"
                raise AuthenticationFailed(
                    f"server does not accept public keys ({allowed})"
                ) from exc
            except paramiko.AuthenticationException as exc:
                if not transport.is_active():  # paramiko says "failed" for a dropped link too
                    raise TransportError(
                        "the server closed the connection during authentication"
                    ) from exc
                tried += 1
                continue
            if transport.is_authenticated():
                return
        raise AuthenticationFailed(
            f"no key was accepted for user {endpoint.user} (tried {tried}; "
            "keys from IdentityFile, ssh-agent and ~/.ssh/id_*)"
        )

    def _candidate_keys(self, endpoint: SshEndpoint) -> list[paramiko.PKey]:
        files = list(endpoint.identity_files)
        keys = [k for k in (self._load_key(str(p)) for p in files) if k is not None]
        if self.use_agent and not endpoint.identities_only:
            keys.extend(self._agent_keys())
        if not files:
            keys.extend(
                k
                for k in (self._load_key(str(p)) for p in self.resolver.default_identities())
                if k is not None
            )
        return keys

    def _load_key(self, path: str) -> paramiko.PKey | None:
        """A private key, or None when absent, encrypted (no prompt: we are batch) or unreadable."""
        with self._lock:
            if path in self._keys:
                return self._keys[path]
        try:
            key: paramiko.PKey | None = paramiko.PKey.from_path(path)
        except (OSError, paramiko.SSHException, ValueError):
            key = None
        with self._lock:
            self._keys[path] = key
        return key

    def _agent_keys(self) -> list[paramiko.PKey]:
        with self._lock:
            if self._agent is None:
                try:
                    self._agent = paramiko.Agent()
                except paramiko.SSHException:
                    return []
            return list(self._agent.get_keys())


def _caused_by(exc: BaseException, *kinds: type[BaseException]) -> bool:
    """Whether ``exc`` or anything in its cause/context chain is one of ``kinds``."""
    seen: BaseException | None = exc
    for _ in range(10):
        if seen is None:
            return False
        if isinstance(seen, kinds):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _tcp(endpoint: SshEndpoint, budget: Budget) -> socket.socket:
    timeout = budget.remaining()
    if endpoint.connect_timeout:
        timeout = min(timeout, endpoint.connect_timeout)
    try:
        return socket.create_connection((endpoint.hostname, endpoint.port), timeout=timeout)
    except socket.gaierror as exc:
        raise ConnectFailed(f"cannot resolve host name {endpoint.hostname}") from exc
    except TimeoutError as exc:
        raise CollectorTimeout(f"TCP connect to port {endpoint.port} timed out") from exc
    except ConnectionRefusedError as exc:
        raise ConnectFailed(f"connection refused on port {endpoint.port}") from exc
    except OSError as exc:
        raise ConnectFailed(f"cannot connect: {exc.strerror or exc}") from exc


def _jump_channel(
    bastion: paramiko.Transport, endpoint: SshEndpoint, budget: Budget
) -> paramiko.Channel:
    try:
        return bastion.open_channel(
            "direct-tcpip",
            (endpoint.hostname, endpoint.port),
            ("127.0.0.1", 0),
            timeout=budget.remaining(),
        )
    except paramiko.ChannelException as exc:
        raise ConnectFailed(f"jump host could not connect to the target: {exc.text}") from exc
    except (paramiko.SSHException, EOFError, OSError) as exc:
        raise transport_failure("jump host connection", exc) from exc
