"""Real servers for the collection tests: sshd instances, HTTP(S) servers, a network namespace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.http_server import ScriptedHTTPServer, TlsFiles, make_tls
from tests.support.netns import NetNamespace, netns_available
from tests.support.requirements import need
from tests.support.sshd import SshLab, sshd_available


@pytest.fixture(autouse=True)
def _no_ssh_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hermetic: a developer's ssh-agent must not make a wrong-key test pass."""
    monkeypatch.delenv("SSH_AUTH_SOCK", raising=False)


@pytest.fixture
def ssh_lab() -> Iterator[SshLab]:
    need(sshd_available(), "OpenSSH sshd (run as root) is needed for SSH tests")
    lab = SshLab()
    try:
        yield lab
    finally:
        lab.close()


@pytest.fixture
def http_server() -> Iterator[ScriptedHTTPServer]:
    with ScriptedHTTPServer() as server:
        yield server


@pytest.fixture
def tls_files(tmp_path: Path) -> TlsFiles:
    return make_tls(tmp_path / "tls")


@pytest.fixture
def https_server(tls_files: TlsFiles) -> Iterator[ScriptedHTTPServer]:
    with ScriptedHTTPServer(tls=tls_files) as server:
        yield server


@pytest.fixture
def netns() -> Iterator[NetNamespace]:
    need(netns_available(), "network namespaces (root, iproute2) are needed for ProxyJump tests")
    with NetNamespace() as namespace:
        yield namespace
