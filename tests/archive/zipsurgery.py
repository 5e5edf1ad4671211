"""Raw-byte surgery on a real bundle: what an attacker can do without the password.

A zip's central directory and end record are plain, unauthenticated bytes.
These helpers parse them (non-zip64 only, which is what a small test bundle
is) and write them back after an edit, so a test can add a per-file comment,
an extra field, a gap or a zip comment to a bundle the real builder wrote,
with every offset still pointing where a zip tool expects it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

CENTRAL = struct.Struct("<IHHHHHHIIIHHHHHII")
END = struct.Struct("<IHHHHIIH")
CENTRAL_SIG, END_SIG = 0x02014B50, 0x06054B50


@dataclass
class CentralEntry:
    fixed: list[int]
    name: bytes
    extra: bytes
    comment: bytes

    @property
    def offset(self) -> int:
        return self.fixed[16]

    @offset.setter
    def offset(self, value: int) -> None:
        self.fixed[16] = value

    def pack(self) -> bytes:
        fixed = list(self.fixed)
        fixed[10], fixed[11], fixed[12] = len(self.name), len(self.extra), len(self.comment)
        return CENTRAL.pack(*fixed) + self.name + self.extra + self.comment


@dataclass
class Zip:
    """A zip split into its members' bytes, its central directory and its end record."""

    body: bytes
    """Everything before the central directory (local headers and data)."""
    entries: list[CentralEntry]
    comment: bytes
    trailer: bytes = b""
    end_fixed: list[int] = field(default_factory=list)

    @classmethod
    def parse(cls, raw: bytes) -> Zip:
        at = raw.rfind(b"PK\x05\x06")
        end = list(END.unpack_from(raw, at))
        count, size, offset, comment_len = end[4], end[5], end[6], end[7]
        entries, pos = [], offset
        for _ in range(count):
            fixed = list(CENTRAL.unpack_from(raw, pos))
            assert fixed[0] == CENTRAL_SIG
            n, m, k = fixed[10], fixed[11], fixed[12]
            start = pos + CENTRAL.size
            entries.append(
                CentralEntry(
                    fixed,
                    raw[start : start + n],
                    raw[start + n : start + n + m],
                    raw[start + n + m : start + n + m + k],
                )
            )
            pos = start + n + m + k
        assert pos == offset + size
        comment = raw[at + END.size : at + END.size + comment_len]
        return cls(raw[:offset], entries, comment, raw[at + END.size + comment_len :], end)

    def entry(self, name: str) -> CentralEntry:
        return next(e for e in self.entries if e.name == name.encode())

    def insert(self, at: int, data: bytes) -> None:
        """Insert ``data`` into the body at ``at``, moving every later member's offset."""
        self.body = self.body[:at] + data + self.body[at:]
        for entry in self.entries:
            if entry.offset >= at:
                entry.offset += len(data)

    def pack(self) -> bytes:
        directory = b"".join(entry.pack() for entry in self.entries)
        end = list(self.end_fixed)
        end[3] = end[4] = len(self.entries)
        end[5], end[6], end[7] = len(directory), len(self.body), len(self.comment)
        return self.body + directory + END.pack(*end) + self.comment + self.trailer


def extra_field(field_id: int, body: bytes) -> bytes:
    return struct.pack("<HH", field_id, len(body)) + body
