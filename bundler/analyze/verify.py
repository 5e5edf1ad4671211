"""Integrity of what the analyzer reads, checked in the same pass that reads it.

A bundle is hostile input, and an analysis of a tampered or partial bundle
must say so at the top. Re-reading every member just to hash it would double
the cost of analyzing a 1 GB bundle, so :class:`VerifyingSource` checks each
member *as the analysis streams it* and, at the end, reads only the members
the analysis never touched. Every byte is read once.

Tampered content is not trusted: a whole-member read (an evidence document)
whose checksum differs raises :class:`MemberNotFound`, so its facts read as
*unknown* — exactly what the zip reader's lenient mode does. A streamed member
(a log) can only be judged after its last chunk; by then the parser has seen
it, so the problem is recorded, the stream ends normally, and the report's
integrity line names the member.

Outcomes, worst first: ``tampered`` (a checksum or size differs, or a member
is not in the manifest), ``partial`` (listed members missing, or collection
was interrupted), ``unverified`` (no usable manifest), ``verified``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator
from typing import Literal

from schemas import MANIFEST_MEMBER, Integrity, Manifest

from ..source import MemberNotFound, MemberSource, MemberUnverified, declared_size

MAX_LISTED_PROBLEMS = 50

IntegrityStatus = Literal["verified", "tampered", "partial", "unverified"]


class VerifyingSource:
    """A :class:`MemberSource` that checks members against the manifest as they are read.

    ``inner_report`` is for sources that verify themselves (the zip reader):
    this wrapper then only tracks what was read, and takes the verdict from them.
    """

    def __init__(
        self,
        inner: MemberSource,
        manifest: Manifest | None,
        *,
        inner_report: Callable[[], Integrity] | None = None,
    ) -> None:
        self.inner = inner
        self.manifest = manifest
        self._inner_report = inner_report
        self._expected = {m.path: m for m in manifest.members} if manifest else {}
        self._read: set[str] = set()
        self._tampered: dict[str, str] = {}

    # -- MemberSource -------------------------------------------------------------------------

    def names(self) -> list[str]:
        return [n for n in self.inner.names() if n not in self._tampered]

    def has(self, name: str) -> bool:
        return name not in self._tampered and self.inner.has(name)

    def read_bytes(self, name: str) -> bytes:
        if name in self._tampered:
            raise _unverified(name)
        data = self.inner.read_bytes(name)
        self._read.add(name)
        if self._inner_report is None and not self._sound(name, _digest(data), len(data)):
            raise _unverified(name)
        return data

    def member_size(self, name: str) -> int | None:
        """The inner source's declared size (:func:`~bundler.source.declared_size`)."""
        if name in self._tampered:
            raise _unverified(name)
        return declared_size(self.inner, name)

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        if name in self._tampered:
            raise _unverified(name)
        digest = hashlib.sha256()
        size = 0
        try:
            for chunk in self.inner.iter_chunks(name, chunk_size):
                if self._inner_report is None:
                    digest.update(chunk)
                size += len(chunk)
                yield chunk
        except MemberNotFound:
            if size == 0:
                raise  # absent: the caller reads it as unknown
            return  # unsound, found after the last chunk: the source recorded why
        self._read.add(name)
        if self._inner_report is None:
            self._sound(name, digest.hexdigest(), size)

    # -- verification -------------------------------------------------------------------------

    def finish(self, extra_problems: list[str] | None = None) -> Integrity:
        """Check what the analysis never read, compare everything, and say how sound it is."""
        for path in self._expected:
            if path not in self._read and path not in self._tampered and self.inner.has(path):
                try:
                    for _ in self.iter_chunks(path):
                        pass
                except MemberNotFound:
                    continue  # unsound before its first byte: the source recorded why
        if self._inner_report is not None:
            return self._from_inner(extra_problems or [])
        problems = list(extra_problems or [])
        if self.manifest is None:
            return Integrity(status="unverified", problems=problems or ["no manifest.json"])
        present = set(self.inner.names())
        tampered = [f"checksum mismatch: {p}" for p in sorted(self._tampered)]
        tampered += [
            f"member not in the manifest: {p}"
            for p in sorted(present - set(self._expected) - {MANIFEST_MEMBER})
        ]
        partial = [f"listed member missing: {p}" for p in self._expected if p not in present]
        if self.manifest.interrupted:
            partial.append("collection was interrupted (Ctrl-C): some collectors did not finish")
        return _integrity(tampered, partial, problems)

    def _sound(self, name: str, digest: str, size: int) -> bool:
        entry = self._expected.get(name)
        if entry is None or (entry.sha256 == digest and entry.size == size):
            return True
        self._tampered[name] = digest
        return False

    def _from_inner(self, extra: list[str]) -> Integrity:
        assert self._inner_report is not None
        report = self._inner_report()
        every = all(p in self._read for p in self._expected if self.inner.has(p))
        status = report.status
        if status == "unverified" and every and self.manifest is not None:
            status = "verified"  # the analysis (plus our final pass) read every member
        interrupted = self.manifest is not None and self.manifest.interrupted
        problems = (
            report.problems
            + extra
            + (
                ["collection was interrupted (Ctrl-C): some collectors did not finish"]
                if interrupted
                else []
            )
        )
        if status == "verified" and interrupted:
            status = "partial"
        if status == "verified" and extra:
            status = "unverified"
        return Integrity(status=status, problems=_cap(problems))


def _unverified(name: str) -> MemberUnverified:
    return MemberUnverified(name, f"member {name} does not match its manifest checksum")


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _integrity(tampered: list[str], partial: list[str], other: list[str]) -> Integrity:
    problems = tampered + partial + other
    status: IntegrityStatus = "tampered" if tampered else "partial" if partial else "verified"
    if problems and status == "verified":
        status = "unverified"
    return Integrity(status=status, problems=_cap(problems))


def _cap(problems: list[str]) -> list[str]:
    if len(problems) <= MAX_LISTED_PROBLEMS:
        return problems
    rest = len(problems) - MAX_LISTED_PROBLEMS
    return [*problems[:MAX_LISTED_PROBLEMS], f"... and {rest} more"]
