"""Test helpers for bundles: build real ones, and craft broken or hostile ones.

``build_bundle`` goes through the real builder (what ``doctor`` does), so
other areas' tests can get a genuine encrypted bundle in one call::

    from tests.support.archive import PASSWORD, build_bundle, open_test_bundle
    path = build_bundle(tmp_path / "b.zip", {"evidence/workers.json": b"{...}"}).path
    with open_test_bundle(path) as reader: ...

``craft_zip`` / ``craft_bundle`` write zips with pyzipper directly, bypassing
every check of ours, to produce what an attacker (or a bug) could.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyzipper

from bundler.archive import (
    BundleBuilder,
    BundleReader,
    PasswordKey,
    ReaderLimits,
    SealedBundle,
    Sealing,
    Secret,
)
from bundler.archive.zipwriter import AES_KWARGS
from schemas import MANIFEST_MEMBER

PASSWORD = "correct horse battery staple"
CREATED = datetime(2024, 5, 1, 12, 30, 10, tzinfo=UTC)


def password_key(password: str = PASSWORD) -> PasswordKey:
    return PasswordKey(Secret(password))


def build_bundle(
    path: Path,
    members: Mapping[str, bytes | Iterable[bytes]],
    *,
    sealing: Sealing | None = None,
    media_types: Mapping[str, str] | None = None,
    schema_names: Mapping[str, str] | None = None,
    **finalize: Any,
) -> SealedBundle:
    """A genuine bundle written by the real builder (password mode by default)."""
    with BundleBuilder(
        path, sealing=sealing or Sealing.with_password(PASSWORD), clock=lambda: CREATED
    ) as builder:
        for name, content in members.items():
            builder.add(
                name,
                content,
                media_type=(media_types or {}).get(name, "application/octet-stream"),
                schema_name=(schema_names or {}).get(name),
            )
        return builder.finalize(**finalize)


def open_test_bundle(
    path: Path,
    password: str = PASSWORD,
    *,
    lenient: bool = False,
    limits: ReaderLimits | None = None,
) -> BundleReader:
    return BundleReader.open(path, password_key(password), lenient=lenient, limits=limits)


@dataclass(frozen=True)
class CraftEntry:
    """One raw zip entry, written exactly as described."""

    name: str
    data: bytes
    encrypted: bool = True
    external_attr: int | None = None
    compress_type: int = pyzipper.ZIP_DEFLATED


def craft_zip(
    path: Path, entries: Iterable[CraftEntry], *, password: str = PASSWORD, comment: bytes = b""
) -> Path:
    """Write entries with pyzipper directly: no name checks, no manifest logic."""
    with pyzipper.AESZipFile(path, "w") as zf:
        for entry in entries:
            if entry.encrypted:
                zf.setencryption(pyzipper.WZ_AES, **AES_KWARGS)
                zf.setpassword(password.encode())
            else:
                zf.encryption = None
                zf.pwd = None
            info = pyzipper.zipfile_aes.AESZipInfo(entry.name, date_time=(2024, 5, 1, 0, 0, 0))
            info.compress_type = entry.compress_type
            if entry.external_attr is not None:
                info.external_attr = entry.external_attr
            with zf.open(info, "w") as handle:
                handle.write(entry.data)
        zf.comment = comment
    return path


def manifest_for(members: Mapping[str, bytes], **overrides: Any) -> bytes:
    """A valid manifest listing ``members`` with their true sha256 and size."""
    document: dict[str, Any] = {
        "format": "bundler/1.0",
        "tool": {"name": "bundler", "version": "0.0-test"},
        "created_at": CREATED.isoformat(),
        "bundle_id": "test",
        "members": [
            {"path": name, "sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
            for name, data in members.items()
        ],
        "encryption": {"mode": "password"},
    }
    document.update(overrides)
    return json.dumps(document).encode()


def craft_bundle(
    path: Path,
    members: Mapping[str, bytes],
    *,
    extra: Iterable[CraftEntry] = (),
    manifest: bytes | None = None,
    password: str = PASSWORD,
    comment: bytes = b"",
) -> Path:
    """Members + a manifest listing them (or the given manifest) + ``extra`` raw entries."""
    entries = [CraftEntry(name, data) for name, data in members.items()]
    entries += list(extra)
    entries.append(CraftEntry(MANIFEST_MEMBER, manifest or manifest_for(members)))
    return craft_zip(path, entries, password=password, comment=comment)


def patch_bytes(path: Path, old: bytes, new: bytes) -> int:
    """Replace every ``old`` by ``new`` (same length) in the file; returns the count."""
    assert len(old) == len(new)
    data = path.read_bytes()
    count = data.count(old)
    assert count, f"{old!r} not found in {path}"
    path.write_bytes(data.replace(old, new))
    return count


def flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01
    path.write_bytes(bytes(data))


def data_offset(path: Path, member: str) -> int:
    """File offset of a member's first encrypted data byte (after salt and verifier)."""
    with pyzipper.AESZipFile(path) as zf:
        info = zf.getinfo(member)
    raw = path.read_bytes()
    name_len = int.from_bytes(raw[info.header_offset + 26 : info.header_offset + 28], "little")
    extra_len = int.from_bytes(raw[info.header_offset + 28 : info.header_offset + 30], "little")
    return info.header_offset + 30 + name_len + extra_len + 18
