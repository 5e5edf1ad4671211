"""What doctor seals, bundler's own readers open: a response capped at 16 MiB, end to end.

A 20 MB answer of whitespace-padded JSON lines was capped to 16 MiB plus the
marker line, just over the readers' ratio floor (``ReaderLimits.ratio_floor``,
16 MiB), and it deflates ~360:1, past ``max_ratio``: every reader refused the
bundle doctor had just written. The real doctor writes the bundle here, from a
real server, and the real commands read it with their default limits.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler import products
from bundler.archive.limits import ReaderLimits
from bundler.cli import cli
from bundler.doctor.request import DoctorRequest
from bundler.doctor.run import run_doctor
from bundler.errors import OutputError
from bundler.secret_options import SealOptions
from tests.support.http_server import Reply, ScriptedHTTPServer

PASSWORD = "correct horse battery staple"
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
    monkeypatch.setenv("BUNDLE_PW", PASSWORD)
    outcome = run_doctor(
        DoctorRequest(
            profile=sample_profile,
            server=http_server.url,
            bundle=target,
            seal=SealOptions(password_env="BUNDLE_PW"),
        ),
        environ=env,
        warn=lambda _: None,
    )
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


def test_a_log_redaction_grew_past_the_ratio_floor_fails_as_it_is_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A log capped at 16 MiB (``--log-bytes``) is under the readers' ratio floor as read,
    but redaction lengthens it (``password=a`` becomes a token): one repeated line deflates
    past 200:1, and the readers refuse a member over 16 MiB that does. Doctor sealed it and
    only the check before publishing refused the bundle; sealing now stops as that member is
    written, naming it, its ratio, the limit and BUNDLER_MAX_RATIO, and nothing is left.
    (Read over SSH or here alike: the cap and the redaction are the transport's caller's.)"""
    for name in ("MAX_RATIO", "RATIO_FLOOR"):
        monkeypatch.delenv(f"BUNDLER_{name}", raising=False)
    log = tmp_path / "var" / "spam.log"
    log.parent.mkdir()
    log.write_bytes((b"x" * 1688 + b" password=a\n") * 10_000)
    inventory = tmp_path / "var" / "fleet.yaml"
    inventory.write_text(f"hosts:\n  - address: local\n    logs: [{{file: {log}}}]\n")
    out = tmp_path / "out"
    out.mkdir()
    monkeypatch.setenv("BUNDLE_PW", PASSWORD)
    request = DoctorRequest(
        inventory=inventory,
        log_bytes=16 << 20,
        bundle=out / "support.zip",
        seal=SealOptions(password_env="BUNDLE_PW"),
    )
    with pytest.raises(OutputError) as caught:
        run_doctor(request, environ={"BUNDLE_PW": PASSWORD}, warn=lambda _: None)
    message = caught.value.message
    assert message.startswith("cannot write member 'hosts/h01/logs/00.log': it compresses ")
    assert "past the 200:1 bundler's readers accept for a member over 16 MiB" in message
    assert "BUNDLER_MAX_RATIO" in message
    assert caught.value.hint is not None
    assert "--log-bytes" in caught.value.hint
    assert list(out.iterdir()) == []
