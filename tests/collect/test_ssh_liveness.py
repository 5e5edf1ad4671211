"""SSH connections whose peer goes away or stalls: over real OpenSSH sshd (through a relay
that can forget its connections, as a rebooted host does), and, for what sshd never does
(leave a subsystem request unanswered, trickle bytes), a small paramiko server."""

from __future__ import annotations

import contextlib
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectError, CollectorTimeout, TransportError
from bundler.collect.tasks.logs import CollectedLog, LogOptions, collect_file_log
from bundler.collect.transports import sftp, ssh
from bundler.collect.transports.sshhost import SshHost
from samples.stopping import descendants
from tests.collect.sshkit import connect
from tests.support.paramiko_sshd import HostileSshServer, trust
from tests.support.sshd import SshdInstance, SshLab

pytestmark = pytest.mark.sshd


class ForgetfulRelay:
    """A TCP relay on 127.0.0.1 to one sshd. After :meth:`forget` it relays nothing more, and
    answers the next bytes the client sends with a reset: a host that rebooted and lost the
    connection says nothing until it is spoken to."""

    def __init__(self, upstream: SshdInstance) -> None:
        self.upstream = upstream
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.forgotten = threading.Event()
        self.sockets: list[socket.socket] = [self.listener]
        self.threads = [threading.Thread(target=self._accept, daemon=True)]
        self.threads[0].start()

    def forget(self) -> None:
        self.forgotten.set()

    def close(self) -> None:
        for sock in self.sockets:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
            sock.close()
        for thread in self.threads:
            thread.join(5)

    def _accept(self) -> None:
        with contextlib.suppress(OSError):
            client, _ = self.listener.accept()
            server = socket.create_connection((self.upstream.host, self.upstream.port))
            self.sockets += [client, server]
            for source, sink, from_client in ((client, server, True), (server, client, False)):
                thread = threading.Thread(
                    target=self._pump, args=(source, sink, from_client), daemon=True
                )
                self.threads.append(thread)
                thread.start()

    def _pump(self, source: socket.socket, sink: socket.socket, from_client: bool) -> None:
        with contextlib.suppress(OSError):
            while data := source.recv(65536):
                if self.forgotten.is_set():
                    if from_client:  # a reset: SO_LINGER 0, then close
                        source.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")
                        source.close()
                    return
                sink.sendall(data)


@pytest.fixture
def relay(ssh_lab: SshLab) -> Iterator[ForgetfulRelay]:
    instance = ssh_lab.start("behind")
    relaying = ForgetfulRelay(instance)
    ssh_lab.add_host("relayed", port=relaying.port, extra=f"  HostKeyAlias {instance.name}")
    with ssh_lab.known_hosts.open("a") as handle:
        handle.write(f"{instance.name} {instance.host_key.public_line}\n")
    try:
        yield relaying
    finally:
        relaying.close()


def test_a_peer_that_lost_the_connection_is_noticed_before_the_budget_ends(
    ssh_lab: SshLab, relay: ForgetfulRelay, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A quiet command sends nothing back; without a keepalive, nothing is sent either, and
    the reboot goes unnoticed until the collector's whole budget is spent."""
    monkeypatch.setattr(ssh, "KEEPALIVE_S", 1, raising=False)
    host = connect(ssh_lab, "relayed").host
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(host.run(["sleep", "30"], budget=Budget.start(10), max_bytes=100))
        except CollectError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    assert relay.upstream.process is not None
    try:
        worker.start()
        deadline = time.monotonic() + 10
        while len(descendants(relay.upstream.process.pid)) < 2:  # the session and its command
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.05)
        relay.forget()
        forgotten = time.monotonic()
        worker.join(15)
        took = time.monotonic() - forgotten
    finally:
        host.close()
        worker.join(10)
    assert len(outcome) == 1
    assert isinstance(outcome[0], TransportError), outcome[0]
    assert took < 5, f"the lost connection was noticed only after {took:.1f} s"


def _in_thread(
    call: Callable[[], object], host: SshHost, wait_s: float = 15
) -> tuple[object, float]:
    """``call``'s result or CollectError, and how long it took; the host is closed after, so
    a call still waiting (the bug) ends and no thread outlives the test."""
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(call())
        except CollectError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    started = time.monotonic()
    try:
        worker.start()
        worker.join(wait_s)
        took = time.monotonic() - started
    finally:
        host.close()
        worker.join(10)
    return (outcome[0] if outcome else "still waiting"), took


@pytest.fixture
def silent(ssh_lab: SshLab) -> Iterator[SshHost]:
    server = HostileSshServer(ssh_lab, subsystem="silent")
    try:
        yield connect(ssh_lab, trust(ssh_lab, server, "silent")).host
    finally:
        server.close()


def test_an_sftp_subsystem_request_never_answered_ends_with_the_budget(
    silent: SshHost, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_text("one\n")
    got, took = _in_thread(lambda: silent.stat(str(log), budget=Budget.start(2)), silent)
    assert isinstance(got, CollectorTimeout), got
    assert took < 3.5, f"the 2 s budget was not honoured ({took:.1f} s)"


def test_a_host_that_never_answers_the_subsystem_request_is_read_with_commands(
    silent: SshHost, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sftp, "SUBSYSTEM_ANSWER_S", 0.5, raising=False)
    log = tmp_path / "app.log"
    log.write_text("one\ntwo\n")
    got, _ = _in_thread(
        lambda: collect_file_log(silent, str(log), LogOptions(4096, None), Budget.start(10)),
        silent,
    )
    assert isinstance(got, CollectedLog), got
    assert got.content.content == b"one\ntwo\n"


def test_an_sftp_server_trickling_bytes_ends_a_read_by_the_budget(
    ssh_lab: SshLab, tmp_path: Path
) -> None:
    """paramiko's channel timeout restarts with every packet: a byte every 20 ms kept a
    100 kB read going for half an hour."""
    log = tmp_path / "app.log"
    log.write_text("x" * 100_000)
    server = HostileSshServer(ssh_lab, subsystem="trickle")
    try:
        host = connect(ssh_lab, trust(ssh_lab, server, "trickle")).host
        got, took = _in_thread(
            lambda: host.read_range(str(log), 0, 100_000, budget=Budget.start(2)), host
        )
    finally:
        server.close()
    assert isinstance(got, CollectorTimeout), got
    assert took < 3.5, f"the 2 s budget was not honoured ({took:.1f} s)"
