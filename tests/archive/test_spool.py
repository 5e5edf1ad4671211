"""The encrypted spool: nothing readable on disk, damage detected, wiped without trace."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundler.archive.spool import EncryptedSpool
from bundler.errors import OutputError

SECRET = b"hunter2-very-secret-token-" * 1000


def _all_spool_bytes(spool: EncryptedSpool) -> bytes:
    return b"".join(p.read_bytes() for p in sorted(spool.folder.iterdir()))


def test_round_trip_and_nothing_readable_on_disk(tmp_path: Path) -> None:
    spool = EncryptedSpool(tmp_path)
    stored = spool.write([SECRET, b"tail"])
    assert b"".join(spool.read(stored)) == SECRET + b"tail"
    assert stored.size == len(SECRET) + 4
    on_disk = _all_spool_bytes(spool)
    assert b"hunter2" not in on_disk
    assert b"tail" not in on_disk
    spool.wipe()


def test_spool_folder_and_files_are_private(tmp_path: Path) -> None:
    spool = EncryptedSpool(tmp_path)
    stored = spool.write([b"x"])
    assert spool.folder.stat().st_mode & 0o777 == 0o700
    assert stored.path.stat().st_mode & 0o777 == 0o600
    assert spool.folder.name.endswith(".spool.tmp-bundler")
    spool.wipe()


def test_empty_and_multi_megabyte_members(tmp_path: Path) -> None:
    spool = EncryptedSpool(tmp_path)
    empty = spool.write([])
    big = spool.write(bytes([i % 256]) * 100_000 for i in range(40))
    assert list(spool.read(empty)) == []
    assert b"".join(spool.read(big)) == b"".join(bytes([i % 256]) * 100_000 for i in range(40))
    assert all(len(chunk) <= 1 << 20 for chunk in spool.read(big))
    spool.wipe()


@pytest.mark.parametrize("damage", ["flip", "truncate", "append"])
def test_damage_on_disk_is_detected(tmp_path: Path, damage: str) -> None:
    spool = EncryptedSpool(tmp_path)
    stored = spool.write([b"a" * (3 << 20)])
    data = bytearray(stored.path.read_bytes())
    if damage == "flip":
        data[100] ^= 1
    elif damage == "truncate":
        del data[len(data) // 2 :]
    else:
        data += data[: 1 << 10]
    stored.path.write_bytes(bytes(data))
    with pytest.raises(OutputError, match="damaged"):
        b"".join(spool.read(stored))
    spool.wipe()


def test_swapped_files_are_detected(tmp_path: Path) -> None:
    spool = EncryptedSpool(tmp_path)
    one, two = spool.write([b"one"]), spool.write([b"two"])
    one_bytes = one.path.read_bytes()
    one.path.write_bytes(two.path.read_bytes())
    two.path.write_bytes(one_bytes)
    with pytest.raises(OutputError):
        b"".join(spool.read(one))
    spool.wipe()


def test_a_failing_stream_leaves_no_file(tmp_path: Path) -> None:
    spool = EncryptedSpool(tmp_path)

    def chunks():  # type: ignore[no-untyped-def]
        yield b"x" * (2 << 20)
        raise ConnectionError("peer went away")

    with pytest.raises(ConnectionError):
        spool.write(chunks())
    assert list(spool.folder.iterdir()) == []
    spool.wipe()


def test_wipe_removes_everything(tmp_path: Path) -> None:
    spool = EncryptedSpool(tmp_path)
    spool.write([b"x"])
    spool.wipe()
    assert list(tmp_path.iterdir()) == []
    with pytest.raises(RuntimeError):
        spool.write([b"y"])
