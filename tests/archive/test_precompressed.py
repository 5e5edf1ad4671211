"""Members deflated elsewhere and only encrypted by the writer (``bundler redact``'s fast path)."""

from __future__ import annotations

import hashlib
import struct
import subprocess
import threading
import zlib
from collections.abc import Iterator
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import BundleReader, Sealing, Secret
from bundler.archive.builder import BundleBuilder
from bundler.archive.deflate import (
    DeflateError,
    DeflateStats,
    deflate_in_background,
    inflate_raw,
)
from bundler.archive.integrity import written as written_check
from bundler.archive.limits import ReaderLimits
from bundler.archive.zipwriter import EncryptedZipWriter
from bundler.errors import EncryptionError
from tests.support.archive import CREATED, PASSWORD, password_key
from tests.support.requirements import need_executable

LOG = b"".join(b"%06d worker heartbeat ok lease=%d\n" % (i, i * 7919 % 1000) for i in range(60_000))


def _deflated(data: bytes) -> tuple[list[bytes], DeflateStats]:
    stats = DeflateStats()
    pieces = [data[i : i + 300_000] for i in range(0, len(data), 300_000)]
    return list(deflate_in_background(pieces, stats)), stats


def test_background_deflate_is_raw_deflate_of_the_input_with_its_hash() -> None:
    out, stats = _deflated(LOG)
    assert stats.done
    assert (stats.size, stats.sha256) == (len(LOG), hashlib.sha256(LOG).hexdigest())
    assert stats.compressed_size == sum(map(len, out)) < len(LOG) // 4
    assert zlib.decompress(b"".join(out), -15) == LOG
    assert b"".join(inflate_raw(out)) == LOG


def test_segment_streams_ending_in_a_sync_flush_join_into_one_stream() -> None:
    """How bundler redact stores one member redacted in parallel segments (as pigz does)."""
    thirds = [LOG[: len(LOG) // 3], LOG[len(LOG) // 3 : len(LOG) // 2], LOG[len(LOG) // 2 :]]
    streams = []
    for index, part in enumerate(thirds):
        stats = DeflateStats()
        finish = index == len(thirds) - 1
        streams.append(b"".join(deflate_in_background([part], stats, finish=finish)))
        assert stats.sha256 == hashlib.sha256(part).hexdigest()
    assert zlib.decompress(b"".join(streams), -15) == LOG
    assert b"".join(inflate_raw([b"".join(streams)])) == LOG
    assert b"".join(inflate_raw([streams[0]], complete=False)) == thirds[0]
    with pytest.raises(DeflateError, match="ends early"):
        list(inflate_raw([streams[0]]))


def test_background_deflate_of_nothing_is_a_valid_empty_stream() -> None:
    out, stats = _deflated(b"")
    assert (stats.size, b"".join(inflate_raw(out))) == (0, b"")


def test_an_error_in_the_input_propagates_and_stops_the_helper() -> None:
    def failing() -> Iterator[bytes]:
        yield LOG[:2_000_000]
        raise RuntimeError("redaction refused the member")

    before = threading.active_count()
    stats = DeflateStats()
    with pytest.raises(RuntimeError, match="refused"):
        for _ in deflate_in_background(failing(), stats):
            pass
    assert not stats.done
    assert threading.active_count() == before


def test_closing_the_stream_early_stops_the_helper() -> None:
    before = threading.active_count()
    stream = deflate_in_background(iter([LOG] * 20), DeflateStats())
    next(stream)
    stream.close()
    assert threading.active_count() == before


def test_inflate_refuses_a_truncated_or_damaged_stream() -> None:
    out, _ = _deflated(LOG)
    whole = b"".join(out)
    with pytest.raises(DeflateError, match="ends early"):
        list(inflate_raw([whole[: len(whole) // 2]]))
    with pytest.raises(DeflateError, match="does not decode"):
        list(inflate_raw([b"\xff" * 64]))


def _writer(path: Path) -> EncryptedZipWriter:
    return EncryptedZipWriter(path, password=Secret(PASSWORD), created_at=CREATED)


def test_precompressed_member_reads_back_and_opens_in_7z(tmp_path: Path) -> None:
    seven_zip = need_executable("7z")
    out, stats = _deflated(LOG)
    path = tmp_path / "b.zip"
    with _writer(path) as writer:
        written = writer.write_precompressed("logs/0.log", out, size=len(LOG), sha256=stats.sha256)
        writer.write_member("small.txt", [b"hello"])
        writer.commit()
    assert written.size == len(LOG)
    assert written.compressed_size == stats.compressed_size + 16 + 2 + 10  # salt, verifier, MAC
    with pyzipper.AESZipFile(path) as zf:
        zf.setpassword(PASSWORD.encode())
        assert zf.read("logs/0.log") == LOG
        info = zf.getinfo("logs/0.log")
        assert (info.CRC, info.wz_aes_version, info.wz_aes_strength) == (0, 2, 3)
    tested = subprocess.run(
        [seven_zip, "t", f"-p{PASSWORD}", str(path)], capture_output=True, text=True, check=False
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "Everything is Ok" in tested.stdout


def test_a_wrong_hash_fails_the_post_write_check_and_publishes_nothing(tmp_path: Path) -> None:
    out, _ = _deflated(LOG)
    path = tmp_path / "b.zip"
    with _writer(path) as writer:
        writer.write_precompressed("logs/0.log", out, size=len(LOG), sha256="0" * 64)
        with pytest.raises(EncryptionError, match="reads back different content"):
            writer.commit()
    assert list(tmp_path.iterdir()) == []


def _zeros_stream(size: int) -> list[bytes]:
    """A raw deflate stream of ``size`` zero bytes made of one repeated, independent segment.

    A full flush resets the compressor, so the same ~1 KiB segment for 1 MiB
    of zeros may be repeated: gigabytes of plaintext cost a few MiB here.
    """
    mib = 1 << 20
    assert size % mib == 0
    compressor = zlib.compressobj(6, zlib.DEFLATED, -15)
    segment = compressor.compress(bytes(mib)) + compressor.flush(zlib.Z_FULL_FLUSH)
    tail = zlib.compressobj(6, zlib.DEFLATED, -15).flush(zlib.Z_FINISH)
    return [segment] * (size // mib) + [tail]


@pytest.mark.parametrize("size", [(2 << 30) + (512 << 20), (4 << 30) + (256 << 20)])
def test_zip64_size_fields_of_members_over_2_and_4_gib(
    tmp_path: Path, size: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # zeros, to be cheap: 1000:1, which the readers' ratio limit (and so the post-write
    # check) refuses; the zip64 fields are what is tested here
    monkeypatch.setattr(written_check, "READER_LIMITS", ReaderLimits(max_ratio=1e6))
    stream = _zeros_stream(size)
    path = tmp_path / "big.zip"
    with _writer(path) as writer:
        written = writer.write_precompressed("big.bin", stream, size=size, sha256="a" * 64)
        writer.write_member("after.txt", [b"after the big one"])
        writer.commit()  # MAC check only for members over 4 MiB: the hash is not re-read here
    compressed = sum(map(len, stream)) + 28
    assert written.compressed_size == compressed
    with pyzipper.AESZipFile(path) as zf:
        zf.setpassword(PASSWORD.encode())
        info = zf.getinfo("big.bin")
        assert (info.file_size, info.compress_size) == (size, compressed)
        with zf.open(info) as member:
            assert member.read(1 << 20) == bytes(1 << 20)
        assert zf.read("after.txt") == b"after the big one"
    with path.open("rb") as raw:
        fixed = raw.read(30)
        name_len, extra_len = struct.unpack("<HH", fixed[26:30])
        assert struct.unpack("<II", fixed[18:26]) == (0xFFFFFFFF, 0xFFFFFFFF)
        raw.read(name_len)
        extra = raw.read(extra_len)
    assert _zip64_extra(extra) == (size, compressed)


def _zip64_extra(extra: bytes) -> tuple[int, int]:
    pos = 0
    while pos + 4 <= len(extra):
        field_id, length = struct.unpack_from("<HH", extra, pos)
        if field_id == 0x0001:
            return struct.unpack_from("<QQ", extra, pos + 4)
        pos += 4 + length
    raise AssertionError("no zip64 extra field in the local header")


def test_builder_writes_precompressed_members_in_name_order_with_their_hash(
    tmp_path: Path,
) -> None:
    out, stats = _deflated(LOG)
    path = tmp_path / "b.zip"
    with BundleBuilder(path, sealing=Sealing.with_password(PASSWORD), clock=lambda: CREATED) as b:
        b.add("a.txt", b"first")
        b.add_precompressed(
            "logs/0.log", lambda: out, size=stats.size, sha256=stats.sha256, media_type="text/plain"
        )
        assert b"".join(b.source().iter_chunks("logs/0.log")) == LOG
        sealed = b.finalize(command="redact")
    entries = {m.path: m for m in sealed.manifest.members}
    assert entries["logs/0.log"].sha256 == hashlib.sha256(LOG).hexdigest()
    assert entries["logs/0.log"].size == len(LOG)
    with BundleReader.open(path, password_key()) as reader:
        assert reader.names()[:2] == ["a.txt", "logs/0.log"]
        assert reader.read_bytes("logs/0.log") == LOG
        assert not reader.check().problems


def test_prefetched_yields_everything_and_stops_when_closed_early() -> None:
    from bundler.archive.deflate import prefetched

    pieces = [bytes([i]) * 1000 for i in range(50)]
    assert list(prefetched(iter(pieces))) == pieces
    before = threading.active_count()
    stream = prefetched(iter(pieces))
    next(stream)
    stream.close()
    assert threading.active_count() == before

    def failing() -> Iterator[bytes]:
        yield b"x"
        raise ValueError("damaged")

    with pytest.raises(ValueError, match="damaged"):
        list(prefetched(failing()))
    assert threading.active_count() == before


def _sealed(data: bytes, password: str = PASSWORD) -> tuple[list[bytes], DeflateStats]:
    from bundler.archive.sealed import seal

    out, stats = _deflated(data)
    return list(seal(password.encode(), out)), stats


def test_sealed_member_is_only_copied_reads_back_and_opens_in_7z(tmp_path: Path) -> None:
    """What a redaction worker encrypts itself; the writer adds only the headers."""
    seven_zip = need_executable("7z")
    sealed, stats = _sealed(LOG)
    path = tmp_path / "b.zip"
    with _writer(path) as writer:
        written = writer.write_preencrypted(
            "logs/0.log", sealed, size=len(LOG), sha256=stats.sha256
        )
        tiny, tiny_stats = _sealed(b"")
        writer.write_preencrypted("empty.log", tiny, size=0, sha256=tiny_stats.sha256)
        writer.write_member("small.txt", [b"hello"])
        writer.commit()
    assert written.compressed_size == sum(map(len, sealed)) == stats.compressed_size + 28
    raw = path.read_bytes()
    assert b"".join(sealed) in raw  # copied byte for byte: salt, ciphertext, code
    with pyzipper.AESZipFile(path) as zf:
        zf.setpassword(PASSWORD.encode())
        assert zf.read("logs/0.log") == LOG
        assert zf.read("empty.log") == b""
        info = zf.getinfo("logs/0.log")
        assert (info.CRC, info.wz_aes_version, info.wz_aes_strength) == (0, 2, 3)
        assert info.file_size == len(LOG)
    tested = subprocess.run(
        [seven_zip, "t", f"-p{PASSWORD}", str(path)], capture_output=True, text=True, check=False
    )
    assert tested.returncode == 0, tested.stdout + tested.stderr
    assert "Everything is Ok" in tested.stdout


def test_each_sealed_stream_has_its_own_salt() -> None:
    first, _ = _sealed(b"same")
    second, _ = _sealed(b"same")
    assert first[0] != second[0]
    assert len(first[0]) == 18


@pytest.mark.parametrize("damage", ["password", "flip", "truncate"])
def test_a_foreign_or_damaged_sealed_stream_fails_the_post_write_check(
    tmp_path: Path, damage: str
) -> None:
    sealed, stats = _sealed(LOG, "another password entirely" if damage == "password" else PASSWORD)
    data = bytearray(b"".join(sealed))
    if damage == "flip":
        data[len(data) // 2] ^= 1
    elif damage == "truncate":
        del data[-5:]
    path = tmp_path / "b.zip"
    with _writer(path) as writer:
        writer.write_preencrypted("logs/0.log", [bytes(data)], size=len(LOG), sha256=stats.sha256)
        with pytest.raises(EncryptionError):
            writer.commit()
    assert list(tmp_path.iterdir()) == []


def test_a_sealed_stream_shorter_than_header_and_code_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    with _writer(path) as writer, pytest.raises(EncryptionError, match="truncated"):
        writer.write_preencrypted("x.log", [b"\0" * 20], size=1, sha256="0" * 64)
    assert list(tmp_path.iterdir()) == []


def test_builder_reads_a_sealed_member_back_and_writes_it(tmp_path: Path) -> None:
    sealed, stats = _sealed(LOG)
    path = tmp_path / "b.zip"
    with BundleBuilder(path, sealing=Sealing.with_password(PASSWORD), clock=lambda: CREATED) as b:
        b.add_precompressed(
            "logs/0.log", lambda: sealed, size=stats.size, sha256=stats.sha256, sealed=True
        )
        assert b"".join(b.source().iter_chunks("logs/0.log")) == LOG
        b.finalize(command="redact")
    with BundleReader.open(path, password_key()) as reader:
        assert reader.read_bytes("logs/0.log") == LOG
        assert not reader.check().problems
