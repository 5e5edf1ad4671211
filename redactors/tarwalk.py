"""Follow a tar stream's headers as its bytes pass, so review knows what each member holds.

Review scans a tar as the bytes it is: a tar stores its members' bytes as they are, so a
secret in a text member is found where it lies. That holds only for *text* members. A
tar that carries a ``.gz`` log, a SQLite file or a zip holds bytes the scan cannot see
into, and scanning them as they are proves nothing; before, ``review`` called such a tar
clean. :func:`tar_text_only` passes the stream through unchanged and raises
:class:`~redactors.errors.MemberUnreadable` at the first member whose first bytes are not
plain text (:func:`~redactors.binary.sniff`), at a header whose checksum is wrong (where
the members lie cannot be told) and at anything but zeros after the archive's end.

Headers are parsed by hand, not by :mod:`tarfile`, because the scan reads the stream once,
in chunks, without holding a member (``tarfile``'s stream mode would need its own pass).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from .binary import SNIFF_BYTES, sniff
from .errors import MemberUnreadable

BLOCK = 512
_PLAIN_HINT = "unpack it (or leave it out) and review again"
_NO_DATA = frozenset(b"1235")  # hard link, symlink, device and directory entries carry no data
_SPARSE = ord("S")
_PAX = frozenset(b"xg")  # extended headers: their records may say how long a member is
_PAX_MAX = 1 << 16


class _Walker:
    """The state of one tar stream: where the next header starts, what is being sniffed."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.header = bytearray()  # the header being gathered
        self.head = bytearray()  # the first bytes of the member being sniffed
        self.head_wanted = 0
        self.pax = False  # the member being read is an extended header, read whole
        self.skip = 0  # bytes of the current member (and its padding) still to pass
        self.ended = False  # two zero blocks seen: only zeros may follow

    def feed(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self.ended:
                if view.tobytes().strip(b"\0"):
                    self._refuse("it holds data after the archive's end")
                return
            if self.head_wanted:
                take = view[: self.head_wanted]
                self.head += take
                self.head_wanted -= len(take)
                self.skip -= len(take)
                view = view[len(take) :]
                if not self.head_wanted:
                    self._judge_head()
                continue
            if self.skip:
                passed = min(self.skip, len(view))
                self.skip -= passed
                view = view[passed:]
                continue
            take = view[: BLOCK - len(self.header)]
            self.header += take
            view = view[len(take) :]
            if len(self.header) == BLOCK:
                self._read_header(bytes(self.header))
                self.header.clear()

    def _read_header(self, block: bytes) -> None:
        if not block.strip(b"\0"):
            self.ended = True  # the first zero block: GNU tar pads the rest with zeros
            return
        if _checksum(block) != _number(block[148:156]):
            self._refuse("a header's checksum is wrong: where its members lie cannot be told")
        size = _number(block[124:136])
        kind = block[156]
        if size < 0:
            self._refuse("a header's size is not a number")
        if kind == _SPARSE:
            self._refuse("it holds a sparse member, stored in pieces the scan cannot follow")
        if kind in _NO_DATA:
            if size:
                self._refuse("a link or directory entry claims data")
            return
        self.pax = kind in _PAX
        if self.pax and size > _PAX_MAX:
            self._refuse("an extended header is too long to follow")
        self.skip = -(-size // BLOCK) * BLOCK
        self.head.clear()
        self.head_wanted = size if self.pax else min(size, SNIFF_BYTES)
        if not self.head_wanted:
            self._judge_head()

    def _judge_head(self) -> None:
        if self.pax and any(
            record.partition(b" ")[2].startswith(b"size=") for record in self.head.split(b"\n")
        ):  # the next member's length is not its header's: the walk would lose its place
            self._refuse("an extended header overrides a member's size")
        found = sniff(bytes(self.head))
        if found.kind != "text":
            what = found.detail or found.kind
            self._refuse(f"a member inside it is not plain text ({what})")

    def _refuse(self, why: str) -> None:
        raise MemberUnreadable(
            self.name, f"tar archive: {why}; review cannot see inside it", hint=_PLAIN_HINT
        )

    def finish(self) -> None:
        """The stream ended; a member cut short was scanned as far as it went."""
        if self.head_wanted and self.head:
            self._judge_head()


def tar_text_only(name: str, stream: Iterable[bytes]) -> Iterator[bytes]:
    """``stream`` unchanged, refusing (while it passes) a tar with a member that is not text."""
    walker = _Walker(name)
    for chunk in stream:
        walker.feed(chunk)
        yield chunk
    walker.finish()


def _checksum(block: bytes) -> int:
    """The header checksum: every byte summed, the checksum field counted as spaces."""
    return sum(block[:148]) + 8 * 0x20 + sum(block[156:])


def _number(field: bytes) -> int:
    """A numeric header field: octal text, or GNU's base-256 (high bit set) for large sizes."""
    if field and field[0] & 0x80:
        value = field[0] & 0x3F
        for byte in field[1:]:
            value = (value << 8) | byte
        return -value if field[0] & 0x40 else value
    digits = field.replace(b"\0", b" ").strip()
    try:
        return int(digits, 8) if digits else 0
    except ValueError:
        return -1  # never a valid checksum or size: the header is refused
