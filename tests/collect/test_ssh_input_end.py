"""A command's input over SSH, on real OpenSSH sshd: ended without ever costing the connection.

OpenSSH drops a whole connection when the client names a channel it has freed
("ieof packet referred to nonexistent channel"). paramiko writes a channel EOF
(``shutdown_write``) after letting go of the channel's lock, so a collector thread starved
there (a loaded CI machine) wrote it after the transport had answered the server's close:
every other collector of the host then read "the connection was lost". These tests hold a
lone EOF back until that close is answered, the order a starved thread produces, and the
connection must survive it.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import paramiko
import pytest
from paramiko.common import MSG_CHANNEL_CLOSE, cMSG_CHANNEL_EOF

from bundler.collect.budget import Budget
from bundler.collect.tasks.clock import read_clock
from bundler.collect.transports.sshhost import SshHost
from tests.collect.sshkit import trusted_host
from tests.support.sshd import SshLab

pytestmark = pytest.mark.sshd

HOLD_LIMIT_S = 10.0
"""How long a held EOF waits for the server's close at most (a bound, never a measure)."""


class _StarvedEof:
    """Holds every EOF a collector thread sends on an open channel of ``transport`` until the
    transport's thread has answered the server's close of that channel.

    That is the order a thread starved between paramiko's ``shutdown_write`` and its send
    produces; forced here so the test does not depend on the machine's load. Nothing is
    faked: the messages are paramiko's own, sent to a real sshd, only later."""

    def __init__(self, transport: paramiko.Transport) -> None:
        self.transport = transport
        self._answered: dict[int, threading.Event] = {}
        self._lock = threading.Lock()
        table = transport._channel_handler_table  # type: ignore[attr-defined]
        on_close = table[MSG_CHANNEL_CLOSE]

        def close(channel: paramiko.Channel, message: paramiko.Message) -> None:
            on_close(channel, message)  # paramiko answers with its own close here
            self._event(channel.remote_chanid).set()

        transport._channel_handler_table = {**table, MSG_CHANNEL_CLOSE: close}  # type: ignore[attr-defined]
        send = transport._send_user_message

        def held_back(message: paramiko.Message) -> None:
            raw = message.asbytes()
            if raw[:1] == cMSG_CHANNEL_EOF and threading.current_thread() is not transport:
                remote = int.from_bytes(raw[1:5], "big")
                if self._open(remote):
                    self._event(remote).wait(HOLD_LIMIT_S)
            send(message)

        transport.__dict__["_send_user_message"] = held_back

    def _event(self, remote: int) -> threading.Event:
        with self._lock:
            return self._answered.setdefault(remote, threading.Event())

    def _open(self, remote: int) -> bool:
        """Whether the channel the EOF names is still open on our side (``close()`` sends
        its EOF after marking the channel closed: that one is in order, never held)."""
        for channel in list(self.transport._channels.values()):  # type: ignore[attr-defined]
            if channel.remote_chanid == remote:
                return not channel.closed
        return False


@pytest.fixture
def host(ssh_lab: SshLab) -> Iterator[SshHost]:
    with trusted_host(ssh_lab, "input") as connected:
        yield connected


def _starve(host: SshHost) -> paramiko.Transport:
    transport: paramiko.Transport = host._connection  # the one link the host's collectors share
    _StarvedEof(transport)
    return transport


def test_a_command_that_ends_before_its_input_does_not_cost_the_connection(
    host: SshHost,
) -> None:
    transport = _starve(host)
    first = host.run(["true"], budget=Budget.start(20), max_bytes=100)
    second = host.run(["echo", "still connected"], budget=Budget.start(20), max_bytes=100)
    assert first.exit_code == 0
    assert second.stdout.content == b"still connected\n"
    assert transport.is_active()


def test_the_clock_probe_does_not_cost_the_connection(host: SshHost) -> None:
    transport = _starve(host)
    clock, rest, why = read_clock(host, Budget.start(20), then="echo facts")
    after = host.run(["echo", "still connected"], budget=Budget.start(20), max_bytes=100)
    assert why is None
    assert clock is not None
    assert rest == "facts\n"
    assert after.stdout.content == b"still connected\n"
    assert transport.is_active()


def test_a_command_that_reads_its_input_finds_it_ended(host: SshHost) -> None:
    """No EOF is sent before the close, so the input must be at its end some other way: a
    command reading it would otherwise wait for its timeout, as none does locally."""
    ran = host.run(["cat"], budget=Budget.start(20), max_bytes=100)
    assert (ran.exit_code, ran.stdout.content) == (0, b"")
