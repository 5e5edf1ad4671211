"""``bundler redact`` as a library call: a RedactRequest is checked before any file is read."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundler.errors import UsageError
from bundler.redaction.mapfile import read_map
from bundler.redaction.request import RedactRequest, prepare, run, summary_line
from bundler.secret_options import SealOptions


@pytest.fixture
def src(tmp_path: Path) -> Path:
    root = tmp_path / "src"
    root.mkdir()
    (root / "app.conf").write_text("db_password=Request-Pw-1\n")
    return root


def test_a_directory_run_redacts_and_writes_report_and_map(src: Path, tmp_path: Path) -> None:
    shown: list[str] = []
    request = RedactRequest(
        src=src,
        out=tmp_path / "out",
        report_path=tmp_path / "report.json",
        map_out=tmp_path / "map.bin",
    )
    prepared = prepare(request, announce=shown.append)
    assert prepared.sealing is None
    (line,) = shown  # the generated map password, shown once
    password = line.rsplit(": ", 1)[1]
    outcome = run(prepared)
    assert b"Request-Pw-1" not in (tmp_path / "out" / "app.conf").read_bytes()
    assert (tmp_path / "report.json").read_text().startswith("{")
    originals = {original for _, original in read_map(tmp_path / "map.bin", password).values()}
    assert b"Request-Pw-1" in originals
    assert summary_line(outcome).startswith("bundler: redacted 1 file,")
    assert summary_line(outcome).endswith(f"-> {tmp_path / 'out'}")


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"seal": SealOptions(generate_password=True)}, "sealing options apply to a .zip"),
        ({"map_out": "exists"}, "already exists"),
        ({"map_out": "new", "map_password_env": "BUNDLER_TEST_UNSET"}, "is empty or not set"),
    ],
)
def test_bad_requests_fail_before_any_output(
    src: Path, tmp_path: Path, changes: dict[str, object], message: str
) -> None:
    existing = tmp_path / "exists.bin"
    existing.write_bytes(b"")
    paths = {"exists": existing, "new": tmp_path / "new.bin"}
    fields = {k: paths.get(v, v) if isinstance(v, str) and k == "map_out" else v
              for k, v in changes.items()}  # fmt: skip
    request = RedactRequest(src=src, out=tmp_path / "out", **fields)  # type: ignore[arg-type]
    with pytest.raises(UsageError, match=message):
        prepare(request, announce=lambda text: None)
    assert not (tmp_path / "out").exists()
