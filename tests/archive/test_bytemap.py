"""The byte map: a bundle bundler writes is fully accounted for; everything else is named.

The attacks themselves run through all five readers in ``test_fail_closed``;
here the map is checked directly: bundles from every writer bundler has
(password and recipient mode, ``bundler redact``, a zip64 end record, a
7-Zip repack) map without a problem, and each problem names what it is about.
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest
import pyzipper
from click.testing import CliRunner
from pyzipper import zipfile as pz

from bundler.archive import Identity, IdentityKey, PublicKey, Sealing, keygen
from bundler.archive.integrity import IntegrityProblem
from bundler.archive.integrity.bytemap import map_bytes
from bundler.archive.reader import BundleReader
from bundler.archive.sealing import PASSWORD_COMMENT, is_own_comment
from bundler.cli import cli
from bundler.errors import HostileArchive
from tests.support.archive import PASSWORD, build_bundle, open_test_bundle

from .readers import SECRET
from .zipsurgery import Zip, extra_field

MEMBERS = {"logs/a.log": b"line one\n" * 100, "evidence/workers.json": b'{"workers": []}'}


def _map(path: Path) -> list[IntegrityProblem]:
    with path.open("rb") as handle, pyzipper.AESZipFile(handle) as zf:
        return map_bytes(handle, zf, list(pz._EndRecData(handle)))


def test_a_password_mode_bundle_maps_completely(tmp_path: Path) -> None:
    path = build_bundle(tmp_path / "b.zip", MEMBERS).path
    assert _map(path) == []
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.check().status == "verified"


def test_a_recipient_bundle_maps_completely(tmp_path: Path) -> None:
    _, identity, public = keygen(tmp_path / "vendor")
    _, _, other = keygen(tmp_path / "other")
    sealing = Sealing.to_recipients((PublicKey.load(public), PublicKey.load(other)))
    path = build_bundle(tmp_path / "b.zip", MEMBERS, sealing=sealing).path
    assert _map(path) == []
    with BundleReader.open(path, IdentityKey(Identity.load(identity)), lenient=True) as reader:
        assert reader.check().status == "verified"


def test_bundler_redact_output_maps_completely(tmp_path: Path) -> None:
    source = tmp_path / "src"
    (source / "logs").mkdir(parents=True)
    (source / "logs" / "a.log").write_text("password=hunter2-bytes\n" + "ok\n" * 2000)
    (source / "b.json").write_text('{"token": "9f8ZqA7bC6dE5fG4hI3jK2lM1nO0pQ"}')
    out = tmp_path / "out.zip"
    result = CliRunner().invoke(
        cli,
        ["redact", str(source), "--out", str(out), "--password-env", "PW"],
        env={"PW": PASSWORD},
    )
    assert result.exit_code == 0, result.output
    assert _map(out) == []
    reviewed = CliRunner().invoke(cli, ["review", str(out), "--password-env", "PW"],
                                  env={"PW": PASSWORD})  # fmt: skip
    assert reviewed.exit_code == 0, reviewed.output


def test_zip64_end_records_are_structure(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A bundle of more than 65,535 members has zip64 end records; they are mapped, not junk."""
    monkeypatch.setattr(pz, "ZIP_FILECOUNT_LIMIT", 2)  # what 65,536 members would trigger
    path = build_bundle(tmp_path / "b.zip", MEMBERS).path
    assert b"PK\x06\x06" in path.read_bytes()
    assert _map(path) == []


def test_problems_name_what_they_are_about(tmp_path: Path) -> None:
    archive = Zip.parse(build_bundle(tmp_path / "b.zip", MEMBERS).path.read_bytes())
    archive.entry("logs/a.log").comment = SECRET
    archive.entry("evidence/workers.json").extra += extra_field(0x4242, b"hidden")
    second = sorted(e.offset for e in archive.entries)[1]
    archive.insert(second, b"gap!")
    archive.trailer = b"tail"
    path = tmp_path / "edited.zip"
    path.write_bytes(b"X" + archive.pack())
    messages = [p.message for p in _map(path)]
    assert any("'logs/a.log' has a per-file comment" in m for m in messages), messages
    assert any("'evidence/workers.json': unknown" in m and "0x4242" in m for m in messages)
    assert any("4 bytes between member" in m and "(a gap)" in m for m in messages), messages
    assert "1 byte before the first zip record belongs to nothing (prepended data)" in messages
    assert any(m.startswith("4 bytes after the end record") for m in messages), messages
    assert all(SECRET.decode()[:20] not in m for m in messages)  # never echoes the bytes


def test_layout_problems_name_a_member_but_keep_it_readable(tmp_path: Path) -> None:
    """The stray bytes are the problem, not the member's authenticated content."""
    archive = Zip.parse(build_bundle(tmp_path / "b.zip", MEMBERS).path.read_bytes())
    archive.entry("logs/a.log").comment = b"note"
    path = tmp_path / "edited.zip"
    path.write_bytes(archive.pack())
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.integrity.status == "tampered"
        assert reader.read_bytes("logs/a.log") == MEMBERS["logs/a.log"]
    with pytest.raises(HostileArchive, match="per-file comment"):
        open_test_bundle(path)  # strict (extract): refused before any password is tried


def test_other_tools_timestamp_fields_are_accepted_only_in_shape(tmp_path: Path) -> None:
    """7-Zip (NTFS times) and Info-ZIP (UT, ux) add numbers; one stray byte is reported."""
    ntfs = extra_field(0x000A, bytes(4) + b"\x01\x00\x18\x00" + bytes(24))
    unix_time = extra_field(0x5455, b"\x01" + struct.pack("<I", 1_700_000_000))
    owner = extra_field(0x7875, b"\x01\x04" + bytes(4) + b"\x04" + bytes(4))
    archive = Zip.parse(build_bundle(tmp_path / "b.zip", MEMBERS).path.read_bytes())
    archive.entry("logs/a.log").extra += ntfs + unix_time + owner
    path = tmp_path / "repacked.zip"
    path.write_bytes(archive.pack())
    assert _map(path) == []
    archive.entry("logs/a.log").extra += extra_field(0x5455, b"\x01" + b"AKIA" + b"X")
    path.write_bytes(archive.pack())
    assert [p.kind for p in _map(path)] == ["foreign_structure"]


def test_only_the_comments_bundler_writes_are_its_own(tmp_path: Path) -> None:
    _, _, public = keygen(tmp_path / "vendor")
    sealed = Sealing.to_recipients((PublicKey.load(public),)).zip_comment()
    assert is_own_comment(b"")
    assert is_own_comment(PASSWORD_COMMENT)
    assert is_own_comment(sealed)
    assert not is_own_comment(PASSWORD_COMMENT + b" ")
    assert not is_own_comment(sealed.replace(b'"recipients"', b'"x":1,"recipients"'))
    assert not is_own_comment(sealed + b"\n" + SECRET)
    assert not is_own_comment(sealed.replace(b"\n{", b"\n " + b"[" * 40_000 + b"{"))
