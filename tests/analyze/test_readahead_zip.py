"""``bundler analyze`` gives the same report with and without read-ahead, and leaves no thread."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from tests.support import archive
from tests.support.evidence import Fleet

LOG = b"".join(b"2026-11-29 17:00:00 - flux.server - INFO - line %d\n" % i for i in range(60_000))
"""About 3 MiB: more than one chunk, so the reader reads it ahead."""


def _sealed(tmp_path: Path, fleet: Fleet) -> Path:
    source = fleet.source()
    members = {name: source.read_bytes(name) for name in source.names()}
    members["hosts/h01/logs/1.log"] = LOG
    return archive.build_bundle(tmp_path / "support.zip", members, profile="test").path


def _analyze(path: Path, readahead: str) -> tuple[int, dict[str, object]]:
    env = {"BUNDLE_PW": archive.PASSWORD, "BUNDLER_READAHEAD": readahead}
    argv = ["analyze", str(path), "--password-env", "BUNDLE_PW", "--format", "json"]
    result = CliRunner().invoke(cli, argv, env=env)
    assert not [t for t in threading.enumerate() if t.name == "bundler-readahead"]
    return result.exit_code, json.loads(result.stdout)


@pytest.mark.parametrize("tamper", [False, True])
def test_report_is_the_same_with_and_without_read_ahead(
    tmp_path: Path, fleet: Fleet, tamper: bool
) -> None:
    path = _sealed(tmp_path, fleet)
    if tamper:
        archive.flip_byte(path, archive.data_offset(path, "hosts/h01/logs/1.log") + 70_000)
    inline_code, inline = _analyze(path, "0")
    ahead_code, ahead = _analyze(path, "4")
    assert ahead_code == inline_code
    for report in (inline, ahead):
        report["bundle"].pop("analyzed_at", None)  # type: ignore[union-attr]
        report.pop("generated_at", None)
    assert ahead == inline
    expected = "tampered" if tamper else "verified"
    assert ahead["bundle"]["integrity"]["status"] == expected  # type: ignore[index]


def test_a_bad_setting_is_a_one_line_usage_error(tmp_path: Path, fleet: Fleet) -> None:
    env = {"BUNDLE_PW": archive.PASSWORD, "BUNDLER_READAHEAD": "lots"}
    argv = ["analyze", str(_sealed(tmp_path, fleet)), "--password-env", "BUNDLE_PW"]
    result = CliRunner().invoke(cli, argv, env=env)
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        "bundler: error: BUNDLER_READAHEAD must be a number of chunks from 0 to 64, or off "
        "(got 'lots')"
    ]
