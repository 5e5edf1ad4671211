"""Hostile or broken worker hosts over real OpenSSH sshd: login shells that print before our
command (a greeting, a flood) or never run it."""

from __future__ import annotations

import threading
import time
import tracemalloc
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectError, CollectorTimeout, TransportError
from bundler.collect.tasks.clock import read_clock
from bundler.collect.tasks.logs import LogOptions, collect_file_log
from bundler.collect.transports.sshhost import SshHost
from tests.collect.sshkit import connect
from tests.support.sshd import SshLab

pytestmark = pytest.mark.sshd

GREETING = "echo 'Welcome to worker-a'\necho 'motd: be nice' >&2\n"


def _host(lab: SshLab, shell_rc: str, *, sftp: bool = True) -> SshHost:
    instance = lab.start("hostile", shell_rc=shell_rc, sftp=sftp)
    lab.add_host("hostile", instance)
    lab.trust(instance)
    return connect(lab, "hostile").host


def test_what_a_greeting_login_shell_prints_never_reaches_the_evidence(
    ssh_lab: SshLab, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_text("2025-03-01 12:00:00 INFO one\n2025-03-01 12:00:01 INFO two\n")
    host = _host(ssh_lab, GREETING, sftp=False)  # the stat / tail | head fallback
    try:
        ran = host.run(["cat", str(log)], budget=Budget.start(10), max_bytes=1000)
        shelled = host.shell("echo hello", budget=Budget.start(10), max_bytes=1000)
        info = host.stat(str(log), budget=Budget.start(10))
        got = collect_file_log(host, str(log), LogOptions(1000, None), Budget.start(10))
        missing = host.run(["no-such-program-x"], budget=Budget.start(10), max_bytes=1000)
    finally:
        host.close()
    assert ran.exit_code == 0
    assert ran.stdout.content == log.read_bytes()
    assert shelled.stdout.content == b"hello\n"
    assert (info.size, info.is_regular) == (log.stat().st_size, True)
    assert got.content.content == log.read_bytes()
    assert missing.exit_code == 127  # still "not installed", not a shell problem


def test_a_login_shell_that_floods_stdout_is_bounded_by_time_and_memory(
    ssh_lab: SshLab,
) -> None:
    host = _host(ssh_lab, "cat /dev/zero\n")
    outcome: list[BaseException | object] = []

    def probe() -> None:
        try:
            outcome.append(read_clock(host, Budget.start(2), then="echo hi", max_bytes=4096))
        except BaseException as exc:  # recorded for the assertion
            outcome.append(exc)

    tracemalloc.start()
    try:
        started = time.monotonic()
        worker = threading.Thread(target=probe, daemon=True)
        worker.start()
        worker.join(15)
        took = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        host.close()  # ends a probe still reading, so no thread outlives the test
        worker.join(10)
    assert took < 6, f"the 2 s budget was not honoured ({took:.1f} s)"
    assert len(outcome) == 1, outcome
    assert isinstance(outcome[0], CollectorTimeout), outcome
    assert peak < 16 * 1024 * 1024, f"held {peak / 1e6:.0f} MB of the login shell's output"


def test_a_login_shell_that_refuses_to_run_commands_says_so(ssh_lab: SshLab) -> None:
    host = _host(ssh_lab, "echo 'This account is currently not available.'\nexit 1\n", sftp=False)
    try:
        with pytest.raises(TransportError) as ran:
            host.run(["uname"], budget=Budget.start(10), max_bytes=1000)
        with pytest.raises(CollectError) as probed:
            read_clock(host, Budget.start(10))
    finally:
        host.close()
    assert "login shell did not run the command (exit 1)" in ran.value.message
    assert "This account is currently not available." in ran.value.message
    assert "This account is currently not available." in probed.value.message
