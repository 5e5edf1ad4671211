"""A started server is ready when its own socket listens, not when its port answers."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from samples.listening import listens_on
from tests.support.sshd import SshLab, free_port, sshd_available

LISTENER = (
    "import socket, sys\n"
    "s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen()\n"
    "print(s.getsockname()[1], flush=True); sys.stdin.read()\n"
)


@pytest.fixture
def listener() -> Iterator[tuple[int, int]]:
    """(pid, port) of a child process listening on 127.0.0.1; stopped afterwards."""
    child = subprocess.Popen(
        [sys.executable, "-c", LISTENER], stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    try:
        assert child.stdout is not None
        yield child.pid, int(child.stdout.readline())
    finally:
        child.kill()
        child.wait()


def test_the_listening_process_is_told_apart_from_others(listener: tuple[int, int]) -> None:
    pid, port = listener
    assert listens_on(pid, port)
    assert not listens_on(pid, free_port())  # its socket, another port
    with socket.create_connection(("127.0.0.1", port)):  # a client of the port is no listener
        assert not listens_on(os.getpid(), port)


def test_an_exited_process_listens_nowhere(listener: tuple[int, int]) -> None:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    assert not listens_on(child.pid, listener[1])


@pytest.fixture
def imposter() -> Iterator[int]:
    """A port on which this process answers every connection with an OpenSSH banner."""
    server = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def answer() -> None:
        server.settimeout(0.1)
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                connection.sendall(b"SSH-2.0-OpenSSH_9.2p1 another test's sshd\r\n")

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield int(server.getsockname()[1])
    finally:
        stop.set()
        thread.join()
        server.close()


@pytest.mark.skipif(not sshd_available(), reason="OpenSSH sshd is not installed")
def test_an_sshd_that_lost_its_port_is_not_taken_for_ready(imposter: int) -> None:
    """sshd was ready once anything on its port answered ``SSH-``: a port race lost to
    another test's sshd handed the test that sshd, refused later for its host key."""
    with SshLab() as lab, pytest.raises(RuntimeError, match="Address already in use"):
        lab.start("late", port=imposter)
