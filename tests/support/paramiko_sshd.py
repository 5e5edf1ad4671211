"""A small SSH server written with paramiko, on 127.0.0.1, for what OpenSSH sshd never does.

sshd always answers a subsystem request and sends what its SFTP server writes as fast as
it can. A hostile or broken host may do neither; this server can:

* ``subsystem="silent"``: never answer the SFTP subsystem request (the request is dropped
  before paramiko's server would answer it);
* ``subsystem="trickle"``: run the real OpenSSH ``sftp-server`` and relay its first
  :data:`FAST_BYTES` at once (the version exchange, a ``stat``), then one byte every
  :data:`TRICKLE_S`.

Commands (``exec``) run with ``/bin/sh -c`` on this machine, so a client's fallback to
commands works. Authentication accepts the lab's user key only. Every thread and process
it starts stops at :meth:`HostileSshServer.close`.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import threading
import time
from typing import Literal

import paramiko
from paramiko.common import MSG_CHANNEL_REQUEST

from tests.support.sshd import SFTP_SERVER, KeyPair, SshLab, generate_key

FAST_BYTES = 4096
TRICKLE_S = 0.02


class _Interface(paramiko.ServerInterface):
    def __init__(self, server: HostileSshServer) -> None:
        self.server = server

    def get_allowed_auths(self, username: str) -> str:
        return "publickey"

    def check_auth_publickey(self, username: str, key: paramiko.PKey) -> int:
        accepted = key.get_base64() == self.server.user_key.public_line.split()[1]
        return paramiko.AUTH_SUCCESSFUL if accepted else paramiko.AUTH_FAILED

    def check_channel_request(self, kind: str, chanid: int) -> int:
        if kind == "session":
            return paramiko.OPEN_SUCCEEDED
        return paramiko.OPEN_FAILED_ADMINISTRATIVELY_PROHIBITED

    def check_channel_exec_request(self, channel: paramiko.Channel, command: bytes) -> bool:
        self.server.spawn(self.server.run_command, channel, command.decode())
        return True

    def check_channel_subsystem_request(self, channel: paramiko.Channel, name: str) -> bool:
        if name != "sftp" or self.server.subsystem != "trickle":
            return False
        self.server.spawn(self.server.trickle_sftp, channel)
        return True


class HostileSshServer:
    """See the module's docstring; ``known_hosts_line`` is what a client must trust."""

    def __init__(
        self, lab: SshLab, *, subsystem: Literal["silent", "trickle", "none"] = "silent"
    ) -> None:
        self.user_key = lab.user_key
        self.subsystem = subsystem
        self.host_key: KeyPair = generate_key(lab.root / f"paramiko_host_key_{id(self)}")
        self._key = paramiko.Ed25519Key.from_private_key_file(str(self.host_key.private_path))
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.known_hosts_line = f"[127.0.0.1]:{self.port} {self.host_key.public_line}"
        self._stopping = threading.Event()
        self._threads: list[threading.Thread] = []
        self._transports: list[paramiko.Transport] = []
        self._processes: list[subprocess.Popen[bytes]] = []
        self.spawn(self._accept)

    def spawn(self, target: object, *args: object) -> None:
        thread = threading.Thread(target=target, args=args, daemon=True)  # type: ignore[arg-type]
        self._threads.append(thread)
        thread.start()

    def close(self) -> None:
        self._stopping.set()
        with contextlib.suppress(OSError):
            self.listener.shutdown(socket.SHUT_RDWR)  # wakes accept(); close() alone does not
        self.listener.close()
        for transport in self._transports:
            transport.close()
        for process in self._processes:
            with contextlib.suppress(ProcessLookupError):
                process.kill()
            process.wait(5)
        for thread in self._threads:
            thread.join(5)

    # -- connections ---------------------------------------------------------------------------
    def _accept(self) -> None:
        while not self._stopping.is_set():
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            transport = paramiko.Transport(client)
            transport.add_server_key(self._key)
            if self.subsystem == "silent":
                _drop_subsystem_requests(transport)
            self._transports.append(transport)
            with contextlib.suppress(paramiko.SSHException, EOFError, OSError):
                transport.start_server(server=_Interface(self))

    def run_command(self, channel: paramiko.Channel, command: str) -> None:
        process = subprocess.Popen(
            ["/bin/sh", "-c", command],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self._processes.append(process)
        with contextlib.suppress(subprocess.TimeoutExpired, OSError, EOFError):
            out, err = process.communicate(timeout=30)
            channel.sendall(out)
            channel.sendall_stderr(err)
            channel.send_exit_status(process.returncode)
        with contextlib.suppress(OSError, EOFError):
            channel.close()

    def trickle_sftp(self, channel: paramiko.Channel) -> None:
        process = subprocess.Popen(
            [SFTP_SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0
        )
        self._processes.append(process)
        assert process.stdin is not None
        assert process.stdout is not None
        self.spawn(_to_process, channel, process.stdin)
        sent = 0
        with contextlib.suppress(OSError, EOFError):
            while not self._stopping.is_set() and (data := process.stdout.read(65536)):
                for at in range(len(data)):
                    if sent >= FAST_BYTES:
                        time.sleep(TRICKLE_S)
                        if self._stopping.is_set() or channel.closed:
                            return
                        channel.sendall(data[at : at + 1])
                    else:
                        channel.sendall(data[at : at + 1])
                    sent += 1


def _to_process(channel: paramiko.Channel, stdin: object) -> None:
    with contextlib.suppress(OSError, EOFError):
        while data := channel.recv(65536):
            stdin.write(data)  # type: ignore[attr-defined]


def _drop_subsystem_requests(transport: paramiko.Transport) -> None:
    """This transport never answers a ``subsystem`` request (and handles every other one)."""
    table = dict(type(transport)._channel_handler_table)  # type: ignore[attr-defined]
    handle = table[MSG_CHANNEL_REQUEST]

    def request(channel: paramiko.Channel, message: paramiko.Message) -> None:
        at = message.packet.tell()
        if message.get_text() == "subsystem":
            return
        message.packet.seek(at)
        handle(channel, message)

    table[MSG_CHANNEL_REQUEST] = request
    transport._channel_handler_table = table  # type: ignore[attr-defined]


def trust(lab: SshLab, server: HostileSshServer, alias: str) -> str:
    """An ssh_config entry and a known_hosts line for ``server``; returns the alias."""
    lab.add_host(alias, port=server.port)
    with lab.known_hosts.open("a") as handle:
        handle.write(server.known_hosts_line + "\n")
    return alias
