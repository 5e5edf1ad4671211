"""Read-only access to bundle members, wherever they live.

The same parsing and rules run on three kinds of storage (the insights-core
idea): a sealed bundle (zip, via ``bundler.archive``), a directory (an
extracted bundle, or ``bundler redact`` output), and the in-progress spool of a
``doctor`` run (so ``doctor --json`` prints the verdict live from the same code).
Rules and normalizers only ever see a :class:`MemberSource`.
"""

from __future__ import annotations

import json
import os
from collections.abc import Generator, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import Any, Protocol, runtime_checkable

from .jsondoc import loads_bounded
from .sizes import human_size, parse_size, size_past

TRUNCATION_MARKER = "[bundler truncated]"
"""How every capped member's marker line starts, where the collector left lines out
(``bundler/collect/capping.py`` writes it): a reader knows the text on either side is not
continuous."""

DEFAULT_MAX_JSON_BYTES = 256 * 1024 * 1024
"""Refuse to parse a JSON member larger than this into memory."""
MAX_JSON_BYTES_ENV = "BUNDLER_MAX_JSON_BYTES"
"""Raises (or lowers) :data:`DEFAULT_MAX_JSON_BYTES` for one process, like ``BUNDLER_MAX_*``."""


def max_json_bytes(environ: Mapping[str, str] | None = None) -> int:
    """The JSON cap in force: ``BUNDLER_MAX_JSON_BYTES`` if set, else the default.

    Read at each use rather than once, so every reader of a process (and a test
    that sets the variable) sees one value; a malformed one is a ``UsageError``,
    which the CLI reports before any command runs.
    """
    raw = (os.environ if environ is None else environ).get(MAX_JSON_BYTES_ENV, "")
    return DEFAULT_MAX_JSON_BYTES if raw.strip() == "" else parse_size(MAX_JSON_BYTES_ENV, raw)


class JsonTooLarge(ValueError):
    """A JSON member over :func:`read_json`'s size cap; a ``ValueError``, like malformed JSON.

    Unlike malformed JSON it says nothing about the product or the bundle: the
    document is there and whole, this reader only declined to hold it. So it carries
    what a report needs to say so (the member, its size, the cap).
    """

    def __init__(self, member: str, size: int, limit: int) -> None:
        self.member, self.size, self.limit = member, size, limit
        super().__init__(str(Refused(member, size, limit)))


@dataclass(frozen=True)
class Refused:
    """A member a reader declined to parse, over the JSON cap: a gap with a known remedy.

    Not missing (it is in the bundle, whole and verified) and not malformed (nobody
    looked): reports name it as such, with the limit and the setting that reads it,
    rather than as a failed collector or bad JSON, and what it would have decided
    reads as unknown.
    """

    member: str
    size: int
    limit: int
    labels: tuple[str, ...] = ()
    """What evidence documents call this gap: the collector and the step that stored it."""

    def __str__(self) -> str:
        size, limit = human_size(self.size), human_size(self.limit)
        if size == limit:  # rounded alike: the bytes say which is larger
            size, limit = f"{self.size:,} bytes", f"{self.limit:,} bytes"
        return (
            f"{self.member} is {size}, over the {limit} a reader parses as one JSON "
            f"document ({self.remedy} reads it)"
        )

    @property
    def remedy(self) -> str:
        """The setting that reads it: ``BUNDLER_MAX_JSON_BYTES=301MiB``."""
        return f"{MAX_JSON_BYTES_ENV}={size_past(self.size)}"


class MemberNotFound(KeyError):
    """The member is not in this source."""


class MemberUnverified(MemberNotFound):
    """The member is there but failed verification (checksum, MAC, size): never "missing".

    It is a :class:`MemberNotFound`, so its facts read as *unknown*; callers
    that report why evidence is unavailable catch it first and say "failed
    verification" with :attr:`reason`.
    """

    def __init__(self, name: str, reason: str | None = None) -> None:
        super().__init__(name)
        self.name = name
        self.reason = reason if reason is not None else f"member {name} failed verification"

    def __str__(self) -> str:
        return self.reason


@runtime_checkable
class MemberSource(Protocol):
    """Names and contents of members; contents are already redacted."""

    def names(self) -> list[str]:
        """All member names, in a stable order."""
        ...

    def has(self, name: str) -> bool: ...

    def read_bytes(self, name: str) -> bytes:
        """Whole member. Raises :class:`MemberNotFound`."""
        ...

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        """Member content in bounded chunks (for large logs)."""
        ...


def read_json(source: MemberSource, name: str, *, max_bytes: int | None = None) -> Any:
    """Parse a JSON member (bounded in size and nesting, no unpaired surrogate: ``jsondoc``).

    Every bundle document (manifest, evidence, redaction report, raw API
    responses) is read through here, so what a reader refuses is the same everywhere.
    The size cap is :func:`max_json_bytes` unless ``max_bytes`` is given. A member whose
    source declares its size (:func:`declared_size`) over the cap is refused unread: a
    10 GiB member was read whole, into memory, before it was refused. A source that
    cannot say is read only up to one byte past the cap.
    """
    limit = max_json_bytes() if max_bytes is None else max_bytes
    declared = declared_size(source, name)
    if declared is not None and declared > limit:
        raise JsonTooLarge(name, declared, limit)
    data = source.read_bytes(name) if declared is not None else _read_at_most(source, name, limit)
    if len(data) > limit:  # a size declared wrong, or none declared
        raise JsonTooLarge(name, max(len(data), declared or 0), limit)
    return loads_bounded(data, f"member {name}")


def declared_size(source: MemberSource, name: str) -> int | None:
    """The member's size as its source knows it without reading it (a zip entry's
    directory record, a file's ``stat``), or None from a source that cannot say.

    A source says so with an optional ``member_size(name)`` method: sources are many,
    several of them views of another, and a view that does not pass it on only costs
    :func:`read_json` its bounded read."""
    sized = getattr(source, "member_size", None)
    size = None if sized is None else sized(name)
    return None if size is None else int(size)


def _read_at_most(source: MemberSource, name: str, limit: int) -> bytes:
    """The member's bytes, read no further than one byte past ``limit``."""
    pieces: list[bytes] = []
    size = 0
    chunks = source.iter_chunks(name)
    try:
        for chunk in chunks:
            pieces.append(chunk)
            size += len(chunk)
            if size > limit:
                break
    finally:
        close = getattr(chunks, "close", None)
        if close is not None:
            close()
    return b"".join(pieces)


def iter_lines(source: MemberSource, name: str) -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` of a text member, 1-based, without line endings.

    Streams in chunks, so memory stays bounded by the longest line. Invalid
    UTF-8 is replaced rather than raised: logs are messy, and a rule should
    see the rest of the file.
    """
    pending = b""
    number = 0
    for chunk in source.iter_chunks(name):
        pending += chunk
        *complete, pending = pending.split(b"\n")
        for raw in complete:
            number += 1
            yield number, raw.rstrip(b"\r").decode("utf-8", "replace")
    if pending:
        yield number + 1, pending.rstrip(b"\r").decode("utf-8", "replace")


def grep_lines(
    source: MemberSource, name: str, needles: Sequence[bytes]
) -> Iterator[tuple[int, str]]:
    """``(line_number, text)`` of only the lines containing one of ``needles``, in order.

    For parsers over big logs: needles are found with ``bytes.find`` over whole
    chunks, in place (no copies), and only the hit lines are split out and
    decoded, so a 1 GB log where a few lines matter costs about one memory
    scan per needle plus one newline count, instead of a Python loop per line.
    Keep needles few and specific (``b"evicted"``, ``b" - WARNING - "``) and
    run the precise regex on the hits. Line numbers match :func:`iter_lines`.
    """
    pending = b""
    number = 0  # complete lines seen so far
    for chunk in source.iter_chunks(name):
        first = chunk.find(b"\n")
        if first == -1:
            pending += chunk
            continue
        head = pending + chunk[: first + 1]  # the line that straddles two chunks
        number = yield from _hits(head, needles, 0, len(head), number)
        last = chunk.rfind(b"\n") + 1
        number = yield from _hits(chunk, needles, first + 1, last, number)
        pending = chunk[last:]
    if pending:
        tail = pending + b"\n"
        yield from _hits(tail, needles, 0, len(tail), number)


def _hits(
    buf: bytes, needles: Sequence[bytes], lo: int, hi: int, base: int
) -> Generator[tuple[int, str], None, int]:
    """Hit lines of ``buf[lo:hi]`` (whole lines); returns ``base`` + the lines in that span."""
    starts: set[int] = set()
    for needle in needles:
        at = buf.find(needle, lo, hi)
        while at != -1:
            starts.add(max(buf.rfind(b"\n", lo, at) + 1, lo))
            at = buf.find(needle, buf.find(b"\n", at, hi) + 1, hi)
    number, counted = base, lo
    for start in sorted(starts):
        number += buf.count(b"\n", counted, start)
        counted = start
        end = buf.find(b"\n", start, hi)
        yield number + 1, buf[start:end].rstrip(b"\r").decode("utf-8", "replace")
    return number + buf.count(b"\n", counted, hi)


class DirectorySource:
    """Members stored as files under a root directory (names use ``/``)."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()

    def _path(self, name: str) -> Path:
        rel = PurePosixPath(name)
        if rel.is_absolute() or ".." in rel.parts:
            raise MemberNotFound(name)
        path = (self.root / Path(*rel.parts)).resolve()
        if not path.is_relative_to(self.root) or not path.is_file():
            raise MemberNotFound(name)
        return path

    def names(self) -> list[str]:
        return sorted(
            p.relative_to(self.root).as_posix()
            for p in self.root.rglob("*")
            if p.is_file() and not p.is_symlink()
        )

    def has(self, name: str) -> bool:
        try:
            self._path(name)
        except MemberNotFound:
            return False
        return True

    def read_bytes(self, name: str) -> bytes:
        return self._path(name).read_bytes()

    def member_size(self, name: str) -> int:
        """The file's size, from ``stat`` (:func:`declared_size`)."""
        return self._path(name).stat().st_size

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        with self._path(name).open("rb") as handle:
            while chunk := handle.read(chunk_size):
                yield chunk


class MemorySource:
    """Members held in a dict; for tests and small synthetic evidence."""

    def __init__(self, members: dict[str, bytes | str | Any] | None = None) -> None:
        self._members: dict[str, bytes] = {}
        for name, value in (members or {}).items():
            self.add(name, value)

    def add(self, name: str, value: bytes | str | Any) -> None:
        """Add bytes, text, or any JSON-serializable value (stored as JSON)."""
        if isinstance(value, bytes):
            self._members[name] = value
        elif isinstance(value, str):
            self._members[name] = value.encode()
        else:
            self._members[name] = json.dumps(value, indent=2, default=str).encode()

    def names(self) -> list[str]:
        return sorted(self._members)

    def has(self, name: str) -> bool:
        return name in self._members

    def read_bytes(self, name: str) -> bytes:
        try:
            return self._members[name]
        except KeyError:
            raise MemberNotFound(name) from None

    def member_size(self, name: str) -> int | None:
        try:
            return len(self._members[name])
        except KeyError:
            raise MemberNotFound(name) from None

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        data = self.read_bytes(name)
        for start in range(0, len(data), chunk_size):
            yield data[start : start + chunk_size]
