"""Log paths that are links or special files: the rule of ``fs.protected_symlinks`` (a link
is followed only when root or its target's owner owns it), for this machine and over real
OpenSSH sshd, with SFTP and with commands. The tests run as root (as the sshd fixture
needs), so ``lchown`` gives a link any owner: uid 65534 stands for the worker's user."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from bundler.collect.budget import Budget
from bundler.collect.errors import CollectError, FileMissing, FileUnreadable
from bundler.collect.tasks.logs import LogOptions, collect_file_log
from bundler.collect.transports.links import (
    Entry,
    LinkHop,
    may_follow,
    refuse_unsafe_links,
    resolve,
)
from bundler.collect.transports.local import LocalHost
from bundler.collect.transports.runner import HostRunner
from tests.collect.sshkit import connect
from tests.support.sshd import SshLab, sshd_available

WORKER = 65534
OPTIONS = LogOptions(4096, None)


def test_the_rule_follows_a_link_of_root_or_of_its_targets_owner() -> None:
    assert may_follow(LinkHop("/l", "/t", 0, 1000))
    assert may_follow(LinkHop("/l", "/t", 1000, 1000))
    assert not may_follow(LinkHop("/l", "/etc/shadow", 1000, 0))
    assert not may_follow(LinkHop("/l", "/t", 1000, 1001))
    with pytest.raises(FileUnreadable) as refused:
        refuse_unsafe_links([LinkHop("/a", "/b", 0, 5), LinkHop("/l", "/etc/shadow", 1000, 0)])
    assert refused.value.message.startswith(
        "/l is a link owned by uid 1000, and /etc/shadow, which it leads to, is owned by uid 0"
    )


def test_the_walk_judges_every_link_a_link_leads_through() -> None:
    """A root-owned link into a directory that is itself a worker's link to /etc."""
    tree = {
        "/var": Entry(0, 0o40755, 0),
        "/var/log": Entry(0, 0o40755, 0),
        "/var/log/app.log": Entry(0, 0o120777, 0, "/home/w/logs/shadow"),
        "/home": Entry(0, 0o40755, 0),
        "/home/w": Entry(WORKER, 0o40755, 0),
        "/home/w/logs": Entry(WORKER, 0o120777, 0, "../../etc"),
        "/etc": Entry(0, 0o40755, 0),
        "/etc/shadow": Entry(0, 0o100600, 10),
    }
    asked: list[list[str]] = []

    def describe(paths: list[str]) -> dict[str, Entry | CollectError]:
        asked.append(list(paths))
        return {p: tree.get(p) or FileMissing("no such file") for p in paths}

    resolved = resolve("/var/log/app.log", describe)  # type: ignore[arg-type]
    assert resolved.path == "/etc/shadow"
    assert [(h.link, h.target) for h in resolved.hops] == [
        ("/home/w/logs", "/etc"),
        ("/var/log/app.log", "/etc/shadow"),
    ]
    assert [may_follow(h) for h in resolved.hops] == [False, True]
    assert asked[0] == ["/var", "/var/log", "/var/log/app.log"]  # prefixes in one question


@pytest.fixture(params=["local", "sftp", "commands"])
def runner(request: pytest.FixtureRequest) -> Iterator[HostRunner]:
    if request.param == "local":
        yield LocalHost()
        return
    if not sshd_available():
        pytest.skip("OpenSSH sshd (run as root) is needed for SSH tests")
    with SshLab() as lab:
        instance = lab.start("links", sftp=request.param == "sftp")
        lab.add_host("links", instance)
        lab.trust(instance)
        host = connect(lab, "links").host
        try:
            yield host
        finally:
            host.close()


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A root-owned secret, and a worker-owned log directory with links of both owners."""
    if os.geteuid() != 0:
        pytest.skip("giving a link another owner needs root")
    tmp_path.chmod(0o755)
    secret = tmp_path / "secret"
    secret.write_text("root:not-for-the-bundle\n")
    logs = tmp_path / "logs"
    logs.mkdir()
    (logs / "app-2025.log").write_text("2025-03-01 12:00:00 INFO dated\n")
    os.chown(logs / "app-2025.log", WORKER, WORKER)
    for name, target, owner in (
        ("current", "app-2025.log", WORKER),
        ("evil.log", str(secret), WORKER),
        ("rooted.log", str(secret), 0),
        ("dirlink", str(tmp_path), WORKER),
    ):
        (logs / name).symlink_to(target)
        os.lchown(logs / name, owner, owner)
    os.mkfifo(logs / "pipe")
    (logs / "dir").mkdir()
    os.chown(logs, WORKER, WORKER)
    return tmp_path


def test_a_link_the_worker_owns_to_a_root_file_is_refused(runner: HostRunner, tree: Path) -> None:
    for path in (tree / "logs/evil.log", tree / "logs/dirlink/secret"):
        with pytest.raises(FileUnreadable) as refused:
            collect_file_log(runner, str(path), OPTIONS, Budget.start(10))
        assert "owned by uid 65534" in refused.value.message
        assert "which it leads to, is owned by uid 0" in refused.value.message


def test_links_of_root_or_of_the_targets_owner_are_followed_and_noted(
    runner: HostRunner, tree: Path
) -> None:
    current = collect_file_log(runner, str(tree / "logs/current"), OPTIONS, Budget.start(10))
    rooted = collect_file_log(runner, str(tree / "logs/rooted.log"), OPTIONS, Budget.start(10))
    assert current.content.content == b"2025-03-01 12:00:00 INFO dated\n"
    assert current.note == f"{tree}/logs/current is a link to {tree}/logs/app-2025.log"
    assert rooted.content.content == b"root:not-for-the-bundle\n"
    assert rooted.note == f"{tree}/logs/rooted.log is a link to {tree}/secret"


@pytest.mark.parametrize(("name", "kind"), [("pipe", "a FIFO"), ("dir", "a directory")])
def test_a_log_that_is_not_a_regular_file_is_refused_unread(
    runner: HostRunner, tree: Path, name: str, kind: str
) -> None:
    with pytest.raises(FileUnreadable) as refused:
        collect_file_log(runner, str(tree / "logs" / name), OPTIONS, Budget.start(5))
    assert refused.value.message == f"not a regular file: {kind}"
