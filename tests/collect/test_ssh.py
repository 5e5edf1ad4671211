"""SSH against real OpenSSH sshd: trust decisions, auth, commands, files, jump hosts."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import (
    AuthenticationFailed,
    CollectorTimeout,
    ConnectFailed,
    FileMissing,
    HostKeyChanged,
    HostKeyUnknown,
    WorkingDirectoryMissing,
)
from bundler.collect.tasks.logs import LogOptions, collect_file_log
from bundler.collect.transports.sshhost import SshHost
from tests.collect.sshkit import connect, connector
from tests.support.netns import NetNamespace
from tests.support.sshd import SshLab, free_port, generate_key

pytestmark = pytest.mark.sshd


def _healthy(lab: SshLab, name: str = "web") -> SshHost:
    instance = lab.start(name)
    lab.add_host(name, instance)
    lab.trust(instance)
    connection = connect(lab, name)
    assert connection.verdict.fingerprint == instance.host_key.fingerprint
    assert not connection.verdict.trusted_on_first_use
    return connection.host


def test_healthy_host_runs_commands(ssh_lab: SshLab) -> None:
    host = _healthy(ssh_lab)
    try:
        result = host.run(["uname", "-s"], budget=Budget.start(10), max_bytes=1000)
        assert result.exit_code == 0
        assert result.stdout.content == b"Linux\n"
        missing = host.run(["no-such-program-x"], budget=Budget.start(10), max_bytes=1000)
        assert missing.exit_code == 127
    finally:
        host.close()


def test_a_host_that_is_down_is_a_connect_failure(ssh_lab: SshLab) -> None:
    ssh_lab.add_host("down", hostname="127.0.0.1", port=free_port())
    with pytest.raises(ConnectFailed, match="refused"):
        connect(ssh_lab, "down")


def test_unknown_host_key_is_refused_before_authentication(ssh_lab: SshLab) -> None:
    instance = ssh_lab.start("new")
    ssh_lab.add_host("new", instance)
    with pytest.raises(HostKeyUnknown, match=re.escape(instance.host_key.fingerprint)):
        connect(ssh_lab, "new")
    assert ssh_lab.known_hosts.read_text() == ""


def test_accept_new_host_keys_trusts_on_first_use_and_remembers(ssh_lab: SshLab) -> None:
    instance = ssh_lab.start("new")
    ssh_lab.add_host("new", instance)
    ssh_lab.known_hosts.write_text("# no trailing newline")
    first = connect(ssh_lab, "new", accept_new=True)
    first.host.close()
    assert first.verdict.trusted_on_first_use
    assert first.verdict.fingerprint == instance.host_key.fingerprint
    lines = ssh_lab.known_hosts.read_text().splitlines()
    assert lines == ["# no trailing newline", instance.known_hosts_line()]
    second = connect(ssh_lab, "new")  # strict now, and it verifies
    second.host.close()
    assert not second.verdict.trusted_on_first_use


def test_changed_host_key_is_always_refused(ssh_lab: SshLab, tmp_path: Path) -> None:
    instance = ssh_lab.start("moved")
    ssh_lab.add_host("moved", instance)
    ssh_lab.trust(instance, key=generate_key(tmp_path / "other_key"))
    for accept_new in (False, True):
        with pytest.raises(HostKeyChanged, match="refusing"):
            connect(ssh_lab, "moved", accept_new=accept_new)
    # nothing was learned, and authentication never happened (no accepted key logged)
    assert instance.known_hosts_line() not in ssh_lab.known_hosts.read_text()


def test_wrong_user_key_is_refused(ssh_lab: SshLab, tmp_path: Path) -> None:
    instance = ssh_lab.start("web")
    wrong = generate_key(tmp_path / "wrong_key")
    ssh_lab.add_host("web", instance, identity=wrong.private_path)
    ssh_lab.trust(instance)
    with pytest.raises(AuthenticationFailed, match="no key was accepted"):
        connect(ssh_lab, "web")


def test_a_hung_command_times_out_and_is_killed_on_the_host(ssh_lab: SshLab) -> None:
    host = _healthy(ssh_lab)
    marker = "987.654"
    try:
        started = time.monotonic()
        with pytest.raises(CollectorTimeout):
            host.run(["sleep", marker], budget=Budget.start(1.0), max_bytes=1000)
        assert time.monotonic() - started < 2.5
    finally:
        host.close()
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        alive = subprocess.run(["pgrep", "-f", f"sleep {marker}"], capture_output=True, check=False)
        if alive.returncode != 0:
            break
        time.sleep(0.2)
    assert alive.returncode != 0, "the remote command outlived its budget"


def test_working_directory_and_arguments_are_quoted(ssh_lab: SshLab, tmp_path: Path) -> None:
    host = _healthy(ssh_lab)
    odd = tmp_path / "state dir; touch INJECTED"
    odd.mkdir()
    (odd / "flux.db").write_text("x")
    canary = tmp_path / "canary"
    try:
        listing = host.run(["ls", "-1"], budget=Budget.start(10), max_bytes=1000, cwd=str(odd))
        assert listing.stdout.content == b"flux.db\n"
        literal = host.run(
            ["ls", f"$(touch {canary})", "`id`"], budget=Budget.start(10), max_bytes=1000
        )
        assert literal.exit_code != 0
        with pytest.raises(WorkingDirectoryMissing):
            host.run(["ls"], budget=Budget.start(10), max_bytes=100, cwd=str(tmp_path / "nope"))
    finally:
        host.close()
    assert not canary.exists()
    assert not (tmp_path / "INJECTED").exists()


@pytest.mark.parametrize("sftp", [True, False], ids=["sftp", "no-sftp-fallback"])
def test_huge_log_is_read_as_head_and_tail(ssh_lab: SshLab, tmp_path: Path, sftp: bool) -> None:
    instance = ssh_lab.start("logs", sftp=sftp)
    ssh_lab.add_host("logs", instance)
    ssh_lab.trust(instance)
    log = tmp_path / "server.log"
    with log.open("w") as handle:
        for i in range(400_000):  # ~19 MB
            handle.write(f"2025-03-01 12:{i // 60 % 60:02d}:{i % 60:02d} - app - INFO - n={i}\n")
    host = connect(ssh_lab, "logs").host
    try:
        got = collect_file_log(host, str(log), LogOptions(200_000, 10_000), Budget.start(30))
        with pytest.raises(FileMissing):
            host.stat(str(tmp_path / "absent.log"), budget=Budget.start(5))
    finally:
        host.close()
    text = got.content.content.decode()
    lines = text.splitlines()
    assert lines[0].endswith("n=0")
    assert lines[-1].endswith("n=399999")
    assert got.content.truncated
    assert sum("[bundler truncated]" in ln for ln in lines) == 1
    assert len(got.content.content) < 200_000 + 500


def test_proxyjump_reaches_a_host_only_the_bastion_can_see(
    ssh_lab: SshLab, netns: NetNamespace
) -> None:
    bastion = ssh_lab.start("bastion", host=netns.inner_ip, port=22, netns=netns.name)
    inner_port = free_port()
    target = ssh_lab.start("inner", host="127.0.0.1", port=inner_port, netns=netns.name)
    ssh_lab.add_host("bastion", bastion)
    ssh_lab.add_host("inner", target, proxy_jump="bastion")
    ssh_lab.add_host("inner-direct", target)
    ssh_lab.trust(bastion)
    ssh_lab.trust(target)
    with pytest.raises(ConnectFailed):
        connect(ssh_lab, "inner-direct")
    shared = connector(ssh_lab)
    try:
        for _ in range(2):  # the second target reuses the bastion connection
            connection = shared.connect(shared.resolver.resolve("inner"), Budget.start(10))
            assert connection.verdict.fingerprint == target.host_key.fingerprint
            where = connection.host.run(
                ["ip", "-o", "addr"], budget=Budget.start(10), max_bytes=4000
            )
            connection.host.close()
            assert netns.inner_ip.encode() in where.stdout.content
        assert len(shared._bastions) == 1
    finally:
        shared.close()


def test_a_refused_bastion_key_names_the_jump_host(ssh_lab: SshLab, netns: NetNamespace) -> None:
    bastion = ssh_lab.start("bastion", host=netns.inner_ip, port=22, netns=netns.name)
    target = ssh_lab.start("inner", host="127.0.0.1", port=free_port(), netns=netns.name)
    ssh_lab.add_host("bastion", bastion)
    ssh_lab.add_host("inner", target, proxy_jump="bastion")
    ssh_lab.trust(target)  # the bastion's key is unknown
    with pytest.raises(HostKeyUnknown, match="jump host bastion"):
        connect(ssh_lab, "inner")


def test_keys_from_ssh_agent_are_used(
    ssh_lab: SshLab, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.support.requirements import need_executable

    agent = need_executable("ssh-agent")
    add = need_executable("ssh-add")
    socket_path = tmp_path / "agent.sock"
    process = subprocess.Popen([agent, "-D", "-a", str(socket_path)], stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 5
        while not socket_path.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        env = {"SSH_AUTH_SOCK": str(socket_path), "PATH": "/usr/bin:/bin"}
        subprocess.run(
            [add, str(ssh_lab.user_key.private_path)], env=env, check=True, capture_output=True
        )
        monkeypatch.setenv("SSH_AUTH_SOCK", str(socket_path))
        instance = ssh_lab.start("web")
        # no IdentityFile for this host: only the agent holds the key
        ssh_lab.add_host("web", instance, identity=tmp_path / "absent_key", identities_only=False)
        ssh_lab.trust(instance)
        conn = connector(ssh_lab)
        conn.use_agent = True
        try:
            connection = conn.connect(conn.resolver.resolve("web"), Budget.start(10))
            try:  # authenticated with the agent's key alone: a command runs
                ran = connection.host.run(["id", "-un"], budget=Budget.start(10), max_bytes=100)
                assert ran.exit_code == 0
            finally:
                connection.host.close()
        finally:
            conn.close()
    finally:
        process.terminate()
        process.wait(timeout=5)


def test_a_host_with_several_keys_is_verified_by_the_type_known_hosts_holds(
    ssh_lab: SshLab, tmp_path: Path
) -> None:
    rsa_key = generate_key(tmp_path / "ssh_host_rsa_key", "rsa")
    instance = ssh_lab.start("two-keys", extra_host_keys=(rsa_key,))
    ssh_lab.add_host("two-keys", instance)
    ssh_lab.trust(instance, key=rsa_key)  # only the RSA key is known (an older known_hosts)
    connection = connect(ssh_lab, "two-keys")
    connection.host.close()
    assert connection.verdict.fingerprint == rsa_key.fingerprint
    # a key of a type known_hosts does not hold, for a known host, is a change, not "new"
    other = tmp_path / "known_other"
    other.write_text(instance.known_hosts_line(generate_key(tmp_path / "k", "rsa")) + "\n")
    ssh_lab.known_hosts.write_text(other.read_text())
    with pytest.raises(HostKeyChanged):
        connect(ssh_lab, "two-keys", accept_new=True)


@pytest.mark.parametrize(
    ("behaviour", "error"),
    [("close", "TransportError"), ("silent", "CollectorTimeout")],
    ids=["closes-at-once", "never-sends-a-banner"],
)
def test_a_port_that_is_not_ssh(ssh_lab: SshLab, behaviour: str, error: str) -> None:
    import socket
    import threading

    from bundler.collect.errors import CollectError

    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(4)
    stop = threading.Event()
    accepted: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(0.1)
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            if behaviour == "close":
                conn.close()
            else:
                accepted.append(conn)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        ssh_lab.add_host("not-ssh", hostname="127.0.0.1", port=listener.getsockname()[1])
        started = time.monotonic()
        with pytest.raises(CollectError) as raised:
            connect(ssh_lab, "not-ssh", timeout=1.5)
        assert type(raised.value).__name__ == error
        assert time.monotonic() - started < 4
    finally:
        stop.set()
        thread.join(timeout=5)
        for conn in accepted:
            conn.close()
        listener.close()


def test_the_clock_round_trip_leaves_out_shell_start_up(ssh_lab: SshLab) -> None:
    from bundler.collect.tasks.clock import read_clock

    instance = ssh_lab.start("slow-shell", quiet_shell=False)  # the real ~/.bashrc, if heavy
    ssh_lab.add_host("slow-shell", instance)
    ssh_lab.trust(instance)
    host = connect(ssh_lab, "slow-shell").host
    try:
        started = time.monotonic()
        clock, rest, error = read_clock(host, Budget.start(20), then="uname -s", max_bytes=1000)
        elapsed = time.monotonic() - started
    finally:
        host.close()
    assert error is None
    assert clock is not None
    assert abs(clock.reading.skew_s) <= clock.reading.uncertainty_s + 1e-5  # one clock
    assert clock.reading.uncertainty_s < 0.05
    assert clock.reading.uncertainty_s * 2 < elapsed  # the session's start-up is not in it
    assert rest == "Linux\n"


class _TruncatedAfterFirstRead:
    """A real host whose log is truncated in place right after the first read, as
    logrotate's ``copytruncate`` would do mid-collection: only the moment is chosen here."""

    def __init__(self, host: SshHost, log: Path) -> None:
        self.host, self.log, self.reads = host, log, 0

    def __getattr__(self, name: str) -> object:
        return getattr(self.host, name)

    def read_range(self, path: str, offset: int, length: int, *, budget: Budget) -> bytes:
        data = self.host.read_range(path, offset, length, budget=budget)
        self.reads += 1
        if self.reads == 1:
            with self.log.open("r+b") as handle:
                handle.truncate(1000)
        return data


@pytest.mark.parametrize("sftp", [True, False], ids=["sftp", "no-sftp-fallback"])
def test_a_log_truncated_while_read_says_so(ssh_lab: SshLab, tmp_path: Path, sftp: bool) -> None:
    instance = ssh_lab.start("rotating", sftp=sftp)
    ssh_lab.add_host("rotating", instance)
    ssh_lab.trust(instance)
    log = tmp_path / "app.log"
    log.write_text(
        "".join(f"2025-03-01 12:00:{i % 60:02d} - app - INFO - n={i}\n" for i in range(100_000))
    )
    host = connect(ssh_lab, "rotating").host
    try:
        runner = _TruncatedAfterFirstRead(host, log)
        got = collect_file_log(
            runner, str(log), LogOptions(10_000_000, 1_000_000), Budget.start(30)
        )  # type: ignore[arg-type]
        whole = collect_file_log(
            host, str(log), LogOptions(10_000_000, 1_000_000), Budget.start(30)
        )
    finally:
        host.close()
    assert runner.reads > 1
    assert got.note is not None
    assert "shrank while it was read" in got.note
    assert whole.note is None  # a file read whole, unchanged, carries no such note
