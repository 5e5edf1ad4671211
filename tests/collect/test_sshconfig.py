"""Addresses and ~/.ssh/config: what `ssh NAME` means is what --ssh NAME means."""

from __future__ import annotations

from pathlib import Path

import paramiko
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bundler.collect.transports.address import parse_address
from bundler.collect.transports.hostkeys import lookup_name
from bundler.collect.transports.sshconfig import SshConfigResolver
from bundler.collect.transports.sshconfig_index import StanzaIndex
from bundler.errors import UsageError


@pytest.mark.parametrize(
    ("text", "user", "host", "port"),
    [
        ("host", None, "host", None),
        ("ops@host", "ops", "host", None),
        ("ops@host:2222", "ops", "host", 2222),
        ("10.0.0.5:22", None, "10.0.0.5", 22),
        ("root@[fe80::1]:2200", "root", "fe80::1", 2200),
        ("ssh://ops@host:2022", "ops", "host", 2022),
    ],
)
def test_addresses(text: str, user: str | None, host: str, port: int | None) -> None:
    address = parse_address(text)
    assert (address.user, address.host, address.port) == (user, host, port)


@pytest.mark.parametrize("text", ["", "a b", "host:0", "host:70000", "@host", "host:port"])
def test_bad_addresses(text: str) -> None:
    with pytest.raises(UsageError):
        parse_address(text)


def test_config_is_honoured_and_the_address_wins(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text(
        "Host worker-a\n  HostName 10.1.2.3\n  User ops\n  Port 2200\n"
        "  IdentityFile ~/.ssh/fleet_key\n  ProxyJump bastion\n  HostKeyAlias worker-a.fleet\n"
        "Host bastion\n  HostName bastion.example.com\n  User jump\n  ProxyJump edge:2022\n"
        "Host legacy\n  ProxyCommand nc %h %p\n"
        "Host *\n  User fallback\n  ConnectTimeout 7\n"
    )
    resolver = SshConfigResolver(config, home=tmp_path)
    worker = resolver.resolve("worker-a")
    assert (worker.hostname, worker.user, worker.port) == ("10.1.2.3", "ops", 2200)
    assert worker.identity_files == (Path.home() / ".ssh" / "fleet_key",)
    assert worker.host_key_alias == "worker-a.fleet"
    assert worker.connect_timeout == 7
    assert [(j.hostname, j.user, j.port) for j in worker.jumps] == [
        ("edge", "fallback", 2022),
        ("bastion.example.com", "jump", 22),
    ]
    override = resolver.resolve("root@worker-a:22")
    assert (override.user, override.port, override.hostname) == ("root", 22, "10.1.2.3")
    assert resolver.resolve("legacy").proxy_command == "nc legacy 22"
    plain = resolver.resolve("elsewhere")
    assert (plain.hostname, plain.user, plain.jumps) == ("elsewhere", "fallback", ())
    resolver.release()  # what doctor does once every host is resolved
    assert worker.jumps[0].hostname == "edge"  # resolved endpoints keep what they hold
    with pytest.raises(RuntimeError, match="released"):
        resolver.resolve("worker-a")  # never silently resolved without the file


def test_jump_loops_are_refused(tmp_path: Path) -> None:
    config = tmp_path / "config"
    config.write_text("Host a\n  ProxyJump b\nHost b\n  ProxyJump a\n")
    with pytest.raises(UsageError, match="ProxyJump chain"):
        SshConfigResolver(config).resolve("a")


def test_missing_config_means_defaults(tmp_path: Path) -> None:
    endpoint = SshConfigResolver(tmp_path / "absent", home=tmp_path).resolve("host")
    assert (endpoint.hostname, endpoint.port) == ("host", 22)
    assert SshConfigResolver(None, home=tmp_path).default_identities()[0] == (
        tmp_path / ".ssh" / "id_ed25519"
    )


def test_known_hosts_names_follow_openssh() -> None:
    assert lookup_name("host", 22) == "host"
    assert lookup_name("10.0.0.5", 2222) == "[10.0.0.5]:2222"


# -- many hosts: the stanza index answers exactly as paramiko, testing only what can apply --------

_NAMES = ["w1", "w2", "w10", "db", "web-a"]
_PATTERNS = [*_NAMES, "w*", "!w2", "*", "w?", "[dw]b"]


@st.composite
def _configs(draw: st.DrawFn) -> str:
    lines = []
    for position in range(draw(st.integers(1, 8))):
        if draw(st.booleans()) and position % 3 == 2:
            lines.append(f"Match host {draw(st.sampled_from(_PATTERNS))}")
        else:
            patterns = draw(st.lists(st.sampled_from(_PATTERNS), min_size=1, max_size=3))
            lines.append("Host " + " ".join(patterns))
        lines.append(f"  User u{position}")
        if draw(st.booleans()):
            lines.append(f"  Port {2200 + position}")
        lines.append(f"  IdentityFile ~/.ssh/k{position}")
    return "\n".join(lines) + "\n"


@settings(max_examples=150, deadline=None)
@given(text=_configs(), host=st.sampled_from([*_NAMES, "other"]))
def test_indexed_lookup_is_paramikos_lookup(text: str, host: str) -> None:
    config = paramiko.SSHConfig.from_text(text)
    assert StanzaIndex(config).lookup(host) == config.lookup(host)


def test_a_thousand_aliases_test_only_their_own_and_the_wildcard_stanzas() -> None:
    text = "".join(f"Host t{i:04d}\n  HostName 127.0.0.1\n  Port {2000 + i}\n" for i in range(1000))
    config = paramiko.SSHConfig.from_text(text + "Host t*\n  User ops\n")
    index = StanzaIndex(config)
    assert index.indexed
    # paramiko's implicit leading "Host *" stanza, the alias's own, and the wildcard one
    assert len(index.candidates("t0500")) == 3
    resolved = index.lookup("t0500")
    assert (resolved["port"], resolved["user"]) == ("2500", "ops")
    assert resolved == config.lookup("t0500")


def test_canonicalization_sees_the_whole_file() -> None:
    config = paramiko.SSHConfig.from_text("Host a\n  CanonicalizeHostname no\nHost b\n  User x\n")
    index = StanzaIndex(config)
    assert not index.indexed
    assert index.candidates("a") == list(range(len(config._config)))  # type: ignore[attr-defined]
