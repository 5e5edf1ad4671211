"""How a remote command ends, over real OpenSSH sshd: silently failing, killed by a signal,
cut off with its connection, stopped at its timeout while it floods."""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectError, CollectorTimeout, CommandFailed, TransportError
from bundler.collect.tasks.logs import LogOptions, collect_unit_log
from bundler.collect.transports.local import LocalHost
from bundler.collect.transports.runner import CommandResult, HostRunner
from bundler.collect.transports.sshhost import SshHost
from samples.stopping import descendants
from tests.collect.sshkit import connect, trusted_host
from tests.support.sshd import SshLab

pytestmark = pytest.mark.sshd


@pytest.fixture
def host(ssh_lab: SshLab) -> Iterator[SshHost]:
    with trusted_host(ssh_lab, "ends") as connected:
        yield connected


class _Renamed:
    """The SSH host, with one program name replaced by a script of the test's (the test host
    has no journald; what is tested is how bundler words what the command did)."""

    transport = "ssh"

    def close(self) -> None:
        self._host.close()

    def __init__(self, host: HostRunner, name: str, script: Path) -> None:
        self._host, self._name, self._script = host, name, script

    def run(self, argv: Sequence[str], **kwargs: object) -> CommandResult:
        swapped = [str(self._script) if a == self._name else a for a in argv]
        return self._host.run(swapped, **kwargs)  # type: ignore[arg-type]


def _script(tmp_path: Path, body: str) -> Path:
    path = tmp_path / "fake-journalctl"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(0o755)
    return path


def test_a_journalctl_failing_silently_ends_its_message_with_the_exit_code(
    host: SshHost, tmp_path: Path
) -> None:
    runner = _Renamed(host, "journalctl", _script(tmp_path, "exit 3"))
    with pytest.raises(CommandFailed) as failed:
        collect_unit_log(
            runner,  # type: ignore[arg-type]
            "flux-worker",
            LogOptions(4096, None),
            Budget.start(10),
            lambda text: text,
        )
    assert failed.value.message == "journalctl exit 3"


def test_a_command_killed_by_a_signal_says_which(host: SshHost) -> None:
    killed = host.run(["sh", "-c", "kill -KILL $$"], budget=Budget.start(10), max_bytes=100)
    exited = host.run(["sh", "-c", "exit 3"], budget=Budget.start(10), max_bytes=100)
    assert (killed.ending, killed.signal) == ("killed by signal KILL", "KILL")
    assert (exited.ending, exited.signal) == ("exit 3", None)


@pytest.mark.parametrize("attempt", range(3))
def test_a_connection_lost_while_a_command_runs_is_a_transport_error(
    ssh_lab: SshLab, attempt: int
) -> None:
    """paramiko closes a dying connection's channels before it marks the connection
    inactive: asked in between, the lost connection read as ``CommandFailed exit -1``."""
    instance = ssh_lab.start("lost")
    ssh_lab.add_host("lost", instance)
    ssh_lab.trust(instance)
    host = connect(ssh_lab, "lost").host
    assert instance.process is not None
    outcome: list[object] = []

    def run() -> None:
        try:
            outcome.append(host.run(["sleep", "20"], budget=Budget.start(15), max_bytes=100))
        except CollectError as exc:
            outcome.append(exc)

    worker = threading.Thread(target=run, daemon=True)
    try:
        worker.start()
        deadline = time.monotonic() + 10
        while not any(_is_sleep(pid) for pid in descendants(instance.process.pid)):
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.05)
        for pid in descendants(instance.process.pid):
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        worker.join(10)
    finally:
        host.close()
        worker.join(10)
    assert len(outcome) == 1
    assert isinstance(outcome[0], TransportError), outcome[0]
    assert outcome[0].message == "SSH command failed: the connection was lost"


def _is_sleep(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/comm").read_text().strip() == "sleep"
    except OSError:
        return False


@pytest.mark.parametrize("where", ["ssh", "local"])
def test_a_journal_flooding_until_its_timeout_keeps_what_it_printed(
    host: SshHost, tmp_path: Path, where: str
) -> None:
    """Every journal line is evidence on its own: the head and the tail read until the
    timeout are kept, marked truncated, and the collector still says it timed out."""
    flood = _script(tmp_path, "yes '2025-03-01 12:00:00 INFO flood'")
    runner = _Renamed(host if where == "ssh" else LocalHost(), "journalctl", flood)
    got = collect_unit_log(
        runner,  # type: ignore[arg-type]
        "flux-worker",
        LogOptions(64 * 1024, None),
        Budget.start(2),
        lambda text: text,
    )
    assert got.content.truncated
    assert got.content.content.startswith(b"2025-03-01 12:00:00 INFO flood\n")
    assert b"[bundler truncated]" in got.content.content
    assert got.note is not None
    assert got.note.startswith("the command was stopped at its timeout")
    assert isinstance(got.error, CollectorTimeout)
    assert got.error.error_class == "CollectorTimeout"
