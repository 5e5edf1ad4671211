"""Unlocking judges the password by a MAC, and tries every stanza sealed to the identity.

A WinZip-AES entry's 2-byte password verifier lets a wrong password through
once in 65,536 tries; the reader must then say "wrong password", not
"tampered". The recipient envelope is unauthenticated and anyone with the
public key can add a stanza, so a forged one placed first must not lock the
real recipient out.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import Identity, IdentityKey, PublicKey, Sealing, keygen
from bundler.archive.reader import BundleReader
from bundler.archive.sealing import COMMENT_HEADLINE, new_archive_password, seal
from bundler.errors import DecryptionFailed
from schemas import MANIFEST_MEMBER
from tests.support.archive import build_bundle, open_test_bundle

from .readers import run_reader
from .zipsurgery import Zip

MEMBERS = {"logs/a.log": b"line\n" * 50, "notes/b.txt": b"fine\n"}
WRONG = "a wrong password that is long enough"


def _give_manifest_the_verifier_of(path: Path, password: str) -> None:
    """Rewrite the manifest's (unauthenticated) verifier so ``password`` passes it."""
    with pyzipper.AESZipFile(path) as zf:
        info = zf.getinfo(MANIFEST_MEMBER)
    raw = bytearray(path.read_bytes())
    name_len = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    salt_at = info.header_offset + 30 + name_len + extra_len
    salt = bytes(raw[salt_at : salt_at + 16])
    keys = hashlib.pbkdf2_hmac("sha1", password.encode(), salt, 1000, 66)
    raw[salt_at + 16 : salt_at + 18] = keys[64:66]
    path.write_bytes(bytes(raw))


def test_a_wrong_password_that_passes_the_manifest_verifier_is_still_wrong(
    tmp_path: Path,
) -> None:
    path = build_bundle(tmp_path / "b.zip", MEMBERS).path
    _give_manifest_the_verifier_of(path, WRONG)
    with pytest.raises(DecryptionFailed, match="wrong password"):
        open_test_bundle(path, WRONG, lenient=True)
    outcome = run_reader("verify", path, tmp_path, password=WRONG)
    assert outcome.code == 2
    assert "wrong password" in outcome.stderr
    assert "tampered" not in outcome.text
    # The right password still opens it; the damaged verifier is reported, not "wrong password".
    with open_test_bundle(path, lenient=True) as reader:
        assert reader.check().status == "tampered"
        assert any(p.member == MANIFEST_MEMBER for p in reader.integrity.problems)


def test_a_forged_stanza_before_the_real_one_does_not_lock_the_recipient_out(
    tmp_path: Path,
) -> None:
    _, identity, public = keygen(tmp_path / "alice")
    recipient = PublicKey.load(public)
    path = build_bundle(
        tmp_path / "b.zip", MEMBERS, sealing=Sealing.to_recipients((recipient,))
    ).path
    archive = Zip.parse(path.read_bytes())
    real = json.loads(archive.comment.partition(b"\n")[2])
    forged = json.loads(seal(new_archive_password(), [recipient]).partition(b"\n")[2])
    real["recipients"] = forged["recipients"] + real["recipients"]
    body = json.dumps(real, separators=(",", ":"))
    archive.comment = f"{COMMENT_HEADLINE}\n{body}".encode()
    path.write_bytes(archive.pack())
    with BundleReader.open(path, IdentityKey(Identity.load(identity)), lenient=True) as reader:
        assert reader.check().status == "verified"  # the envelope is still one bundler writes
        assert reader.read_bytes("logs/a.log") == MEMBERS["logs/a.log"]


def test_only_forged_stanzas_are_refused_as_a_replaced_envelope(tmp_path: Path) -> None:
    _, identity, public = keygen(tmp_path / "alice")
    recipient = PublicKey.load(public)
    path = build_bundle(
        tmp_path / "b.zip", MEMBERS, sealing=Sealing.to_recipients((recipient,))
    ).path
    archive = Zip.parse(path.read_bytes())
    archive.comment = seal(new_archive_password(), [recipient])
    path.write_bytes(archive.pack())
    with pytest.raises(DecryptionFailed, match="envelope was replaced or damaged"):
        BundleReader.open(path, IdentityKey(Identity.load(identity)), lenient=True)
