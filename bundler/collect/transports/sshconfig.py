"""Where an SSH target really is: ``[user@]host[:port]`` resolved through ``~/.ssh/config``.

Support engineers' fleets are described in their ssh_config already
(HostName, User, Port, IdentityFile, ProxyJump through a bastion), so an
inventory can say ``address: worker-a`` and mean what ``ssh worker-a``
means. Values given in the address win over the config, as on the ssh
command line. Jump hosts are resolved through the config too, like OpenSSH.
"""

from __future__ import annotations

import getpass
from dataclasses import dataclass, field, replace
from pathlib import Path

import paramiko

from ...errors import UsageError
from .address import parse_address
from .sshconfig_index import StanzaIndex

DEFAULT_IDENTITIES = ("id_ed25519", "id_ecdsa", "id_rsa")
MAX_JUMPS = 8


@dataclass(frozen=True)
class SshEndpoint:
    """Everything needed to reach one host (its jump chain resolved, outermost first)."""

    name: str
    """What the user wrote (an address or a config alias)."""
    hostname: str
    port: int
    user: str
    identity_files: tuple[Path, ...] = ()
    identities_only: bool = False
    jumps: tuple[SshEndpoint, ...] = ()
    host_key_alias: str | None = None
    connect_timeout: float | None = None
    proxy_command: str | None = field(default=None, repr=False)
    known_hosts_files: tuple[Path, ...] = ()
    """``UserKnownHostsFile`` from the config (used when --known-hosts is not given)."""

    @property
    def label(self) -> str:
        return f"{self.user}@{self.hostname}:{self.port}"

    @property
    def key(self) -> tuple[str, int, str, tuple[str, ...]]:
        """Identity of a connection (for sharing bastion connections)."""
        return (self.hostname, self.port, self.user, tuple(j.label for j in self.jumps))


class SshConfigResolver:
    """Resolves addresses through one ssh_config file (or none)."""

    def __init__(self, path: Path | None, *, home: Path | None = None) -> None:
        self.path = path
        self.home = home or Path.home()
        config = paramiko.SSHConfig()
        if path is not None and path.exists():
            try:
                config = paramiko.SSHConfig.from_path(str(path))
            except (OSError, paramiko.SSHException, ValueError) as exc:
                raise UsageError(f"cannot read ssh config {path}: {exc}") from exc
        self._config: StanzaIndex | None = StanzaIndex(config)

    def release(self) -> None:
        """Let go of the parsed file once every host is resolved; ``resolve`` then refuses.

        Doctor resolves all its hosts (and their jump hosts) before the first connection;
        at 1,000 ``Host`` stanzas the parsed file and its index are ~2 MB that would
        otherwise be held through the whole run.
        """
        self._config = None

    def resolve(self, text: str, *, _depth: int = 0) -> SshEndpoint:
        if self._config is None:
            raise RuntimeError("ssh config released: hosts are resolved before the run")
        address = parse_address(text)
        try:
            options = self._config.lookup(address.host)
        except Exception as exc:  # paramiko raises bare errors for e.g. Match exec without invoke
            raise UsageError(f"ssh config {self.path}: cannot evaluate it for {text!r}") from exc
        port = address.port or int(options.get("port", 22))
        user = address.user or options.get("user") or getpass.getuser()
        identities = tuple(Path(p).expanduser() for p in options.get("identityfile", []))
        jumps: tuple[SshEndpoint, ...] = ()
        jump_spec = options.get("proxyjump")
        if jump_spec and jump_spec.lower() != "none":
            if _depth >= MAX_JUMPS:
                raise UsageError(f"ProxyJump chain for {text!r} is longer than {MAX_JUMPS}")
            chain: list[SshEndpoint] = []
            for hop in jump_spec.split(","):
                resolved = self.resolve(hop.strip(), _depth=_depth + 1)
                chain.extend(resolved.jumps)
                chain.append(_without_jumps(resolved))
            jumps = tuple(chain)
        timeout = options.get("connecttimeout")
        return SshEndpoint(
            name=text,
            hostname=options.get("hostname", address.host),
            port=port,
            user=user,
            identity_files=identities,
            identities_only=options.get("identitiesonly", "no").lower() == "yes",
            jumps=jumps,
            host_key_alias=options.get("hostkeyalias"),
            connect_timeout=float(timeout) if timeout else None,
            proxy_command=options.get("proxycommand"),
            known_hosts_files=tuple(
                Path(p).expanduser() for p in str(options.get("userknownhostsfile", "")).split()
            ),
        )

    def default_identities(self) -> tuple[Path, ...]:
        return tuple(self.home / ".ssh" / name for name in DEFAULT_IDENTITIES)


def _without_jumps(endpoint: SshEndpoint) -> SshEndpoint:
    return replace(endpoint, jumps=())
