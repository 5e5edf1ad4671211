"""``bundler doctor`` takes --rules, --keyword and --obfuscate like ``bundler redact``.

A real local collection (sysinfo of this machine, a real log file) into a real
encrypted bundle, opened again with the bundle reader: what the options ask
for is in every member, including doctor's own documents (``sysinfo.json``),
and the manifest records the options (never their values).
"""

from __future__ import annotations

import json
import socket
from pathlib import Path

from click.testing import CliRunner

from bundler.cli import cli
from bundler.exit_codes import ExitCode
from tests.support.archive import PASSWORD, open_test_bundle

ENV = {"BUNDLE_PW": PASSWORD}


def _bundle(tmp_path: Path, *extra: str) -> tuple[int, str, Path]:
    log = tmp_path / "app.log"
    log.write_text(
        "2099-01-01 10:00:00 INFO deploy for project-falcon started\n"
        "2099-01-01 10:00:01 INFO license ACME-LIC-7F3K9Q2W accepted\n"
        f"2099-01-01 10:00:02 INFO running on {socket.gethostname()} as operator\n"
        "2099-01-01 10:00:03 INFO peer db01.corp.acme.test:5432 user=dbadmin\n"
    )
    inventory = tmp_path / "inv.yaml"
    inventory.write_text(
        f"hosts:\n  - address: local\n    role: server\n    logs: [{{file: {log}}}]\n"
    )
    target = tmp_path / "support.zip"
    result = CliRunner(env=ENV).invoke(
        cli,
        [
            "doctor",
            "--inventory",
            str(inventory),
            "--bundle",
            str(target),
            "--password-env",
            "BUNDLE_PW",
            *extra,
        ],
    )
    return result.exit_code, result.stderr, target


def test_doctor_applies_rules_keywords_and_network_obfuscation(tmp_path: Path) -> None:
    rules = tmp_path / "acme.yaml"
    rules.write_text(
        "version: 1\nrules:\n  - id: acme-license\n    regex: 'ACME-LIC-(?P<secret>[A-Z0-9]{8})'\n"
    )
    code, stderr, target = _bundle(
        tmp_path, "--rules", str(rules), "--keyword", "project-falcon", "--obfuscate", "network"
    )
    assert code == ExitCode.OK, stderr
    hostname = socket.gethostname().encode()
    with open_test_bundle(target) as reader:
        members = {name: reader.read_bytes(name) for name in reader.names()}
    everything = b"\n".join(members.values()) + "\n".join(members).encode()
    assert b"project-falcon" not in everything.lower()
    assert b"7F3K9Q2W" not in everything
    assert b"db01.corp.acme.test" not in everything
    assert b"dbadmin" not in everything
    if len(hostname) >= 4 and not hostname.replace(b".", b"").isdigit():
        assert hostname not in everything, [n for n, d in members.items() if hostname in d]
    sysinfo = next(d for n, d in members.items() if n.endswith("sysinfo.json"))
    assert json.loads(sysinfo).get("hostname", "host-").startswith("host-")
    manifest = json.loads(members["manifest.json"])
    assert manifest["options"]["obfuscate"] == ["network"]
    assert manifest["options"]["keywords"] == 1
    assert manifest["options"]["custom_rules"] is True
    report = json.loads(members["redaction-report.json"])
    assert report["obfuscate_network"] is True
    assert report["pseudonyms"].get("hostname", 0) >= 1


def test_doctor_keeps_network_names_without_the_flag(tmp_path: Path) -> None:
    code, stderr, target = _bundle(tmp_path)
    assert code == ExitCode.OK, stderr
    with open_test_bundle(target) as reader:
        log = next(reader.read_bytes(n) for n in reader.names() if n.endswith(".log"))
        manifest = json.loads(reader.read_bytes("manifest.json"))
    assert b"db01.corp.acme.test:5432" in log
    assert b"project-falcon" in log
    assert manifest["options"]["obfuscate"] == []
    assert manifest["options"]["custom_rules"] is False


def test_a_bad_rule_file_is_a_usage_error_before_any_collection(tmp_path: Path) -> None:
    rules = tmp_path / "bad.yaml"
    rules.write_text("version: 1\nrules:\n  - id: x\n    regex: '(unclosed'\n")
    code, stderr, target = _bundle(tmp_path, "--rules", str(rules))
    assert code == ExitCode.USAGE, stderr
    assert len(stderr.strip().splitlines()) == 1
    assert "bad.yaml" in stderr
    assert not target.exists()
