"""What a gzip member holds is judged as a member would be, by ``redact`` and by ``review``.

Before: both read every ``.gz`` as text once decompressed. A gzip of a gzip or of bzip2
(a ``.log.gz.gz`` from a careless rotation, a ``.bz2.gz``) went through ``redact``
unread, secret and all, and ``review`` called it clean; a ``.tar.gz`` was rewritten as
text (tar sizes and checksums no longer matching). And ``review`` read UTF-16 text as
bytes, so a Windows export's password passed the gate.
"""

from __future__ import annotations

import bz2
import gzip
import io
import tarfile
import zipfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.source import MemorySource
from redactors import BundleRedactor
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from tests.support.redaction import run

SECRET = b"password=Gz-Inner-Secret-7\n"


def _zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("inner.log", SECRET)
    return buffer.getvalue()


def _tar() -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as archive:
        info = tarfile.TarInfo("inner.log")
        info.size = len(SECRET)
        archive.addfile(info, io.BytesIO(SECRET))
    return buffer.getvalue()


NESTED = {
    "twice.log.gz": gzip.compress(gzip.compress(SECRET)),
    "bzip.log.gz": gzip.compress(bz2.compress(SECRET)),
    "zip.gz": gzip.compress(_zip()),
}
SQLITE = b"SQLite format 3\0" + b"\0" * 200 + SECRET


def _cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("name", sorted(NESTED))
def test_review_rejects_a_gzip_of_what_it_cannot_read(name: str) -> None:
    with pytest.raises(MemberUnreadable, match="review cannot see inside it"):
        review_source(MemorySource({name: NESTED[name]}))


def test_review_through_the_cli_exits_2(tmp_path: Path) -> None:
    (tmp_path / "twice.log.gz").write_bytes(NESTED["twice.log.gz"])
    code, out, err = _cli("review", str(tmp_path))
    assert code == 2
    assert "unreadable: rejected: member 'twice.log.gz': gzip of a gzip-compressed" in err
    assert "clean" not in out


@pytest.mark.parametrize(
    "data",
    [
        SECRET.decode().encode("utf-16"),
        gzip.compress(SECRET.decode().encode("utf-16")),
        gzip.compress(_tar()),  # a tar's members are plain bytes: scanned as they are
    ],
    ids=["UTF-16", "gzip of UTF-16", "tar.gz"],
)
def test_review_reads_utf16_and_tar_and_finds_the_secret(data: bytes) -> None:
    result = review_source(MemorySource({"export.txt": data}))
    assert [(f.check, f.kind) for f in result.findings] == [("detector", "password")]


def test_redact_leaves_out_what_a_gzip_holds_unless_it_is_text() -> None:
    files = {
        **NESTED,
        "logs.tar.gz": gzip.compress(_tar()),
        "db.sqlite.gz": gzip.compress(SQLITE),
        "export.txt.gz": gzip.compress(SECRET.decode().encode("utf-16")),
    }
    outputs, redactor, refused = run(files)
    assert refused == {
        "twice.log.gz": "policy",
        "bzip.log.gz": "policy",
        "zip.gz": "policy",
        "logs.tar.gz": "policy",
        "db.sqlite.gz": "binary",
    }
    assert set(outputs) == {"export.txt.gz"}
    text = gzip.decompress(outputs["export.txt.gz"])
    assert b"Gz-Inner-Secret-7" not in text
    assert text.startswith(b"password=[REDACTED:password:")
    skipped = {s.member: s for s in redactor.report().skipped}
    assert (
        skipped["twice.log.gz"].detail == "nested gzip of a gzip-compressed: not redacted, left out"
    )
    assert skipped["db.sqlite.gz"].detail == "gzip of a SQLite database"
    assert [f.member for f in redactor.report().files] == ["export.txt.gz"]


def test_keep_binary_keeps_a_gzipped_binary_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    original = gzip.compress(SQLITE, mtime=0)
    (src / "db.sqlite.gz").write_bytes(original)
    out = tmp_path / "out"
    code, _, err = _cli("redact", str(src), "--out", str(out), "--keep-binary")
    assert code == 0, err
    assert (out / "db.sqlite.gz").read_bytes() == original


def _gzip_peak(lines: int) -> tuple[int, int]:
    """(compressed size, peak traced bytes) of redacting a gzipped log read in 256 KiB pieces."""
    import random
    import tracemalloc

    rng = random.Random(7)
    text = b"".join(
        b"2026-12-06 worker w%d heartbeat ok %032x\n" % (i, rng.getrandbits(128))
        for i in range(lines)
    )
    packed = gzip.compress(text, 6)
    del text
    redactor = BundleRedactor(key=b"k" * 32)
    pieces = (bytes(packed[i : i + (1 << 18)]) for i in range(0, len(packed), 1 << 18))
    tracemalloc.start()
    try:
        for _ in redactor.transform("big.log.gz", pieces):
            pass
        return len(packed), tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_gzip_member_is_streamed_not_held() -> None:
    """The compressed bytes read while judging what a gzip holds were kept for the whole
    member: memory grew with its size (20 MB traced for an 11 MB .gz, 11 MB before)."""
    small_size, small_peak = _gzip_peak(60_000)
    big_size, big_peak = _gzip_peak(240_000)
    assert big_size - small_size > 3 << 20
    assert big_peak - small_peak < (big_size - small_size) // 3
