"""The inspect, verify, extract and keygen commands, through click and as a real subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from bundler.archive import PublicKey, Sealing, resolve_seal
from bundler.archive import passwords as passwords_module
from bundler.archive.integrity import written as written_check
from bundler.archive.limits import ReaderLimits
from bundler.cli import cli
from bundler.cli.options import SealOptions, click_prompt, seal_options
from schemas import CollectorKind, CollectorOutcome, CollectorStatus
from tests.support.archive import (
    PASSWORD,
    build_bundle,
    craft_bundle,
    data_offset,
    flip_byte,
    manifest_for,
)

ENV = {"BUNDLE_PW": PASSWORD}
MEMBERS = {
    "evidence/workers.json": json.dumps(
        {"product": "flux", "workers": [], "observed_at": "2024-05-01T12:00:00Z"}
    ).encode(),
    "hosts/h01/logs/0.log": b"hello\n" * 100,
}
OUTCOMES = [
    CollectorOutcome(id="http.workers", kind=CollectorKind.HTTP, target="/workers",
                     status=CollectorStatus.OK, bytes=40),
    CollectorOutcome(id="ssh.h01.log", kind=CollectorKind.SSH, target="h01",
                     status=CollectorStatus.TIMEOUT, error_class="Timeout",
                     error_message="read timed out after 30s"),
]  # fmt: skip


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_bundle(
        tmp_path / "support.zip",
        MEMBERS,
        schema_names={"evidence/workers.json": "evidence.workers"},
        media_types={"evidence/workers.json": "application/json"},
        profile="flux",
        collectors=OUTCOMES,
    ).path


def _invoke(*args: str, input: str | None = None) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), env=ENV, input=input)


def test_inspect_shows_manifest_collectors_and_members(bundle: Path) -> None:
    result = _invoke("inspect", str(bundle), "--password-env", "BUNDLE_PW")
    assert result.exit_code == 0, result.output
    for expected in ("bundler/1.0", "profile flux", "password", "ssh.h01.log", "timeout",
                     "read timed out", "hosts/h01/logs/0.log", "evidence.workers"):  # fmt: skip
        assert expected in result.output
    assert PASSWORD not in result.output


def test_inspect_json(bundle: Path) -> None:
    result = _invoke("inspect", str(bundle), "--password-env", "BUNDLE_PW", "--json")
    assert result.exit_code == 0
    report = json.loads(result.output)
    assert report["manifest"]["profile"] == "flux"
    assert report["integrity"]["status"] == "unverified"
    assert report["manifest"]["collectors"][1]["status"] == "timeout"


def test_inspect_names_each_member_s_compression_method(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A member that would deflate past the readers' ratio limit is stored uncompressed
    (:mod:`bundler.archive.uncompressed`); inspect says which, per member, from the zip.
    The ratio floor is lowered (16 MiB by default) so a small repeated log has that shape."""
    monkeypatch.setattr(written_check, "READER_LIMITS", ReaderLimits(ratio_floor=64 << 10))
    members = {**MEMBERS, "hosts/h01/logs/1.log": b"the same line, again\n" * 20_000}
    path = build_bundle(tmp_path / "support.zip", members, profile="flux").path
    shown = _invoke("inspect", str(path), "--password-env", "BUNDLE_PW", "--json")
    assert shown.exit_code == 0, shown.output
    assert json.loads(shown.output)["compression"] == {
        "evidence/workers.json": "deflate",
        "hosts/h01/logs/0.log": "deflate",
        "hosts/h01/logs/1.log": "stored",
        "redaction-report.json": "deflate",
        "manifest.json": "deflate",
    }
    table = _invoke("inspect", str(path), "--password-env", "BUNDLE_PW")
    cells = [[c.strip() for c in line.split("│")] for line in table.output.splitlines()]
    method = {row[1]: row[3] for row in cells if len(row) > 3 and row[1].startswith("hosts/")}
    assert method == {"hosts/h01/logs/0.log": "deflate", "hosts/h01/logs/1.log": "stored"}


def test_verify_good_bundle(bundle: Path) -> None:
    result = _invoke("verify", str(bundle), "--password-env", "BUNDLE_PW")
    assert result.exit_code == 0, result.output
    assert "verified" in result.output
    report = json.loads(_invoke("verify", str(bundle), "--password-env", "BUNDLE_PW",
                                "--json").output)  # fmt: skip
    assert report["ok"] is True
    statuses = {(c["check"], c["member"]): c["status"] for c in report["checks"]}
    assert statuses[("schema", "evidence/workers.json")] == "ok"
    assert statuses[("schema", "redaction-report.json")] == "ok"
    assert statuses[("checksum", "hosts/h01/logs/0.log")] == "ok"


def test_verify_reports_every_problem_with_exit_1(tmp_path: Path) -> None:
    members = {
        "evidence/workers.json": b'{"workers": "not a list"}',
        "logs/a.log": b"a" * 5000,
        "logs/b.log": b"b",
    }
    document = json.loads(manifest_for(members))
    document["members"][0]["schema_name"] = "evidence.workers"
    document["members"][2]["sha256"] = "0" * 64
    path = craft_bundle(tmp_path / "b.zip", members, manifest=json.dumps(document).encode())
    flip_byte(path, data_offset(path, "logs/a.log") + 3)
    result = _invoke("verify", str(path), "--password-env", "BUNDLE_PW", "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.output)
    problems = {(c["check"], c["member"]) for c in report["checks"] if c["status"] == "problem"}
    assert problems == {
        ("checksum", "logs/a.log"),
        ("checksum", "logs/b.log"),
        ("schema", "evidence/workers.json"),
    }
    human = _invoke("verify", str(path), "--password-env", "BUNDLE_PW")
    assert human.exit_code == 1
    assert "problems found" in human.output


@pytest.mark.parametrize("command", ["inspect", "verify", "extract"])
def test_unreadable_input_exits_2_with_one_line(tmp_path: Path, command: str) -> None:
    junk = tmp_path / "junk.zip"
    junk.write_bytes(b"nope")
    extra = ["--to", str(tmp_path / "out")] if command == "extract" else []
    result = _invoke(command, str(junk), "--password-env", "BUNDLE_PW", *extra)
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [f"bundler: error: {junk} is not a bundle "
                                                  "(not a zip archive)"]  # fmt: skip


def test_wrong_password_exits_2(bundle: Path) -> None:
    result = CliRunner().invoke(
        cli, ["verify", str(bundle), "--password-env", "PW"], env={"PW": "wrong password!"}
    )
    assert result.exit_code == 2
    assert "wrong password" in result.output
    assert "wrong password!" not in result.output


def test_extract(bundle: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    result = _invoke("extract", str(bundle), "--to", str(dest), "--password-env", "BUNDLE_PW")
    assert result.exit_code == 0, result.output
    assert "extracted 4 files" in result.output
    assert (dest / "hosts/h01/logs/0.log").read_bytes() == MEMBERS["hosts/h01/logs/0.log"]
    again = _invoke("extract", str(bundle), "--to", str(dest), "--password-env", "BUNDLE_PW")
    assert again.exit_code == 2
    assert "not empty" in again.output
    forced = _invoke("extract", str(bundle), "--to", str(dest), "--force",
                     "--password-env", "BUNDLE_PW")  # fmt: skip
    assert forced.exit_code == 0


def test_keygen_then_recipient_round_trip(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["keygen", "--out", str(tmp_path / "vendor"),
                                      "--comment", "support@vendor"])  # fmt: skip
    assert result.exit_code == 0, result.output
    assert "SHA256:" in result.output
    again = CliRunner().invoke(cli, ["keygen", "--out", str(tmp_path / "vendor")])
    assert again.exit_code == 2
    assert "already exists" in again.output
    key = PublicKey.load(tmp_path / "vendor.pub")
    sealed = build_bundle(tmp_path / "b.zip", MEMBERS, sealing=Sealing.to_recipients((key,)))
    shown = CliRunner().invoke(cli, ["inspect", str(sealed.path), "--identity",
                                     str(tmp_path / "vendor")])  # fmt: skip
    assert shown.exit_code == 0, shown.output
    assert key.fingerprint in shown.output
    assert "recipient" in shown.output
    no_id = CliRunner().invoke(cli, ["inspect", str(sealed.path)])
    assert no_id.exit_code == 2
    assert "--identity" in no_id.output


def test_open_prompts_for_the_password_on_a_terminal(
    bundle: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(passwords_module, "stdin_is_interactive", lambda: True)
    result = CliRunner().invoke(cli, ["verify", str(bundle)], input=PASSWORD + "\n")
    assert result.exit_code == 0, result.output
    assert "Bundle password" in result.output
    assert PASSWORD not in result.output  # hidden input is not echoed


def test_open_without_terminal_or_password_is_a_usage_error(bundle: Path) -> None:
    result = CliRunner().invoke(cli, ["verify", str(bundle)])
    assert result.exit_code == 2
    assert "needs its password" in result.output


def test_password_file_and_two_sources_at_once(bundle: Path, tmp_path: Path) -> None:
    pw_file = tmp_path / "pw"
    pw_file.write_text(PASSWORD + "\n")
    ok = _invoke("verify", str(bundle), "--password-file", str(pw_file))
    assert ok.exit_code == 0, ok.output
    both = _invoke("verify", str(bundle), "--password-file", str(pw_file),
                   "--password-env", "BUNDLE_PW")  # fmt: skip
    assert both.exit_code == 2


@click.command()
@seal_options
def _seal_command(seal: SealOptions) -> None:
    """A stand-in for doctor/redact: resolves the sealing options like they do."""
    sealing = resolve_seal(seal, prompt=click_prompt)
    click.echo(f"mode={sealing.mode} length={len(sealing.password)}")


def test_seal_prompt_asks_twice(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(passwords_module, "stdin_is_interactive", lambda: True)
    result = CliRunner().invoke(_seal_command, [], input=f"{PASSWORD}\n{PASSWORD}\n")
    assert result.exit_code == 0, result.output
    assert f"mode=password length={len(PASSWORD)}" in result.output
    assert result.output.count("password") >= 2  # the prompt and its confirmation
    mismatch = CliRunner().invoke(_seal_command, [], input=f"{PASSWORD}\nother\n")
    assert mismatch.exit_code != 0


def _runner_with_separate_stderr() -> CliRunner:
    """click < 8.2 mixes stderr into the output unless told not to."""
    try:
        return CliRunner(mix_stderr=False)  # type: ignore[call-arg]
    except TypeError:
        return CliRunner()


def test_generate_password_is_printed_once_to_stderr() -> None:
    result = _runner_with_separate_stderr().invoke(_seal_command, ["--generate-password"])
    assert result.exit_code == 0
    assert result.stderr.count("bundle password") == 1
    assert "bundle password" not in result.stdout
    assert "mode=password length=34" in result.stdout


def test_help_documents_exit_codes_and_limits() -> None:
    for command in ("inspect", "verify", "extract"):
        result = CliRunner().invoke(cli, [command, "--help"])
        assert result.exit_code == 0
        assert "Exit codes" in result.output
        assert "BUNDLER_MAX_MEMBERS" in result.output


def test_real_subprocess_verify_and_limits_from_env(bundle: Path) -> None:
    env = {**os.environ, **ENV}
    ok = subprocess.run(
        [sys.executable, "-m", "bundler", "verify", str(bundle), "--password-env", "BUNDLE_PW"],
        capture_output=True, text=True, env=env, check=False, timeout=60,
    )  # fmt: skip
    assert ok.returncode == 0, ok.stderr
    assert "verified" in ok.stdout
    limited = subprocess.run(
        [sys.executable, "-m", "bundler", "inspect", str(bundle), "--password-env", "BUNDLE_PW"],
        capture_output=True, text=True, env={**env, "BUNDLER_MAX_MEMBERS": "2"}, check=False,
        timeout=60,
    )  # fmt: skip
    assert limited.returncode == 2
    assert limited.stderr.startswith("bundler: error: the bundle declares 4 members (limit 2")
    assert "Traceback" not in limited.stderr
