"""Bundles are hostile input: every unsafe shape is refused before anything is decompressed."""

from __future__ import annotations

import stat
import struct
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import ReaderLimits
from bundler.errors import BundleError, CorruptArchive, HostileArchive, NotABundle
from tests.support.archive import (
    CraftEntry,
    craft_bundle,
    craft_zip,
    open_test_bundle,
    patch_bytes,
)


def _refused(path: Path, error: type[BundleError], match: str, **kwargs: object) -> BundleError:
    with pytest.raises(error, match=match) as info:
        open_test_bundle(path, **kwargs).close()  # type: ignore[arg-type]
    message = str(info.value)
    assert "\n" not in message
    return info.value


@pytest.mark.parametrize(
    ("name", "reason"),
    [
        ("/etc/cron.d/evil", "absolute path"),
        ("../../home/user/.bashrc", r"'\.\.' in path"),
        ("logs/../../escape", r"'\.\.' in path"),
        ("logs\\..\\escape.txt", "backslash"),
        ("C:/windows/evil", "absolute path"),
        ("logs/\x1b[31mred", "control character"),
        ("logs/ok\u202etxt.exe", "control character"),
        ("logs//double", "empty or '.' path component"),
    ],
)
def test_unsafe_names_are_refused(tmp_path: Path, name: str, reason: str) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"ok.txt": b"x"}, extra=[CraftEntry(name, b"evil")])
    error = _refused(path, HostileArchive, reason)
    assert "\x1b" not in str(error)  # control characters are escaped in messages


def test_nul_in_a_name_is_refused(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"ok.txt": b"x"}, extra=[CraftEntry("evilXname", b"e")])
    patch_bytes(path, b"evilXname", b"evil\x00name")
    _refused(path, HostileArchive, "NUL")


def test_duplicate_names_are_refused(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"dupe1": b"a", "dupe2": b"b"})
    patch_bytes(path, b"dupe2", b"dupe1")
    _refused(path, HostileArchive, "appears twice")


@pytest.mark.parametrize(
    ("kind", "reason"),
    [(stat.S_IFLNK, "symbolic link"), (stat.S_IFIFO, "special file"), (stat.S_IFCHR, "special")],
)
def test_links_and_special_files_are_refused(tmp_path: Path, kind: int, reason: str) -> None:
    entry = CraftEntry("logs/link", b"/etc/shadow", external_attr=(kind | 0o777) << 16)
    path = craft_bundle(tmp_path / "b.zip", {"ok.txt": b"x"}, extra=[entry])
    _refused(path, HostileArchive, reason)


def test_too_many_members(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {f"m{i}": b"x" for i in range(5)})
    _refused(path, HostileArchive, "declares 6 members", limits=ReaderLimits(max_members=5))


def test_too_many_bytes_in_total(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {f"m{i}": b"x" * 1000 for i in range(5)})
    _refused(
        path, HostileArchive, "expands to more than", limits=ReaderLimits(max_total_bytes=4000)
    )


def test_a_member_too_large(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"big": b"x" * 5000})
    _refused(
        path, HostileArchive, "expands to 5000 bytes", limits=ReaderLimits(max_member_bytes=4096)
    )


def test_compression_ratio_bomb(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"bomb": bytes(32 << 20)})
    _refused(path, HostileArchive, "compression ratio")


def test_small_repetitive_members_are_not_bombs(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"zeros": bytes(8 << 20)})
    with open_test_bundle(path) as reader:
        assert reader.read_bytes("zeros") == bytes(8 << 20)


def test_overlapping_entries_are_refused(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"first": b"a" * 1000, "second": b"b" * 1000})
    with pyzipper.AESZipFile(path) as zf:
        first = zf.getinfo("first").header_offset
    raw = bytearray(path.read_bytes())
    first_record = raw.index(b"PK\x01\x02")  # central directory, in archive order
    second_record = raw.index(b"PK\x01\x02", first_record + 4)
    struct.pack_into("<I", raw, second_record + 42, first)  # point "second" at "first"'s data
    path.write_bytes(bytes(raw))
    _refused(path, HostileArchive, "overlaps")


def test_unsupported_compression_is_refused(tmp_path: Path) -> None:
    entry = CraftEntry("bz", b"x" * 100, compress_type=pyzipper.ZIP_BZIP2)
    path = craft_bundle(tmp_path / "b.zip", {"ok": b"x"}, extra=[entry])
    _refused(path, CorruptArchive, "unsupported compression")


def test_forged_member_count_in_the_end_record(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"ok": b"x"})
    raw = bytearray(path.read_bytes())
    end = raw.rindex(b"PK\x05\x06")
    struct.pack_into("<HH", raw, end + 8, 0xFFFF, 0xFFFF)
    path.write_bytes(bytes(raw))
    _refused(path, HostileArchive, "declares 65535 members", limits=ReaderLimits(max_members=1000))


def test_not_a_zip(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    path.write_bytes(b"this is a text file, not a bundle\n" * 10)
    _refused(path, NotABundle, "not a zip")


def test_truncated_zip(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"m": bytes(range(256)) * 100})
    path.write_bytes(path.read_bytes()[: path.stat().st_size // 2])
    _refused(path, CorruptArchive, "truncated or corrupt")


def test_empty_file(tmp_path: Path) -> None:
    path = tmp_path / "b.zip"
    path.write_bytes(b"")
    _refused(path, NotABundle, "is empty: not a bundle")


def test_directory_and_missing_path(tmp_path: Path) -> None:
    from bundler.errors import InputError

    _refused(tmp_path, InputError, "is not a file")
    _refused(tmp_path / "nope.zip", InputError, "does not exist")


def test_zip_with_nothing_encrypted_is_not_a_bundle(tmp_path: Path) -> None:
    path = craft_zip(tmp_path / "b.zip", [CraftEntry("manifest.json", b"{}", encrypted=False)])
    _refused(path, NotABundle, "AES-256 encrypted")
