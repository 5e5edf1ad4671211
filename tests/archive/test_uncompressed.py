"""A member that compresses past the readers' ratio limit is stored uncompressed, not refused.

bundler's readers refuse a member over 16 MiB that expands more than 200:1 (a zip bomb's
shape). A crash loop's log, one line over and over, has that shape; the writer refused it
and the whole bundle was lost. It now takes the entry back and stores it (still AES-256
AE-2), on each path a member reaches the zip by: the writer's own deflate
(``write_member``), a raw deflate stream made elsewhere (``write_precompressed``: a member
``bundler redact`` joined from segments) and a stream deflated and encrypted elsewhere
(``write_preencrypted``). Each bundle here is opened as every reader opens it (zip scan,
byte map, MACs, checksums).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import pyzipper

from bundler.archive import Sealing, verify_bundle
from bundler.archive.builder import BundleBuilder
from bundler.archive.deflate import DeflateStats, deflate_in_background
from bundler.archive.limits import ReaderLimits
from bundler.archive.sealed import seal
from bundler.archive.uncompressed import uncompressed_note
from bundler.errors import EncryptionError
from tests.support.archive import CREATED, PASSWORD, build_bundle, open_test_bundle

CRASH_LOOP = b"ERROR connect: connection refused" + b" " * 990 + b"\n"
"""A fixed-width log's crash loop: one line over and over."""
LOOPING = CRASH_LOOP * ((17 << 20) // len(CRASH_LOOP))
"""17 MiB: over the 16 MiB floor, and it deflates ~370:1 (zlib and zlib-ng alike)."""
BEFORE, AFTER = b"the member before\n" * 1000, b"the member after\n" * 1000


def _methods(path: Path) -> dict[str, int]:
    with pyzipper.AESZipFile(path) as zf:
        return {info.filename: info.compress_type for info in zf.infolist()}


def _read_back(path: Path, name: str) -> bytes:
    """``name``'s content, after everything every reader checks (with their defaults)."""
    with open_test_bundle(path, lenient=True, limits=ReaderLimits()) as reader:
        report = verify_bundle(reader)
        assert report.ok, report.checks
        assert reader.integrity.status == "verified"
        return reader.read_bytes(name)


def _deflate(data: bytes) -> tuple[list[bytes], DeflateStats]:
    stats = DeflateStats()
    stream = list(deflate_in_background([data], stats))
    return stream, stats


def test_a_member_written_here_is_stored_uncompressed_between_members_left_as_they_were(
    tmp_path: Path,
) -> None:
    path = build_bundle(
        tmp_path / "b.zip",
        {"hosts/h01/a.log": BEFORE, "hosts/h01/b.log": LOOPING, "hosts/h01/c.log": AFTER},
    ).path
    methods = _methods(path)
    assert methods.pop("hosts/h01/b.log") == pyzipper.ZIP_STORED
    assert set(methods.values()) == {pyzipper.ZIP_DEFLATED}
    assert _read_back(path, "hosts/h01/b.log") == LOOPING
    assert _read_back(path, "hosts/h01/a.log") == BEFORE
    assert _read_back(path, "hosts/h01/c.log") == AFTER
    assert path.stat().st_size > len(LOOPING)  # every byte is there, none is inflated


@pytest.mark.parametrize("sealed", [False, True], ids=["deflated-elsewhere", "sealed-elsewhere"])
def test_a_member_prepared_elsewhere_is_stored_uncompressed(tmp_path: Path, sealed: bool) -> None:
    """``bundler redact``'s members: deflated by a worker (and joined from segments) or also
    encrypted by it. The writer has only their ciphertext when it learns the ratio."""
    stream, stats = _deflate(LOOPING)
    sealing = Sealing.with_password(PASSWORD)
    chunks = list(seal(sealing.password.reveal(), stream)) if sealed else stream
    path = tmp_path / "b.zip"
    with BundleBuilder(path, sealing=sealing, clock=lambda: CREATED) as builder:
        builder.add("a.log", BEFORE)
        builder.add_precompressed(
            "b.log", lambda: chunks, size=stats.size, sha256=stats.sha256, sealed=sealed
        )
        builder.add("c.log", AFTER)
        bundle = builder.finalize(command="redact")
    assert bundle.uncompressed == ("b.log",)
    assert _methods(path)["b.log"] == pyzipper.ZIP_STORED
    assert _read_back(path, "b.log") == LOOPING
    assert _read_back(path, "c.log") == AFTER


def test_members_on_either_side_of_the_limit_stay_deflated(tmp_path: Path) -> None:
    """At the floor however well it packs, and over the floor below 200:1: deflated."""
    at_floor = CRASH_LOOP * ((16 << 20) // len(CRASH_LOOP))
    counted = b"".join(b"%07d worker w1 heartbeat ok\n" % i for i in range(700_000))
    assert len(at_floor) <= ReaderLimits().ratio_floor < len(counted)
    bundle = build_bundle(tmp_path / "b.zip", {"at-floor.log": at_floor, "counted.log": counted})
    assert bundle.uncompressed == ()
    assert set(_methods(bundle.path).values()) == {pyzipper.ZIP_DEFLATED}
    assert _read_back(bundle.path, "counted.log") == counted


def test_a_stream_sealed_under_another_password_is_not_stored_under_this_one(
    tmp_path: Path,
) -> None:
    """Storing it means decrypting it: a stream the bundle password does not open fails the
    bundle (it did, later, in the post-write check), never gets re-encrypted as garbage."""
    stream, stats = _deflate(LOOPING)
    path = tmp_path / "b.zip"
    with BundleBuilder(path, sealing=Sealing.with_password(PASSWORD), clock=lambda: CREATED) as b:
        b.add_precompressed(
            "b.log",
            lambda: seal(b"another password entirely", stream),
            size=stats.size,
            sha256=stats.sha256,
            sealed=True,
        )
        with pytest.raises(  # its MAC, when the 2-byte verifier lets it through (1 in 65,536)
            EncryptionError,
            match=r"cannot store 'b\.log' uncompressed: (it does not open with the bundle "
            r"password|its AES authentication failed)",
        ):
            b.finalize(command="redact")
    assert list(tmp_path.iterdir()) == []


def test_a_stream_that_is_not_what_its_caller_vouched_for_fails_the_bundle(
    tmp_path: Path,
) -> None:
    """The stored copy is hashed as it is written: a size or sha256 the stream does not have
    fails the bundle (for a member over 4 MiB, the post-write check reads only its MAC)."""
    stream, stats = _deflate(LOOPING)
    path = tmp_path / "b.zip"
    with BundleBuilder(path, sealing=Sealing.with_password(PASSWORD), clock=lambda: CREATED) as b:
        b.add_precompressed(
            "b.log", lambda: stream, size=stats.size, sha256=hashlib.sha256(b"other").hexdigest()
        )
        with pytest.raises(
            EncryptionError,
            match=r"cannot store 'b\.log' uncompressed: it does not read back as written",
        ):
            b.finalize(command="redact")
    assert list(tmp_path.iterdir()) == []


def test_the_note_names_a_few_members_and_counts_the_rest() -> None:
    """What ``doctor`` and ``redact`` print: one line, whatever the number of members."""
    assert uncompressed_note(()) is None
    many = uncompressed_note([f"hosts/h0{i}/logs/00.log" for i in range(1, 6)])
    assert many == (
        "stored uncompressed, every byte kept: hosts/h01/logs/00.log, hosts/h02/logs/00.log, "
        "hosts/h03/logs/00.log and 2 more (they compress past the 200:1 bundler's readers "
        "accept for a member over 16 MiB)"
    )
    assert "\n" not in (uncompressed_note(["a\nb.log"]) or "")  # a name is printed escaped
