"""The post-write check on several threads: every entry checked, the first bad one reported.

The check runs after the writer closed the file and before it is published; its
entries are checked on a few threads (the C work needs no GIL), each with its own
file handle. A damaged bundle must still fail the same way, naming the first bad
entry in file order, whichever thread finds which.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import zipwriter
from bundler.archive.integrity import written
from bundler.archive.integrity.written import WrittenMember, verify_written
from bundler.archive.secret import Secret
from bundler.archive.zipwriter import EncryptedZipWriter
from bundler.errors import EncryptionError

PASSWORD = Secret("correct horse battery staple")
WHEN = datetime(2024, 5, 1, 12, 30, 10, tzinfo=UTC)
MEMBERS = {f"logs/m{i:02d}.log": os.urandom(40_000 + i) for i in range(12)}


@pytest.fixture
def bundle(tmp_path: Path) -> tuple[Path, dict[str, WrittenMember]]:
    with EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN) as writer:
        for name, data in MEMBERS.items():
            writer.write_member(name, [data])
        path = writer.commit()
        expected = writer.members  # what the writer meant to write, as it checks it
    return path, expected


@pytest.fixture
def threads_seen(monkeypatch: pytest.MonkeyPatch) -> set[str]:
    """Three checking threads whatever this machine has; the names of those that checked."""
    seen: set[str] = set()
    real = written.check_entry_encryption

    def recording(*args: object, **kwargs: object) -> None:
        seen.add(threading.current_thread().name)
        real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(written, "_usable_cores", lambda: 3)
    monkeypatch.setattr(written, "check_entry_encryption", recording)
    return seen


def test_an_intact_bundle_passes_checked_on_several_threads(
    bundle: tuple[Path, dict[str, WrittenMember]], threads_seen: set[str]
) -> None:
    path, expected = bundle
    verify_written(path, PASSWORD, expected)
    assert threads_seen
    assert all(name.startswith("verify") for name in threads_seen)


def test_of_two_damaged_entries_the_first_in_the_file_is_named(
    bundle: tuple[Path, dict[str, WrittenMember]], threads_seen: set[str]
) -> None:
    path, expected = bundle
    with pyzipper.AESZipFile(path) as zf:
        infos = zf.infolist()
    data = bytearray(path.read_bytes())
    for info in (infos[9], infos[3]):  # the later one first: order of damage is no hint
        data[info.header_offset + info.compress_size // 2] ^= 0xFF
    path.write_bytes(bytes(data))
    for _ in range(5):  # whichever thread gets there first
        with pytest.raises(EncryptionError, match=r"m03\.log") as caught:
            verify_written(path, PASSWORD, expected)
        assert "m09" not in str(caught.value)


def test_one_core_checks_in_the_calling_thread(
    bundle: tuple[Path, dict[str, WrittenMember]],
    threads_seen: set[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(written, "_usable_cores", lambda: 1)
    path, expected = bundle
    verify_written(path, PASSWORD, expected)
    assert threads_seen == {threading.current_thread().name}


def test_content_that_differs_from_what_was_meant_is_named(
    bundle: tuple[Path, dict[str, WrittenMember]], threads_seen: set[str]
) -> None:
    """The bytes on disk are intact (the MAC holds), but not what the writer meant to write."""
    path, expected = bundle
    meant = dict(expected)
    name = "logs/m05.log"
    meant[name] = dataclasses.replace(meant[name], sha256=hashlib.sha256(b"other").hexdigest())
    with pytest.raises(EncryptionError, match=r"m05\.log' reads back different content"):
        verify_written(path, PASSWORD, meant)


@pytest.mark.parametrize("compression", [pyzipper.ZIP_DEFLATED, pyzipper.ZIP_STORED])
def test_a_zip_pyzipper_wrote_reads_back_the_same(tmp_path: Path, compression: int) -> None:
    """The check decrypts and inflates by itself: it must agree with pyzipper's own writer."""
    path = tmp_path / "p.zip"
    data = {f"d/{i}.txt": (b"line %d\n" % i) * (50 + 900 * i) for i in range(6)}
    with pyzipper.AESZipFile(
        path,
        "w",
        compression=compression,
        encryption=pyzipper.WZ_AES,
        encryption_kwargs={"force_wz_aes_version": 2},
    ) as zf:
        zf.setpassword(PASSWORD.reveal())
        for name, body in data.items():
            zf.writestr(name, body)
    expected = {
        name: WrittenMember(name, hashlib.sha256(body).hexdigest(), len(body), 0)
        for name, body in data.items()
    }
    verify_written(path, PASSWORD, expected)
    name = "d/3.txt"
    expected[name] = dataclasses.replace(expected[name], sha256="0" * 64)
    with pytest.raises(EncryptionError, match="reads back different content"):
        verify_written(path, PASSWORD, expected)


def test_a_member_that_compressed_a_thousandfold_reads_back(tmp_path: Path) -> None:
    """Inflated a bounded piece at a time (its unconsumed input carried over), to the byte."""
    body = b"x" * (4 << 20)  # the largest member whose content is checked, ~4 KB deflated
    with EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN) as writer:
        writer.write_member("big.log", [body])
        path = writer.commit()
        expected = writer.members
    verify_written(path, PASSWORD, expected)
    assert expected["big.log"].compressed_size < len(body) // 500


def test_the_post_write_check_still_refuses_what_the_readers_would(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The writer stores such a member uncompressed (:mod:`bundler.archive.uncompressed`);
    the check before publishing stays the last word (here with that taken away)."""
    monkeypatch.setattr(zipwriter, "compresses_too_well", lambda size, compressed: False)
    line = b"2025-03-01 12:00:00 worker w1 heartbeat ok\n"
    body = line * ((17 << 20) // len(line))
    target = tmp_path / "b.zip"
    with EncryptedZipWriter(target, password=PASSWORD, created_at=WHEN) as writer:
        writer.write_member("hosts/h01/logs/0.log", [body])
        writer.write_member("manifest.json", [b"{}"])
        with pytest.raises(EncryptionError) as caught:
            writer.commit()
    message = str(caught.value)
    assert "\n" not in message
    assert "'hosts/h01/logs/0.log' has compression ratio" in message
    assert "readers would refuse it" in message
    assert not target.exists()
    assert list(tmp_path.iterdir()) == []


def test_the_readers_limits_are_the_ones_the_check_applies(tmp_path: Path) -> None:
    """Just under the floor the same data is accepted by the check and by the reader."""
    from bundler.archive.limits import ReaderLimits
    from bundler.archive.zipscan import open_zip, scan_entries

    line = b"2025-03-01 12:00:00 worker w1 heartbeat ok\n"
    body = line * ((16 << 20) // len(line))
    assert len(body) <= ReaderLimits().ratio_floor
    with EncryptedZipWriter(tmp_path / "b.zip", password=PASSWORD, created_at=WHEN) as writer:
        writer.write_member("hosts/h01/logs/0.log", [body])
        path = writer.commit()
    handle, zf, _ = open_zip(path, ReaderLimits())
    with handle, zf:
        assert list(scan_entries(zf, ReaderLimits())) == ["hosts/h01/logs/0.log"]
