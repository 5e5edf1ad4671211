"""A :class:`~bundler.source.MemberSource` over a builder's encrypted spool.

``doctor`` normalizes evidence and computes its live verdict from what was
collected so far, before the zip exists; it reads the spool through this, so
the same parsing and rules run on a live run and on a sealed bundle.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Protocol

from ._chunks import rechunk


class SpooledMembers(Protocol):
    """What the builder offers for reading back (decrypted) members."""

    def member_names(self) -> list[str]: ...

    def has_member(self, name: str) -> bool: ...

    def member_chunks(self, name: str) -> Iterator[bytes]: ...

    def member_size(self, name: str) -> int: ...


class SpoolSource:
    """Members as stored so far (redacted, before literal propagation)."""

    def __init__(self, members: SpooledMembers) -> None:
        self._members = members

    @property
    def origin(self) -> SpooledMembers:
        """The spool this view shows: every ``source()`` of one builder has the same."""
        return self._members

    def names(self) -> list[str]:
        return self._members.member_names()

    def has(self, name: str) -> bool:
        return self._members.has_member(name)

    def read_bytes(self, name: str) -> bytes:
        return b"".join(self._members.member_chunks(name))

    def member_size(self, name: str) -> int:
        """The member's size as spooled (:func:`bundler.source.declared_size`)."""
        return self._members.member_size(name)

    def iter_chunks(self, name: str, chunk_size: int = 1 << 20) -> Iterator[bytes]:
        """The member in pieces of ``chunk_size``, each ``bytes``: :func:`rechunk` passes on
        slices of a large decrypted piece as ``memoryview`` (no copy, for the writers), which
        has no ``find`` or ``split``, and the parsers that read doctor's spool search every
        chunk (a log of 1 MiB or more failed the normalizer)."""
        for piece in rechunk(self._members.member_chunks(name), chunk_size):
            yield piece if type(piece) is bytes else bytes(piece)
