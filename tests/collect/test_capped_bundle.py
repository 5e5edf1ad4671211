"""What doctor seals, bundler's own readers open: a response capped at 16 MiB, end to end.

A 20 MB answer of whitespace-padded JSON lines was capped to 16 MiB plus the
marker line, just over the readers' ratio floor (``ReaderLimits.ratio_floor``,
16 MiB), and it deflates ~360:1, past ``max_ratio``: every reader refused the
bundle doctor had just written. Redaction can still take a capped output past
the floor (a token is longer than the value it replaces): such a member is stored
uncompressed, never refused, so the bundle is not lost. The real doctor writes the
bundle here, from a real server or a real log, and the real commands read it with
their default limits.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import pytest
import pyzipper
from click.testing import CliRunner

from bundler import products
from bundler.analyze.opening import open_for_analysis
from bundler.archive import BundleReader, PasswordKey, Secret
from bundler.archive.limits import ReaderLimits
from bundler.cli import cli
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import DoctorOutcome, run_doctor
from bundler.secret_options import OpenSecrets, SealOptions
from bundler.serve.loading import load_replay
from tests.support.http_server import Reply, ScriptedHTTPServer

PASSWORD = "correct horse battery staple"


def _doctor(
    target: Path, monkeypatch: pytest.MonkeyPatch, **request: Any
) -> tuple[DoctorOutcome, list[str]]:
    """``run_doctor`` into ``target``, sealed with :data:`PASSWORD` read from ``BUNDLE_PW``:
    its outcome and the warnings it printed."""
    monkeypatch.setenv("BUNDLE_PW", PASSWORD)
    notes: list[str] = []
    outcome = run_doctor(
        DoctorRequest(bundle=target, seal=SealOptions(password_env="BUNDLE_PW"), **request),
        environ={"BUNDLE_PW": PASSWORD},
        warn=notes.append,
    )
    return outcome, notes


PADDED = b"{" + (b" " * 1023 + b"\n") * 19_500 + b"}"
"""~20 MB of JSON (an empty object, padded) that deflates several hundred to one."""


@pytest.fixture
def sample_profile(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(products.PROFILES, "testprod", "tests.collect.testprofile")
    return "testprod"


def test_a_capped_response_seals_a_bundle_every_reader_opens(
    sample_profile: str,
    http_server: ScriptedHTTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("MAX_RATIO", "RATIO_FLOOR", "MAX_MEMBER_BYTES", "MAX_TOTAL_BYTES"):
        monkeypatch.delenv(f"BUNDLER_{name}", raising=False)  # the readers' defaults
    assert len(PADDED) > 16 * 1024 * 1024
    http_server.route("/health", Reply(200, PADDED, content_type="text/plain"))
    http_server.route("/workers", Reply(200, []))  # collected: the bundle is sealed
    target = tmp_path / "support.zip"
    env = {"BUNDLE_PW": PASSWORD}
    outcome, _ = _doctor(target, monkeypatch, profile=sample_profile, server=http_server.url)
    health = next(o for o in outcome.result.outcomes if o.id == "http.health")
    assert health.error_class == "ResponseTooLarge"
    assert health.members == ("raw/http/health.json",)
    assert target.exists()

    runner = CliRunner(env=env)
    for command in (
        ["verify", str(target), "--password-env", "BUNDLE_PW"],
        ["inspect", str(target), "--password-env", "BUNDLE_PW"],
        ["extract", str(target), "--to", str(tmp_path / "x"), "--password-env", "BUNDLE_PW"],
        ["analyze", str(target), "--password-env", "BUNDLE_PW"],
        ["review", str(target), "--password-env", "BUNDLE_PW"],
    ):
        result = runner.invoke(cli, command)
        assert result.exit_code in (0, 1, 3), (command[0], result.exit_code, result.stderr)
        assert "compression ratio" not in result.stderr
    kept = (tmp_path / "x" / "raw" / "http" / "health.json").stat().st_size
    assert kept <= ReaderLimits().ratio_floor


CRASH_LOOP = (
    b"ERROR pool: dial tcp 10.0.0.5:5432: connect: connection refused (postgres://etl:hunter2@db/jobs)"
    + b" at jobs.pool.Pool.connect(Pool.java:88)" * 24
    + b"\n"
)
"""A worker's crash loop: one line, no timestamp, over and over, with a short credential."""


def test_a_crash_loop_log_that_redaction_took_past_the_ratio_floor_is_sealed_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A crash-loop log read with ``--log-bytes 16MiB`` is under the readers' ratio floor as
    read, but redaction lengthens every line (``hunter2`` becomes a token) and one repeated
    line deflates ~250:1, past the 200:1 the readers refuse for a member over 16 MiB (a zip
    bomb's shape). Sealing stopped at that member and the whole bundle was lost. The member
    is now stored uncompressed (still AES-256): the bundle is published, every reader opens
    it with its default limits, the log's bytes are all there, and doctor says so in one
    line."""
    for name in ("MAX_RATIO", "RATIO_FLOOR", "MAX_MEMBER_BYTES", "MAX_TOTAL_BYTES"):
        monkeypatch.delenv(f"BUNDLER_{name}", raising=False)
    log = tmp_path / "var" / "worker.log"
    log.parent.mkdir()
    log.write_bytes(CRASH_LOOP * ((20 << 20) // len(CRASH_LOOP)))
    inventory = tmp_path / "var" / "fleet.yaml"
    inventory.write_text(f"hosts:\n  - address: local\n    logs: [{{file: {log}}}]\n")
    target = tmp_path / "support.zip"
    env = {"BUNDLE_PW": PASSWORD}
    _, notes = _doctor(
        target, monkeypatch, inventory=inventory, log_bytes=16 << 20, log_lines=1 << 20
    )
    assert target.exists()
    member = "hosts/h01/logs/00.log"
    assert [n for n in notes if "uncompressed" in n] == [
        f"stored uncompressed, every byte kept: {member} (it compresses past the 200:1 "
        "bundler's readers accept for a member over 16 MiB)"
    ]

    runner = CliRunner(env=env)
    out = tmp_path / "x"
    for command in (
        ["verify", str(target), "--password-env", "BUNDLE_PW"],
        ["inspect", str(target), "--password-env", "BUNDLE_PW"],
        ["extract", str(target), "--to", str(out), "--password-env", "BUNDLE_PW"],
        ["analyze", str(target), "--password-env", "BUNDLE_PW"],
        ["review", str(target), "--password-env", "BUNDLE_PW"],
    ):
        result = runner.invoke(cli, command)
        expected = (0, 3) if command[0] == "analyze" else (0,)  # hosts only: no ladder
        assert result.exit_code in expected, (command[0], result.exit_code, result.stderr)
    with BundleReader.open(target, PasswordKey(Secret(PASSWORD))) as reader:
        methods = {e.name: e.info.compress_type for e in reader.entries}
        listed = reader.listed(member)
    assert methods.pop(member) == pyzipper.ZIP_STORED
    assert set(methods.values()) == {pyzipper.ZIP_DEFLATED}  # the rest as before
    kept = (out / member).read_bytes()
    assert listed is not None
    assert len(kept) == listed.size > ReaderLimits().ratio_floor
    assert hashlib.sha256(kept).hexdigest() == listed.sha256
    lines = kept.splitlines()
    assert b"hunter2" not in kept
    redacted = lines[0]
    assert redacted.startswith(b"ERROR pool: dial tcp 10.0.0.5:5432: connect: connection refused")
    marked = [line for line in lines if line != redacted]
    assert len(marked) == 1  # head and tail, one gap between them
    assert b"[bundler truncated]" in marked[0]


def test_serve_answers_a_captured_response_stored_uncompressed(
    sample_profile: str,
    http_server: ScriptedHTTPServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A response just under the 16 MiB cap, of one line with a short credential: redaction
    takes it past the ratio floor and it deflates past 200:1, so it is stored uncompressed.
    ``bundler serve`` reads every body it answers with from the bundle, verified: this one
    is answered whole, as captured (redacted)."""
    monkeypatch.delenv("BUNDLER_MAX_RATIO", raising=False)
    line = b"# scrape failed: connection refused password=hunter2" + b" " * 970 + b"\n"
    metrics = line * (16_700_000 // len(line))
    http_server.route("/health", Reply(200, {"status": "ok", "version": "1"}))
    http_server.route("/workers", Reply(200, []))
    http_server.route("/metrics", Reply(200, metrics, content_type="text/plain"))
    target = tmp_path / "support.zip"
    _, notes = _doctor(target, monkeypatch, profile=sample_profile, server=http_server.url)
    assert any("stored uncompressed, every byte kept: raw/http/metrics.txt" in n for n in notes)
    with open_for_analysis(target, OpenSecrets(password_env="BUNDLE_PW")) as opened:
        loaded = load_replay(opened, str(target))
        stored = opened.source.read_bytes("raw/http/metrics.txt")
    reply = loaded.replay.answer("GET", "/metrics")
    assert (reply.status, reply.kind) == (200, "captured")
    assert reply.body == stored
    assert len(stored) > ReaderLimits().ratio_floor
    assert b"hunter2" not in stored
    assert stored.count(b"connection refused password=[REDACTED:") == len(metrics) // len(line)
