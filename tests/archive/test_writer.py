"""The streaming writer: AES-256 AE-2 on disk, explicit times, atomic publish, fail closed."""

from __future__ import annotations

import hashlib
import struct
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest
import pyzipper
from freezegun import freeze_time

from bundler.archive import EncryptedZipWriter, Secret
from bundler.archive.integrity import written as written_check
from bundler.archive.integrity.written import AES_EXTRA_ID, aes_extra
from bundler.archive.limits import ReaderLimits
from bundler.errors import EncryptionError, OutputError

PASSWORD = Secret("correct horse battery staple")
WHEN = datetime(2024, 5, 1, 12, 30, 10, tzinfo=UTC)


def _write(path: Path, members: dict[str, bytes], **kwargs: object) -> Path:
    with EncryptedZipWriter(path, password=PASSWORD, created_at=WHEN, **kwargs) as writer:  # type: ignore[arg-type]
        for name, data in members.items():
            writer.write_member(name, [data])
        return writer.commit()


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir())


def _local_headers(path: Path) -> list[tuple[str, int, int, bytes]]:
    """(name, method, crc, extra) of every local file header, read from raw bytes."""
    raw = path.read_bytes()
    found = []
    with pyzipper.AESZipFile(path) as zf:
        infos = zf.infolist()
    for info in infos:
        at = info.header_offset
        assert raw[at : at + 4] == b"PK\x03\x04"
        method, _, _, crc = struct.unpack_from("<HHHI", raw, at + 8)
        name_len, extra_len = struct.unpack_from("<HH", raw, at + 26)
        name = raw[at + 30 : at + 30 + name_len].decode()
        extra = raw[at + 30 + name_len : at + 30 + name_len + extra_len]
        found.append((name, method, crc, extra))
    return found


def test_round_trip_with_pyzipper(tmp_path: Path) -> None:
    members = {"a.txt": b"hello\n", "logs/big.log": b"x" * 3_000_000, "empty": b""}
    path = _write(tmp_path / "b.zip", members)
    with pyzipper.AESZipFile(path) as zf:
        zf.setpassword(PASSWORD.reveal())
        assert zf.namelist() == list(members)
        for name, data in members.items():
            assert zf.read(name) == data


def test_every_entry_is_aes256_ae2_with_zero_crc_in_the_local_header(tmp_path: Path) -> None:
    path = _write(tmp_path / "b.zip", {"small": b"hi", "json": b'{"a": 1}' * 100})
    headers = _local_headers(path)
    assert len(headers) == 2
    for _name, method, crc, extra in headers:
        assert method == 99  # WinZip AES
        assert crc == 0  # AE-2: no plaintext CRC
        assert struct.pack("<H", AES_EXTRA_ID) in extra
        assert aes_extra(extra) == (2, 3)  # AE-2, AES-256


def test_write_member_reports_sha256_and_size(tmp_path: Path) -> None:
    with EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN) as writer:
        chunks = [b"a" * 700_000, b"b" * 700_000, b"", b"c"]
        written = writer.write_member("m", chunks)
        writer.commit()
    assert written.size == 1_400_001
    assert written.sha256 == hashlib.sha256(b"".join(chunks)).hexdigest()


def test_members_carry_the_creation_time_in_utc(tmp_path: Path) -> None:
    with freeze_time("2031-02-03 04:05:06"):
        created = datetime.now(UTC)
    path = tmp_path / "b.zip"
    with EncryptedZipWriter(path, password=PASSWORD, created_at=created) as writer:
        writer.write_member("m", [b"x"])
        writer.commit()
    with pyzipper.AESZipFile(path) as zf:
        assert zf.getinfo("m").date_time == (2031, 2, 3, 4, 5, 6)


def test_a_local_time_is_stored_as_utc_not_1980(tmp_path: Path) -> None:
    plus_five = datetime(2031, 2, 3, 9, 5, 6, tzinfo=timezone(timedelta(hours=5)))
    path = tmp_path / "b.zip"
    with EncryptedZipWriter(path, password=PASSWORD, created_at=plus_five) as writer:
        writer.write_member("m", [b"x"])
        writer.commit()
    with pyzipper.AESZipFile(path) as zf:
        assert zf.getinfo("m").date_time == (2031, 2, 3, 4, 5, 6)


def test_memory_is_not_needed_for_large_members(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A generator of 64 MiB is consumed lazily (a list would be materialized first).

    Its runs of one byte deflate 1000:1, which the readers refuse above 16 MiB (and so
    does the post-write check): that limit is not what is tested here."""
    monkeypatch.setattr(written_check, "READER_LIMITS", ReaderLimits(max_ratio=1e6))
    seen = []

    def chunks() -> Iterator[bytes]:
        for i in range(64):
            seen.append(i)
            yield bytes([i % 251]) * (1 << 20)

    with EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN) as writer:
        written = writer.write_member("big", chunks())
        writer.commit()
    assert written.size == 64 << 20
    assert seen == list(range(64))


def test_refuses_to_overwrite_unless_asked(tmp_path: Path) -> None:
    target = tmp_path / "b.zip"
    target.write_bytes(b"precious")
    with pytest.raises(OutputError, match="already exists"):
        EncryptedZipWriter(target, password=PASSWORD, created_at=WHEN)
    assert target.read_bytes() == b"precious"
    _write(target, {"m": b"new"}, overwrite=True)
    assert target.read_bytes() != b"precious"
    assert _leftovers(tmp_path) == ["b.zip"]


def test_file_appearing_meanwhile_is_not_overwritten(tmp_path: Path) -> None:
    target = tmp_path / "b.zip"
    with EncryptedZipWriter(target, password=PASSWORD, created_at=WHEN) as writer:
        writer.write_member("m", [b"x"])
        target.write_bytes(b"someone else's")
        with pytest.raises(OutputError, match="already exists"):
            writer.commit()
    assert target.read_bytes() == b"someone else's"
    assert _leftovers(tmp_path) == ["b.zip"]


@pytest.mark.parametrize("error", [RuntimeError("collector broke"), KeyboardInterrupt()])
def test_an_error_mid_member_leaves_nothing(tmp_path: Path, error: BaseException) -> None:
    def chunks() -> Iterator[bytes]:
        yield b"first part " * 100_000
        raise error

    writer = EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN)
    writer.write_member("ok", [b"fine"])
    with pytest.raises(type(error)):
        writer.write_member("broken", chunks())
    assert _leftovers(tmp_path) == []
    with pytest.raises(RuntimeError, match="closed"):
        writer.commit()


def test_leaving_without_commit_leaves_nothing(tmp_path: Path) -> None:
    with EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN) as writer:
        writer.write_member("m", [b"x"])
        assert len(_leftovers(tmp_path)) == 1  # the temporary file, in the target folder
        assert _leftovers(tmp_path)[0].endswith(".tmp-bundler")
    assert _leftovers(tmp_path) == []


def test_no_password_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(EncryptionError, match="unencrypted"):
        EncryptedZipWriter(tmp_path / "b.zip", password=b"", created_at=WHEN)  # type: ignore[arg-type]
    assert _leftovers(tmp_path) == []


def test_fails_closed_when_pyzipper_would_not_encrypt(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If pyzipper stopped encrypting (a regression), not one content byte is written."""
    monkeypatch.setattr(pyzipper.AESZipFile, "get_encrypter", lambda self: None)
    monkeypatch.setattr(pyzipper.AESZipFile, "_open_to_write", _open_plain(pyzipper.AESZipFile))
    secret = b"SECRET-CONTENT-" * 10
    writer = EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN)
    with pytest.raises(EncryptionError, match="did not set up AES"):
        writer.write_member("m", [secret])
    assert _leftovers(tmp_path) == []


def _open_plain(cls: type) -> object:
    original = cls._open_to_write

    def open_without_encryption(
        self: object, zinfo: object, force_zip64: bool = False, pwd: object = None
    ) -> object:
        self.encryption = None  # type: ignore[attr-defined]
        self.pwd = None  # type: ignore[attr-defined]
        return original(self, zinfo, force_zip64=force_zip64, pwd=None)

    return open_without_encryption


def test_verification_after_close_catches_corruption(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A byte changed on disk between close and publish is caught by the MAC check."""
    from bundler.archive import zipwriter

    real_verify = zipwriter.verify_written

    def corrupt_then_verify(path: Path, *args: object, **kwargs: object) -> None:
        data = bytearray(path.read_bytes())
        data[200] ^= 0xFF
        path.write_bytes(bytes(data))
        real_verify(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(zipwriter, "verify_written", corrupt_then_verify)
    with pytest.raises(EncryptionError, match="failed verification"):
        _write(tmp_path / "b.zip", {"m": bytes(range(256)) * 4000})
    assert _leftovers(tmp_path) == []


def test_full_verification_mode_rereads_everything(tmp_path: Path) -> None:
    path = _write(tmp_path / "b.zip", {"big": b"y" * (5 << 20)}, verify="full")
    assert path.exists()


@pytest.mark.parametrize("name", ["../evil", "/abs", "a\\b", "a/../b", "ctl\x07", ""])
def test_bad_member_names_are_refused_and_nothing_is_left(tmp_path: Path, name: str) -> None:
    writer = EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN)
    with pytest.raises(ValueError, match="invalid member name"):
        writer.write_member(name, [b"x"])
    assert _leftovers(tmp_path) == []


def test_duplicate_member_is_refused(tmp_path: Path) -> None:
    writer = EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN)
    writer.write_member("m", [b"x"])
    with pytest.raises(ValueError, match="twice"):
        writer.write_member("m", [b"y"])
    assert _leftovers(tmp_path) == []


def test_published_bundle_is_private(tmp_path: Path) -> None:
    path = _write(tmp_path / "b.zip", {"m": b"x"})
    assert path.stat().st_mode & 0o777 == 0o600


def test_missing_output_folder_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match="does not exist"):
        EncryptedZipWriter(tmp_path / "nope" / "b.zip", password=PASSWORD, created_at=WHEN)
