"""What can be wrong with a bundle that still opens, and how that is reported.

A strict reader raises at the first problem. A lenient reader (for the
analyzer, which must analyze a tampered or partial bundle and say so first)
records each problem, hides the unsound member, and keeps serving the sound
ones. The status vocabulary is the analysis report's
(:class:`schemas.Integrity`): ``verified``, ``tampered``, ``partial``,
``unverified``.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NoReturn

if TYPE_CHECKING:
    from schemas import Integrity

from ...errors import CorruptArchive, HostileArchive, ManifestInvalid, NotABundle
from ...source import MemberUnverified

ProblemKind = Literal[
    "missing",  # listed in the manifest, absent from the zip
    "unlisted",  # in the zip, not in the manifest (no checksum vouches for it)
    "size_mismatch",  # zip and manifest disagree on the size
    "sha256_mismatch",  # content differs from the manifest's checksum
    "auth_failed",  # the member's AES authentication (HMAC) failed
    "unencrypted",  # stored without AES-256: injected after sealing
    "corrupt",  # cannot be decompressed or read
    "manifest_missing",
    "manifest_invalid",
    "stray_bytes",  # bytes of the file that belong to no member and no zip structure
    "foreign_structure",  # zip structure bundler never writes (comments, unknown extra fields)
]

PARTIAL_KINDS: frozenset[str] = frozenset({"missing", "manifest_missing"})
LAYOUT_KINDS: frozenset[str] = frozenset({"stray_bytes", "foreign_structure"})
"""Problems around a member, not in it: they name the member but do not make it unsound."""


@dataclass(frozen=True)
class IntegrityProblem:
    """One problem, in one line, naming the member (names are already redacted)."""

    kind: ProblemKind
    member: str | None
    message: str

    def __str__(self) -> str:
        return self.message


class MemberUnsound(CorruptArchive, MemberUnverified):
    """A lenient reader's answer for a member that failed a check.

    It is a :class:`~bundler.source.MemberUnverified` (a ``MemberNotFound``),
    so code that treats absent evidence as *unknown* does the same for
    unsound evidence, and can still say it failed verification rather than
    that it is missing; and a :class:`~bundler.errors.CorruptArchive`, so a
    command reports it properly.
    """

    def __init__(self, problem: IntegrityProblem) -> None:
        CorruptArchive.__init__(self, problem.message)
        self.name = problem.member or ""
        self.reason = problem.message
        self.problem = problem

    def __str__(self) -> str:
        return self.message


@dataclass
class IntegrityReport:
    """The problems found so far; ``checked`` once every member was read and verified."""

    problems: list[IntegrityProblem] = field(default_factory=list)
    checked: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, problem: IntegrityProblem) -> None:
        with self._lock:
            if problem not in self.problems:
                self.problems.append(problem)

    def unsound(self) -> set[str]:
        """Members that must not be served."""
        with self._lock:
            return {
                p.member
                for p in self.problems
                if p.member is not None and p.kind not in LAYOUT_KINDS
            }

    @property
    def status(self) -> Literal["verified", "tampered", "partial", "unverified"]:
        if any(p.kind not in PARTIAL_KINDS for p in self.problems):
            return "tampered"
        if self.problems:
            return "partial"
        return "verified" if self.checked else "unverified"

    @property
    def ok(self) -> bool:
        return not self.problems

    def to_schema(self) -> Integrity:
        """The analysis report's integrity block."""
        # Imported here: schemas.analysis pulls in every evidence model (~0.1 s), which
        # writing a bundle (bundler redact) never needs.
        from schemas import Integrity

        return Integrity(status=self.status, problems=[p.message for p in self.problems])


def raise_for(problem: IntegrityProblem) -> NoReturn:
    """The strict reader's reaction to a problem."""
    if problem.kind in ("unencrypted", "stray_bytes", "foreign_structure"):
        raise HostileArchive(problem.message)
    if problem.kind == "manifest_missing":
        raise NotABundle(problem.message)
    if problem.kind == "manifest_invalid":
        raise ManifestInvalid(problem.message)
    raise CorruptArchive(problem.message)
