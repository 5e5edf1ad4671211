"""Hostile or broken worker hosts over real OpenSSH sshd: login shells that print before our
command (a greeting, a flood) or never run it, an SFTP server that stops answering."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
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
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from schemas import CollectorStatus
from tests.collect.sshkit import connect
from tests.support.sshd import SshdInstance, SshLab

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


def test_a_greeting_that_breaks_sftp_makes_the_host_fall_back_to_commands(
    ssh_lab: SshLab, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_text("2025-03-01 12:00:00 INFO one\n")
    inventory = tmp_path / "fleet.yaml"
    inventory.write_text(
        f"hosts:\n  - address: hostile\n    logs: [{{file: {log}}}, {{file: {tmp_path}/gone}}]\n"
    )
    ssh_lab.add_host("hostile", ssh_lab.start("hostile", shell_rc=GREETING))  # SFTP offered
    ssh_lab.trust(ssh_lab.instances[-1])
    outcome = run_doctor(
        DoctorRequest(
            inventory=inventory, ssh_config=ssh_lab.ssh_config, known_hosts=ssh_lab.known_hosts
        )
    )
    got = {o.id: (o.status, o.error_class) for o in outcome.result.outcomes}
    assert got["ssh.h01.logs.00"] == (CollectorStatus.OK, None)
    assert got["ssh.h01.logs.01"] == (CollectorStatus.FAILED, "FileMissing")
    assert "InternalError" not in {error for _, error in got.values()}


def _session_processes(instance: SshdInstance) -> list[int]:
    """The per-connection processes of an sshd this test started (its direct children)."""
    assert instance.process is not None
    listed = subprocess.run(
        ["ps", "-o", "pid=", "--ppid", str(instance.process.pid)],
        capture_output=True,
        text=True,
        check=False,
    )
    return [int(pid) for pid in listed.stdout.split()]


def test_an_sftp_server_that_stops_answering_is_a_timeout_within_the_budget(
    ssh_lab: SshLab, tmp_path: Path
) -> None:
    log = tmp_path / "app.log"
    log.write_text("x" * 100_000)
    instance = ssh_lab.start("stalls")
    ssh_lab.add_host("stalls", instance)
    ssh_lab.trust(instance)
    host = connect(ssh_lab, "stalls").host
    stopped: list[int] = []
    try:
        assert host.stat(str(log), budget=Budget.start(10)).size == 100_000  # SFTP is open
        stopped = _session_processes(instance)
        for pid in stopped:
            os.kill(pid, signal.SIGSTOP)
        started = time.monotonic()
        with pytest.raises(CollectorTimeout):
            host.read_range(str(log), 0, 100_000, budget=Budget.start(2))
        took = time.monotonic() - started
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        stopped = []
        again = host.read_range(str(log), 0, 10, budget=Budget.start(10))  # a fresh session
    finally:
        for pid in stopped:
            os.kill(pid, signal.SIGCONT)
        host.close()
    assert took < 3.5, f"the 2 s budget was not honoured ({took:.1f} s)"
    assert again == b"x" * 10


def test_a_connection_dropped_during_authentication_is_not_a_refused_key(
    ssh_lab: SshLab,
) -> None:
    # the command sshd asks for the user's keys kills the sshd process that asked
    kills_its_sshd = (
        "Match all\n  AuthorizedKeysFile none\n"
        '  AuthorizedKeysCommand /bin/sh -c "kill -KILL $PPID"\n'
        "  AuthorizedKeysCommandUser root\n"
    )
    instance = ssh_lab.start("drops", extra_config=kills_its_sshd)
    ssh_lab.add_host("drops", instance)
    ssh_lab.trust(instance)
    with pytest.raises(CollectError) as raised:
        connect(ssh_lab, "drops")
    assert type(raised.value) is TransportError, raised.value.message
    assert raised.value.message == "the server closed the connection during authentication"


def test_paramiko_log_lines_never_reach_stderr() -> None:
    """paramiko logs its transport thread's socket errors at ERROR ("Socket exception: Broken
    pipe (32)", seen when a flooding host's connection broke); without a handler, Python
    printed them raw on doctor's stderr, among its one-line messages."""
    emit = (
        "import logging, bundler.collect.transports.ssh;"
        "logging.getLogger('paramiko.transport').error('Socket exception: Broken pipe (32)')"
    )
    root = Path(__file__).resolve().parents[2]  # this checkout's bundler, not an installed one
    done = subprocess.run(
        [sys.executable, "-c", emit],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
