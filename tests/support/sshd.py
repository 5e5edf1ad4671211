"""Real OpenSSH ``sshd`` instances on 127.0.0.1, each standing for one host.

An :class:`SshLab` is a temporary directory holding a client key pair, an
``ssh_config`` and a ``known_hosts`` file (both hermetic: pass them as
``--ssh-config`` / ``--known-hosts``), and any number of sshd instances,
each with its own generated host key and ephemeral port. Tests write the
client-side files through the lab (:meth:`SshLab.add_host`,
:meth:`SshLab.trust`), so every scenario is explicit: a host that is down,
a changed host key, a wrong user key, a host behind a ProxyJump bastion
(:mod:`tests.support.netns`).

We run as root here: sshd is configured for it (``PermitRootLogin
prohibit-password``, ``UsePAM no``, ``StrictModes no``, ``/run/sshd``).

Usage::

    with SshLab() as lab:
        host = lab.start("web")
        lab.add_host("web", host)       # ssh_config entry, identity = lab key
        lab.trust(host)                 # known_hosts line
        ... run bundler with --ssh-config lab.ssh_config --known-hosts lab.known_hosts
"""

from __future__ import annotations

import base64
import hashlib
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ed25519, rsa

from samples.listening import listens_on
from samples.stopping import die_with_parent, stop_tree

SSHD = shutil.which("sshd") or "/usr/sbin/sshd"
SFTP_SERVER = next(
    (
        p
        for p in ("/usr/lib/openssh/sftp-server", "/usr/libexec/openssh/sftp-server")
        if Path(p).exists()
    ),
    "internal-sftp",
)
START_TIMEOUT_S = 10.0


def sshd_available() -> bool:
    return Path(SSHD).exists() and os.geteuid() == 0


@dataclass(frozen=True)
class KeyPair:
    private_path: Path
    public_line: str
    """``ssh-ed25519 AAAA...`` (no comment)."""

    @property
    def fingerprint(self) -> str:
        """OpenSSH-style ``SHA256:...`` fingerprint."""
        blob = base64.b64decode(self.public_line.split()[1])
        return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def generate_key(path: Path, kind: str = "ed25519") -> KeyPair:
    """Write an unencrypted private key (OpenSSH format, 0600) and its .pub; ed25519 or rsa."""
    key: ed25519.Ed25519PrivateKey | rsa.RSAPrivateKey = (
        rsa.generate_private_key(public_exponent=65537, key_size=2048)
        if kind == "rsa"
        else ed25519.Ed25519PrivateKey.generate()
    )
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.OpenSSH,
        serialization.NoEncryption(),
    )
    public = key.public_key().public_bytes(
        serialization.Encoding.OpenSSH, serialization.PublicFormat.OpenSSH
    )
    path.write_bytes(private)
    path.chmod(0o600)
    path.with_suffix(".pub").write_bytes(public + b"\n")
    return KeyPair(path, public.decode())


def _without_shell_rc(command: list[str], replacement: Path | None = None) -> list[str]:
    """``command`` in a private mount namespace with the login shell's rc file hidden
    (read as empty), or replaced: ``replacement`` is a directory holding the ``.bashrc``
    to read instead (a host whose login shell greets, floods or exits), mounted over the
    home directory when it has no rc file to mount over."""
    home = Path(pwd.getpwuid(os.geteuid()).pw_dir)
    rc = home / ".bashrc"
    if shutil.which("unshare") is None:
        if replacement is not None:
            raise RuntimeError("cannot give sshd another ~/.bashrc: no unshare")
        return command
    if replacement is not None:
        source, target = (replacement / ".bashrc", rc) if rc.exists() else (replacement, home)
    elif rc.exists():
        source, target = Path("/dev/null"), rc
    else:
        return command
    hide = 'mount --bind "$1" "$2" && shift 2 && exec "$@"'
    return [
        "unshare",
        "--mount",
        "--propagation",
        "private",
        "sh",
        "-c",
        hide,
        "sh",
        str(source),
        str(target),
        *command,
    ]


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (for 'host is down' and retrying binds)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


@dataclass
class SshdInstance:
    """One running sshd: where it listens and which host key it presents."""

    name: str
    host: str
    port: int
    host_key: KeyPair
    directory: Path
    process: subprocess.Popen[bytes] | None = None
    netns: str | None = None

    @property
    def known_hosts_name(self) -> str:
        return self.host if self.port == 22 else f"[{self.host}]:{self.port}"

    def known_hosts_line(self, key: KeyPair | None = None) -> str:
        return f"{self.known_hosts_name} {(key or self.host_key).public_line}"

    def log(self) -> str:
        path = self.directory / "sshd.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def stop(self) -> None:
        if self.process is not None:
            stop_tree(self.process)  # and its per-connection processes


@dataclass
class SshLab:
    """Client-side files plus the sshd instances of one test."""

    root: Path = field(default_factory=lambda: Path(tempfile.mkdtemp(prefix="bundler-sshlab-")))
    instances: list[SshdInstance] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        self.user_key = generate_key(self.root / "id_ed25519")
        self.ssh_config = self.root / "ssh_config"
        self.known_hosts = self.root / "known_hosts"
        self.known_hosts.write_text("")
        # Also usable with the OpenSSH client (`ssh -F lab.ssh_config alias`), jumps included.
        self.ssh_config.write_text(
            f"Host *\n  UserKnownHostsFile {self.known_hosts}\n  StrictHostKeyChecking yes\n"
            "  BatchMode yes\n  ConnectTimeout 5\n\n"
        )
        self.authorized_keys = self.root / "authorized_keys"
        self.authorized_keys.write_text(self.user_key.public_line + "\n")

    def __enter__(self) -> SshLab:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- servers ------------------------------------------------------------------------------
    def start(
        self,
        name: str,
        *,
        host: str = "127.0.0.1",
        port: int | None = None,
        netns: str | None = None,
        host_key: KeyPair | None = None,
        extra_host_keys: tuple[KeyPair, ...] = (),
        extra_config: str = "",
        sftp: bool = True,
        quiet_shell: bool = True,
        shell_rc: str | None = None,
    ) -> SshdInstance:
        """Start sshd (retrying on a port race); returns once it answers with a banner.

        ``quiet_shell``: run sshd in a private mount namespace where the login
        user's ``~/.bashrc`` reads as empty. bash sources it for every SSH
        command; on this machine it runs ``pyenv init`` (~0.35 s of CPU per
        command), which is the test host's environment, not what we test.
        ``shell_rc``: what that ``~/.bashrc`` reads as instead (a host whose login shell
        prints a banner, floods stdout, or exits before running anything).
        """
        directory = self.root / f"sshd-{name}"
        directory.mkdir(exist_ok=True)
        key = host_key or generate_key(directory / "ssh_host_ed25519_key")
        rc_dir = None
        if shell_rc is not None:
            rc_dir = directory / "home"
            rc_dir.mkdir(exist_ok=True)
            (rc_dir / ".bashrc").write_text(shell_rc)
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        last_error = ""
        for _ in range(5):
            chosen = port or free_port()
            instance = SshdInstance(name, host, chosen, key, directory, netns=netns)
            config = directory / "sshd_config"
            more = "".join(f"HostKey {k.private_path}\n" for k in extra_host_keys)
            config.write_text(self._sshd_config(instance, more + extra_config, sftp))
            command = [SSHD, "-D", "-e", "-f", str(config)]
            if quiet_shell or rc_dir is not None:
                command = _without_shell_rc(command, rc_dir)
            if netns:
                command = ["ip", "netns", "exec", netns, *command]
            log = (directory / "sshd.log").open("ab")
            instance.process = subprocess.Popen(
                command,
                stdout=log,
                stderr=log,
                stdin=subprocess.DEVNULL,
                preexec_fn=die_with_parent(),
            )
            log.close()
            self.instances.append(instance)
            if self._wait_ready(instance):
                return instance
            instance.stop()
            last_error = instance.log()[-500:]
            if port is not None or "Address already in use" not in last_error:
                break
        raise RuntimeError(f"sshd {name} did not start: {last_error}")

    def _sshd_config(self, instance: SshdInstance, extra: str, sftp: bool) -> str:
        return "\n".join(
            [
                f"Port {instance.port}",
                f"ListenAddress {instance.host}",
                f"HostKey {instance.host_key.private_path}",
                f"AuthorizedKeysFile {self.authorized_keys}",
                f"PidFile {instance.directory / 'sshd.pid'}",
                "PermitRootLogin prohibit-password",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PubkeyAuthentication yes",
                "UsePAM no",
                "StrictModes no",
                "UseDNS no",
                "MaxStartups 500",
                "MaxSessions 100",
                "AllowTcpForwarding yes",
                "PermitTTY no",
                "LogLevel ERROR",
                f"Subsystem sftp {SFTP_SERVER}" if sftp else "",
                extra,
                "",
            ]
        )

    def _wait_ready(self, instance: SshdInstance) -> bool:
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if instance.process is not None and instance.process.poll() is not None:
                return False
            if instance.process is not None and listens_on(instance.process.pid, instance.port):
                return True  # its own socket: a banner could be another test's sshd
            time.sleep(0.05)
        return False

    # -- client-side files -------------------------------------------------------------------
    def add_host(
        self,
        alias: str,
        instance: SshdInstance | None = None,
        *,
        hostname: str | None = None,
        port: int | None = None,
        user: str = "root",
        identity: Path | None = None,
        proxy_jump: str | None = None,
        identities_only: bool = True,
        extra: str = "",
    ) -> str:
        """Append a ``Host alias`` block to the lab's ssh_config; returns the alias."""
        lines = [
            f"Host {alias}",
            f"  HostName {hostname or (instance.host if instance else '127.0.0.1')}",
            f"  Port {port or (instance.port if instance else 22)}",
            f"  User {user}",
            f"  IdentityFile {identity or self.user_key.private_path}",
            f"  IdentitiesOnly {'yes' if identities_only else 'no'}",
        ]
        if proxy_jump:
            lines.append(f"  ProxyJump {proxy_jump}")
        if extra:
            lines.append(extra)
        with self.ssh_config.open("a") as handle:
            handle.write("\n".join(lines) + "\n\n")
        return alias

    def trust(self, instance: SshdInstance, key: KeyPair | None = None) -> None:
        """Add a known_hosts line for ``instance`` (with another ``key`` to fake a change)."""
        with self.known_hosts.open("a") as handle:
            handle.write(instance.known_hosts_line(key) + "\n")

    def close(self) -> None:
        for instance in reversed(self.instances):
            instance.stop()
        self.instances.clear()
        shutil.rmtree(self.root, ignore_errors=True)
