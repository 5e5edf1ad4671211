"""Open what ``bundler review`` was given (a directory, a bundle, one file) and scan it."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from redactors import review_source
from redactors.review import load_report
from schemas import REDACTION_REPORT_MEMBER, ReviewResult

from ..errors import InputError
from ..secret_options import OpenSecrets
from ..source import DirectorySource, MemberNotFound, MemberSource, MemorySource

ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


class _SkipMissing:
    """A source that hides members that vanish or escape (symlinked folders) instead of failing."""

    def __init__(self, inner: MemberSource) -> None:
        self.inner = inner

    def names(self) -> list[str]:
        return [n for n in self.inner.names() if self.inner.has(n)]

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        try:
            yield from self.inner.iter_chunks(name, chunk_size)
        except MemberNotFound:
            return

    def read_bytes(self, name: str) -> bytes:
        return self.inner.read_bytes(name)

    def has(self, name: str) -> bool:
        return self.inner.has(name)


@contextlib.contextmanager
def open_target(path: Path, secrets: OpenSecrets | None = None) -> Iterator[MemberSource]:
    if path.is_dir():
        yield _SkipMissing(DirectorySource(path))
        return
    try:
        with path.open("rb") as handle:
            head = handle.read(4)
    except OSError as exc:
        raise InputError(f"cannot read {path}: {exc.strerror}") from None
    if head in ZIP_MAGIC:
        from ..archive import open_bundle

        with open_bundle(path, secrets, lenient=True) as bundle:
            yield bundle
        return
    yield MemorySource({path.name: path.read_bytes()})


def review_path(
    path: Path, secrets: OpenSecrets | None = None, originals: list[bytes] | None = None
) -> ReviewResult:
    with open_target(path, secrets) as source:
        report = None
        if source.has(REDACTION_REPORT_MEMBER):
            report = load_report(source.read_bytes(REDACTION_REPORT_MEMBER))
        return review_source(source, originals=originals or [], report=report)
