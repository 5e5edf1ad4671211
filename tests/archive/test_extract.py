"""Safe extraction: inside DIR only, no link followed, verified before named, all or nothing."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from bundler.archive import extract_bundle
from bundler.errors import CorruptArchive, OutputError
from tests.support.archive import (
    build_bundle,
    craft_bundle,
    data_offset,
    flip_byte,
    manifest_for,
    open_test_bundle,
)

MEMBERS = {
    "evidence/workers.json": b'{"workers": []}',
    "hosts/h01/logs/0.log": b"line\n" * 1000,
    "hosts/h01/sysinfo.json": b"{}",
}


@pytest.fixture
def bundle(tmp_path: Path) -> Path:
    return build_bundle(tmp_path / "b.zip", MEMBERS).path


def _tree(root: Path) -> dict[str, int]:
    return {
        p.relative_to(root).as_posix() + ("/" if p.is_dir() else ""): p.lstat().st_mode & 0o777
        for p in sorted(root.rglob("*"))
    }


def test_extracts_everything_with_private_modes(bundle: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    with open_test_bundle(bundle) as reader:
        result = extract_bundle(reader, dest)
    assert result.files == len(MEMBERS) + 2  # + manifest and redaction report
    tree = _tree(dest)
    assert tree["hosts/"] == 0o700
    assert tree["hosts/h01/logs/"] == 0o700
    assert tree["hosts/h01/logs/0.log"] == 0o600
    assert dest.stat().st_mode & 0o777 == 0o700
    for name, data in MEMBERS.items():
        assert (dest / name).read_bytes() == data
    assert json.loads((dest / "manifest.json").read_text())["format"] == "bundler/1.0"


def test_refuses_a_non_empty_folder_without_force(bundle: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "keep.txt").write_text("mine")
    with open_test_bundle(bundle) as reader, pytest.raises(OutputError, match="not empty"):
        extract_bundle(reader, dest)
    with open_test_bundle(bundle) as reader:
        extract_bundle(reader, dest, overwrite=True)
    assert (dest / "keep.txt").read_text() == "mine"
    assert (dest / "hosts/h01/sysinfo.json").read_bytes() == b"{}"


def test_refuses_a_folder_with_a_link_pointing_out(bundle: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "hosts").symlink_to(outside)
    with open_test_bundle(bundle) as reader, pytest.raises(OutputError, match="pointing outside"):
        extract_bundle(reader, dest, overwrite=True)
    assert list(outside.iterdir()) == []


def test_never_follows_a_link_even_inside(bundle: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "elsewhere").mkdir()
    (dest / "hosts").symlink_to(dest / "elsewhere")
    with open_test_bundle(bundle) as reader, pytest.raises(OutputError, match="symbolic link"):
        extract_bundle(reader, dest, overwrite=True)
    assert list((dest / "elsewhere").iterdir()) == []
    assert sorted(p.name for p in dest.iterdir()) == ["elsewhere", "hosts"]  # our files removed


def test_a_link_at_a_file_name_is_not_written_through(bundle: Path, tmp_path: Path) -> None:
    target = tmp_path / "victim.txt"
    target.write_text("do not touch")
    dest = tmp_path / "out"
    (dest / "evidence").mkdir(parents=True)
    (dest / "evidence" / "workers.json").symlink_to(target)
    with open_test_bundle(bundle) as reader, pytest.raises(OutputError):
        extract_bundle(reader, dest, overwrite=True)
    assert target.read_text() == "do not touch"


def test_refuses_a_destination_that_is_a_link(bundle: Path, tmp_path: Path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    with open_test_bundle(bundle) as reader, pytest.raises(OutputError, match="symbolic link"):
        extract_bundle(reader, tmp_path / "link")
    assert list(real.iterdir()) == []


def test_a_tampered_member_leaves_nothing_behind(tmp_path: Path) -> None:
    path = build_bundle(tmp_path / "b.zip", MEMBERS).path
    flip_byte(path, data_offset(path, "hosts/h01/logs/0.log") + 5)
    dest = tmp_path / "out"
    with open_test_bundle(path) as reader, pytest.raises(CorruptArchive):
        extract_bundle(reader, dest)
    assert not dest.exists()


def _second_checksum_wrong(path: Path) -> Path:
    """A bundle of a/one.txt and b/two.txt whose manifest gives the second a wrong sha256:
    it fails verification after the first member is written."""
    members = {"a/one.txt": b"1", "b/two.txt": b"2"}
    lying = json.loads(manifest_for(members))
    lying["members"][1]["sha256"] = "0" * 64
    return craft_bundle(path, members, manifest=json.dumps(lying).encode())


def test_a_checksum_mismatch_in_an_existing_folder_removes_only_our_files(tmp_path: Path) -> None:
    path = _second_checksum_wrong(tmp_path / "b.zip")
    dest = tmp_path / "out"
    dest.mkdir()
    (dest / "mine.txt").write_text("keep")
    with open_test_bundle(path) as reader, pytest.raises(CorruptArchive, match="checksum"):
        extract_bundle(reader, dest, overwrite=True)
    assert _tree(dest) == {"mine.txt": (dest / "mine.txt").stat().st_mode & 0o777}


def test_force_counts_the_files_it_replaces(bundle: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    with open_test_bundle(bundle) as reader:
        first = extract_bundle(reader, dest)
    with open_test_bundle(bundle) as reader:
        again = extract_bundle(reader, dest, overwrite=True)
    assert again.files == first.files == len(MEMBERS) + 2  # not "extracted 0 files"
    assert again.bytes == first.bytes


def test_a_failure_with_force_leaves_the_files_it_would_replace(tmp_path: Path) -> None:
    path = _second_checksum_wrong(tmp_path / "b.zip")
    dest = tmp_path / "out"
    (dest / "a").mkdir(parents=True)
    (dest / "a" / "one.txt").write_text("mine")
    before = _tree(dest)
    with open_test_bundle(path) as reader, pytest.raises(CorruptArchive, match="checksum"):
        extract_bundle(reader, dest, overwrite=True)
    assert (dest / "a" / "one.txt").read_text() == "mine"
    assert _tree(dest) == before  # no temporary file left either


def test_no_temporary_files_remain(bundle: Path, tmp_path: Path) -> None:
    dest = tmp_path / "out"
    with open_test_bundle(bundle) as reader:
        extract_bundle(reader, dest)
    assert not [p for p in dest.rglob("*") if "tmp-bundler" in p.name]


def test_destination_parent_must_exist(bundle: Path, tmp_path: Path) -> None:
    with open_test_bundle(bundle) as reader, pytest.raises(OutputError, match="does not exist"):
        extract_bundle(reader, tmp_path / "a" / "b")


def test_umask_does_not_widen_modes(bundle: Path, tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        with open_test_bundle(bundle) as reader:
            extract_bundle(reader, tmp_path / "out")
    finally:
        os.umask(old)
    modes = set(_tree(tmp_path / "out").values())
    assert modes <= {0o600, 0o700}
