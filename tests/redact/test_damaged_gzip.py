"""A gzip member that does not decompress to its end is never taken for the whole file.

A rotated log copied while logrotate was still writing it ends mid-stream; a bad disk or
transfer corrupts one. Before: ``review`` called a truncated one clean (exit 0: it had read
the part that decompressed), a corrupt one made ``redact`` and ``review`` stop with an
internal error (exit 70), losing the whole run for one file.
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.archive import open_bundle
from bundler.cli import cli
from bundler.cli.options import OpenSecrets
from redactors.textcodecs import GzipDamaged, gunzip_chunks

PAYLOAD = b"worker w1 heartbeat ok\n" * 2000 + b"password=Gz-Hidden-Tail-9\n"
WHOLE = gzip.compress(PAYLOAD, mtime=0)
DAMAGED = {
    "truncated.log.gz": WHOLE[: len(WHOLE) // 2],
    "corrupt.log.gz": WHOLE[:20] + b"\0" * 40 + WHOLE[60:],
}


def _cli(*args: str, env: dict[str, str] | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args), env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize(
    "chunks",
    [[WHOLE], [WHOLE[:7], WHOLE[7:100], WHOLE[100:]], [WHOLE + b"\0" * 512]],
    ids=["whole", "in pieces", "NUL padding after it"],
)
def test_an_intact_stream_decompresses_whole(chunks: list[bytes]) -> None:
    assert b"".join(gunzip_chunks(chunks)) == PAYLOAD
    assert b"".join(gunzip_chunks([WHOLE + WHOLE])) == PAYLOAD * 2  # concatenated members


@pytest.mark.parametrize("data", [*DAMAGED.values(), WHOLE + b"trailing junk"], ids=str)
def test_a_damaged_stream_raises_instead_of_ending_early(data: bytes) -> None:
    with pytest.raises(GzipDamaged):
        b"".join(gunzip_chunks([data]))


def test_redact_leaves_damaged_members_out_and_says_why(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "ok.log.gz").write_bytes(WHOLE)
    for name, data in DAMAGED.items():
        (src / name).write_bytes(data)
    bundle = tmp_path / "support.zip"
    env = {"BPW": "a long enough bundle password"}
    code, _, err = _cli("redact", str(src), "--out", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0, err
    assert "2 skipped" in err
    with open_bundle(bundle, OpenSecrets(password_env="BPW"), environ=env) as reader:
        assert "ok.log.gz" in reader.names()
        assert not set(DAMAGED) & set(reader.names())
        report = json.loads(reader.read_bytes("redaction-report.json"))
        assert b"Gz-Hidden-Tail-9" not in gzip.decompress(reader.read_bytes("ok.log.gz"))
    skipped = {s["member"]: s for s in report["skipped"]}
    assert set(skipped) == set(DAMAGED)
    assert {s["reason"] for s in skipped.values()} == {"decode_error"}
    assert "ends before" in skipped["truncated.log.gz"]["detail"]
    assert "corrupt" in skipped["corrupt.log.gz"]["detail"]
    assert [f["member"] for f in report["files"]] == ["ok.log.gz"]
    code, _, err = _cli("review", str(bundle), "--password-env", "BPW", env=env)
    assert code == 0, err


@pytest.mark.parametrize("name", sorted(DAMAGED))
def test_review_rejects_a_member_it_could_read_only_in_part(tmp_path: Path, name: str) -> None:
    folder = tmp_path / "bundle"
    folder.mkdir()
    (folder / name).write_bytes(DAMAGED[name])
    for target in (folder, folder / name):
        code, out, err = _cli("review", str(target))
        assert code == 2, (target, out, err)
        assert "unreadable: rejected" in err
        assert repr(name) in err
        assert "Traceback" not in err
        assert "clean" not in out
