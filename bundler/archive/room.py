"""How much a bundle may still take, so that the bundle sealed is one bundler's readers open.

Every reader refuses a bundle past its :class:`~.limits.ReaderLimits` (too many members,
too many bytes, a manifest too large), and the post-write check
(:mod:`.integrity.written`) refuses to publish one. A large fleet can get there: the
check then fired after the whole collection, and the bundle was lost. The builder asks
its room before it stores a member instead, and a collected member that does not fit is
left out (:class:`NoRoom`, which its collector records as its failure): the bundle stays
one its readers open, and its manifest says what it lacks.

Room is kept for what is written after collection: the builder's report and manifest,
and the caller's documents made from the members (doctor's evidence and live verdict,
``after_collection`` of them). Collected members may fill:

* members: ``max_members`` less those;
* bytes: ``max_total_bytes`` less the manifest's cap and a sixteenth, for the redaction
  report and for sealing's second pass, which may lengthen a member (a value learned
  elsewhere becomes a longer token);
* the manifest: three quarters of ``max_manifest_bytes``, counting each member's entry
  and each settled collector's record (:meth:`BundleRoom.charge_record`) as they come;
  the last quarter is for the manifest's head (the target's hosts, the options, the
  redaction summary: ~3 KiB, and ~250 bytes a host) and what sealing's second pass adds.

The documents written after collection may use what collected members may not: the
members, bytes and manifest entries kept for them.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from ..sizes import human_size
from .limits import ReaderLimits

OWN_MEMBERS = 2
"""The builder's own members: the redaction report and the manifest."""
LATER_ENTRY_BYTES = 512
"""Manifest room kept for each document written after collection (an entry is ~300)."""


class NoRoom(Exception):
    """A member was left out: the bundle is as full as its readers accept. The message is
    one line, names no content, and says which limit (why it was left out)."""


@dataclass(frozen=True, slots=True)
class Allowance:
    """What members stored so far may add up to."""

    members: int
    bytes: int
    manifest: int


class BundleRoom:
    """What a bundle holds so far against the limits its readers apply; safe from threads."""

    def __init__(self, limits: ReaderLimits, *, after_collection: int = 0) -> None:
        self.limits = limits
        total, manifest = limits.max_total_bytes, limits.max_manifest_bytes
        self._later = Allowance(
            members=limits.max_members - OWN_MEMBERS,
            bytes=total - manifest,
            manifest=manifest - manifest // 4,
        )
        self._collected = Allowance(
            members=self._later.members - after_collection,
            bytes=self._later.bytes - total // 16,
            manifest=self._later.manifest - after_collection * LATER_ENTRY_BYTES,
        )
        self._lock = threading.Lock()
        self.members = 0
        self.bytes = 0
        self.manifest = 0

    def take(self, size: int, entry_bytes: int, *, collected: bool) -> None:
        """Count a member of ``size`` bytes whose manifest entry is ``entry_bytes``, or raise
        :class:`NoRoom` and count nothing. Asked before the member is read, so one left out
        costs nothing and leaves no trace."""
        allowance = self._collected if collected else self._later
        with self._lock:
            if self.members + 1 > allowance.members:
                raise NoRoom(self._full_of_members())
            if self.bytes + size > allowance.bytes:
                raise NoRoom(
                    f"its {human_size(size)} would take the bundle past the "
                    f"{human_size(self.limits.max_total_bytes)} bundler's readers open, "
                    "less room kept for what sealing writes"
                )
            if self.manifest + entry_bytes > allowance.manifest:
                raise NoRoom(
                    "the manifest would pass the "
                    f"{human_size(self.limits.max_manifest_bytes)} bundler's readers read"
                )
            self.members += 1
            self.bytes += size
            self.manifest += entry_bytes

    def adjust(self, size: int, entry_bytes: int) -> None:
        """Correct a member counted before it was redacted by what redaction changed; never
        refused (the room kept for sealing's pass absorbs it)."""
        with self._lock:
            self.bytes += size
            self.manifest += entry_bytes

    def give_back(self, size: int, entry_bytes: int) -> None:
        """Forget a member counted before (replaced, or dropped by redaction)."""
        with self._lock:
            self.members -= 1
            self.bytes -= size
            self.manifest -= entry_bytes

    def charge_record(self, record_bytes: int) -> None:
        """Count a settled collector's manifest record; never refused: a collector is
        always recorded, the members after it are what give way."""
        with self._lock:
            self.manifest += record_bytes

    def _full_of_members(self) -> str:
        return (
            f"the bundle holds {self.members:,} members, as many as bundler's "
            f"readers open ({self.limits.max_members:,}) less room kept for what sealing writes"
        )
