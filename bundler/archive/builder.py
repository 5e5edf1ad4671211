"""The bundle builder: redact → encrypted spool → propagate literals → zip → manifest last.

:class:`BundleBuilder` is the real :class:`~bundler.archive.contracts.BundleSink`.
Collectors call :meth:`~BundleBuilder.add` (from several threads if they
like); every name and byte passes through the :class:`MemberTransform` before
it is stored, and is stored encrypted (:mod:`bundler.archive.spool`), so
nothing readable reaches disk at any point. Normalizers and the live analyzer
read the spool back through :meth:`~BundleBuilder.source`.

:meth:`~BundleBuilder.finalize` streams every member through
``transform.finalize`` (literals learned anywhere are removed everywhere) into
the encrypted zip in name order, then writes the redaction report and the
manifest last, closes, verifies and renames. :meth:`~BundleBuilder.abort`
(or leaving the ``with`` block without finalizing) leaves nothing behind.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from pathlib import Path
from types import TracebackType
from typing import Any

from schemas import (
    MANIFEST_MEMBER,
    REDACTION_REPORT_MEMBER,
    CollectorOutcome,
    TargetSummary,
    utc_now,
)

from ..source import MemberNotFound, MemberSource
from ._chunks import as_chunks
from .contracts import MemberTransform
from .deflate import inflate_raw
from .finalizing import (
    DroppedMember,
    ManifestFields,
    Precompressed,
    SealedBundle,
    Spooled,
    build_manifest,
    drop_signals,
    write_members,
    write_report,
)
from .names import member_name_problem, printable_name
from .passwords import Sealing
from .room import BundleRoom
from .sealed import unseal
from .spool import EncryptedSpool
from .spool_source import SpoolSource
from .stored import StoredMember
from .transform import NoRedaction
from .zipwriter import DEFAULT_COMPRESSLEVEL, EncryptedZipWriter, VerifyMode

RESERVED_MEMBERS = frozenset({MANIFEST_MEMBER, REDACTION_REPORT_MEMBER})
UNHASHED = "0" * 64
"""A member's sha256 until it is spooled (the room counts its entry before)."""


class BundleBuilder:
    """Collects members into an encrypted spool and seals them into a bundle.

    Usage::

        with BundleBuilder(Path("support.zip"), sealing=sealing, transform=redactor) as bundle:
            bundle.add("raw/http/workers.json", body, media_type="application/json")
            ...
            bundle.finalize(profile="flux", target=target, collectors=outcomes)
    """

    def __init__(
        self,
        path: Path,
        *,
        sealing: Sealing,
        transform: MemberTransform | None = None,
        overwrite: bool = False,
        spool_dir: Path | None = None,
        compresslevel: int = DEFAULT_COMPRESSLEVEL,
        verify: VerifyMode = "mac",
        clock: Callable[[], datetime] = utc_now,
        bundle_id: str | None = None,
        room: BundleRoom | None = None,
    ) -> None:
        """``room``: what the bundle may hold so its readers open it (doctor's); a member
        :meth:`add` or :meth:`add_derived` would take past it is refused with
        :class:`~.room.NoRoom`, and the post-write check applies its limits. Without it
        nothing is refused before that check, which applies the readers' defaults."""
        from .atomic import check_can_create

        self.path = Path(path)
        check_can_create(self.path, overwrite=overwrite)
        self._sealing = sealing
        self._transform: MemberTransform = transform or NoRedaction()
        self._overwrite = overwrite
        self._compresslevel = compresslevel
        self._verify: VerifyMode = verify
        self._clock = clock
        self._bundle_id = bundle_id or uuid.uuid4().hex
        self._spool = EncryptedSpool(spool_dir or self.path.parent, prefix=f".{self.path.name}.")
        self._lock = threading.Lock()
        self._members: dict[str, Spooled | Precompressed] = {}
        self._dropped: dict[str, DroppedMember] = {}
        self._closed = False
        self._drop_signals = drop_signals()
        self.room = room

    # -- BundleSink ---------------------------------------------------------------------------

    def add(
        self,
        name: str,
        content: bytes | Iterable[bytes],
        *,
        media_type: str = "application/octet-stream",
        schema_name: str | None = None,
        collector: str | None = None,
        truncated: bool = False,
        valid: bool | None = None,
    ) -> StoredMember | None:
        """Redact and spool one member; a second add of the same name replaces the first.

        A member with a ``collector`` is collected evidence: with a room, it is refused
        (:class:`~.room.NoRoom`) once collected members fill what the room gives them; one
        without (a document the caller makes after collection) may use the room kept."""
        return self._add(
            name,
            content,
            self._transform.transform,
            media_type=media_type,
            schema_name=schema_name,
            collector=collector,
            truncated=truncated,
            valid=valid,
        )

    def add_derived(
        self,
        name: str,
        content: bytes,
        *,
        media_type: str = "application/octet-stream",
        schema_name: str | None = None,
    ) -> StoredMember | None:
        """Spool a member made only of what this bundle holds redacted, without its pseudonyms
        made again (``transform.transform_derived``).

        For documents derived from the bundle itself: read back through :meth:`source`
        (members as stored, redacted) and from texts passed through :meth:`redact_text`,
        as doctor's evidence and live verdict are. Pass one over them again would
        pseudonymize pseudonyms, which is not idempotent: an address pseudonym is an
        address, and one address had up to three in one bundle. The secret rules still
        run (on redacted text they change nothing; a value the new document puts under a
        secret key they redact), the name is still the transform's, and sealing still
        runs ``transform.finalize`` over it, as over every member.
        """
        return self._add(
            name,
            content,
            self._transform.transform_derived,
            media_type=media_type,
            schema_name=schema_name,
        )

    def _add(
        self,
        name: str,
        content: bytes | Iterable[bytes],
        first_pass: Callable[..., Iterable[bytes]],
        *,
        media_type: str,
        schema_name: str | None = None,
        collector: str | None = None,
        truncated: bool = False,
        valid: bool | None = None,
    ) -> StoredMember | None:
        """Spool ``content`` as ``first_pass`` (the transform's) gives it, under its stored name."""
        self._require_open()
        stored = self._stored_name(name)
        entry = StoredMember(
            path=stored,
            sha256=UNHASHED,
            size=len(content) if isinstance(content, bytes) else 0,
            media_type=media_type,
            schema_name=schema_name,
            collector=collector,
            truncated=truncated,
            valid=valid,
        )
        taken = self._take_room(entry)
        try:
            spooled = self._spool.write(
                first_pass(stored, as_chunks(content), media_type=media_type)
            )
        except self._drop_signals as dropped:
            self._give_back(taken)
            reason = getattr(dropped, "reason", "policy")
            self._forget(stored, DroppedMember(stored, reason, getattr(dropped, "detail", "")))
            return None
        except BaseException:
            self._give_back(taken)
            raise
        entry.sha256, entry.size = spooled.sha256, spooled.size
        if self.room is not None and taken is not None:  # redaction changed its size a little
            self.room.adjust(entry.size - taken[0], entry.manifest_bytes() - taken[1])
        with self._lock:
            if self._closed:
                self._spool.delete(spooled)
                self._give_back(taken)
                raise RuntimeError("the bundle was finalized or aborted while a member was added")
            old = self._members.get(stored)
            self._members[stored] = Spooled(spooled, entry)
            self._dropped.pop(stored, None)
        self._let_go(old)
        return entry

    def _take_room(self, entry: StoredMember) -> tuple[int, int] | None:
        """Count ``entry`` (its size as given, before redaction) in the room, or raise
        :class:`~.room.NoRoom`: decided before the transform sees a byte, so a member left
        out leaves no trace in the redaction report. ``(size, manifest bytes)`` counted."""
        if self.room is None:
            return None
        taken = (entry.size, entry.manifest_bytes())
        self.room.take(*taken, collected=entry.collector is not None)
        return taken

    def _give_back(self, taken: tuple[int, int] | None) -> None:
        if self.room is not None and taken is not None:
            self.room.give_back(*taken)

    def _stored_name(self, name: str) -> str:
        """The (redacted) name a member is stored under; refused if unsafe or reserved."""
        stored = self._transform.member_name(name)
        problem = member_name_problem(stored)
        if problem:
            raise ValueError(f"invalid member name {printable_name(stored)!r}: {problem}")
        if stored in RESERVED_MEMBERS:
            raise ValueError(f"{stored} is written by the bundle builder itself")
        return stored

    def add_precompressed(
        self,
        name: str,
        open_deflated: Callable[[], Iterable[bytes]],
        *,
        size: int,
        sha256: str,
        media_type: str = "application/octet-stream",
        collector: str | None = None,
        sealed: bool = False,
    ) -> StoredMember:
        """Add a member that is final (redacted, literals propagated) and already deflated.

        For callers that redact and compress in worker processes (``bundler
        redact``): nothing is spooled; at :meth:`finalize` the stream from
        ``open_deflated()`` is only encrypted into the zip. The caller owns
        where the stream waits meanwhile, and must keep it encrypted. With
        ``sealed``, the stream is already this bundle's AE-2 encryption of the
        deflated member (:func:`bundler.archive.sealed.seal` under
        ``sealing.password``) and is only copied.
        """
        self._require_open()
        stored = self._stored_name(name)
        entry = StoredMember(
            path=stored, sha256=sha256, size=size, media_type=media_type, collector=collector
        )
        with self._lock:
            self._require_open()
            old = self._members.get(stored)
            self._members[stored] = Precompressed(open_deflated, entry, sealed)
            self._dropped.pop(stored, None)
        self._let_go(old)
        return entry

    def source(self) -> MemberSource:
        """What was added so far, as stored (redacted, before literal propagation)."""
        return SpoolSource(self)

    def redact_text(self, text: str) -> str:
        return self._transform.redact_text(text)

    # -- the rest of the builder -------------------------------------------------------------

    @property
    def entries(self) -> list[StoredMember]:
        """What is stored so far, by name (the manifest's entries are made from these)."""
        with self._lock:
            return [self._members[name].entry for name in sorted(self._members)]

    @property
    def dropped(self) -> list[DroppedMember]:
        with self._lock:
            return list(self._dropped.values())

    def finalize(
        self,
        *,
        command: str = "doctor",
        profile: str | None = None,
        target: TargetSummary | None = None,
        options: Mapping[str, Any] | None = None,
        collectors: Sequence[CollectorOutcome] = (),
        interrupted: bool = False,
    ) -> SealedBundle:
        """Write the bundle and publish it; the arguments are the manifest fields the caller owns.

        The target's and the options' strings pass through ``transform.redact_text``
        here: they are given as they are. The collectors' outcomes come redacted
        already, by :meth:`redact_text` (doctor's recorder, as each collector settles:
        its summary and live verdict read them so); like the members, they get only
        ``transform.finalize_text``, which removes the values learned since. Redacting a
        text twice is not harmless: ``--obfuscate network`` would give an address
        pseudonym a pseudonym of its own.
        """
        with self._lock:
            self._require_open()
            self._closed = True
            members = dict(self._members)
        created_at = self._clock()
        try:
            with EncryptedZipWriter(
                self.path,
                password=self._sealing.password,
                created_at=created_at,
                compresslevel=self._compresslevel,
                overwrite=self._overwrite,
                comment=self._sealing.zip_comment(),
                verify=self._verify,
                limits=self.room.limits if self.room is not None else None,
            ) as writer:
                entries = write_members(
                    writer, self._transform, self._spool, members, self._dropped
                )
                entries.append(write_report(writer, self._transform, list(self._dropped.values())))
                draft = build_manifest(
                    self._transform,
                    self._sealing,
                    ManifestFields(command, profile, target, options, collectors, interrupted),
                    created_at=created_at,
                    bundle_id=self._bundle_id,
                    members=entries,
                )
                writer.write_member(MANIFEST_MEMBER, draft.chunks())
                path = writer.commit()
                uncompressed = tuple(m.name for m in writer.members.values() if m.uncompressed)
        finally:
            self._spool.wipe()
        return SealedBundle(path, draft, uncompressed)

    def abort(self) -> None:
        """Forget everything: the spool is wiped, no bundle is written. Idempotent."""
        with self._lock:
            self._closed = True
        self._spool.wipe()

    def member_chunks(self, name: str) -> Iterator[bytes]:
        """Read a spooled member back (decrypted), for :class:`SpoolSource`."""
        with self._lock:
            spooled = self._members.get(name)
        if spooled is None:
            raise MemberNotFound(name)
        if isinstance(spooled, Precompressed):
            if spooled.sealed:
                return inflate_raw(unseal(self._sealing.password.reveal(), spooled.open()))
            return inflate_raw(spooled.open())
        return self._spool.read(spooled.file)

    def member_size(self, name: str) -> int:
        """A spooled member's size, without reading it, for :class:`SpoolSource`."""
        with self._lock:
            spooled = self._members.get(name)
        if spooled is None:
            raise MemberNotFound(name)
        return spooled.entry.size

    def has_member(self, name: str) -> bool:
        with self._lock:
            return name in self._members

    def member_names(self) -> list[str]:
        with self._lock:
            return sorted(self._members)

    def _forget(self, name: str, dropped: DroppedMember) -> None:
        """A dropped replacement also removes the earlier content: the newest intent wins."""
        with self._lock:
            old = self._members.pop(name, None)
            self._dropped[name] = dropped
        self._let_go(old)

    def _let_go(self, old: Spooled | Precompressed | None) -> None:
        """A member replaced or dropped: its spool file deleted, its room given back."""
        if isinstance(old, Spooled):
            self._spool.delete(old.file)
            if self.room is not None:
                self.room.give_back(old.entry.size, old.entry.manifest_bytes())

    def _require_open(self) -> None:
        if self._closed:
            raise RuntimeError("the bundle was already finalized or aborted")

    def __enter__(self) -> BundleBuilder:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.abort()  # after finalize() this only confirms the spool is gone
