"""Fail closed, through all five readers: every attack on a real bundle is refused or reported.

Each case starts from a bundle the real builder wrote and changes it the way
someone without the password can (raw bytes), or crafts one with pyzipper the
way someone with the public key can. For every case: ``verify`` reports the
problem by name (exit 1) or refuses the file (exit 2); ``analyze`` never says
the integrity is ``verified``; ``review`` exits 2 ("unreadable: rejected"),
never 0; ``extract`` refuses and leaves nothing; nobody prints a traceback.
"""

from __future__ import annotations

import io
import json
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import PublicKey, Sealing, keygen
from schemas import MANIFEST_MEMBER
from tests.support.archive import (
    PASSWORD,
    CraftEntry,
    build_bundle,
    craft_bundle,
    craft_zip,
    manifest_for,
)

from .readers import SECRET, run_all
from .zipsurgery import Zip, extra_field

MEMBERS = {"logs/a.log": b"2024-05-01 worker w1 heartbeat ok\n", "notes/b.txt": b"fine\n"}
Craft = Callable[[Path], Path]


def _real(tmp_path: Path, sealing: Sealing | None = None) -> Path:
    return build_bundle(tmp_path / "real.zip", MEMBERS, sealing=sealing).path


def _write(tmp_path: Path, data: bytes) -> Path:
    path = tmp_path / "attacked.zip"
    path.write_bytes(data)
    return path


def _edit(tmp_path: Path, edit: Callable[[Zip], None]) -> Path:
    archive = Zip.parse(_real(tmp_path).read_bytes())
    edit(archive)
    return _write(tmp_path, archive.pack())


def _plain_zip(members: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buffer.getvalue()


def _prepend_one_byte(tmp_path: Path) -> Path:
    return _write(tmp_path, b"X" + _real(tmp_path).read_bytes())


def _self_extractor_stub(tmp_path: Path) -> Path:
    """A stub in front with every offset moved (an SFX): zip tools open it; bytes unaccounted."""
    return _edit(tmp_path, lambda z: z.insert(0, b"MZ" + SECRET + bytes(4096)))


def _whole_plain_zip_prepended(tmp_path: Path) -> Path:
    return _write(tmp_path, _plain_zip({"leak.txt": SECRET}) + _real(tmp_path).read_bytes())


def _gap_between_members(tmp_path: Path) -> Path:
    def edit(archive: Zip) -> None:
        second = sorted(e.offset for e in archive.entries)[1]
        archive.insert(second, SECRET)

    return _edit(tmp_path, edit)


def _gap_before_directory(tmp_path: Path) -> Path:
    return _edit(tmp_path, lambda z: z.insert(len(z.body), SECRET))


def _trailing_after_end_record(tmp_path: Path) -> Path:
    return _write(tmp_path, _real(tmp_path).read_bytes() + SECRET)


def _padded_with_zeros(tmp_path: Path) -> Path:
    return _write(tmp_path, _real(tmp_path).read_bytes() + bytes(1024))


def _per_file_comment(tmp_path: Path) -> Path:
    def edit(archive: Zip) -> None:
        archive.entry("logs/a.log").comment = SECRET

    return _edit(tmp_path, edit)


def _unknown_extra_in_directory(tmp_path: Path) -> Path:
    def edit(archive: Zip) -> None:
        archive.entry("logs/a.log").extra += extra_field(0xCAFE, SECRET)

    return _edit(tmp_path, edit)


def _zip_comment_in_password_mode(tmp_path: Path) -> Path:
    def edit(archive: Zip) -> None:
        archive.comment = SECRET

    return _edit(tmp_path, edit)


def _extra_field_in_recipient_envelope(tmp_path: Path) -> Path:
    """The envelope is outside every MAC: a field added to it is bytes nobody vouches for."""
    _, _, public = keygen(tmp_path / "vendor")
    real = _real(tmp_path, Sealing.to_recipients((PublicKey.load(public),)))
    archive = Zip.parse(real.read_bytes())
    headline, _, body = archive.comment.partition(b"\n")
    envelope = json.loads(body)
    envelope["recipients"][0]["note"] = SECRET.decode().strip()
    archive.comment = headline + b"\n" + json.dumps(envelope, separators=(",", ":")).encode()
    return _write(tmp_path, archive.pack())


def _directory_entry_with_data(tmp_path: Path) -> Path:
    entry = CraftEntry("logs/", SECRET, encrypted=False, compress_type=pyzipper.ZIP_STORED)
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, extra=[entry])


def _unknown_extra_in_local_header(tmp_path: Path) -> Path:
    """A field added to one local header only (no MAC covers it); later offsets moved."""

    def edit(archive: Zip) -> None:
        at = archive.entry("logs/a.log").offset
        name_len, extra_len = struct.unpack_from("<HH", archive.body, at + 26)
        added = extra_field(0xCAFE, SECRET)
        archive.insert(at + 30 + name_len + extra_len, added)
        header = bytearray(archive.body)
        struct.pack_into("<H", header, at + 28, extra_len + len(added))
        archive.body = bytes(header)

    return _edit(tmp_path, edit)


def _local_header_names_another_file(tmp_path: Path) -> Path:
    raw = bytearray(_real(tmp_path).read_bytes())
    at = raw.index(b"logs/a.log")  # the first occurrence is the local header's
    raw[at : at + 10] = b"logs/X.log"
    return _write(tmp_path, bytes(raw))


def _two_bundles_concatenated(tmp_path: Path) -> Path:
    first = build_bundle(tmp_path / "first.zip", {"leak.txt": SECRET}).path.read_bytes()
    return _write(tmp_path, first + _real(tmp_path).read_bytes())


def _end_record_miscounts(tmp_path: Path) -> Path:
    raw = bytearray(_real(tmp_path).read_bytes())
    end = raw.rfind(b"PK\x05\x06")
    struct.pack_into("<HH", raw, end + 8, 9, 9)
    return _write(tmp_path, bytes(raw))


def _second_end_record_in_the_comment(tmp_path: Path) -> Path:
    """Zip readers take the last end record: one hidden in the comment must not mislead."""
    archive = Zip.parse(_real(tmp_path).read_bytes())
    count, size, offset = archive.end_fixed[4], archive.end_fixed[5], archive.end_fixed[6]
    fake = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, count, count, size, offset, 0)
    archive.comment = SECRET + fake
    return _write(tmp_path, archive.pack())


def _plain_zip_with_a_byte_in_front(tmp_path: Path) -> Path:
    return _write(tmp_path, b"X" + _plain_zip({"leak.txt": SECRET}))


def _unencrypted_member_injected(tmp_path: Path) -> Path:
    leak = CraftEntry("logs/injected.log", SECRET, encrypted=False)
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, extra=[leak])


def _member_not_in_manifest(tmp_path: Path) -> Path:
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, extra=[CraftEntry("x.log", SECRET)])


def _no_manifest(tmp_path: Path) -> Path:
    entries = [CraftEntry(name, data) for name, data in {**MEMBERS, "x": SECRET}.items()]
    return craft_zip(tmp_path / "attacked.zip", entries)


def _unencrypted_manifest(tmp_path: Path) -> Path:
    entries = [CraftEntry(name, data) for name, data in MEMBERS.items()]
    entries.append(CraftEntry(MANIFEST_MEMBER, manifest_for(MEMBERS), encrypted=False))
    return craft_zip(tmp_path / "attacked.zip", entries)


def _forged_manifest(tmp_path: Path) -> Path:
    """The manifest vouches for other content than the member holds."""
    forged = manifest_for({**MEMBERS, "logs/a.log": b"something else\n"})
    document = json.loads(forged)
    document["members"][0]["size"] = len(MEMBERS["logs/a.log"])
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, manifest=json.dumps(document).encode())


def _manifest_with_another_password(tmp_path: Path) -> Path:
    """The members open; the manifest was sealed under a password the reader does not have."""
    path = craft_zip(tmp_path / "attacked.zip", [CraftEntry(n, d) for n, d in MEMBERS.items()])
    with pyzipper.AESZipFile(path, "a") as zf:
        zf.setencryption(pyzipper.WZ_AES, nbits=256, force_wz_aes_version=2)
        zf.setpassword(b"another password entirely")
        zf.writestr(MANIFEST_MEMBER, manifest_for(MEMBERS))
    return path


def _non_utf8_manifest(tmp_path: Path) -> Path:
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, manifest=b'{"format": "\xff\xfe"}')


def _manifest_lists_itself(tmp_path: Path) -> Path:
    document = json.loads(manifest_for(MEMBERS))
    document["members"].append({"path": MANIFEST_MEMBER, "sha256": "0" * 64, "size": 1})
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, manifest=json.dumps(document).encode())


def _manifest_lists_a_parent_path(tmp_path: Path) -> Path:
    document = json.loads(manifest_for(MEMBERS))
    document["members"].append({"path": "../../etc/cron.d/x", "sha256": "0" * 64, "size": 1})
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, manifest=json.dumps(document).encode())


def _manifest_case_twin(tmp_path: Path) -> Path:
    twin = CraftEntry("Manifest.json", SECRET)
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, extra=[twin])


def _ae1_member(tmp_path: Path) -> Path:
    path = craft_bundle(tmp_path / "attacked.zip", {"notes/b.txt": MEMBERS["notes/b.txt"]})
    everything = {**MEMBERS, MANIFEST_MEMBER: manifest_for(MEMBERS)}
    with pyzipper.AESZipFile(path, "w") as zf:
        zf.setpassword(PASSWORD.encode())
        for name, data in everything.items():
            version = 1 if name == "logs/a.log" else 2
            zf.setencryption(pyzipper.WZ_AES, nbits=256, force_wz_aes_version=version)
            zf.writestr(name, data)
    return path


def _deep_manifest(tmp_path: Path) -> Path:
    deep = b"[" * 100_000 + b"]" * 100_000
    return craft_bundle(tmp_path / "attacked.zip", MEMBERS, manifest=deep)


# (craft, what verify and review must name, inspect's exit codes)
CASES: dict[str, tuple[Craft, str, set[int]]] = {
    "one byte prepended": (_prepend_one_byte, "prepended data", {1}),
    "self-extractor stub": (_self_extractor_stub, "prepended data", {1}),
    "plain zip prepended": (_whole_plain_zip_prepended, "prepended data", {1}),
    "gap between members": (_gap_between_members, "(a gap)", {1}),
    "gap before directory": (_gap_before_directory, "(a gap)", {1}),
    "trailing secret": (_trailing_after_end_record, "trailing data", {1}),
    "zero padding": (_padded_with_zeros, "trailing data", {1}),
    "per-file comment": (_per_file_comment, "per-file comment", {1}),
    "unknown extra field": (_unknown_extra_in_directory, "extra field 0xcafe", {1}),
    "unknown local extra": (_unknown_extra_in_local_header, "extra field 0xcafe", {1}),
    "password-mode comment": (_zip_comment_in_password_mode, "zip comment", {1}),
    "envelope extra field": (_extra_field_in_recipient_envelope, "zip comment", {1}),
    "directory with data": (_directory_entry_with_data, "carries", {1}),
    "local header renamed": (_local_header_names_another_file, "names another file", {1}),
    "two bundles": (_two_bundles_concatenated, "prepended data", {1}),
    "end record miscounts": (_end_record_miscounts, "declares 9 entries", {1}),
    "end record in comment": (_second_end_record_in_the_comment, "corrupt zip", {2}),
    "unencrypted member": (_unencrypted_member_injected, "not AES-256 encrypted", {1}),
    "unlisted member": (_member_not_in_manifest, "not in the manifest", {1}),
    "manifest case twin": (_manifest_case_twin, "'Manifest.json' is not in the manifest", {1}),
    "no manifest": (_no_manifest, "no manifest.json", {1}),
    "unencrypted manifest": (_unencrypted_manifest, "manifest.json is not encrypted", {1}),
    "forged manifest": (_forged_manifest, "does not match its manifest checksum", {0, 1}),
    "undecryptable manifest": (_manifest_with_another_password, "manifest.json", {1}),
    "non-UTF-8 manifest": (_non_utf8_manifest, "manifest.json", {1}),
    "manifest lists itself": (_manifest_lists_itself, "lists itself", {1}),
    "manifest lists ../": (_manifest_lists_a_parent_path, "'..' in path", {1}),
    "AE-1 member": (_ae1_member, "AE-1", {1}),
    "deep manifest": (_deep_manifest, "deeper than 128 levels", {1}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_reader_refuses_or_reports(tmp_path: Path, case: str) -> None:
    craft, named, inspect_codes = CASES[case]
    path = craft(tmp_path)
    identity = tmp_path / "vendor" if (tmp_path / "vendor").exists() else None
    seen = run_all(path, tmp_path / "work", identity=identity)
    verify, review = seen["verify"], seen["review"]
    assert verify.code in (1, 2), verify.text
    assert named in verify.text, verify.text
    assert review.code == 2, review.text
    assert "clean" not in review.stderr
    assert named in review.stderr, review.stderr
    assert "unreadable" in review.stderr or verify.code == 2
    assert seen["inspect"].code in inspect_codes, seen["inspect"].text
    assert seen["analyze"].code == 2 or seen["analyze"].integrity() != "verified"
    assert seen["extract"].code == 2, seen["extract"].text


@pytest.mark.parametrize(
    ("data", "named"),
    [
        (b"", "empty"),
        (b"PK\x05\x06" + bytes(18), "empty zip"),
    ],
    ids=["empty file", "empty zip"],
)
def test_nothing_to_read_is_a_one_line_error_everywhere(
    tmp_path: Path, data: bytes, named: str
) -> None:
    path = _write(tmp_path, data)
    for reader, outcome in run_all(path, tmp_path / "work").items():
        assert outcome.code == 2, (reader, outcome.text)
        assert named in outcome.stderr, (reader, outcome.stderr)


def test_a_zip_whose_end_record_cannot_be_found_is_not_reviewed_as_plain_bytes(
    tmp_path: Path,
) -> None:
    """More than 64 KiB after the end record: no zip tool finds it; review must not say clean."""
    path = _write(tmp_path, _real(tmp_path).read_bytes() + bytes(70_000))
    seen = run_all(path, tmp_path / "work")
    assert seen["review"].code == 2
    assert "no zip end record" in seen["review"].stderr
    assert all(outcome.code == 2 for outcome in seen.values())


def test_an_ordinary_zip_with_a_byte_in_front_is_not_a_bundle_anywhere(tmp_path: Path) -> None:
    path = _plain_zip_with_a_byte_in_front(tmp_path)
    seen = run_all(path, tmp_path / "work")
    assert {reader: o.code for reader, o in seen.items()} == dict.fromkeys(seen, 2)
    assert "not a bundler bundle" in seen["review"].stderr
