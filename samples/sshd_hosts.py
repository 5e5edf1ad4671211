"""Real OpenSSH ``sshd`` instances on 127.0.0.1, each standing in for one worker host.

The LyftData simulator prepares what a worker host leaves on disk (state
directory, logs, stand-in tools), but ``bundler doctor`` reaches hosts over
SSH. For the demo and the sample regeneration each prepared host gets its own
sshd on an ephemeral port, with the host's stand-in tools first on ``PATH``
(sshd ``SetEnv``), so the bundles come from the real SSH collection path:
host keys checked against a ``known_hosts`` file, a client key, real commands.

Everything is hermetic: pass :attr:`SshdHosts.ssh_config` and
:attr:`SshdHosts.known_hosts` to ``bundler doctor``; nothing in ``~/.ssh`` is
read or written. Every sshd is stopped on exit, also on failure or Ctrl-C.
The test suite has a richer version of this (``tests/support/sshd.py``:
bastions, changed keys, namespaces); this one does only what samples need.
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519

from .listening import listens_on
from .stopping import die_with_parent, stop_child

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
START_TIMEOUT_S = 10.0
BASE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


def sshd_unavailable_reason() -> str | None:
    """Why real sshd hosts cannot run here (``None`` when they can)."""
    if not Path(SSHD).exists():
        return "OpenSSH sshd is not installed (Debian: openssh-server)"
    if os.geteuid() != 0:
        return "sshd hosts need root (sshd must switch users)"
    return None


def _write_key(path: Path) -> str:
    """An unencrypted ed25519 key (OpenSSH format, 0600); returns the public line."""
    key = ed25519.Ed25519PrivateKey.generate()
    path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.OpenSSH,
            serialization.NoEncryption(),
        )
    )
    path.chmod(0o600)
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    return public.decode()


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class SshdHost:
    alias: str
    port: int
    process: subprocess.Popen[bytes]

    def stop(self) -> None:
        stop_child(self.process)


class SshdHosts:
    """A client key, an ``ssh_config``, a ``known_hosts`` and one sshd per host alias."""

    def __init__(self, root: Path | None = None) -> None:
        self._own_root = root is None
        self.root = root or Path(tempfile.mkdtemp(prefix="bundler-sshd-hosts-"))
        self.root.mkdir(parents=True, exist_ok=True)
        self.client_key = self.root / "id_ed25519"
        self.authorized_keys = self.root / "authorized_keys"
        self.authorized_keys.write_text(_write_key(self.client_key) + "\n")
        self.ssh_config = self.root / "ssh_config"
        self.ssh_config.write_text("")
        self.known_hosts = self.root / "known_hosts"
        self.known_hosts.write_text("")
        self.hosts: list[SshdHost] = []

    def __enter__(self) -> SshdHosts:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    @property
    def pids(self) -> list[int]:
        return [host.process.pid for host in self.hosts]

    def add(self, alias: str, *, path_prefix: str) -> SshdHost:
        """Start an sshd for ``alias`` whose sessions see ``path_prefix`` first on PATH.

        Retries on the (rare) race where another process takes the port first.
        """
        directory = self.root / alias
        directory.mkdir(exist_ok=True)
        host_key = directory / "ssh_host_ed25519_key"
        public = _write_key(host_key)
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        for _ in range(5):
            port = _free_port()
            config = directory / "sshd_config"
            config.write_text(self._sshd_config(port, host_key, directory, path_prefix))
            log = directory / "sshd.log"
            with log.open("ab") as out:
                process = subprocess.Popen(
                    [SSHD, "-D", "-e", "-f", str(config)],
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=out,
                    preexec_fn=die_with_parent(),
                )
            host = SshdHost(alias, port, process)
            self.hosts.append(host)
            if self._ready(host):
                self._write_client_side(alias, port, public)
                return host
            host.stop()
            if "Address already in use" not in log.read_text(errors="replace"):
                break
        tail = (directory / "sshd.log").read_text(errors="replace")[-300:]
        raise RuntimeError(f"sshd for {alias} did not start: {tail.strip()}")

    def _sshd_config(self, port: int, host_key: Path, directory: Path, path_prefix: str) -> str:
        return "\n".join(
            [
                f"Port {port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {host_key}",
                f"AuthorizedKeysFile {self.authorized_keys}",
                f"PidFile {directory / 'sshd.pid'}",
                "PermitRootLogin prohibit-password",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "UsePAM no",
                "StrictModes no",
                "UseDNS no",
                "PermitTTY no",
                "MaxSessions 50",
                "LogLevel ERROR",
                f"SetEnv PATH={path_prefix}:{BASE_PATH}",
                "",
            ]
        )

    @staticmethod
    def _ready(host: SshdHost) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if host.process.poll() is not None:
                return False
            if listens_on(host.process.pid, host.port):  # not another sshd on it
                return True
            time.sleep(0.05)
        return False

    def _write_client_side(self, alias: str, port: int, host_public_key: str) -> None:
        user = pwd.getpwuid(os.geteuid()).pw_name
        with self.ssh_config.open("a") as config:
            config.write(
                f"Host {alias}\n  HostName 127.0.0.1\n  Port {port}\n  User {user}\n"
                f"  IdentityFile {self.client_key}\n  IdentitiesOnly yes\n\n"
            )
        with self.known_hosts.open("a") as known:
            known.write(f"[127.0.0.1]:{port} {host_public_key}\n")

    def close(self) -> None:
        for host in reversed(self.hosts):
            host.stop()
        self.hosts.clear()
        if self._own_root:
            shutil.rmtree(self.root, ignore_errors=True)
