"""How a remote command ends, over real OpenSSH sshd: silently failing, killed by a signal,
cut off with its connection, stopped at its timeout while it floods."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CommandFailed
from bundler.collect.tasks.logs import LogOptions, collect_unit_log
from bundler.collect.transports.runner import CommandResult
from bundler.collect.transports.sshhost import SshHost
from tests.collect.sshkit import connect
from tests.support.sshd import SshLab

pytestmark = pytest.mark.sshd


@pytest.fixture
def host(ssh_lab: SshLab) -> Iterator[SshHost]:
    instance = ssh_lab.start("ends")
    ssh_lab.add_host("ends", instance)
    ssh_lab.trust(instance)
    connected = connect(ssh_lab, "ends").host
    try:
        yield connected
    finally:
        connected.close()


class _Renamed:
    """The SSH host, with one program name replaced by a script of the test's (the test host
    has no journald; what is tested is how bundler words what the command did)."""

    transport = "ssh"

    def __init__(self, host: SshHost, name: str, script: Path) -> None:
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
