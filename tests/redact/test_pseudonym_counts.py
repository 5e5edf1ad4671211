"""The report's ``pseudonyms`` counts what ``--obfuscate network`` replaced, however it ran.

``bundler redact`` redacts in worker redactors (a process pool, or one worker
redactor in-process) and builds the report in the coordinator: the pseudonyms
made in the workers have to reach it. Counted here against what the output
shows: every original gone, as many distinct pseudonyms per kind in the output
as the report says, into a directory and into a bundle, with the pool off and
on and with a big file cut into segments. ``bundler review`` still passes.
"""

from __future__ import annotations

import ipaddress
import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from bundler.archive import BundleReader, PasswordKey, Secret
from bundler.archive.passwords import Sealing
from bundler.cli import cli
from bundler.redaction import segments, tree
from bundler.redaction.config import RedactConfig
from bundler.redaction.handoff import new_key
from bundler.redaction.outputs import redact_to_bundle, redact_to_directory

PASSWORD = "a long enough bundle password"
KEY = b"p" * 32

LOG = """\
Nov 29 12:00:01 db01 app[1]: connect to 10.9.8.7:5432 from 10.9.8.20
Nov 29 12:00:02 web-03 app[2]: upstream http://api-7.corp.internal:8080/health peer 172.16.4.2
Nov 29 12:00:03 db01 app[1]: client 203.0.113.77 via 10.9.8.7 mac 52:54:00:12:34:56
"""
JSON = {
    "host": "worker-12.corp.internal",
    "addr": "10.9.8.20",
    "peers": ["192.168.1.50", "2001:db8:85a3::8a2e:370:7334"],
    "url": "https://cache-2.corp.internal/x",
}
ORIGINALS = [
    "db01", "web-03", "api-7", "worker-12", "cache-2", "corp.internal", "10.9.8.7",
    "10.9.8.20", "172.16.4.2", "203.0.113.77", "192.168.1.50", "52:54:00:12:34:56",
    "2001:db8:85a3::8a2e:370:7334",
]  # fmt: skip
EXPECTED = {"hostname": 5, "ipv4": 5, "ipv6": 1, "mac": 1}
"""db01, web-03 and three FQDNs; five IPv4 (10.9.8.7 and 10.9.8.20 twice); one IPv6, one MAC."""

_IPV4 = re.compile(r"(?<![\d.])\d{1,3}(?:\.\d{1,3}){3}(?![\d.])")
_HOST = re.compile(r"\bhost-[0-9a-f]{6}\b")


@pytest.fixture
def source(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.log").write_text(LOG)
    (src / "b.json").write_text(json.dumps(JSON))
    return src


def _config() -> RedactConfig:
    return RedactConfig(key=KEY, handoff_key=new_key(), obfuscate_network=True)


def _redact(src: Path, tmp_path: Path, output: str, workers: int) -> tuple[str, dict[str, Any]]:
    """Redact ``src``; the output's text and the report as stored in the output."""
    if output == "directory":
        out = tmp_path / "out"
        outcome = redact_to_directory(src, out, _config(), workers=workers)
        text = "\n".join(p.read_text() for p in sorted(out.rglob("*")) if p.is_file())
        stored = json.loads((out / "redaction-report.json").read_text())
        review = [str(out)]
    else:
        out = tmp_path / "out.zip"
        sealing = Sealing.with_password(PASSWORD)
        outcome = redact_to_bundle(src, out, _config(), sealing, workers=workers)
        with BundleReader.open(out, PasswordKey(Secret(PASSWORD))) as reader:
            assert reader.check().problems == []
            text = "\n".join(reader.read_bytes(n).decode() for n in reader.names())
            stored = json.loads(reader.read_bytes("redaction-report.json"))
        review = [str(out), "--password-env", "BPW"]
    assert stored["pseudonyms"] == outcome.report.pseudonyms
    result = CliRunner(env={"BPW": PASSWORD}).invoke(cli, ["review", *review])
    assert result.exit_code == 0, result.output
    return text, stored


def _seen(text: str) -> dict[str, int]:
    """Distinct pseudonymous IPv4 addresses and host labels in ``text`` (none is kept here)."""
    addresses = {a for a in _IPV4.findall(text) if not ipaddress.IPv4Address(a).is_loopback}
    return {"hostname": len(set(_HOST.findall(text))), "ipv4": len(addresses)}


@pytest.mark.parametrize("output", ["directory", "bundle"])
@pytest.mark.parametrize("pool", [False, True])
def test_the_report_counts_the_pseudonyms_made_in_the_workers(
    source: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str, pool: bool
) -> None:
    if pool:
        monkeypatch.setattr(tree, "POOL_MIN_BYTES", 0)  # two small files: the pool all the same
    text, report = _redact(source, tmp_path, output, 2 if pool else 1)
    for original in ORIGINALS:
        assert original not in text
    assert report["pseudonyms"] == EXPECTED
    assert _seen(text) == {"hostname": EXPECTED["hostname"], "ipv4": EXPECTED["ipv4"]}


def _big_log(lines: int) -> tuple[str, set[str], set[str]]:
    """A log cut into several segments: hosts and addresses recur across the cuts, and
    some occur in one segment only; with the distinct hosts and addresses it holds."""
    hosts, addresses, out = set(), set(), []
    for i in range(lines):
        host = f"node-{i % 23:02d}"
        address = f"10.{i % 3}.{i % 11}.{i % 7 + 1}" if i % 5 else f"172.20.{i // 997}.9"
        hosts.add(host)
        addresses.add(address)
        out.append(f"Nov 29 12:00:01 {host} app[1]: step {i:06d} peer {address} answered ok\n")
    return "".join(out), hosts, addresses


@pytest.mark.parametrize("output", ["directory", "bundle"])
@pytest.mark.parametrize("pool", [False, True])
def test_a_segmented_file_counts_each_pseudonym_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str, pool: bool
) -> None:
    monkeypatch.setattr(segments, "SEGMENT_MIN", 256 << 10)
    if pool:
        monkeypatch.setattr(tree, "POOL_MIN_BYTES", 0)
    cut: list[int] = []
    plan = segments.plan_cuts

    def spy(path: Path, size: int, parts: int) -> list[int]:
        cut.append(parts)
        return plan(path, size, parts)

    monkeypatch.setattr(segments, "plan_cuts", spy)
    src = tmp_path / "src"
    src.mkdir()
    log, hosts, addresses = _big_log(14_000)
    (src / "big.log").write_text(log)
    text, report = _redact(src, tmp_path, output, 2)
    assert cut, "the file was not cut into segments"
    assert cut[0] > 2
    assert not any(host in text for host in hosts)
    assert report["pseudonyms"] == {"hostname": len(hosts), "ipv4": len(addresses)}
    assert _seen(text) == {"hostname": len(hosts), "ipv4": len(addresses)}


@pytest.mark.parametrize("output", ["directory", "bundle"])
def test_an_address_in_a_file_name_has_the_pseudonym_its_contents_have(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, output: str
) -> None:
    """A name is redacted once, by the coordinator; the workers adopt it as it is (a
    second pass over it would give the address a pseudonym of its pseudonym)."""
    monkeypatch.setattr(tree, "POOL_MIN_BYTES", 0)
    src = tmp_path / "src"
    (src / "nodes").mkdir(parents=True)
    (src / "nodes" / "node-10.9.8.7.log").write_text("peer 10.9.8.7 answered\n")
    (src / "b.json").write_text(json.dumps({"addr": "10.9.8.7"}))
    text, report = _redact(src, tmp_path, output, 2)
    if output == "directory":
        names = [p.name for p in (tmp_path / "out" / "nodes").iterdir()]
    else:
        with BundleReader.open(tmp_path / "out.zip", PasswordKey(Secret(PASSWORD))) as reader:
            names = [n.rsplit("/", 1)[-1] for n in reader.names() if n.startswith("nodes/")]
    (name,) = names
    assert "10.9.8.7" not in text + name
    assert report["pseudonyms"] == {"ipv4": 1}
    (pseudonym,) = set(_IPV4.findall(text))
    assert name == f"node-{pseudonym}.log"
