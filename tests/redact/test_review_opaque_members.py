"""``review`` refuses what it cannot see into: binary members, and tars that carry one.

Before, review scanned a binary member's bytes as they are and called them clean when no
rule fired. A SQLite file stores a row's columns back to back (``token`` then
``ghp_…``: no boundary before the token, so the GitHub rule cannot fire), so a bundle made
with ``redact --keep-binary`` passed the upload gate with the token inside; random bytes
passed too. And a tar was scanned as bytes whatever its members were: a ``.tar.gz``
holding ``app.log.gz`` passed with the gzipped log's secrets unread. Now a binary member
and a tar with a member that is not plain text make review exit 2 ("unreadable"), never 0.
So does text with compressed or binary data appended after its first 8 KiB (the sniff reads
only those): ``cat app.log app.log.1.gz > all.log`` read as text, the gzip unread.
"""

from __future__ import annotations

import gzip
import io
import random
import sqlite3
import tarfile
from pathlib import Path

import pytest
from click.testing import CliRunner

from bundler.cli import cli
from bundler.source import MemorySource
from redactors.errors import MemberUnreadable
from redactors.review import review_source
from tests.support.redaction import reviews_clean

TOKEN = "ghp_" + "Zq7Lm2Xc9Rv4Tn8Wb1Ys6Pk3Hd5Jf0Ga2Qe"
LOG = f"2026-12-07 worker w1 started\ntoken = {TOKEN}\n".encode()


def _sqlite(tmp_path: Path) -> bytes:
    path = tmp_path / "app.db"
    with sqlite3.connect(path) as db:
        db.execute("create table settings(key text, value text)")
        db.execute("insert into settings values ('token', ?)", (TOKEN,))
    data = path.read_bytes()
    path.unlink()
    assert TOKEN.encode() in data  # stored as it is: a scan of the bytes could see it
    return data


def _tar(members: dict[str, bytes], *, fmt: int = tarfile.PAX_FORMAT) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=fmt) as archive:
        folder = tarfile.TarInfo("logs")
        folder.type = tarfile.DIRTYPE
        archive.addfile(folder)
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return buffer.getvalue()


def _refused(data: bytes, name: str = "member") -> str:
    with pytest.raises(MemberUnreadable) as caught:
        review_source(MemorySource({name: data}))
    assert caught.value.member == name
    return caught.value.reason


def test_a_sqlite_file_holding_a_token_is_refused_not_clean(tmp_path: Path) -> None:
    reason = _refused(_sqlite(tmp_path), "app.db")
    assert reason == "binary (SQLite database): review cannot vouch for what it holds"


@pytest.mark.parametrize(
    "data",
    [random.Random(5).randbytes(6000), gzip.compress(b"SQLite format 3\0" + b"\0" * 300)],
    ids=["random bytes", "gzip of a SQLite file"],
)
def test_other_binary_members_are_refused(data: bytes) -> None:
    assert "review cannot vouch for what it holds" in _refused(data)


def test_a_tar_carrying_a_gzipped_log_is_refused() -> None:
    data = gzip.compress(_tar({"logs/app.log": b"fine\n", "logs/app.log.1.gz": gzip.compress(LOG)}))
    assert _refused(data, "logs.tgz") == (
        "tar archive: a member inside it is not plain text (gzip-compressed); "
        "review cannot see inside it"
    )


def test_a_tar_carrying_a_sqlite_file_is_refused(tmp_path: Path) -> None:
    reason = _refused(_tar({"state/app.db": _sqlite(tmp_path)}), "state.tar")
    assert "not plain text (SQLite database)" in reason


@pytest.mark.parametrize("fmt", [tarfile.PAX_FORMAT, tarfile.GNU_FORMAT, tarfile.USTAR_FORMAT])
def test_a_tar_of_text_is_still_scanned_where_its_bytes_lie(fmt: int) -> None:
    long_name = "logs/" + "deeply-nested-" * 8 + "worker.log"  # a pax or GNU long-name entry
    members = {"logs/a.log": b"fine\n" * 3000, "logs/b.log": LOG}
    if fmt != tarfile.USTAR_FORMAT:
        members[long_name] = b"also fine\n"
    result = review_source(MemorySource({"logs.tar": _tar(members, fmt=fmt)}))
    assert "token" in {f.kind for f in result.findings}  # found where it lies in the tar
    clean = review_source(MemorySource({"logs.tar": _tar({"logs/a.log": b"fine\n"}, fmt=fmt)}))
    assert clean.clean


def test_a_pax_name_in_unicode_is_followed() -> None:
    data = _tar({"logs/journal-é.log": b"fine\n", "logs/z.log": b"fine too\n"})
    assert reviews_clean("logs.tar", data)


def test_a_tar_is_judged_in_chunks_of_any_size(tmp_path: Path) -> None:
    data = _tar({"logs/a.log": b"fine\n" * 700, "state/app.db": _sqlite(tmp_path)})

    class Chunked(MemorySource):
        def iter_chunks(self, name: str, chunk_size: int = 1 << 20):  # type: ignore[no-untyped-def]
            blob = self.read_bytes(name)
            yield from (blob[i : i + 7] for i in range(0, len(blob), 7))

    with pytest.raises(MemberUnreadable, match="SQLite database"):
        review_source(Chunked({"state.tar": data}))


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (lambda tar: tar + gzip.compress(LOG), "it holds data after the archive's end"),
        (lambda tar: tar[:148] + b"0000000\0" + tar[156:], "a header's checksum is wrong"),
    ],
    ids=["data after the end", "bad checksum"],
)
def test_a_tar_whose_layout_cannot_be_followed_is_refused(damage, why: str) -> None:  # type: ignore[no-untyped-def]
    data = damage(_tar({"logs/a.log": b"fine\n"}, fmt=tarfile.USTAR_FORMAT))
    assert why in _refused(data, "logs.tar")


def test_keep_binary_output_fails_the_gate(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "app.db").write_bytes(_sqlite(tmp_path))
    (src / "worker.log").write_bytes(b"2026-12-07 worker w1 ok\n")
    out = tmp_path / "out"
    runner = CliRunner()
    made = runner.invoke(cli, ["redact", str(src), "--out", str(out), "--keep-binary"])
    assert made.exit_code == 0, made.stderr
    result = runner.invoke(cli, ["review", str(out)])
    assert result.exit_code == 2
    assert "clean" not in result.stdout
    assert (
        "unreadable: rejected: member 'app.db': binary (SQLite database): "
        "review cannot vouch for what it holds" in result.stderr
    )
    assert "hint: leave it out (bundler redact does, unless --keep-binary)" in result.stderr
    assert TOKEN not in result.stderr + result.stdout
    without = runner.invoke(cli, ["redact", str(src), "--out", str(tmp_path / "plain")])
    assert without.exit_code == 0, without.stderr
    assert runner.invoke(cli, ["review", str(tmp_path / "plain")]).exit_code == 0


TEXT = b"2026-12-07 worker w1 heartbeat ok\n" * 400  # past the 8 KiB the sniff reads


@pytest.mark.parametrize(
    ("appended", "what"),
    [
        (gzip.compress(LOG), "a gzip stream"),
        (b"SQLite format 3\0" + b"\0" * 100 + TOKEN.encode(), "a SQLite database"),
        (b"PK\x03\x04" + b"\0" * 26 + LOG, "a zip archive"),
        (b"BZh91AY&SY" + b"\0" * 40, "a bzip2 stream"),
    ],
    ids=["gzip", "sqlite", "zip", "bzip2"],
)
def test_text_with_something_appended_is_refused(appended: bytes, what: str) -> None:
    reason = _refused(TEXT + appended, "all.log")
    assert reason == f"{what} at byte {len(TEXT)} inside text: review cannot see inside it"


def test_a_signature_cut_by_a_chunk_boundary_is_found() -> None:
    data = TEXT + gzip.compress(LOG)

    class Chunked(MemorySource):
        def iter_chunks(self, name: str, chunk_size: int = 1 << 20):  # type: ignore[no-untyped-def]
            blob = self.read_bytes(name)
            cut = len(TEXT) + 1  # between the gzip magic's first and second byte
            yield from (blob[:cut], blob[cut:])

    with pytest.raises(MemberUnreadable, match="a gzip stream at byte"):
        review_source(Chunked({"all.log": data}))


def test_text_that_names_formats_is_not_refused() -> None:
    words = b"rotated app.log.1.gz (gzip, PK zip, SQLite format 3, BZh9, 7z, ELF)\n"
    assert reviews_clean("notes.log", TEXT + words * 50)


def test_redact_leaves_out_text_with_a_gzip_appended(tmp_path: Path) -> None:
    """What ``review`` refuses, ``redact`` does not write: the appended stream cannot be
    redacted as text (before, it went into the output as it came)."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "all.log").write_bytes(TEXT + gzip.compress(LOG))
    (src / "ok.log").write_bytes(b"fine\n")
    out = tmp_path / "out"
    result = CliRunner().invoke(cli, ["redact", str(src), "--out", str(out)])
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in out.iterdir()) == ["ok.log", "redaction-report.json"]
    assert "1 skipped (policy 1" in result.stderr
    assert CliRunner().invoke(cli, ["review", str(out)]).exit_code == 0
