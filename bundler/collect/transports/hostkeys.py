"""Host-key trust: known_hosts is checked by default, and a changed key is never accepted.

Tools that disable host-key checking (sos collect, crashd) hand whoever sits
between the support engineer and the fleet a root shell *and* the bundle.
We follow OpenSSH's strict mode, Elastic's default:

* a key found in known_hosts for the host is accepted;
* a host with known keys but none matching is **refused** (``HostKeyChanged``),
  whatever the key type offered, always, even with ``--accept-new-host-keys``;
* a host with no known key is refused (``HostKeyUnknown``) unless
  ``--accept-new-host-keys``: then it is trusted on first use, its
  fingerprint recorded in the manifest and appended to the known_hosts file.

Lookup names follow OpenSSH: ``host`` on port 22, ``[host]:port`` otherwise
(or the config's ``HostKeyAlias``). Hashed known_hosts entries work.
"""

from __future__ import annotations

import base64
import fcntl
import hashlib
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import paramiko

from ..errors import HostKeyChanged, HostKeyUnknown

# Which key-exchange host-key algorithms verify a key of each known_hosts type.
_ALGORITHMS_FOR_TYPE = {"ssh-rsa": ("rsa-sha2-512", "rsa-sha2-256", "ssh-rsa")}


def fingerprint(key: paramiko.PKey) -> str:
    """OpenSSH's ``SHA256:<base64>`` fingerprint of a public key."""
    digest = hashlib.sha256(key.asbytes()).digest()
    return "SHA256:" + base64.b64encode(digest).decode().rstrip("=")


class KnownHostsBook:
    """Which known_hosts files each host is checked against.

    ``--known-hosts FILE`` applies to every host. Without it, a host whose
    ssh_config names ``UserKnownHostsFile`` is checked against those files (as
    ``ssh`` would), and every other host against ``~/.ssh/known_hosts``.
    """

    def __init__(
        self, default: Sequence[Path], *, explicit: bool = False, accept_new: bool = False
    ) -> None:
        self.explicit = explicit
        self.accept_new = accept_new
        self._lock = threading.Lock()
        self._books: dict[tuple[Path, ...], KnownHosts] = {}
        self.default = self._book(tuple(default))

    def for_files(self, configured: Sequence[Path]) -> KnownHosts:
        if self.explicit or not configured:
            return self.default
        return self._book(tuple(configured))

    def _book(self, paths: tuple[Path, ...]) -> KnownHosts:
        with self._lock:
            if paths not in self._books:
                self._books[paths] = KnownHosts(paths, accept_new=self.accept_new)
            return self._books[paths]


def lookup_name(host: str, port: int) -> str:
    return host if port == 22 else f"[{host}]:{port}"


@dataclass(frozen=True)
class HostKeyVerdict:
    fingerprint: str
    trusted_on_first_use: bool = False


class KnownHosts:
    """The known_hosts files of one host (all are read; new keys go to the first). Thread-safe."""

    def __init__(self, paths: Path | Sequence[Path], *, accept_new: bool = False) -> None:
        self.paths = (paths,) if isinstance(paths, Path) else tuple(paths)
        self.path = self.paths[0]
        self.accept_new = accept_new
        self._lock = threading.Lock()
        self._keys = paramiko.HostKeys()
        for path in self.paths:
            if path.exists():
                try:
                    self._keys.load(str(path))
                except (OSError, paramiko.SSHException) as exc:  # unreadable: trust nothing
                    raise OSError(f"cannot read known_hosts {path}: {exc}") from exc

    def known_types(self, name: str) -> list[str]:
        with self._lock:
            entry = self._keys.lookup(name)
            return list(entry.keys()) if entry else []

    def preferred_algorithms(self, name: str, offered: tuple[str, ...]) -> list[str]:
        """Host-key algorithms, those that can verify a known key first (as OpenSSH orders them)."""
        first: list[str] = []
        for key_type in self.known_types(name):
            first.extend(a for a in _ALGORITHMS_FOR_TYPE.get(key_type, (key_type,)) if a in offered)
        return first + [a for a in offered if a not in first]

    def verify(self, name: str, key: paramiko.PKey) -> HostKeyVerdict:
        """Accept, trust on first use, or raise HostKeyUnknown / HostKeyChanged."""
        print_ = fingerprint(key)
        with self._lock:
            entry = self._keys.lookup(name)
            known = list(entry.values()) if entry else []
            if any(k.asbytes() == key.asbytes() for k in known):
                return HostKeyVerdict(print_)
            if known:
                raise HostKeyChanged(
                    f"host key changed: offered {key.get_name()} {print_}, which is not the "
                    f"key known_hosts holds for this host; refusing to connect",
                    key_type=key.get_name(),
                    fingerprint=print_,
                )
            if not self.accept_new:
                raise HostKeyUnknown(
                    f"host key {key.get_name()} {print_} is not in known_hosts; verify it and "
                    "add it, or rerun with --accept-new-host-keys",
                    key_type=key.get_name(),
                    fingerprint=print_,
                )
            self._keys.add(name, key.get_name(), key)
            self._append(name, key)
            return HostKeyVerdict(print_, trusted_on_first_use=True)

    def _append(self, name: str, key: paramiko.PKey) -> None:
        """Append one line, creating the file (0600, directory 0700) if needed."""
        self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        descriptor = os.open(self.path, os.O_RDWR | os.O_APPEND | os.O_CREAT, 0o600)
        with os.fdopen(descriptor, "r+b") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                size = handle.seek(0, os.SEEK_END)
                needs_newline = size > 0 and os.pread(descriptor, 1, size - 1) != b"\n"
                line = f"{name} {key.get_name()} {key.get_base64()}\n"
                handle.write((("\n" if needs_newline else "") + line).encode())
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)
