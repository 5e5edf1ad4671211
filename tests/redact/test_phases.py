"""bundler redact says which phase it is in: on a terminal only, as a transient status line."""

from __future__ import annotations

import os
import select
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from bundler.archive.passwords import Sealing
from bundler.cli import cli
from bundler.redaction.config import RedactConfig
from bundler.redaction.handoff import new_key
from bundler.redaction.outputs import redact_to_bundle, redact_to_directory

LOG = b"".join(
    b"2026-11-30 step %d ok db_password=Phase-Pw-%d\n" % (i, i % 50) for i in range(60_000)
)


def _src(tmp_path: Path) -> Path:
    src = tmp_path / "src"
    src.mkdir()
    (src / "a.log").write_bytes(LOG)
    (src / "b.log").write_bytes(LOG[:1000])
    return src


def _config() -> RedactConfig:
    return RedactConfig(key=b"p" * 32, handoff_key=new_key())


def test_the_api_reports_each_phase_in_order(tmp_path: Path) -> None:
    src = _src(tmp_path)
    phases: list[str] = []
    sealing = Sealing.with_password("a long enough bundle password")
    redact_to_bundle(src, tmp_path / "out.zip", _config(), sealing, progress=phases.append)
    assert [p.split(":")[0] for p in phases] == ["pass one", "pass two", "sealing out.zip"]
    assert phases[0].startswith("pass one: redacting 2 files, 2.8 MiB")
    assert "learned value" in phases[1]
    phases.clear()
    redact_to_directory(src, tmp_path / "out", _config(), progress=phases.append)
    assert [p.split(":")[0] for p in phases] == ["pass one", "pass two"]


def test_without_a_terminal_only_the_summary_line_is_printed(tmp_path: Path) -> None:
    src = _src(tmp_path)
    result = CliRunner().invoke(cli, ["redact", str(src), "--out", str(tmp_path / "out")])
    assert result.exit_code == 0, result.stderr
    assert result.stderr.count("\n") == 1
    assert result.stderr.startswith("bundler: redacted 2 files,")


def test_on_a_terminal_the_phases_are_shown(tmp_path: Path) -> None:
    src = _src(tmp_path)
    primary, secondary = os.openpty()
    env = {**os.environ, "TERM": "xterm-256color", "COLUMNS": "120"}
    env.pop("CI", None)
    with subprocess.Popen(
        [sys.executable, "-m", "bundler", "redact", str(src), "--out", str(tmp_path / "out")],
        stdin=subprocess.DEVNULL,
        stdout=secondary,
        stderr=secondary,
        env=env,
    ) as process:
        os.close(secondary)
        seen = b""
        while True:
            ready, _, _ = select.select([primary], [], [], 60)
            if not ready:
                break
            try:
                piece = os.read(primary, 65536)
            except OSError:  # the child closed the terminal
                break
            if not piece:
                break
            seen += piece
        assert process.wait(timeout=60) == 0
    os.close(primary)
    assert b"bundler: pass one: redacting 2 files," in seen
    assert b"bundler: redacted 2 files," in seen
