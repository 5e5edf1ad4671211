"""Integrity of what the analyzer reads, checked in the same pass that reads it.

A bundle is hostile input, and an analysis of a tampered or partial bundle
must say so at the top. Re-reading every member just to hash it would double
the cost of analyzing a 1 GB bundle, so :class:`VerifyingSource` hashes each
member *as the analysis streams it* and only hashes, at the end, the members
the analysis never read. Every byte is read once.

Outcomes, worst first: ``tampered`` (a checksum or size differs, or a member
is not in the manifest), ``partial`` (listed members missing, or collection
was interrupted), ``unverified`` (no usable manifest), ``verified``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterator
from typing import Literal

from schemas import MANIFEST_MEMBER, Integrity, Manifest

from ..source import MemberNotFound, MemberSource

MAX_LISTED_PROBLEMS = 50

IntegrityStatus = Literal["verified", "tampered", "partial", "unverified"]


class VerifyingSource:
    """A :class:`MemberSource` that checks every member against the manifest as it is read."""

    def __init__(self, inner: MemberSource, manifest: Manifest | None) -> None:
        self.inner = inner
        self.manifest = manifest
        self._expected = {m.path: m for m in manifest.members} if manifest else {}
        self._seen: dict[str, tuple[str, int]] = {}

    # -- MemberSource -------------------------------------------------------------------------

    def names(self) -> list[str]:
        return self.inner.names()

    def has(self, name: str) -> bool:
        return self.inner.has(name)

    def read_bytes(self, name: str) -> bytes:
        data = self.inner.read_bytes(name)
        self._seen[name] = (hashlib.sha256(data).hexdigest(), len(data))
        return data

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        digest = hashlib.sha256()
        size = 0
        for chunk in self.inner.iter_chunks(name, chunk_size):
            digest.update(chunk)
            size += len(chunk)
            yield chunk
        self._seen[name] = (digest.hexdigest(), size)  # only a fully read member counts

    # -- verification -------------------------------------------------------------------------

    def finish(self, extra_problems: list[str] | None = None) -> Integrity:
        """Hash what the analysis never read, compare everything, and say how sound it is."""
        problems = list(extra_problems or [])
        if self.manifest is None:
            return Integrity(status="unverified", problems=problems or ["no manifest.json"])
        tampered, partial = [], []
        present = set(self.inner.names())
        for path, entry in self._expected.items():
            if path not in present:
                partial.append(f"listed member missing: {path}")
                continue
            digest, size = self._seen.get(path) or self._hash(path)
            if digest != entry.sha256 or size != entry.size:
                tampered.append(f"checksum mismatch: {path}")
        for path in sorted(present - set(self._expected) - {MANIFEST_MEMBER}):
            tampered.append(f"member not in the manifest: {path}")
        if self.manifest.interrupted:
            partial.append("collection was interrupted (Ctrl-C): some collectors did not finish")
        problems = tampered + partial + problems
        status: IntegrityStatus = "tampered" if tampered else "partial" if partial else "verified"
        if problems and status == "verified":
            status = "unverified"
        return Integrity(status=status, problems=_cap(problems))

    def _hash(self, path: str) -> tuple[str, int]:
        digest = hashlib.sha256()
        size = 0
        try:
            for chunk in self.inner.iter_chunks(path):
                digest.update(chunk)
                size += len(chunk)
        except MemberNotFound:
            return "", -1
        return digest.hexdigest(), size


def _cap(problems: list[str]) -> list[str]:
    if len(problems) <= MAX_LISTED_PROBLEMS:
        return problems
    rest = len(problems) - MAX_LISTED_PROBLEMS
    return [*problems[:MAX_LISTED_PROBLEMS], f"... and {rest} more"]
