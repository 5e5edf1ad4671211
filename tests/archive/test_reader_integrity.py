"""Integrity: strict refusal, lenient reporting, streaming verification against the manifest."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from bundler.analyze.api import EvidenceSet
from bundler.archive import MemberUnsound
from bundler.errors import (
    CorruptArchive,
    DecryptionFailed,
    HostileArchive,
    ManifestInvalid,
    NotABundle,
)
from bundler.source import MemberNotFound, iter_lines
from schemas import MANIFEST_MEMBER
from schemas.evidence import WorkersEvidence
from tests.support.archive import (
    CraftEntry,
    build_bundle,
    craft_bundle,
    data_offset,
    flip_byte,
    manifest_for,
    open_test_bundle,
)

LOG = b"".join(b"2024-05-01T00:00:%02dZ worker w1 heartbeat ok\n" % (i % 60) for i in range(50_000))


def _bundle(tmp_path: Path) -> Path:
    members = {"logs/w1.log": LOG, "evidence/workers.json": b'{"workers": []}', "note.txt": b"hi"}
    return build_bundle(tmp_path / "b.zip", members).path


def test_streaming_read_verifies_and_yields_bounded_chunks(tmp_path: Path) -> None:
    with open_test_bundle(_bundle(tmp_path)) as reader:
        chunks = list(reader.iter_chunks("logs/w1.log", chunk_size=10_000))
        assert max(len(c) for c in chunks) <= 10_000
        assert b"".join(chunks) == LOG
        assert next(iter_lines(reader, "logs/w1.log")) == (1, LOG.split(b"\n")[0].decode())
        with pytest.raises(MemberNotFound):
            reader.read_bytes("not/there")


def test_wrong_password_is_refused(tmp_path: Path) -> None:
    with pytest.raises(DecryptionFailed, match="wrong password"):
        open_test_bundle(_bundle(tmp_path), "not the password")


def test_aes_authentication_failure_strict(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    flip_byte(path, data_offset(path, "logs/w1.log") + 100)
    with open_test_bundle(path) as reader, pytest.raises(CorruptArchive, match="authentication"):
        reader.read_bytes("logs/w1.log")


def test_aes_authentication_failure_lenient(tmp_path: Path) -> None:
    path = _bundle(tmp_path)
    flip_byte(path, data_offset(path, "logs/w1.log") + 100)
    with open_test_bundle(path, lenient=True) as reader:
        integrity = reader.check()
        assert integrity.status == "tampered"
        assert [p.kind for p in integrity.problems] == ["auth_failed"]
        assert "logs/w1.log" not in reader.names()
        assert reader.read_bytes("note.txt") == b"hi"  # the sound rest stays readable
        with pytest.raises(MemberUnsound):
            reader.read_bytes("logs/w1.log")


def test_sha256_mismatch_raises_at_end_of_stream(tmp_path: Path) -> None:
    members = {"a.txt": b"real content", "b.txt": b"fine"}
    lying = json.loads(manifest_for(members))
    lying["members"][0]["sha256"] = hashlib.sha256(b"other content").hexdigest()
    lying["members"][0]["size"] = len(b"real content")
    path = craft_bundle(tmp_path / "b.zip", members, manifest=json.dumps(lying).encode())
    with open_test_bundle(path) as reader:
        stream = reader.iter_chunks("a.txt")
        assert next(stream) == b"real content"  # delivered while streaming...
        with pytest.raises(CorruptArchive, match="manifest checksum"):
            next(stream)  # ...and refused at the end
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.check().problems[0].kind == "sha256_mismatch"
        assert reader.names() == ["b.txt", MANIFEST_MEMBER]


def test_unlisted_member_strict_and_lenient(tmp_path: Path) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, extra=[CraftEntry("sneaky.txt", b"y")])
    with pytest.raises(CorruptArchive, match="not in the manifest"):
        open_test_bundle(path)
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.integrity.problems[0].kind == "unlisted"
        assert "sneaky.txt" not in reader.names()
        assert reader.read_bytes("a") == b"x"


def test_injected_unencrypted_member_is_hostile(tmp_path: Path) -> None:
    members = {"a": b"x", "b": b"y"}
    entries = [CraftEntry("b", b"y", encrypted=False)]
    manifest = manifest_for(members)
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, extra=entries, manifest=manifest)
    with pytest.raises(HostileArchive, match="not AES-256 encrypted"):
        open_test_bundle(path)
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.check().status == "tampered"
        assert reader.names() == ["a", MANIFEST_MEMBER]


def test_missing_member_makes_a_partial_bundle(tmp_path: Path) -> None:
    manifest = manifest_for({"a": b"x", "gone": b"z"})
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, manifest=manifest)
    with pytest.raises(CorruptArchive, match="missing"):
        open_test_bundle(path)
    with open_test_bundle(path, lenient=True) as reader:
        integrity = reader.check()
        assert integrity.status == "partial"
        assert integrity.to_schema().problems == ["member 'gone' is in the manifest but missing"]


def test_size_mismatch(tmp_path: Path) -> None:
    document = json.loads(manifest_for({"a": b"x"}))
    document["members"][0]["size"] = 2
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, manifest=json.dumps(document).encode())
    with pytest.raises(CorruptArchive, match="wrong size"):
        open_test_bundle(path)


def test_missing_manifest(tmp_path: Path) -> None:
    from tests.support.archive import craft_zip

    path = craft_zip(tmp_path / "b.zip", [CraftEntry("a", b"x")])
    with pytest.raises(NotABundle, match="no manifest"):
        open_test_bundle(path)
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.integrity.status == "partial"
        assert reader.names() == ["a"]  # AES-authenticated, but nothing to check it against


@pytest.mark.parametrize(
    ("manifest", "error", "match"),
    [
        (b"not json", ManifestInvalid, "not valid JSON"),
        (b"[1, 2]", ManifestInvalid, "not a JSON object"),
        (b'{"tool": {}}', ManifestInvalid, "no 'format'"),
        (b'{"format": "bundler/2.0"}', NotABundle, "needs a newer bundler"),
        (b'{"format": "zipper/1.0"}', NotABundle, "not a bundler bundle"),
    ],
)
def test_bad_manifests(tmp_path: Path, manifest: bytes, error: type, match: str) -> None:
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, manifest=manifest)
    with pytest.raises(error, match=match):
        open_test_bundle(path)


def test_schema_invalid_manifest_names_the_field_not_the_value(tmp_path: Path) -> None:
    document = json.loads(manifest_for({"a": b"x"}))
    document["members"][0]["sha256"] = "SECRETISH-NOT-HEX"
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, manifest=json.dumps(document).encode())
    with pytest.raises(ManifestInvalid, match="members/0/sha256") as info:
        open_test_bundle(path)
    assert "SECRETISH" not in str(info.value)
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.manifest is None
        assert reader.integrity.status == "tampered"


def test_newer_minor_format_and_unknown_fields_are_accepted(tmp_path: Path) -> None:
    manifest = manifest_for({"a": b"x"}, format="bundler/1.7", future_field={"x": 1})
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, manifest=manifest)
    with open_test_bundle(path) as reader:
        assert reader.check().status == "verified"


def test_member_encrypted_with_another_password(tmp_path: Path) -> None:
    import pyzipper

    members = {"a": b"x", "b": b"y"}
    path = craft_bundle(tmp_path / "b.zip", {"a": b"x"}, manifest=manifest_for(members))
    with pyzipper.AESZipFile(path, "a") as zf:  # "b" appended under a password we do not have
        zf.setencryption(pyzipper.WZ_AES, nbits=256, force_wz_aes_version=2)
        zf.setpassword(b"another password!")
        zf.writestr("b", b"y")
    with open_test_bundle(path, lenient=True) as reader:
        integrity = reader.check()
    assert [p.kind for p in integrity.problems] == ["auth_failed"]


def test_lenient_reader_feeds_the_analyzer_unknown_not_a_crash(tmp_path: Path) -> None:
    """An unsound evidence document looks absent to EvidenceSet (rules answer 'unknown')."""
    document = {"workers": []}
    members = {"evidence/workers.json": json.dumps(document).encode()}
    lying = json.loads(manifest_for(members))
    lying["members"][0]["sha256"] = "0" * 64
    path = craft_bundle(tmp_path / "b.zip", members, manifest=json.dumps(lying).encode())
    with open_test_bundle(path, lenient=True) as reader:
        evidence = EvidenceSet(reader, reader.manifest)
        assert evidence.get(WorkersEvidence) is None
        assert reader.integrity.to_schema().status == "tampered"


def test_integrity_is_unverified_until_checked(tmp_path: Path) -> None:
    with open_test_bundle(_bundle(tmp_path), lenient=True) as reader:
        assert reader.integrity.status == "unverified"
        assert reader.check().status == "verified"
