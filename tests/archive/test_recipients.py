"""Recipient mode: keygen files, sealing to one or several keys, opening with an identity."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import BundleReader, Identity, IdentityKey, PublicKey, Sealing, keygen
from bundler.archive.keys import IDENTITY_TYPE, PUBLIC_TYPE
from bundler.archive.sealing import read_envelope, seal, unseal
from bundler.errors import DecryptionFailed, OutputError, UsageError
from tests.support.archive import build_bundle, password_key


def _keys(tmp_path: Path, name: str, comment: str | None = None) -> tuple[Path, Path]:
    _, identity, public = keygen(tmp_path / name, comment)
    return identity, public


def test_keygen_writes_two_one_line_files_with_modes(tmp_path: Path) -> None:
    identity, public = _keys(tmp_path, "vendor", "support@vendor 2024")
    assert identity.stat().st_mode & 0o777 == 0o600
    assert public.name == "vendor.pub"
    id_line, pub_line = identity.read_text(), public.read_text()
    assert id_line.count("\n") == 1
    assert pub_line.count("\n") == 1
    kind, key, comment = pub_line.strip().split(" ", 2)
    assert (kind, comment) == (PUBLIC_TYPE, "support@vendor 2024")
    assert len(base64.b64decode(key)) == 32
    assert id_line.startswith(IDENTITY_TYPE + " ")
    assert Identity.load(identity).public == PublicKey.load(public)


def test_keygen_never_overwrites(tmp_path: Path) -> None:
    identity, public = _keys(tmp_path, "k")
    before = identity.read_bytes()
    with pytest.raises(OutputError, match="already exists"):
        keygen(tmp_path / "k")
    public.unlink()
    with pytest.raises(OutputError, match="already exists"):
        keygen(tmp_path / "k")
    assert identity.read_bytes() == before
    assert not public.exists()


def test_fingerprint_is_sha256_of_the_raw_key(tmp_path: Path) -> None:
    import hashlib

    _, public = _keys(tmp_path, "k")
    key = PublicKey.load(public)
    digest = base64.b64encode(hashlib.sha256(key.raw).digest()).decode().rstrip("=")
    assert key.fingerprint == f"SHA256:{digest}"


def test_round_trip_with_several_recipients(tmp_path: Path) -> None:
    keys = [_keys(tmp_path, name, f"{name} key") for name in ("alice", "bob")]
    sealing = Sealing.to_recipients(tuple(PublicKey.load(pub) for _, pub in keys))
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"payload"}, sealing=sealing)
    assert sealed.manifest.encryption.mode == "recipient"
    assert [r.fingerprint for r in sealed.manifest.encryption.recipients] == [
        PublicKey.load(pub).fingerprint for _, pub in keys
    ]
    assert sealed.manifest.encryption.recipients[0].comment == "alice key"
    for identity, _ in keys:
        with BundleReader.open(sealed.path, IdentityKey(Identity.load(identity))) as reader:
            assert reader.read_bytes("m") == b"payload"
            assert reader.check().status == "verified"


def test_wrong_identity_is_refused(tmp_path: Path) -> None:
    _, alice_pub = _keys(tmp_path, "alice")
    mallory, _ = _keys(tmp_path, "mallory")
    sealing = Sealing.to_recipients((PublicKey.load(alice_pub),))
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"}, sealing=sealing)
    with pytest.raises(DecryptionFailed, match="not sealed to identity") as info:
        BundleReader.open(sealed.path, IdentityKey(Identity.load(mallory)))
    assert PublicKey.load(alice_pub).fingerprint in (info.value.hint or "")


def test_identity_on_a_password_bundle_says_what_is_needed(tmp_path: Path) -> None:
    identity, _ = _keys(tmp_path, "alice")
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"})
    with pytest.raises(DecryptionFailed, match="password-protected"):
        BundleReader.open(sealed.path, IdentityKey(Identity.load(identity)))


def test_envelope_is_in_the_zip_comment_and_shows_only_fingerprints(tmp_path: Path) -> None:
    _, pub = _keys(tmp_path, "alice", "secret-comment")
    key = PublicKey.load(pub)
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"}, sealing=Sealing.to_recipients((key,)))
    with pyzipper.AESZipFile(sealed.path) as zf:
        comment = zf.comment
    envelope = json.loads(comment.decode().splitlines()[-1])
    assert envelope["bundler_envelope"] == 1
    assert [s["fingerprint"] for s in envelope["recipients"]] == [key.fingerprint]
    assert b"secret-comment" not in comment  # the comment lives in the encrypted manifest only


def test_the_random_password_opens_the_zip_in_any_aes_tool(tmp_path: Path) -> None:
    identity, pub = _keys(tmp_path, "alice")
    sealing = Sealing.to_recipients((PublicKey.load(pub),))
    assert len(sealing.password) == 43  # 256 bits, base64url
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"}, sealing=sealing)
    with pyzipper.AESZipFile(sealed.path) as zf:
        envelope = read_envelope(zf.comment)
        assert envelope is not None
        zf.setpassword(unseal(envelope, Identity.load(identity)).reveal())
        assert zf.read("m") == b"x"


def test_a_forged_envelope_is_refused(tmp_path: Path) -> None:
    """Someone rewraps a different password to alice: the members do not open with it."""
    identity, pub = _keys(tmp_path, "alice")
    key = PublicKey.load(pub)
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"}, sealing=Sealing.to_recipients((key,)))
    forged = seal(Sealing.to_recipients((key,)).password, [key])
    with pyzipper.AESZipFile(sealed.path, "a") as zf:
        zf.comment = forged
    with pytest.raises(DecryptionFailed, match="envelope was replaced"):
        BundleReader.open(sealed.path, IdentityKey(Identity.load(identity)))


def test_a_damaged_envelope_is_a_clean_error(tmp_path: Path) -> None:
    identity, pub = _keys(tmp_path, "alice")
    sealing = Sealing.to_recipients((PublicKey.load(pub),))
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"}, sealing=sealing)
    with pyzipper.AESZipFile(sealed.path, "a") as zf:
        zf.comment = b'{"bundler_envelope": 1, "scheme": 7}'
    with pytest.raises(DecryptionFailed, match="damaged"):
        BundleReader.open(sealed.path, IdentityKey(Identity.load(identity)))


def test_password_still_opens_a_recipient_bundle_for_whoever_has_it(tmp_path: Path) -> None:
    _, pub = _keys(tmp_path, "alice")
    sealing = Sealing.to_recipients((PublicKey.load(pub),))
    sealed = build_bundle(tmp_path / "b.zip", {"m": b"x"}, sealing=sealing)
    with BundleReader.open(sealed.path, password_key(sealing.password.reveal().decode())) as r:
        assert r.read_bytes("m") == b"x"


def test_identity_readable_by_others_is_refused(tmp_path: Path) -> None:
    identity, _ = _keys(tmp_path, "alice")
    identity.chmod(0o644)
    with pytest.raises(UsageError, match="accessible by other users") as info:
        Identity.load(identity)
    assert "chmod 600" in (info.value.hint or "")


@pytest.mark.parametrize(
    "content",
    [
        "",
        "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOMqqnkVzrm0SdG6UOoqKLsabgH5C9okWi0dh2l9GKJl x",
        "bundler-x25519 not-base64!!",
        "bundler-x25519 " + base64.b64encode(b"short").decode(),
        "bundler-x25519-identity " + base64.b64encode(bytes(32)).decode(),
    ],
)
def test_bad_public_key_files_are_one_line_usage_errors(tmp_path: Path, content: str) -> None:
    path = tmp_path / "k.pub"
    path.write_text(content)
    with pytest.raises(UsageError) as info:
        PublicKey.load(path)
    assert "\n" not in str(info.value)
    assert content[20:] == "" or content[20:40] not in str(info.value)  # never echoes key material


def test_a_public_key_given_as_identity_is_refused(tmp_path: Path) -> None:
    _, public = _keys(tmp_path, "alice")
    public.chmod(0o600)
    with pytest.raises(UsageError, match="not a bundler identity file"):
        Identity.load(public)


def test_keygen_rejects_multiline_comments(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="one printable line"):
        keygen(tmp_path / "k", "a\nb")
    assert list(tmp_path.iterdir()) == []
