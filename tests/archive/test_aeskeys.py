"""A member's AES keys are derived once per open bundle; decryption and checks are unchanged."""

from __future__ import annotations

from pathlib import Path

import pytest

from bundler.archive import aeskeys
from bundler.errors import CorruptArchive
from tests.support.archive import build_bundle, data_offset, flip_byte, open_test_bundle

LOG = b"".join(b"2024-05-01T00:00:%02dZ worker w1 heartbeat ok\n" % (i % 60) for i in range(5_000))


def _bundle(tmp_path: Path) -> Path:
    members = {"logs/w1.log": LOG, "note.txt": b"hi", "other.txt": b"there"}
    return build_bundle(tmp_path / "b.zip", members).path


def _counting(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    salts: list[bytes] = []
    real = aeskeys.derive

    def counted(pwd: bytes, header: bytes, strength: int) -> bytes:
        salts.append(header)
        return real(pwd, header, strength)

    monkeypatch.setattr(aeskeys, "derive", counted)
    return salts


def test_a_member_read_twice_derives_its_keys_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _bundle(tmp_path)
    with open_test_bundle(path) as reader:
        salts = _counting(monkeypatch)
        assert reader.read_bytes("logs/w1.log") == LOG
        assert reader.read_bytes("logs/w1.log") == LOG
        assert b"".join(reader.iter_chunks("logs/w1.log", chunk_size=4096)) == LOG
        assert reader.read_bytes("note.txt") == b"hi"
        assert len(salts) == len(set(salts)) == 2  # one derivation per member, not per read


def test_a_tampered_member_still_fails_authentication_on_every_read(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    flip_byte(path, data_offset(path, "logs/w1.log") + 100)
    with open_test_bundle(path) as reader:
        for _ in range(2):  # and a second read is refused too
            with pytest.raises(CorruptArchive, match="authentication"):
                reader.read_bytes("logs/w1.log")


def test_keys_derived_ahead_are_the_ones_each_member_needs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = _bundle(tmp_path)
    with open_test_bundle(path) as reader:
        salts = _counting(monkeypatch)
        reader.derive_keys_ahead()
        assert reader._keys_ahead is not None
        reader._keys_ahead._thread.join()  # every key derived on the thread
        ahead = len(salts)
        assert ahead == len(set(salts)) == len(reader.names()) - 1  # all but the manifest
        assert reader.read_bytes("logs/w1.log") == LOG
        assert reader.read_bytes("note.txt") == b"hi"
        assert reader.read_bytes("other.txt") == b"there"
        assert len(salts) == ahead  # no member derived again when read


def test_keys_ahead_do_not_hide_a_tampered_member(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    flip_byte(path, data_offset(path, "logs/w1.log") + 100)
    with open_test_bundle(path) as reader:
        reader.derive_keys_ahead()
        with pytest.raises(CorruptArchive, match="authentication"):
            reader.read_bytes("logs/w1.log")
        assert reader.read_bytes("note.txt") == b"hi"
