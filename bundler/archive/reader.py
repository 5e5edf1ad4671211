"""The bundle reader: a :class:`~bundler.source.MemberSource` over a sealed zip, hostile-proof.

Analysis reads members straight from the zip (never extracted to disk), and
every read is verified as it streams: bytes are counted against the declared
size (a member cannot inflate past it), the AES MAC is checked at the end of
the member, and the sha256 is compared with the manifest's. A mismatch is
raised at the end of the stream, after the last chunk.

Two modes:

* **strict** (default): any integrity problem raises, at open (missing,
  unlisted, unencrypted members; a size that disagrees with the manifest) or
  at the end of a read (checksum, authentication).
* **lenient** (``lenient=True``): problems are recorded in
  :attr:`BundleReader.integrity`, the unsound member disappears from
  :meth:`~BundleReader.names`, and reading it raises
  :class:`~bundler.archive.integrity.MemberUnsound` (a ``MemberNotFound``).
  Call :meth:`~BundleReader.check` first to verify everything up front, so
  the report's integrity line is complete and later reads never fail.

Safety refusals (hostile names, links, bombs, wrong password, an unknown
format) raise in both modes: they are not integrity problems to report but
reasons not to open the file at all.
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from collections.abc import Generator, Iterator
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, BinaryIO
from weakref import WeakSet

import pyzipper

from schemas import MANIFEST_MEMBER, Manifest, MemberEntry

from ..errors import HostileArchive, ManifestInvalid
from ..source import MemberNotFound
from .aeskeys import KeysAhead, derive_ahead
from .integrity import IntegrityProblem, IntegrityReport, MemberUnsound, ProblemKind, raise_for
from .integrity.bytemap import map_bytes
from .integrity.manifest_match import choose_password, cross_check
from .integrity.written import mac_intact
from .limits import ReaderLimits
from .manifest_load import parse_manifest
from .names import printable_name
from .passwords import IdentityKey, KeySource
from .readahead import ReadAhead, depth_from_env
from .sealing import Envelope, read_envelope
from .zipscan import Entry, check_manifest_size, open_zip, scan_entries

if TYPE_CHECKING:
    from hashlib import _Hash as Hash

CHUNK = 1 << 20
READ_AHEAD_BYTES = 4 << 20
"""What the read-ahead thread inflates per call (then handed out in chunks)."""


class BundleReader:
    """An open bundle. Use :meth:`open`; close it (or use ``with``) when done."""

    def __init__(
        self,
        path: Path,
        handle: BinaryIO,
        zf: pyzipper.AESZipFile,
        entries: dict[str, Entry],
        *,
        envelope: Envelope | None,
        lenient: bool,
        limits: ReaderLimits,
        readahead: int | None = None,
    ) -> None:
        self.path = path
        self.envelope = envelope
        self.lenient = lenient
        self.limits = limits
        self.integrity = IntegrityReport()
        self.manifest: Manifest | None = None
        self._handle = handle
        self._zf = zf
        self._entries = entries
        self._listed: dict[str, MemberEntry] = {}
        self._manifest_bytes: bytes | None = None
        self._names: list[str] | None = None
        self._sound: frozenset[str] = frozenset()
        self._readahead = depth_from_env() if readahead is None else readahead
        self._ahead: WeakSet[ReadAhead] = WeakSet()
        self._verified: set[str] = set()
        """Members read to the end with every check passed: :meth:`check` does not re-read them."""
        self._keys_ahead: KeysAhead | None = None

    @classmethod
    def open(
        cls,
        path: Path,
        keys: KeySource,
        *,
        lenient: bool = False,
        limits: ReaderLimits | None = None,
        readahead: int | None = None,
    ) -> BundleReader:
        """Open, check safety, unlock, load the manifest and cross-check it with the zip."""
        limits = limits or ReaderLimits.from_env()
        path = Path(path)
        handle, zf, end_record = open_zip(path, limits)
        try:
            entries = scan_entries(zf, limits)
            envelope = read_envelope(zf.comment)
            layout = map_bytes(handle, zf, end_record)
            if layout and not lenient:
                raise_for(layout[0])  # before any password is asked for
            candidates = keys.passwords_for(envelope)
            password = choose_password(handle, entries, candidates, isinstance(keys, IdentityKey))
            zf.setpassword(password.reveal())
            reader = cls(
                path,
                handle,
                zf,
                entries,
                envelope=envelope,
                lenient=lenient,
                limits=limits,
                readahead=readahead,
            )
            for problem in layout:
                reader._problem(problem.kind, problem.member, problem.message)
            reader._load_manifest()
            reader._cross_check()
        except BaseException:
            zf.close()
            handle.close()
            raise
        return reader

    # -- MemberSource ---------------------------------------------------------------------

    def names(self) -> list[str]:
        """Members that are sound so far (in the manifest, present, not failed), sorted."""
        if self._names is None:
            unsound = self.integrity.unsound()
            if self.manifest is not None:
                known = [*self._listed, MANIFEST_MEMBER]
            else:
                known = [n for n, e in self._entries.items() if e.encrypted and not e.is_dir]
            sound = (n for n in known if n in self._entries and n not in unsound)
            self._names = sorted(sound)
            self._sound = frozenset(self._names)
        return list(self._names)

    def has(self, name: str) -> bool:
        self.names()
        return name in self._sound

    def read_bytes(self, name: str) -> bytes:
        if name == MANIFEST_MEMBER and self._manifest_bytes is not None:
            return self._manifest_bytes
        return b"".join(self.iter_chunks(name))

    def iter_chunks(self, name: str, chunk_size: int = CHUNK) -> Iterator[bytes]:
        entry = self._sound_entry(name)
        return self._stream(entry, min(max(chunk_size, 1), CHUNK))

    def member_size(self, name: str) -> int:
        """The size the zip directory declares, which the reader never inflates past
        (:func:`bundler.source.declared_size`): known without reading the member."""
        return self._sound_entry(name).size

    # -- whole-bundle operations ----------------------------------------------------------

    @property
    def entries(self) -> list[Entry]:
        """Every zip entry, as the central directory describes it (for inspect and verify)."""
        return list(self._entries.values())

    def listed(self, name: str) -> MemberEntry | None:
        return self._listed.get(name)

    def derive_keys_ahead(self) -> None:
        """Derive every unread member's AES keys on a background thread, from now on.

        For callers about to read every member (``analyze``, :meth:`check`): one
        PBKDF2 per member is a third of such a read, and it runs beside the
        parsing instead of before it (:mod:`.aeskeys`). Idempotent.
        """
        if self._keys_ahead is not None:
            return
        unread = [
            self._entries[n].info
            for n in self.names()
            if n != MANIFEST_MEMBER and n not in self._verified
        ]
        self._keys_ahead = derive_ahead(self._zf, self._handle.fileno(), unread)

    def check(self) -> IntegrityReport:
        """Read and verify every sound member; strict mode raises at the first problem.

        A member already streamed to its end and verified (by ``review``'s
        scan, say) is not read again: every byte is still checked once.
        """
        self.derive_keys_ahead()
        for name in self.names():
            if name == MANIFEST_MEMBER or name in self._verified:
                continue
            try:
                for _ in self._stream(self._entries[name], CHUNK):
                    pass
            except MemberUnsound:
                continue
        self.integrity.checked = True
        return self.integrity

    def close(self) -> None:
        for ahead in list(self._ahead):  # no thread may read the zip once it is closed
            ahead.stop()
        if self._keys_ahead is not None:
            self._keys_ahead.stop()
        self._zf.close()
        self._handle.close()

    def __enter__(self) -> BundleReader:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    # -- internals ------------------------------------------------------------------------

    def _sound_entry(self, name: str) -> Entry:
        entry = self._entries.get(name)
        if entry is None or entry.is_dir:
            raise MemberNotFound(name)
        if self.has(name):
            return entry
        for problem in self.integrity.problems:
            if problem.member == name:
                raise MemberUnsound(problem)
        raise MemberNotFound(name)

    def _stream(self, entry: Entry, chunk_size: int) -> Iterator[bytes]:
        label = printable_name(entry.name)
        digest = hashlib.sha256()
        count = 0
        failure: tuple[ProblemKind, str] | None = None
        ahead_of_time = bool(self._readahead) and entry.size > chunk_size
        read_size = max(chunk_size, READ_AHEAD_BYTES) if ahead_of_time else chunk_size
        pieces = self._pieces(entry, chunk_size, read_size, digest)
        try:
            if ahead_of_time:
                ahead = ReadAhead(pieces, self._readahead)
                self._ahead.add(ahead)
                pieces = ahead.chunks()
            try:
                for piece in pieces:
                    count += len(piece)
                    yield piece
            finally:
                pieces.close()  # stops the thread (if any) and closes the member
        except RuntimeError:  # pyzipper: "Bad password for file" (another key than the bundle's)
            failure = ("auth_failed", f"member {label!r} is encrypted with another password")
        except pyzipper.BadZipFile as exc:
            if "HMAC" in str(exc):
                failure = ("auth_failed", f"member {label!r} failed AES authentication (tampered)")
            else:
                failure = ("corrupt", f"member {label!r} is corrupt ({type(exc).__name__})")
        except (
            zlib.error,
            struct.error,
            EOFError,
            NotImplementedError,
            ValueError,
            OSError,
        ) as exc:
            failure = ("corrupt", f"member {label!r} is corrupt ({type(exc).__name__})")
        if failure is not None and failure[0] == "corrupt" and not self._mac_intact(entry):
            # Damaged ciphertext usually breaks inflate before the MAC is reached: say why.
            failure = ("auth_failed", f"member {label!r} failed AES authentication (tampered)")
        if failure is None and count != entry.size:
            failure = ("corrupt", f"member {label!r} is shorter than its declared size")
        listed = self._listed.get(entry.name)
        if failure is None and listed is not None and digest.hexdigest() != listed.sha256:
            failure = ("sha256_mismatch", f"member {label!r} does not match its manifest checksum")
        if failure is not None:
            self._problem(failure[0], entry.name, failure[1])
            raise MemberUnsound(IntegrityProblem(failure[0], entry.name, failure[1]))
        if listed is not None:
            self._verified.add(entry.name)

    def _pieces(
        self, entry: Entry, chunk_size: int, read_size: int, digest: Hash
    ) -> Generator[bytes, None, None]:
        """Decrypt, authenticate, inflate and hash one member (maybe on the read-ahead thread).

        The read-ahead thread reads 4 MiB per call and hands out ``chunk_size``
        slices: it gives up the GIL around each C call and must win it back from
        a busy consumer, so fewer, larger calls are what let it overlap at all
        (1 MiB reads measured no overlap; 4 MiB cost ~20 MiB of peak RSS, bounded).
        """
        count = 0
        with self._zf.open(entry.info) as member:
            while piece := member.read(read_size):
                count += len(piece)
                if count > entry.size:
                    label = printable_name(entry.name)
                    raise HostileArchive(f"member {label!r} inflates past its declared size")
                digest.update(piece)
                if len(piece) <= chunk_size:
                    yield piece
                    continue
                for start in range(0, len(piece), chunk_size):
                    yield piece[start : start + chunk_size]

    def _mac_intact(self, entry: Entry) -> bool:
        password = self._zf.pwd
        return bool(password) and mac_intact(self.path, entry.info, password)

    def _problem(self, kind: ProblemKind, member: str | None, message: str) -> None:
        problem = IntegrityProblem(kind, member, message)
        self.integrity.add(problem)
        self._names = None  # the sound set changed
        if not self.lenient:
            raise_for(problem)

    def _load_manifest(self) -> None:
        entry = self._entries.get(MANIFEST_MEMBER)
        if entry is None:
            self._problem("manifest_missing", None, "the bundle has no manifest.json")
            return
        if not entry.encrypted:
            self._problem("unencrypted", MANIFEST_MEMBER, "manifest.json is not encrypted")
            return
        check_manifest_size(entry, self.limits)
        try:
            data = b"".join(self._stream(entry, CHUNK))
        except MemberUnsound:
            return
        try:
            self.manifest = parse_manifest(data)
        except ManifestInvalid as exc:
            self._problem("manifest_invalid", MANIFEST_MEMBER, exc.message)
            return
        self._manifest_bytes = data

    def _cross_check(self) -> None:
        if self.manifest is None:
            return
        self._listed, problems = cross_check(self.manifest, self._entries)
        for problem in problems:
            self._problem(problem.kind, problem.member, problem.message)
